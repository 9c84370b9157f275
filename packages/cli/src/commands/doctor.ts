/**
 * `steward doctor`: what this installation is and whether its state directory works.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { cannotRun } from "../CliError.js"
import * as GlobalOptions from "../GlobalOptions.js"
import * as HostConfig from "../HostConfig.js"
import * as HostSql from "../HostSql.js"
import { packageVersions } from "../internal/versions.js"
import * as Output from "../Output.js"
import * as StateDir from "../StateDir.js"

/**
 * The `doctor --json` document.
 *
 * @since 0.1.0
 * @category models
 */
export interface DoctorReport {
  readonly ok: boolean
  readonly node: string
  readonly platform: string
  readonly packages: Record<string, string>
  readonly stateDir: { readonly path: string; readonly source: StateDir.StateDirSource }
  readonly config: { readonly file: string; readonly present: boolean; readonly ok: boolean }
  readonly sqlite: {
    readonly ok: boolean
    readonly file: string
    readonly version: string
    readonly journalMode: string
    readonly migrated: boolean
  }
}

const probeSqlite = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [version] = yield* sql<{ readonly version: string }>`SELECT sqlite_version() AS version`
  const [journal] = yield* sql<{ readonly journal_mode: string }>`PRAGMA journal_mode`
  const applied = yield* sql<{ readonly n: number }>`SELECT COUNT(*) AS n FROM steward_host_migrations`
  return {
    version: version?.version ?? "unknown",
    journalMode: journal?.journal_mode ?? "unknown",
    migrated: (applied[0]?.n ?? 0) > 0
  }
})

/**
 * Build the report: resolves the state dir, validates config.json, opens and migrates SQLite.
 *
 * @since 0.1.0
 * @category constructors
 */
export const report = Effect.fn("doctor.report")(function*(stateDirFlag: Parameters<typeof StateDir.open>[0]) {
  const state = yield* StateDir.open(stateDirFlag)
  const config = yield* HostConfig.load(state)
  const sqlite = yield* probeSqlite.pipe(
    Effect.catchTag("SqlError", (error) => Effect.fail(cannotRun("sqlite", `${state.databaseFile}: ${error.message}`))),
    Effect.provide(HostSql.layer(state))
  )
  const doc: DoctorReport = {
    ok: sqlite.migrated && sqlite.journalMode === "wal",
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    packages: packageVersions(),
    stateDir: { path: state.path, source: state.source },
    config: { file: state.configFile, present: config.present, ok: true },
    sqlite: { ok: sqlite.migrated, file: state.databaseFile, ...sqlite }
  }
  return doc
})

const renderText = (doc: DoctorReport): string =>
  Output.table([
    ["steward", doc.packages["@steward/cli"] ?? "unknown"],
    ["node", `${doc.node} (${doc.platform})`],
    ...Object.entries(doc.packages).filter(([name]) => name !== "@steward/cli").map(
      ([name, version]) => [name, version] as const
    ),
    ["state dir", `${doc.stateDir.path} (${doc.stateDir.source})`],
    ["config", doc.config.present ? `${doc.config.file} OK` : `${doc.config.file} (absent, defaults)`],
    [
      "sqlite",
      `${
        doc.sqlite.ok ? "OK" : "FAILED"
      } ${doc.sqlite.file} (SQLite ${doc.sqlite.version}, journal ${doc.sqlite.journalMode}, ${
        doc.sqlite.migrated ? "migrated" : "not migrated"
      })`
    ]
  ])

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make(
  "doctor",
  { ...GlobalOptions.global },
  ({ json, stateDir }) => report(stateDir).pipe(Effect.flatMap((doc) => Output.result(json, doc, renderText)))
).pipe(
  Command.withDescription("Show Node and package versions, the state directory, and whether SQLite opens and migrates")
)
