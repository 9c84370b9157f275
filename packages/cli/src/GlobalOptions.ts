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
export const global = { stateDir, json } as const
