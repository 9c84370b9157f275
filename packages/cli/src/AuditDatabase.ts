/**
 * Where an audit project's state lives. By default it is the project's own SQLite file
 * (`<project>/audit/state.sqlite`). When the host names a PostgreSQL database (`--database-url`,
 * `$STEWARD_DATABASE_URL`, the state directory's `config.json`), each project is a schema of its
 * own there, `steward_audit_<key>`, so several projects share one team database without sharing a
 * head row, and every host that names the same key works on the same project (ADR 0601).
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Project from "@steward/audit-state/Project"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as nodePath from "node:path"
import { cannotRun, type CommandFailure } from "./CliError.js"
import * as HostConfig from "./HostConfig.js"
import * as HostDatabase from "./HostDatabase.js"
import * as HostSql from "./HostSql.js"
import * as StateDir from "./StateDir.js"

/**
 * An audit project's store: its SQLite file, or its schema in a shared PostgreSQL database.
 *
 * @since 0.1.0
 * @category models
 */
export type AuditLocation =
  | { readonly _tag: "Sqlite"; readonly file: string }
  | {
    readonly _tag: "Postgres"
    readonly url: Redacted.Redacted<string>
    readonly schema: string
    readonly key: string
    readonly source: HostDatabase.DatabaseSource
  }

/**
 * The environment variable that names a project's key in a shared database, for a checkout whose
 * folder name differs from the team's name for the project.
 *
 * @since 0.1.0
 * @category constants
 */
export const projectKeyVariable = "STEWARD_AUDIT_PROJECT"

/**
 * A project's key: `$STEWARD_AUDIT_PROJECT`, else the project folder's name — lower-cased, every
 * run of other characters one `_`, at most 48 characters (the schema name stays a plain
 * PostgreSQL identifier under its 63-byte limit).
 *
 * @since 0.1.0
 * @category constructors
 */
export const projectKey = (project: string, override: string | undefined): string => {
  const raw = override !== undefined && override.length > 0 ? override : nodePath.basename(project)
  const key = raw.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 48)
  return key.length > 0 ? key : "project"
}

/**
 * The schema that holds a project in a shared database.
 *
 * @since 0.1.0
 * @category constructors
 */
export const schemaName = (key: string): string => `steward_audit_${key}`

/**
 * A printable name for the location (credentials masked).
 *
 * @since 0.1.0
 * @category rendering
 */
export const display = (location: AuditLocation): string =>
  location._tag === "Sqlite"
    ? location.file
    : `${HostDatabase.maskText(Redacted.value(location.url))} (schema ${location.schema})`

const configUrl = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const flag = yield* Effect.serviceOption(StateDir.StateDirFlag)
  const resolved = yield* StateDir.resolvePath(flag)
  const configFile = nodePath.join(resolved.path, "config.json")
  // the audit area never creates a state directory: only an existing config is read
  if (!(yield* fs.exists(configFile).pipe(Effect.orElseSucceed(() => false)))) return undefined
  const loaded = yield* HostConfig.load({
    path: resolved.path,
    source: resolved.source,
    databaseFile: nodePath.join(resolved.path, "steward.sqlite"),
    configFile
  })
  return loaded.config.database?.url
})

/**
 * Locate a project's store from the host's database selection (ADR 0600's precedence).
 *
 * @since 0.1.0
 * @category constructors
 */
export const locate = Effect.fn("AuditDatabase.locate")(function*(paths: Project.ProjectPaths) {
  const database = yield* HostDatabase.fromEnvironment(paths.database, yield* configUrl)
  if (database._tag === "Sqlite") return { _tag: "Sqlite", file: paths.database } satisfies AuditLocation
  const key = projectKey(paths.project, process.env[projectKeyVariable])
  return {
    _tag: "Postgres",
    url: database.url,
    schema: schemaName(key),
    key,
    source: database.source
  } satisfies AuditLocation
})

/** The URL with the schema as the connection's search path (a startup parameter, per connection). */
const withSearchPath = (url: Redacted.Redacted<string>, schema: string): Redacted.Redacted<string> => {
  const parsed = new URL(Redacted.value(url))
  const options = parsed.searchParams.get("options")
  parsed.searchParams.set("options", `${options === null ? "" : `${options} `}-c search_path=${schema}`)
  return Redacted.make(parsed.toString())
}

const databaseError = (location: AuditLocation, what: string) => (error: { readonly message: string }) =>
  cannotRun("database", `${what} ${display(location)}: ${HostDatabase.maskText(error.message)}`)

/**
 * Whether the project has a store there already (the SQLite file, or the schema's head table).
 *
 * @since 0.1.0
 * @category queries
 */
export const exists = (location: AuditLocation) =>
  location._tag === "Sqlite"
    ? Effect.flatMap(FileSystem.FileSystem, (fs) => fs.exists(location.file).pipe(Effect.orElseSucceed(() => false)))
    : Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ readonly one: number }>`SELECT 1 AS one FROM information_schema.tables
        WHERE table_schema = ${location.schema} AND table_name = 'audit_state_head'`).pipe(
        Effect.map((rows) =>
          rows.length > 0
        ),
        Effect.mapError(databaseError(location, "cannot read")),
        Effect.provide(postgresClient(location.url)),
        Effect.scoped
      )

const postgresClient = (url: Redacted.Redacted<string>): Layer.Layer<SqlClient.SqlClient, CommandFailure> =>
  Layer.unwrapEffect(Effect.promise(() => import("./HostPostgres.js")).pipe(Effect.map((m) => m.layer(url))))

/**
 * The `SqlClient` for a project's store. On PostgreSQL the project's schema is created first when
 * missing; every connection then works inside it.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (location: AuditLocation): Layer.Layer<SqlClient.SqlClient, CommandFailure> =>
  location._tag === "Sqlite"
    ? HostSql.layerFile(location.file)
    : Layer.unwrapEffect(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`CREATE SCHEMA IF NOT EXISTS "${location.schema}"`)).pipe(
        // two hosts creating one project's schema at once: the loser's retry finds it there
        Effect.retry({ times: 2 }),
        Effect.mapError(databaseError(location, "cannot create")),
        Effect.provide(postgresClient(location.url)),
        Effect.scoped,
        Effect.as(postgresClient(withSearchPath(location.url, location.schema)))
      )
    )
