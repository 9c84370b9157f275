/**
 * The embedded default database: SQLite (WAL, a busy timeout) at `<state>/steward.sqlite`,
 * provided as the abstract `SqlClient` that every library store depends on.
 *
 * @since 0.1.0
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import * as fs from "node:fs"
import { cannotRun, type CommandFailure } from "./CliError.js"
import * as HostConfig from "./HostConfig.js"
import * as HostDatabase from "./HostDatabase.js"
import type { ResolvedStateDir } from "./StateDir.js"

/**
 * How long a writer waits for another process's lock before failing.
 *
 * @since 0.1.0
 * @category constants
 */
export const busyTimeoutMs = 10_000

/**
 * SQLite's `synchronous` setting for the host database (ADR 0565): `NORMAL` (the default) in WAL
 * mode syncs at checkpoints, not at every commit — a killed process loses nothing committed, a
 * power loss or OS crash may lose the last commits; `FULL` syncs every commit. Chosen with
 * `STEWARD_SQLITE_SYNCHRONOUS` (the host's `ConfigProvider`).
 *
 * @since 0.1.0
 * @category configuration
 */
export const synchronous = Config.literal("NORMAL", "FULL")("STEWARD_SQLITE_SYNCHRONOUS").pipe(
  Config.withDefault("NORMAL" as const)
)

/**
 * The host's own migrations (table `steward_host_migrations`). Library stores run theirs, each in
 * its own migrations table, when their `layerSql` is built.
 *
 * @since 0.1.0
 * @category migrations
 */
export const migrations = Migrator.fromRecord({
  "0001_host_meta": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE IF NOT EXISTS steward_host_meta (
      key TEXT PRIMARY KEY NOT NULL,
      value TEXT NOT NULL
    )`
  })
})

/**
 * Run the host migrations; returns the ids applied by this call.
 *
 * @since 0.1.0
 * @category migrations
 */
export const migrate = Migrator.make({})({ loader: migrations, table: "steward_host_migrations" }).pipe(
  // Hosts opening one fresh PostgreSQL database at once race to create the migrations table; the
  // loser's retry finds it and waits on the migrator's table lock (ADR 0600).
  Effect.retry({ times: 2 })
)

/**
 * A SQLite client for a database file, with WAL, the busy timeout and `synchronous` set. Failing
 * to open the file (a missing directory, a file that is not a database) is a typed `sqlite` error
 * naming it; an unknown `STEWARD_SQLITE_SYNCHRONOUS` an `invalid-input` error naming the values.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFile = (
  filename: string
): Layer.Layer<SqlClient.SqlClient | SqliteClient.SqliteClient, CommandFailure> =>
  Layer.unwrapEffect(
    synchronous.pipe(
      Effect.mapError((e) =>
        cannotRun("invalid-input", `STEWARD_SQLITE_SYNCHRONOUS: ${e.message}; use NORMAL or FULL`)
      ),
      Effect.map((mode) =>
        Layer.effectDiscard(
          Effect.gen(function*() {
            const sql = yield* SqlClient.SqlClient
            yield* sql.unsafe(`PRAGMA busy_timeout = ${busyTimeoutMs}`)
            yield* sql.unsafe("PRAGMA foreign_keys = ON")
            yield* sql.unsafe(`PRAGMA synchronous = ${mode}`)
          })
        ).pipe(
          Layer.provideMerge(SqliteClient.layer({ filename })),
          Layer.catchAllCause((cause) =>
            Layer.fail(cannotRun("sqlite", `cannot open ${filename}: ${describe(Cause.squash(cause))}`))
          )
        )
      )
    )
  )

/**
 * The state directory's database, opened, configured and migrated: SQLite at
 * `<state>/steward.sqlite`, or PostgreSQL when `--database-url`, `$STEWARD_DATABASE_URL` or the
 * config file names one (ADR 0600). Failures become a typed `sqlite` / `database` error naming the
 * database (a PostgreSQL password is masked).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  state: ResolvedStateDir
): Layer.Layer<SqlClient.SqlClient, CommandFailure, FileSystem.FileSystem> =>
  Layer.unwrapEffect(
    HostConfig.load(state).pipe(
      Effect.flatMap((loaded) => HostDatabase.fromEnvironment(state.databaseFile, loaded.config.database?.url))
    ).pipe(Effect.map((database) =>
      database._tag === "Sqlite"
        ? Layer.effectDiscard(
          migrate.pipe(
            Effect.mapError((error) => cannotRun("sqlite", `cannot migrate ${state.databaseFile}: ${error.message}`))
          )
        ).pipe(Layer.provideMerge(layerFile(state.databaseFile)))
        : Layer.effectDiscard(
          migrate.pipe(
            Effect.mapError((error) =>
              cannotRun(
                "database",
                `cannot migrate ${HostDatabase.display(database)}: ${HostDatabase.maskText(error.message)}`
              )
            )
          )
        ).pipe(Layer.provideMerge(postgresLayer(database.url)))
    ))
  )

/**
 * The state directory's database for a command that only reads: opened read-only, not migrated,
 * so it works on a read-only state directory (and never changes the file). SQLite is opened with
 * `readonly` and without switching the journal mode; PostgreSQL as usual, without migrating.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerReadOnly = (
  state: ResolvedStateDir
): Layer.Layer<SqlClient.SqlClient, CommandFailure, FileSystem.FileSystem> =>
  Layer.unwrapEffect(
    HostConfig.load(state).pipe(
      Effect.flatMap((loaded) => HostDatabase.fromEnvironment(state.databaseFile, loaded.config.database?.url))
    ).pipe(Effect.map((database) =>
      database._tag === "Sqlite"
        ? Layer.effectDiscard(
          Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`PRAGMA busy_timeout = ${busyTimeoutMs}`))
        ).pipe(
          // No database file yet: nothing is stored, and an empty in-memory database says so.
          Layer.provideMerge(
            fs.existsSync(state.databaseFile)
              ? SqliteClient.layer({ filename: state.databaseFile, readonly: true, disableWAL: true })
              : SqliteClient.layer({ filename: ":memory:" })
          ),
          Layer.catchAllCause((cause) =>
            Layer.fail(cannotRun("sqlite", `cannot open ${state.databaseFile}: ${describe(Cause.squash(cause))}`))
          )
        )
        : postgresLayer(database.url)
    ))
  )

// The PostgreSQL driver loads only when a URL selects it: SQLite commands never pay for it.
const postgresLayer = (url: Redacted.Redacted<string>): Layer.Layer<SqlClient.SqlClient, CommandFailure> =>
  Layer.unwrapEffect(Effect.promise(() => import("./HostPostgres.js")).pipe(Effect.map((m) => m.layer(url))))

const describe = (error: unknown): string => error instanceof Error ? error.message : String(error)
