/**
 * `steward db copy --to URL`: move a state directory's stores from the embedded SQLite database
 * into a shared PostgreSQL database (ADR 0600).
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import * as SqlClient from "@effect/sql/SqlClient"
import * as BlobStore from "@steward/algal-runtime/BlobStore"
import * as SlotStore from "@steward/algal-runtime/SlotStore"
import * as AuditStore from "@steward/audit-state/AuditStore"
import * as Project from "@steward/audit-state/Project"
import * as Evidence from "@steward/governance-rules/Evidence"
import * as EventStore from "@steward/harness-sessions/EventStore"
import * as ReflexLedger from "@steward/reflex-core/ReflexLedger"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as AuditDatabase from "../AuditDatabase.js"
import { cannotRun, refused } from "../CliError.js"
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
const auditProjectOption = Options.text("audit-project").pipe(
  Options.withDescription(
    "Also copy this audit project's store into its own schema of the target (repeatable; ADR 0601)"
  ),
  Options.repeated
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

/** What happened to one audit project: its tables, and its event chain verified on the target. */
interface AuditCopy extends DatabaseCopy.CopyReport {
  readonly project: string
  readonly schema: string
  readonly chain: "intact"
}

/**
 * Copy one audit project's SQLite store into its schema of the target. Never merged: a project has
 * one head row and one chain, so a target schema holding another state is refused.
 */
const copyAuditProject = (directory: string, url: Redacted.Redacted<string>) =>
  Effect.scoped(Effect.gen(function*() {
    const paths = Project.paths(directory)
    const fs = yield* FileSystem.FileSystem
    if (!(yield* fs.exists(paths.database).pipe(Effect.orElseSucceed(() => false)))) {
      return yield* cannotRun("not-found", `--audit-project ${directory}: no audit state at ${paths.database}`)
    }
    const key = AuditDatabase.projectKey(paths.project, process.env[AuditDatabase.projectKeyVariable])
    const location: AuditDatabase.AuditLocation = {
      _tag: "Postgres",
      url,
      schema: AuditDatabase.schemaName(key),
      key,
      source: "flag"
    }
    const where = AuditDatabase.display(location)
    const source = Context.get(yield* Layer.build(HostSql.layerFile(paths.database)), SqlClient.SqlClient)
    const targetContext = yield* Layer.build(
      AuditStore.layerSql.pipe(
        Layer.provideMerge(AuditDatabase.layer(location)),
        Layer.mapError((error) =>
          error._tag === "CommandFailure"
            ? error
            : cannotRun("database", `migrating ${where}: ${HostDatabase.maskText(error.message)}`)
        )
      )
    )
    const report = yield* DatabaseCopy.copy(source, Context.get(targetContext, SqlClient.SqlClient))
    // the copied chain must verify where it now lives, read back through the store itself
    const store = Context.get(targetContext, AuditStore.AuditStore)
    const status = yield* store.streamStatus.pipe(
      Effect.mapError((error) => cannotRun("database", `verifying ${where}: ${error.message}`))
    )
    if (status.state !== "intact") {
      return yield* refused("database", `database copy: the audit chain of ${where} is ${status.state} after the copy`)
    }
    return { ...report, project: paths.project, schema: location.schema, chain: "intact" } satisfies AuditCopy
  }))

const renderAuditCopy = (copy: AuditCopy): string =>
  `audit project ${copy.project} → schema ${copy.schema}: ${
    copy.outcome === "already-copied" ? "already there" : copy.outcome
  }, ${copy.tables.reduce((n, table) => n + table.rows, 0)} rows verified, event chain ${copy.chain}`

const copyCommand = Command.make(
  "copy",
  { ...GlobalOptions.global, to: toOption, merge: mergeOption, auditProject: auditProjectOption },
  ({ auditProject, json, merge, stateDir, to }) =>
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
      const audit = yield* Effect.forEach(auditProject, (directory) => copyAuditProject(directory, selected.url))
      yield* Output.result(
        json,
        { ...report, from: state.databaseFile, to: display, audit },
        (all) => [renderCopy(display)(all), ...audit.map(renderAuditCopy)].join("\n")
      )
    })
).pipe(
  Command.withDescription(
    "Copy every store of the state directory's SQLite database (and audit projects) into PostgreSQL, verified"
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
