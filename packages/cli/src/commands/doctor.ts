/**
 * `steward doctor`: what this installation is and whether its state directory works.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { cannotRun } from "../CliError.js"
import * as GlobalOptions from "../GlobalOptions.js"
import * as HostConfig from "../HostConfig.js"
import * as HostDatabase from "../HostDatabase.js"
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
  /** The embedded SQLite database, when it is the one in use. */
  readonly sqlite?: {
    readonly ok: boolean
    readonly file: string
    readonly version: string
    readonly journalMode: string
    readonly migrated: boolean
    /** `false`: the database does not exist yet; SQLite was probed in a scratch copy, nothing was created. */
    readonly created: boolean
  }
  /** The database every store uses (ADR 0600), with each store's migration state. */
  readonly database: {
    readonly kind: "sqlite" | "postgres"
    readonly url: string
    readonly source: HostDatabase.DatabaseSource
    readonly version: string
    readonly stores: ReadonlyArray<StoreMigrations>
  }
}

/**
 * One store's migrations table: how many migrations it has applied and the latest one, or
 * `applied: 0` when the store has not been used in this database yet.
 *
 * @since 0.1.0
 * @category models
 */
export interface StoreMigrations {
  readonly store: string
  readonly table: string
  readonly applied: number
  readonly latest: string | null
}

/** Each store's own migrations table (a store creates it the first time it is opened). */
const storeTables: ReadonlyArray<readonly [string, string]> = [
  ["host", "steward_host_migrations"],
  ["algal-runtime", "algal_runtime_migrations"],
  ["governance-rules", "governance_rules_migrations"],
  ["reflex-core", "reflex_core_migrations"],
  ["harness-sessions", "harness_sessions_migrations"],
  ["audit-state", "audit_state_migrations"]
]

const probeStores = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return yield* Effect.forEach(
    storeTables,
    ([store, table]) =>
      sql.unsafe<{ readonly n: number; readonly latest: string | null }>(
        `SELECT COUNT(*) AS n, MAX(CAST(migration_id AS TEXT) || '_' || name) AS latest FROM ${table}`
      ).pipe(
        Effect.map((rows): StoreMigrations => ({
          store,
          table,
          applied: Number(rows[0]?.n ?? 0),
          latest: rows[0]?.latest ?? null
        })),
        // a store that was never opened here has no migrations table yet
        Effect.orElseSucceed((): StoreMigrations => ({ store, table, applied: 0, latest: null }))
      )
  )
})

const probePostgres = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ readonly server_version: string }>`SHOW server_version`
  return { version: row?.server_version ?? "unknown", stores: yield* probeStores }
})

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
  // A look, not a first use: where the default state directory (`./.steward`) does not exist,
  // nothing is created; SQLite is probed in a scratch directory instead, removed afterwards. A
  // directory the person named is checked and used as it always was.
  const resolved = yield* StateDir.resolvePath(stateDirFlag)
  const absent = resolved.source === "default" && !fs.existsSync(resolved.path)
  const real = absent ? null : yield* StateDir.open(stateDirFlag)
  const scratch = real === null ? fs.mkdtempSync(path.join(os.tmpdir(), "steward-doctor-")) : null
  yield* Effect.addFinalizer(() =>
    Effect.sync(() => scratch === null || fs.rmSync(scratch, { recursive: true, force: true }))
  )
  const databaseFile = path.join(resolved.path, "steward.sqlite")
  const state: StateDir.ResolvedStateDir = real ?? {
    path: resolved.path,
    source: resolved.source,
    databaseFile: path.join(scratch!, "steward.sqlite"),
    configFile: path.join(resolved.path, "config.json")
  }
  const config = yield* HostConfig.load(state)
  const database = yield* HostDatabase.fromEnvironment(databaseFile, config.config.database?.url)
  const url = HostDatabase.display(database)
  const base = {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    packages: packageVersions(),
    stateDir: { path: state.path, source: state.source },
    config: { file: state.configFile, present: config.present, ok: true }
  }
  if (database._tag === "Postgres") {
    const probe = yield* probePostgres.pipe(
      Effect.catchTag(
        "SqlError",
        (error) => Effect.fail(cannotRun("database", `${url}: ${HostDatabase.maskText(error.message)}`))
      ),
      Effect.provide(HostSql.layer(state))
    )
    const host = probe.stores.find((store) => store.store === "host")
    const doc: DoctorReport = {
      ...base,
      ok: (host?.applied ?? 0) > 0,
      database: { kind: "postgres", url, source: database.source, ...probe }
    }
    return doc
  }
  const { sqlite, stores } = yield* Effect.all({ sqlite: probeSqlite, stores: probeStores }).pipe(
    Effect.catchTag("SqlError", (error) => Effect.fail(cannotRun("sqlite", `${state.databaseFile}: ${error.message}`))),
    Effect.provide(HostSql.layer(state))
  )
  const doc: DoctorReport = {
    ...base,
    ok: sqlite.migrated && sqlite.journalMode === "wal",
    sqlite: {
      ok: sqlite.migrated,
      file: databaseFile,
      created: scratch === null,
      ...sqlite
    },
    database: { kind: "sqlite", url, source: "default", version: sqlite.version, stores }
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
    doc.sqlite === undefined
      ? [
        "database",
        `${
          doc.ok ? "OK" : "FAILED"
        } ${doc.database.url} (PostgreSQL ${doc.database.version}, from ${doc.database.source})`
      ]
      : [
        "sqlite",
        `${doc.sqlite.ok ? "OK" : "FAILED"} ${doc.sqlite.file}${
          doc.sqlite.created ? "" : " (not created yet; probed in a scratch database)"
        } (SQLite ${doc.sqlite.version}, journal ${doc.sqlite.journalMode}, ${
          doc.sqlite.migrated ? "migrated" : "not migrated"
        })`
      ],
    [
      "stores",
      doc.database.stores.map((store) =>
        `${store.store} ${store.applied === 0 ? "(not used yet)" : `${store.applied} (${store.latest})`}`
      ).join(", ")
    ]
  ])

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make(
  "doctor",
  { ...GlobalOptions.global },
  ({ json, stateDir }) =>
    Effect.scoped(report(stateDir)).pipe(Effect.flatMap((doc) => Output.result(json, doc, renderText)))
).pipe(
  Command.withDescription("Show Node and package versions, the state directory, and whether SQLite opens and migrates")
)
