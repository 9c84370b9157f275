/**
 * The package's one error: a closed `code` set, a human message carrying xcheck's key phrases,
 * and optional structured detail.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * Every failure code of `@steward/audit-state`.
 *
 * - `invalid-state`: a state document failed the closed schema (load, import, or before commit).
 * - `invalid-input`: a verb argument is malformed (bad id form, not a whole number, unknown option value).
 * - `not-found`: the named record, pass, construal or state does not exist.
 * - `refused`: the verb is legal to ask but the state forbids it (transition table, repeat, gates).
 * - `unauthorized`: the open dispatch's role may not run the verb (a `write_refused` event was recorded).
 * - `stale-revision`: `expectRevision` did not match the stored revision.
 * - `ledger`: the event stream is broken, short, replaced or unreadable.
 * - `drift`: a generated view was hand-edited or is missing.
 * - `io`: a file could not be read or written.
 * - `storage`: the database failed.
 * - `output-schema`: a `--json` payload violated its closed output schema.
 *
 * @since 0.1.0
 * @category errors
 */
export const AuditErrorCode = Schema.Literal(
  "invalid-state",
  "invalid-input",
  "not-found",
  "refused",
  "unauthorized",
  "stale-revision",
  "ledger",
  "drift",
  "io",
  "storage",
  "output-schema"
)

/**
 * @since 0.1.0
 * @category errors
 */
export type AuditErrorCode = typeof AuditErrorCode.Type

/**
 * A verb a refusal points to (`record-ruling F-0001 --norm …`): the library names the verb and its
 * arguments, a host names its own program (ADR 0135).
 *
 * @since 0.3.0
 * @category models
 */
export const Hint = Schema.Struct({ verb: Schema.String, args: Schema.Array(Schema.String) })

/**
 * @since 0.3.0
 * @category models
 */
export type Hint = typeof Hint.Type

/**
 * The typed failure of every audit-state operation.
 *
 * @since 0.1.0
 * @category errors
 */
export class AuditError extends Schema.TaggedError<AuditError>()("AuditError", {
  code: AuditErrorCode,
  message: Schema.String,
  details: Schema.optional(Schema.Unknown),
  /** The verbs a refusal points to, as data; the message names each as {@link command} does. */
  hints: Schema.optional(Schema.Array(Hint))
}) {}

/**
 * How a message names a hinted verb: the verb and its arguments in backticks, without a program.
 *
 * @since 0.3.0
 * @category rendering
 */
export const command = (hint: Hint): string => "`" + [hint.verb, ...hint.args].join(" ") + "`"

/**
 * The message with every hinted verb named as `program` runs it (`steward audit record-ruling …`).
 *
 * @since 0.3.0
 * @category rendering
 */
export const renderHints = (error: AuditError, program: string): string => {
  let out = error.message
  for (const h of error.hints ?? []) {
    out = out.split(command(h)).join(command({ verb: `${program} ${h.verb}`, args: h.args }))
  }
  return out
}

/**
 * Shorthand constructor.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  code: AuditErrorCode,
  message: string,
  details?: unknown,
  hints?: ReadonlyArray<Hint>
): AuditError =>
  new AuditError({
    code,
    message,
    ...(details === undefined ? {} : { details }),
    ...(hints === undefined || hints.length === 0 ? {} : { hints })
  })
