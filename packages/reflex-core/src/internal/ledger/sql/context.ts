/**
 * What every SQL ledger query shares: the client, the cap, the insertion-order column and the
 * two ways a query runs (a write transaction that takes the writer lock first, a read).
 * @internal
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as ReflexError from "../../../ReflexError.js"
import { ledgerError } from "./rows.js"

/** The SQL ledger's shared context. @internal */
export interface SqlLedger {
  readonly sql: SqlClient.SqlClient
  readonly maxObservations: number
  /** Ties at one millisecond go to the row inserted last (rowid, or PostgreSQL's ctid). */
  readonly insertionOrder: Fragment
  /** One transaction, writer lock first unless its first statement already writes. */
  readonly write: <A, R>(
    what: string,
    body: Effect.Effect<A, ReflexError.ReflexError | SqlError, R>,
    startsWithWrite?: boolean
  ) => Effect.Effect<A, ReflexError.ReflexError, R>
  readonly read: <A>(what: string, body: Effect.Effect<A, unknown>) => Effect.Effect<A, ReflexError.ReflexError>
}

/** The context over the current `SqlClient`. @internal */
export const makeContext = (maxObservations: number) =>
  Effect.map(SqlClient.SqlClient, (sql): SqlLedger => {
    // Ties at one millisecond go to the row inserted last: SQLite's rowid, PostgreSQL's tuple id
    // (observations are never updated, so it only moves when retention frees space — ADR 0600).
    const insertionOrder = sql.onDialectOrElse({ pg: () => sql.literal("ctid"), orElse: () => sql.literal("rowid") })
    // Begin every write transaction with a write, so the writer lock is taken up front.
    const lock = sql`INSERT INTO reflex_lock (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = reflex_lock.n + 1`
    return {
      sql,
      maxObservations,
      insertionOrder,
      write: (what, body, startsWithWrite = false) =>
        sql.withTransaction(startsWithWrite ? body : Effect.zipRight(lock, body)).pipe(
          Effect.mapError((e) => ReflexError.isReflexError(e) ? e : ledgerError(what)(e))
        ),
      read: (what, body) => body.pipe(Effect.mapError((e) => ReflexError.isReflexError(e) ? e : ledgerError(what)(e)))
    }
  })
