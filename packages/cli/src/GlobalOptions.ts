/**
 * Options every command accepts, wherever they appear on the command line.
 *
 * @since 0.1.0
 */
import * as Options from "@effect/cli/Options"

/**
 * `--state-dir DIR`: where Steward keeps its database, config and user programs.
 * Falls back to `$STEWARD_STATE_DIR`, then `./.steward` (resolved in `StateDir`).
 *
 * @since 0.1.0
 * @category options
 */
export const stateDir = Options.text("state-dir").pipe(
  Options.withDescription("State directory (default: $STEWARD_STATE_DIR, else ./.steward)"),
  Options.optional
)

/**
 * `--json`: print exactly one JSON document on stdout; errors as `{"error":{…}}` on stderr.
 *
 * @since 0.1.0
 * @category options
 */
export const json = Options.boolean("json").pipe(
  Options.withDescription("Print one JSON document on stdout (errors as JSON on stderr)")
)

/**
 * `--database-url URL`: use this PostgreSQL database instead of the state directory's SQLite file
 * (before `$STEWARD_DATABASE_URL` and `config.json` `database.url`; ADR 0600). `Main` reads it from
 * the command line for every command; it is declared here so the grammar accepts it anywhere.
 *
 * @since 0.1.0
 * @category options
 */
export const databaseUrl = Options.redacted("database-url").pipe(
  Options.withDescription("PostgreSQL URL to use instead of the state directory's SQLite file"),
  Options.optional
)

/**
 * Spread into a command's options so `--state-dir` and `--json` work after any verb.
 *
 * @example
 * ```ts
 * Command.make("doctor", { ...GlobalOptions.global }, ({ json, stateDir }) => …)
 * ```
 *
 * @since 0.1.0
 * @category options
 */
export const global = { stateDir, json, databaseUrl } as const

/**
 * The value of a global option in raw argv (`--name VALUE` or `--name=VALUE`, the last one before
 * any `--`): read before the grammar runs, so every command sees the same database and state
 * directory whatever its own options are.
 *
 * @since 0.1.0
 * @category utils
 */
export const valueIn = (argv: ReadonlyArray<string>, name: string): string | undefined => {
  const args = argv.slice(2)
  const end = args.indexOf("--")
  const before = end === -1 ? args : args.slice(0, end)
  let value: string | undefined
  before.forEach((arg, index) => {
    if (arg === `--${name}`) value = before[index + 1]
    else if (arg.startsWith(`--${name}=`)) value = arg.slice(name.length + 3)
  })
  return value
}
