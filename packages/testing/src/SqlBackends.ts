/**
 * The SQL backends a store's conformance suite runs against. SQLite (a fresh in-memory or file
 * database) is always there; PostgreSQL runs when `STEWARD_TEST_DATABASE_URL` names a server —
 * `scripts/postgres.sh start` prints one — and each layer build gets a database of its own, dropped
 * when the layer is released, so suites never see each other's rows. Under CI (`CI=true`) a missing
 * URL is an error rather than a skip: the PostgreSQL suites must run there.
 *
 * @since 0.1.0
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pgTypes } from "./pgTypes.js"

/**
 * A backend a suite can run on.
 *
 * @since 0.1.0
 * @category models
 */
export interface SqlBackend {
  readonly name: "SQLite" | "PostgreSQL"
  /** A fresh, empty database each time the layer is built. */
  readonly layer: () => Layer.Layer<SqlClient.SqlClient>
}

/**
 * The PostgreSQL server URL tests use, if any.
 *
 * @since 0.1.0
 * @category configuration
 */
export const postgresUrl: string | undefined = process.env.STEWARD_TEST_DATABASE_URL || undefined

/**
 * Why the PostgreSQL suites are not running here, or `undefined` when they are. Under CI the URL is
 * required, so its absence throws instead of skipping.
 *
 * @since 0.1.0
 * @category configuration
 */
export const postgresSkipReason: string | undefined = (() => {
  if (postgresUrl !== undefined) return undefined
  if (process.env.CI === "true") {
    throw new Error(
      "STEWARD_TEST_DATABASE_URL is unset under CI: the PostgreSQL suites must run (.ci/run starts a server)"
    )
  }
  return "skipped: STEWARD_TEST_DATABASE_URL is unset (start a server with `eval \"$(scripts/postgres.sh start)\"`)"
})()

let counter = 0

/**
 * A PostgreSQL database of its own on the configured server: its URL, for processes and commands
 * that open it themselves. Created now, dropped (with any open connections) when the scope closes.
 *
 * @since 0.1.0
 * @category databases
 */
export const freshPostgresDatabase = (url: string = postgresUrl ?? ""): Effect.Effect<string, never, Scope.Scope> =>
  Effect.gen(function*() {
    const name = `steward_t_${process.pid}_${++counter}_${Math.floor(Math.random() * 1e9)}`
    const admin = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1 })
    yield* Effect.acquireRelease(
      admin.unsafe(`CREATE DATABASE ${name}`),
      () => admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).pipe(Effect.ignore)
    )
    const target = new URL(url)
    target.pathname = `/${name}`
    return target.toString()
  }).pipe(
    Effect.provide(Reactivity.layer),
    // a test database that cannot be created is a broken test environment, not a test result
    Effect.orDie
  )

/**
 * A client on a PostgreSQL database of its own (see `freshPostgresDatabase`), dropped when the
 * layer is released.
 *
 * @since 0.1.0
 * @category layers
 */
export const postgresLayer = (url: string = postgresUrl ?? ""): Layer.Layer<SqlClient.SqlClient> =>
  Layer.unwrapScoped(
    Effect.map(
      freshPostgresDatabase(url),
      (database) => PgClient.layer({ url: Redacted.make(database), types: pgTypes, maxConnections: 20 })
    )
  ).pipe(Layer.provide(Reactivity.layer), Layer.orDie)

/**
 * Runs `migrate` from `pools` separate connection pools at once against one fresh PostgreSQL
 * database — what several hosts opening a new shared database together do — and returns what each
 * run returned. The pools are closed and the database dropped with the scope.
 *
 * @since 0.1.0
 * @category databases
 */
export const migrateConcurrently = <A, E>(
  migrate: Effect.Effect<A, E, SqlClient.SqlClient>,
  pools = 8
): Effect.Effect<ReadonlyArray<A>, E, Scope.Scope> =>
  Effect.gen(function*() {
    const database = yield* freshPostgresDatabase()
    const clients = yield* Effect.forEach(
      Array.from({ length: pools }),
      () => PgClient.make({ url: Redacted.make(database), types: pgTypes, maxConnections: 1 })
    ).pipe(Effect.provide(Reactivity.layer), Effect.orDie)
    return yield* Effect.forEach(clients, (sql) => Effect.provideService(migrate, SqlClient.SqlClient, sql), {
      concurrency: "unbounded"
    })
  })

/**
 * A fresh SQLite database in a temporary file (WAL, so several connections behave as in the host).
 *
 * @since 0.1.0
 * @category layers
 */
export const sqliteLayer = (): Layer.Layer<SqlClient.SqlClient> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "steward-sqlite-"))
  return SqliteClient.layer({ filename: path.join(dir, "test.sqlite") }).pipe(Layer.orDie)
}

/**
 * SQLite always; PostgreSQL when configured.
 *
 * @since 0.1.0
 * @category backends
 */
export const available: ReadonlyArray<SqlBackend> = [
  { name: "SQLite", layer: sqliteLayer },
  ...(postgresUrl === undefined ? [] : [{ name: "PostgreSQL" as const, layer: () => postgresLayer() }])
]

/**
 * Every backend, with the reason a backend is skipped (`undefined` when it runs) — for
 * `describe.skipIf(skip)(name, …)`, so a skipped PostgreSQL suite says so in the report.
 *
 * @since 0.1.0
 * @category backends
 */
export const all: ReadonlyArray<SqlBackend & { readonly skip: string | undefined }> = [
  { name: "SQLite", layer: sqliteLayer, skip: undefined },
  { name: "PostgreSQL", layer: () => postgresLayer(), skip: postgresSkipReason }
]
