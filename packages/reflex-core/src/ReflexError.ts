/**
 * The one error type of `@steward/reflex-core`: a closed `code` set and a message naming what
 * failed and where (a file, a line, a field, a head).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * The closed code set.
 *
 * - `invalid-input`: bad caller input (features, turn facts, a label value, an observation id).
 * - `invalid-params`: a parameter generation that fails validation (foreign heads, unbounded weights).
 * - `invalid-config`: the `extensions.reflexes` config entry (unknown keys, unknown modes).
 * - `invalid-import`: an import file (line number in the message).
 * - `program-rejected`: an organism that is not admissible under the reflex `pure` profile.
 * - `program-failed`: an admitted organism that failed, or returned a malformed decision.
 * - `unknown-reflex`: a reflex name nobody registered.
 * - `not-found`: an observation, decision or generation that does not exist.
 * - `conflict`: the active generation changed while training ("train again").
 * - `ledger`: the ledger could not be read or written.
 *
 * @since 0.1.0
 * @category models
 */
export const codes = [
  "invalid-input",
  "invalid-params",
  "invalid-config",
  "invalid-import",
  "program-rejected",
  "program-failed",
  "unknown-reflex",
  "not-found",
  "conflict",
  "ledger"
] as const

/**
 * @since 0.1.0
 * @category models
 */
export const ReflexErrorCode = Schema.Literal(...codes)

/**
 * @since 0.1.0
 * @category models
 */
export type ReflexErrorCode = typeof ReflexErrorCode.Type

/**
 * A typed reflex failure. `details` carries structured context (every violated admission rule,
 * the import line, the config key).
 *
 * @since 0.1.0
 * @category errors
 */
export class ReflexError extends Schema.TaggedError<ReflexError>("@steward/reflex-core/ReflexError")("ReflexError", {
  code: ReflexErrorCode,
  message: Schema.String,
  details: Schema.optional(Schema.Unknown),
  cause: Schema.optional(Schema.Defect)
}) {}

/**
 * Build an error.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (code: ReflexErrorCode, message: string, details?: unknown, cause?: unknown): ReflexError =>
  new ReflexError({
    code,
    message,
    ...(details === undefined ? {} : { details }),
    ...(cause === undefined ? {} : { cause })
  })

/**
 * Guard for values that are `ReflexError`s.
 *
 * @since 0.1.0
 * @category guards
 */
export const isReflexError = (u: unknown): u is ReflexError => u instanceof ReflexError
