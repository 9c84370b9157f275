/**
 * The one error type of `@steward/governance-rules`: a closed `code` set, a human message and,
 * where it applies, the file, JSON path and key that were wrong.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { GovernanceError } from "@steward/governance-rules"
 *
 * Effect.fail(GovernanceError.make("policy-invalid", "rules[0].effect must be allow, ask or deny")).pipe(
 *   Effect.catchTag("GovernanceError", (error) => Effect.succeed(error.code))
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * The closed code set.
 *
 * - `policy-invalid`: a policy or case file does not validate (names file, path and key).
 * - `policy-io`: a policy file could not be read.
 * - `input-invalid`: a tool call is malformed (unknown tool, missing field, bad JSON).
 * - `parser-unavailable`: the tree-sitter-bash WASM grammar could not be loaded.
 * - `denied`: the call was denied by a rule (the citation is attached).
 * - `ask-unanswered`: the call needs an answer and nobody answered (fails closed, citation attached).
 * - `evidence-store`: the evidence stream could not be read or written.
 *
 * @since 0.1.0
 * @category models
 */
export const codes = [
  "policy-invalid",
  "policy-io",
  "input-invalid",
  "parser-unavailable",
  "denied",
  "ask-unanswered",
  "evidence-store"
] as const

/**
 * @since 0.1.0
 * @category models
 */
export const GovernanceErrorCode = Schema.Literal(...codes)

/**
 * @since 0.1.0
 * @category models
 */
export type GovernanceErrorCode = typeof GovernanceErrorCode.Type

/**
 * A typed governance failure.
 *
 * @since 0.1.0
 * @category errors
 */
export class GovernanceError
  extends Schema.TaggedError<GovernanceError>("@steward/governance-rules/GovernanceError")("GovernanceError", {
    code: GovernanceErrorCode,
    message: Schema.String,
    /** The file that was wrong, when a file was involved. */
    file: Schema.optional(Schema.String),
    /** The JSON path inside the file or value, e.g. `rules[3].effect`. */
    path: Schema.optional(Schema.String),
    /** The offending key, when a key was unknown or missing. */
    key: Schema.optional(Schema.String),
    /** The line in the file, where there is one (1-based). */
    line: Schema.optional(Schema.Number),
    /** The limit that was exceeded (bytes for a file's size, levels for nesting). */
    limit: Schema.optional(Schema.Number),
    /** Structured detail, e.g. the decision with its citation for `denied` / `ask-unanswered`. */
    detail: Schema.optional(Schema.Unknown),
    cause: Schema.optional(Schema.Defect)
  })
{}

/**
 * Build a `GovernanceError`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  code: GovernanceErrorCode,
  message: string,
  extra: {
    readonly file?: string
    readonly path?: string
    readonly key?: string
    readonly line?: number
    readonly limit?: number
    readonly detail?: unknown
    readonly cause?: unknown
  } = {}
): GovernanceError => new GovernanceError({ code, message, ...extra })
