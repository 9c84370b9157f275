/**
 * How commands print: one JSON document under `--json`, readable text otherwise.
 *
 * @since 0.1.0
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"

/**
 * Print a command's result: `json` when `--json` was given, else the text rendering.
 *
 * @since 0.1.0
 * @category printing
 */
export const result = <A>(json: boolean, value: A, text: (value: A) => string): Effect.Effect<void> =>
  json ? Console.log(JSON.stringify(value, null, 2)) : Console.log(text(value))

/**
 * Progress for long work: only on an interactive stderr and never under `--json`.
 *
 * @since 0.1.0
 * @category printing
 */
export const progress = (json: boolean, message: string): Effect.Effect<void> =>
  json || process.stderr.isTTY !== true ? Effect.void : Console.error(message)

/**
 * Aligned `key  value` lines for text output.
 *
 * @since 0.1.0
 * @category printing
 */
export const table = (rows: ReadonlyArray<readonly [string, string]>): string => {
  const width = Math.max(0, ...rows.map(([key]) => key.length))
  return rows.map(([key, value]) => `${key.padEnd(width)}  ${value}`).join("\n")
}
