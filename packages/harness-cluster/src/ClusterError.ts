/**
 * The one error type of `@steward/harness-cluster`, with a closed set of codes.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * Every way a cluster operation can fail.
 * - `INVALID_CONFIG`: a setting (config document or flag) is malformed or out of range; `field` names it.
 * - `BUSY`: another live runner holds the state directory's `runner.lock`; `pid` names it.
 * - `LOCK_FAILED`: the lock file could not be read, written or removed (a file system error).
 *
 * @since 0.1.0
 * @category models
 */
export const ClusterErrorCode = Schema.Literal("INVALID_CONFIG", "BUSY", "LOCK_FAILED")

/**
 * @since 0.1.0
 * @category models
 */
export type ClusterErrorCode = typeof ClusterErrorCode.Type

/**
 * @since 0.1.0
 * @category errors
 */
export class ClusterError extends Schema.TaggedError<ClusterError>("@steward/harness-cluster/ClusterError")(
  "ClusterError",
  {
    code: ClusterErrorCode,
    message: Schema.String,
    /** The setting at fault, as written by the user: `flags.listen`, `config.shardLockExpiration`. */
    field: Schema.optional(Schema.String),
    /** The process holding `runner.lock` (code `BUSY`). */
    pid: Schema.optional(Schema.Number),
    cause: Schema.optional(Schema.Defect)
  }
) {}
