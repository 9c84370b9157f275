/**
 * The verb requests as one Schema tagged union (the single source of their shape), and the
 * outcome types every handler returns.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import type * as AuditError from "../../AuditError.js"
import type * as State from "../../State.js"
import { REFUSAL_REASONS, SEVERITIES, STATUSES } from "../../Vocabulary.js"

const text = Schema.String
const maybe = Schema.optional(Schema.String)
const ids = Schema.Array(Schema.String)

/** The closed vocabularies a request names: literal unions, or plain text for a host reading argv. */
interface RequestVocabulary<Status, Severity, Verdict, Reason, Kind> {
  readonly status: Status
  readonly severity: Severity
  readonly verdict: Verdict
  readonly reason: Reason
  readonly kind: Kind
}

const strictVocabulary = {
  status: Schema.Literal(...STATUSES),
  severity: Schema.Literal(...SEVERITIES),
  verdict: Schema.Literal("closed", "reopened"),
  reason: Schema.Literal(...REFUSAL_REASONS),
  kind: Schema.Literal("dimension", "norm", "unit")
}

const textVocabulary = { status: text, severity: text, verdict: text, reason: text, kind: text }

/** The one definition of every verb's request, over either vocabulary (ADR 0133). */
const requestUnion = <
  Status extends Schema.Schema.Any,
  Severity extends Schema.Schema.Any,
  Verdict extends Schema.Schema.Any,
  Reason extends Schema.Schema.Any,
  Kind extends Schema.Schema.Any
>(v: RequestVocabulary<Status, Severity, Verdict, Reason, Kind>) =>
  Schema.Union(
    Schema.Struct({
      verb: Schema.Literal("set-status"),
      id: text,
      status: v.status,
      next: maybe,
      retake: maybe
    }),
    Schema.Struct({ verb: Schema.Literal("record-fix"), id: text, session: text, plan: maybe, scope: maybe }),
    Schema.Struct({
      verb: Schema.Literal("record-verdict"),
      id: text,
      verdict: v.verdict,
      session: text,
      reason: maybe
    }),
    Schema.Struct({ verb: Schema.Literal("admit-construal"), key: text, admitter: text }),
    Schema.Struct({
      verb: Schema.Literal("file-finding"),
      id: text,
      title: text,
      severity: v.severity,
      dimension: text,
      unit: ids,
      pass: text,
      body: text,
      locator: maybe,
      sourceHash: maybe,
      recurrenceOf: maybe,
      members: Schema.optional(ids),
      session: maybe
    }),
    Schema.Struct({
      verb: Schema.Literal("propose-construal"),
      key: text,
      role: text,
      charter: text,
      session: text,
      body: text
    }),
    Schema.Struct({ verb: Schema.Literal("record-plan"), id: text, findings: ids, body: text }),
    Schema.Struct({
      verb: Schema.Literal("queue-pass"),
      id: text,
      dimension: text,
      units: ids,
      charter: text,
      stop: text,
      base: maybe
    }),
    Schema.Struct({
      verb: Schema.Literal("record-refusal"),
      id: text,
      reason: Schema.optional(v.reason),
      clear: Schema.optional(Schema.Boolean),
      /** The finding body text (its `## Refusal` section must hold prose). */
      bodyText: maybe
    }),
    Schema.Struct({ verb: Schema.Literal("block-on-norm"), id: text }),
    Schema.Struct({ verb: Schema.Literal("record-ruling"), id: text, norm: text, ruledBy: text }),
    Schema.Struct({ verb: Schema.Literal("record-coverage"), id: text, report: text, findings: Schema.optional(ids) }),
    Schema.Struct({ verb: Schema.Literal("set-limit"), key: text, value: text }),
    Schema.Struct({
      verb: Schema.Literal("amend-pass"),
      id: text,
      dimension: maybe,
      units: Schema.optional(ids),
      charter: maybe,
      stop: maybe
    }),
    Schema.Struct({ verb: Schema.Literal("cancel-pass"), id: text }),
    Schema.Struct({
      verb: Schema.Literal("update-catalog"),
      kind: v.kind,
      key: text,
      source: maybe,
      scope: maybe,
      catches: maybe,
      norms: Schema.optional(ids),
      material: maybe,
      size: maybe,
      responsibility: maybe,
      remove: Schema.optional(Schema.Boolean)
    })
  )

/**
 * The verb requests, a union tagged by `verb` whose statuses, severities, verdicts, refusal
 * reasons and catalog kinds are literal: a typed caller cannot name a status that does not exist.
 *
 * @internal
 */
export const VerbRequestSchema = requestUnion(strictVocabulary)

/**
 * The same requests as a host reading text receives them (argv): the vocabulary fields are plain
 * strings, because a person's typo must reach the verb, which refuses it in xcheck's addressed
 * wording (a decode failure could not give it).
 *
 * @internal
 */
export const VerbRequestTextSchema = requestUnion(textVocabulary)

/** @internal */
export type VerbRequest = Schema.Schema.Type<typeof VerbRequestSchema>

/** @internal */
export type VerbRequestText = Schema.Schema.Type<typeof VerbRequestTextSchema>

/** @internal */
export type VerbName = VerbRequest["verb"]

/** @internal */
export interface SubjectResolver {
  /** `undefined` = the locator resolves and the hash matches; else the addressed problem. */
  readonly check: (path: string, lines: readonly [number, number] | undefined, sourceHash: string) => string | undefined
}

/**
 * Where Steward may deliberately be stricter than xcheck. Every option defaults to off, which is
 * xcheck 0.9.5's behaviour (ADR 0112).
 *
 * @internal
 */
export interface VerbPolicy {
  /** Class findings never reach disputed/withdrawn/obsolete; a member returns to accepted only after its class is rejected (ADR 0104). */
  readonly strictClassMoves?: boolean | undefined
  /** Refuse an administrative verb that changes nothing (xcheck records it as a new revision). */
  readonly refuseNoOpAdmin?: boolean | undefined
  /** `record-ruling` checks the ruling token grammar and the norms catalog (ADR 0103). */
  readonly strictRulingTokens?: boolean | undefined
  /** `record-refusal --clear` refuses on a terminal record. */
  readonly keepTerminalRefusals?: boolean | undefined
}

/** @internal */
export interface VerbContext {
  readonly today: string
  readonly subject?: SubjectResolver | undefined
  readonly policy?: VerbPolicy | undefined
}

/** @internal */
export interface Transition {
  readonly doc: State.StateDoc
  readonly target: string
  readonly fromStatus: string | null
  readonly toStatus: string | null
  readonly message: string
  readonly extras?: Readonly<Record<string, unknown>>
}

/** @internal */
export interface Refusal {
  readonly _tag: "Refusal"
  readonly code: "refused" | "invalid-input" | "not-found" | "invalid-state"
  readonly message: string
  /** The verbs the message points to (ADR 0135). */
  readonly hints?: ReadonlyArray<AuditError.Hint> | undefined
}

/** One verb's handler: pure over the document, the request and the context. @internal */
export type Handler<K extends VerbName> = (
  doc: State.StateDoc,
  request: Extract<VerbRequestText, { readonly verb: K }>,
  ctx: VerbContext
) => Transition | Refusal

/** @internal */
export const refuse = (
  verb: string,
  code: Refusal["code"],
  message: string,
  hints?: ReadonlyArray<AuditError.Hint>
): Refusal => ({
  _tag: "Refusal",
  code,
  message: `${verb}: ${message}`,
  ...(hints === undefined ? {} : { hints })
})
