/**
 * `steward db copy --to URL`: move a state directory's stores from the embedded SQLite database
 * into a shared PostgreSQL database (ADR 0600).
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as SqlClient from "@effect/sql/SqlClient"
import * as BlobStore from "@steward/algal-runtime/BlobStore"
import * as SlotStore from "@steward/algal-runtime/SlotStore"
import * as Evidence from "@steward/governance-rules/Evidence"
import * as EventStore from "@steward/harness-sessions/EventStore"
import * as ReflexLedger from "@steward/reflex-core/ReflexLedger"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { cannotRun } from "../CliError.js"
import * as DatabaseCopy from "../DatabaseCopy.js"
import * as GlobalOptions from "../GlobalOptions.js"
import * as HostDatabase from "../HostDatabase.js"
import * as HostPostgres from "../HostPostgres.js"
import * as HostSql from "../HostSql.js"
import * as Output from "../Output.js"
import * as StateDir from "../StateDir.js"

/**
 * Every library store a state database holds. Building them against a client runs each store's
 * own migrations, so the target gets exactly the tables the stores expect.
 *
 * @since 0.1.0
 * @category layers
 */
export const storesLayer = Layer.mergeAll(
  BlobStore.layerSql,
  SlotStore.layerSql,
  Evidence.layerSql,
  ReflexLedger.layerSql,
  EventStore.layerSql
)

const toOption = Options.redacted("to").pipe(
  Options.withDescription("The PostgreSQL URL to copy into (postgres://user@host:port/db)")
)
const mergeOption = Options.boolean("merge").pipe(
  Options.withDescription("Copy into a target that already holds rows: keep them and add the missing ones")
)

const renderCopy = (target: string) => (report: DatabaseCopy.CopyReport): string => {
  const verb = report.outcome === "already-copied" ? "already holds" : report.outcome
  const lines = report.tables.map((table) =>
    `  ${table.table.padEnd(28)} ${String(table.rows).padStart(7)} rows  ${
      table.copied === table.rows ? "" : `(${table.copied} written) `
    }verified`
  )
  return [`${verb === "already holds" ? `${target} already holds this state` : `${verb} into ${target}`}`, ...lines]
    .join("\n")
}

const copyCommand = Command.make(
  "copy",
  { ...GlobalOptions.global, to: toOption, merge: mergeOption },
  ({ json, merge, stateDir, to }) =>
    Effect.gen(function*() {
      const state = yield* StateDir.open(stateDir)
      const selected = yield* HostDatabase.select(state.databaseFile, { flag: Option.some(Redacted.value(to)) })
      if (selected._tag !== "Postgres") {
        return yield* cannotRun("usage", "--to: a PostgreSQL URL is required")
      }
      const display = HostDatabase.display(selected)
      const report = yield* Effect.scoped(
        Effect.gen(function*() {
          // the source is always the state directory's own SQLite file, whatever else is configured
          const source = Context.get(yield* Layer.build(HostSql.layerFile(state.databaseFile)), SqlClient.SqlClient)
          const targetContext = yield* Layer.build(
            Layer.merge(storesLayer, Layer.effectDiscard(HostSql.migrate)).pipe(
              Layer.provideMerge(HostPostgres.layer(selected.url)),
              Layer.mapError((error) =>
                error._tag === "CommandFailure"
                  ? error
                  : cannotRun("database", `migrating ${display}: ${HostDatabase.maskText(error.message)}`)
              )
            )
          )
          const target = Context.get(targetContext, SqlClient.SqlClient)
          return yield* DatabaseCopy.copy(source, target, { merge })
        })
      )
      yield* Output.result(json, { ...report, from: state.databaseFile, to: display }, renderCopy(display))
    })
).pipe(
  Command.withDescription(
    "Copy every store of the state directory's SQLite database into PostgreSQL, verified table by table"
  )
)

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("db").pipe(
  Command.withDescription("Databases: move the embedded SQLite state into a shared PostgreSQL database"),
  Command.withSubcommands([copyCommand])
)
