/**
 * The one error type of `@steward/algal-runtime`, carrying one of the 28 codes of ALGAL v1 §1.7
 * (the closed set a receipt may carry).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AlgalError } from "@steward/algal-runtime"
 *
 * const program = Effect.fail(AlgalError.make("GRAPH_CYCLE", "cycle through a -> b -> a"))
 * program.pipe(Effect.catchTag("AlgalError", (error) => Effect.succeed(error.code)))
 * ```
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * The closed code set, in the order of the original's `CODES` table.
 *
 * @since 0.1.0
 * @category models
 */
export const codes = [
  "PARSE_FAILED",
  "MANIFEST_INVALID",
  "GRAPH_CYCLE",
  "TYPE_MISMATCH",
  "GUARD_INVALID",
  "SCORER_INVALID",
  "AXIS_INVALID",
  "INTERFACE_MISMATCH",
  "DEPTH_EXCEEDED",
  "INPUT_MISSING",
  "FN_UNKNOWN",
  "FN_FAILED",
  "EXPR_FAILED",
  "TOOL_UNKNOWN",
  "TOOL_FAILED",
  "EFFECT_FAILED",
  "EFFECT_UNPARSEABLE",
  "EFFECT_UNBOUND",
  "EFFECT_SUSPENDED",
  "CAPABILITY_DENIED",
  "MAILBOX_FULL",
  "BUDGET_EXHAUSTED",
  "STUCK",
  "STORE_MISS",
  "DIGEST_MISMATCH",
  "RECEIPT_MISMATCH",
  "IO_FAILED",
  "INTERNAL"
] as const

/**
 * @since 0.1.0
 * @category models
 */
export const AlgalErrorCode = Schema.Literal(...codes)

/**
 * @since 0.1.0
 * @category models
 */
export type AlgalErrorCode = typeof AlgalErrorCode.Type

/**
 * A typed ALGAL failure: `code` from the closed set, the human `message` the receipt records, and
 * optionally where it happened (`cell`, a JSON `path` in the manifest) and structured `detail`
 * (e.g. an `algal.expr.v1` error record).
 *
 * @since 0.1.0
 * @category errors
 */
export class AlgalError extends Schema.TaggedError<AlgalError>("@steward/algal-runtime/AlgalError")("AlgalError", {
  code: AlgalErrorCode,
  message: Schema.String,
  cell: Schema.optional(Schema.String),
  path: Schema.optional(Schema.String),
  detail: Schema.optional(Schema.Unknown)
}) {}

/**
 * Build an error.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  code: AlgalErrorCode,
  message: string,
  where?: { readonly cell?: string; readonly path?: string; readonly detail?: unknown }
): AlgalError =>
  new AlgalError({
    code,
    message,
    ...(where?.cell === undefined ? {} : { cell: where.cell }),
    ...(where?.path === undefined ? {} : { path: where.path }),
    ...(where?.detail === undefined ? {} : { detail: where.detail })
  })

/**
 * `PARSE_FAILED`: the original's `Error::invalid`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const invalid = (message: string, path?: string): AlgalError =>
  make("PARSE_FAILED", message, path === undefined ? undefined : { path })

/**
 * `BUDGET_EXHAUSTED`: the original's `Error::limit`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const limit = (message: string, where?: { readonly cell?: string; readonly path?: string }): AlgalError =>
  make("BUDGET_EXHAUSTED", message, where)

/**
 * Guard for values that are `AlgalError`s.
 *
 * @since 0.1.0
 * @category guards
 */
export const isAlgalError = (u: unknown): u is AlgalError => u instanceof AlgalError
