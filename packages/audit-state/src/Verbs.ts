/**
 * The 16 state-changing write verbs of spec §3.1 as pure functions over a document, plus the
 * dispatch authorization of §2.4. A verb returns the next document and its transition, or a
 * refusal carrying xcheck's key phrase; it never touches storage (see `AuditStore`). Each verb is
 * one handler in `internal/verbs/<verb>.ts`; `apply` dispatches on the verb table.
 *
 * @since 0.1.0
 */
import * as Authorize from "./internal/verbs/authorize.js"
import * as Common from "./internal/verbs/common.js"
import * as Model from "./internal/verbs/model.js"
import { handlers } from "./internal/verbs/table.js"
import type * as State from "./State.js"
import type { IndependenceLevel } from "./Vocabulary.js"

/**
 * A request to run one write verb (xcheck's argument grammar as data), as
 * {@link VerbRequestSchema} defines it: statuses, severities, verdicts, refusal reasons and
 * catalog kinds are literal.
 *
 * @since 0.1.0
 * @category models
 */
export type VerbRequest = Model.VerbRequest

/**
 * The Schema of every verb request: a union tagged by `verb`, with literal vocabularies.
 *
 * @since 0.2.0
 * @category schemas
 */
export const VerbRequestSchema = Model.VerbRequestSchema

/**
 * A verb request as a host reading text receives it (argv): {@link VerbRequest} with the
 * vocabulary fields as plain strings. Every `VerbRequest` is one; {@link apply} refuses a value
 * outside the vocabulary in xcheck's addressed wording (ADR 0133).
 *
 * @since 0.3.0
 * @category models
 */
export type VerbRequestText = Model.VerbRequestText

/**
 * The Schema of {@link VerbRequestText}: {@link VerbRequestSchema} from the same definition, the
 * vocabulary fields widened to strings.
 *
 * @since 0.3.0
 * @category schemas
 */
export const VerbRequestTextSchema = Model.VerbRequestTextSchema

/**
 * The name of a state-changing verb.
 *
 * @since 0.1.0
 * @category models
 */
export type VerbName = Model.VerbName

/**
 * Checks a `file-finding` locator against the subject (the audited material).
 *
 * @since 0.1.0
 * @category models
 */
export type SubjectResolver = Model.SubjectResolver

/**
 * Where Steward may deliberately be stricter than xcheck; every option defaults to off, which is
 * xcheck 0.9.5's behaviour (ADR 0112).
 *
 * @since 0.2.0
 * @category models
 */
export type VerbPolicy = Model.VerbPolicy

/**
 * The strict policy: every deliberate difference from xcheck switched on.
 *
 * @since 0.2.0
 * @category models
 */
export const strictPolicy: VerbPolicy = {
  strictClassMoves: true,
  refuseNoOpAdmin: true,
  strictRulingTokens: true,
  keepTerminalRefusals: true
}

/**
 * What a verb may read besides the document: today's date and the subject resolver.
 *
 * @since 0.1.0
 * @category models
 */
export type VerbContext = Model.VerbContext

/**
 * A verb's successful outcome, before the store commits it.
 *
 * @since 0.1.0
 * @category models
 */
export type Transition = Model.Transition

/**
 * A refused verb: a closed code and the addressed message.
 *
 * @since 0.1.0
 * @category models
 */
export type Refusal = Model.Refusal

/**
 * Whether an outcome is a refusal.
 *
 * @since 0.1.0
 * @category guards
 */
export const isRefusal = (u: Transition | Refusal): u is Refusal => "_tag" in u && u._tag === "Refusal"

/**
 * Authorize a verb against the open dispatch's role (§2.4). `undefined` = allowed. With no open
 * dispatch the caller is the operator and everything is allowed; admin verbs are refused for
 * every dispatched role; an unrouted verb is refused fail-closed.
 *
 * @since 0.1.0
 * @category authorization
 */
export const authorize: (
  doc: State.StateDoc,
  request: VerbRequestText
) => { readonly role: string; readonly target: string; readonly reason: string } | undefined = Authorize.authorize

/**
 * The verb's target (id, key, pass, plan or limit).
 *
 * @since 0.1.0
 * @category authorization
 */
export const targetOf: (request: VerbRequestText) => string = Authorize.targetOf

/**
 * Bind a claimed session to the open dispatch (§2.4 provenance). `unbound` when no dispatch
 * was ever recorded.
 *
 * @since 0.1.0
 * @category authorization
 */
export const bindSession: (
  doc: State.StateDoc,
  verb: string,
  session: string,
  role: string
) => Refusal | { readonly unbound: boolean } = Common.bindSession

/**
 * Independence of a verdict from the fixer's and the verifier's envelopes (§7). The same known
 * provider and model on both sides is `same`, not xcheck's `same-provider-different-session`
 * (ADR 0026); a provider or model unknown on either side stays `same-provider-different-session`.
 *
 * @since 0.1.0
 * @category independence
 */
export const independenceLevel: (
  fixerId: string | undefined,
  verifierId: string | undefined,
  fixer: State.Session | undefined,
  verifier: State.Session | undefined
) => { readonly level: IndependenceLevel; readonly note: string } = Common.independenceLevel

/**
 * Whether a body/report path is a plain relative path inside `audit/` (no absolute path, no `..`).
 *
 * @since 0.1.0
 * @category validation
 */
export const isAuditPath: (p: string) => boolean = Common.isAuditPath

/**
 * Run one verb over a (valid) document. Pure: the same document, request and context always
 * give the same outcome. The caller validates the result, bumps the revision and commits.
 *
 * @since 0.1.0
 * @category verbs
 */
export const apply = (doc: State.StateDoc, request: VerbRequestText, ctx: VerbContext): Transition | Refusal =>
  (handlers[request.verb] as Model.Handler<VerbName>)(doc, request, ctx)
