/**
 * The SQL ledger over the abstract `SqlClient` (SQLite and PostgreSQL): every write is one
 * transaction that takes the writer lock first; retention costs what it drops (ADR 0407). The
 * queries live in `sql/` by what they touch; this module runs the migrations and wires them.
 * @internal
 */
import * as Effect from "effect/Effect"
import type { LedgerOptions, Service } from "../../ReflexLedger.js"
import { MAX_OBSERVATIONS } from "./common.js"
import { migrate } from "./migrations.js"
import { makeContext } from "./sql/context.js"
import { generationQueries } from "./sql/generations.js"
import { importQueries } from "./sql/import.js"
import { labelQueries } from "./sql/labels.js"
import { observationQueries } from "./sql/observations.js"
import { ledgerError } from "./sql/rows.js"
import { trialQueries } from "./sql/trials.js"

/** Build the SQL ledger (runs the migrations). @internal */
export const makeSql = (options: LedgerOptions = {}) =>
  Effect.gen(function*() {
    const ctx = yield* makeContext(options.maxObservations ?? MAX_OBSERVATIONS)
    yield* migrate.pipe(Effect.mapError(ledgerError("migrate")))
    const service: Service = {
      ...generationQueries(ctx),
      ...observationQueries(ctx),
      ...labelQueries(ctx),
      ...trialQueries(ctx),
      ...importQueries(ctx)
    }
    return service
  })
