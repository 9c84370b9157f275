/**
 * The one error type of `@steward/harness-sessions`, with a closed set of codes.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * Every way a harness operation can fail. `BUSY`: another process owns the session (its lease is
 * live), so this one may neither drive nor write its runs.
 *
 * @since 0.1.0
 * @category models
 */
export const HarnessErrorCode = Schema.Literal(
  "SESSION_NOT_FOUND",
  "RUN_NOT_FOUND",
  "INVALID_INPUT",
  "GOAL_REFUSED",
  "MODEL_FAILED",
  "TOOL_FAILED",
  "STORE_FAILED",
  "VERIFY_FAILED",
  "BUSY"
)

/**
 * @since 0.1.0
 * @category models
 */
export type HarnessErrorCode = typeof HarnessErrorCode.Type

/**
 * @since 0.1.0
 * @category errors
 */
export class HarnessError extends Schema.TaggedError<HarnessError>("@steward/harness-sessions/HarnessError")(
  "HarnessError",
  { code: HarnessErrorCode, message: Schema.String }
) {}
