/**
 * Which database a command uses. The embedded default is SQLite in the state directory; a team
 * that shares state points every host at one PostgreSQL server instead. The URL comes from, in
 * order: `--database-url`, `$STEWARD_DATABASE_URL`, `config.json` `database.url` (ADR 0600).
 * Everything printable goes through `display`, which masks the password.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { cannotRun, type CommandFailure } from "./CliError.js"

/**
 * Where the database URL came from.
 *
 * @since 0.1.0
 * @category models
 */
export type DatabaseSource = "flag" | "env" | "config" | "default"

/**
 * The database a command runs against.
 *
 * @since 0.1.0
 * @category models
 */
export type Database =
  | { readonly _tag: "Sqlite"; readonly file: string; readonly source: "default" }
  | { readonly _tag: "Postgres"; readonly url: Redacted.Redacted<string>; readonly source: DatabaseSource }

/**
 * The `--database-url` flag, when the command line carried one. `Main` provides it; code that
 * opens the database reads it with `Effect.serviceOption`, so it is never a requirement.
 *
 * @since 0.1.0
 * @category flags
 */
export class DatabaseUrlFlag extends Context.Tag("@steward/cli/DatabaseUrlFlag")<
  DatabaseUrlFlag,
  Redacted.Redacted<string>
>() {}

/**
 * Pick the database: the flag, then the environment, then the config file, then SQLite at
 * `sqliteFile`. A URL that is not `postgres://` / `postgresql://` is refused, naming where it came
 * from (with the credentials masked).
 *
 * @since 0.1.0
 * @category constructors
 */
export const select = (
  sqliteFile: string,
  options: {
    readonly flag?: Option.Option<string> | undefined
    readonly env?: string | undefined
    readonly config?: string | undefined
  } = {}
): Effect.Effect<Database, CommandFailure> => {
  const candidates: ReadonlyArray<readonly [DatabaseSource, string | undefined]> = [
    ["flag", Option.getOrUndefined(options.flag ?? Option.none())],
    ["env", options.env],
    ["config", options.config]
  ]
  for (const [source, value] of candidates) {
    if (value === undefined || value === "") continue
    if (!/^postgres(ql)?:\/\//.test(value)) {
      return Effect.fail(
        cannotRun(
          "invalid-input",
          `${sourceName[source]}: ${maskText(value)} is not a PostgreSQL URL (postgres://user@host:port/db)`
        )
      )
    }
    return Effect.succeed({ _tag: "Postgres", url: Redacted.make(value), source })
  }
  return Effect.succeed({ _tag: "Sqlite", file: sqliteFile, source: "default" })
}

/**
 * Select from the process: the `--database-url` flag `Main` provided, `$STEWARD_DATABASE_URL`, and
 * the config file's URL when the caller has read it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromEnvironment = (sqliteFile: string, configUrl?: string) =>
  Effect.flatMap(Effect.serviceOption(DatabaseUrlFlag), (flag) =>
    select(sqliteFile, {
      flag: Option.map(flag, Redacted.value),
      env: process.env.STEWARD_DATABASE_URL,
      config: configUrl
    }))

const sourceName: Record<DatabaseSource, string> = {
  flag: "--database-url",
  env: "$STEWARD_DATABASE_URL",
  config: "config.json database.url",
  default: "default"
}

/**
 * A printable name for the database: the SQLite file, or the PostgreSQL URL without its password.
 *
 * @since 0.1.0
 * @category rendering
 */
export const display = (database: Database): string =>
  database._tag === "Sqlite" ? database.file : maskText(Redacted.value(database.url))

/**
 * Mask the password of anything that looks like a URL with credentials; messages from the
 * PostgreSQL driver pass through here before they are printed.
 *
 * @since 0.1.0
 * @category rendering
 */
export const maskText = (text: string): string => text.replace(/(\/\/[^:/@\s]+):[^@\s]*@/g, "$1:***@")
