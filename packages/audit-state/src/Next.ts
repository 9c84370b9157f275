/**
 * `next`'s decision with its drift check, remembered per revision (ADR 0141). The first `next` at
 * a revision loads the state, decides, checks the views (xcheck's check over every view, or the
 * decision's records with `next_drift_scope = decision`, ADR 0134) and records a memo: the
 * decision and the mark of every view it verified. While the store is as that revision's
 * validated write left it and the configuration is the same, a later `next` stats the views
 * instead of loading the state — any view whose file changed since sends it down the full path,
 * which reads that view and refuses on drift with xcheck's message.
 *
 * @example
 * ```ts
 * import { AuditStore, Next, Project } from "@steward/audit-state"
 * import * as Effect from "effect/Effect"
 *
 * const program = Effect.gen(function*() {
 *   const store = yield* AuditStore.AuditStore
 *   const { decision, revision, sessionId } = yield* Next.decide(Project.paths("/p"), store)
 *   if (!decision.kind.startsWith("run-")) yield* store.recordGate(decision, { known: { revision, sessionId } })
 * })
 * ```
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as AuditStore from "./AuditStore.js"
import * as Decision from "./Decision.js"
import * as Remembered from "./internal/project/rememberedCheck.js"
import * as Project from "./Project.js"
import * as State from "./State.js"

/**
 * `next`'s decision at a revision, and the session of the dispatch open at it (what its
 * `gate_reached` event names).
 *
 * @since 0.3.0
 * @category models
 */
export interface NextDecision {
  readonly decision: Decision.Decision
  readonly revision: number
  readonly sessionId: string | null
}

/** The store's memo name for `next` (ADR 0141). */
const MEMO = "next"

/** The memo's body: the decision, its session, and the views verified with it. */
const Body = Schema.parseJson(Schema.Struct({
  kind: Schema.String,
  // without the embargo (which is never memoised) a decision's detail is text, a list or nothing
  detail: Schema.Union(Schema.String, Remembered.Strings, Schema.Null),
  session_id: Schema.NullOr(Schema.String),
  ...Remembered.verifiedFields
}))
const decodeBody = Schema.decodeOption(Body)
const encodeBody = Schema.encodeOption(Body)

/** What else the decision and its check depend on: the configuration and the view banners. */
const basisOf = (p: Project.ProjectPaths, config: Decision.DecisionConfig) =>
  JSON.stringify([config, ...Remembered.bannerBasis(p)])

/** The memo's decision, when its basis is `basis` and every view it verified is unchanged. */
const remembered = (p: Project.ProjectPaths, memo: AuditStore.Memo | undefined, basis: string) =>
  Effect.gen(function*() {
    if (memo === undefined || memo.basis !== basis) return undefined
    const body = Option.getOrUndefined(decodeBody(memo.body))
    if (body === undefined || !(yield* Remembered.stillVerified(p, body))) return undefined
    const out: NextDecision = {
      decision: { kind: body.kind, detail: body.detail },
      revision: memo.revision,
      sessionId: body.session_id
    }
    return out
  })

/** The full path: load, decide, check the views (refusing on drift), record marks and the memo. */
const decideAfresh = Effect.fn("Next.decideAfresh")(function*(
  p: Project.ProjectPaths,
  store: AuditStore.AuditStoreShape,
  config: Decision.DecisionConfig,
  basis: string | undefined
) {
  const doc = yield* store.load
  const history = config.embargo === true ? yield* store.embargoHistory : []
  const decision = Decision.stateAndDecision(doc, config, history)
  const verified = yield* Remembered.checkRemembering(p, store, doc, Project.nextDriftRecords(doc, decision, config))
  const out: NextDecision = {
    decision,
    revision: doc.state_revision,
    sessionId: State.openDispatch(doc)?.session_id ?? null
  }
  const body = basis === undefined || verified === undefined ? Option.none() : encodeBody({
    kind: decision.kind,
    detail: decision.detail as string | ReadonlyArray<string> | null,
    session_id: out.sessionId,
    ...verified
  })
  if (basis !== undefined && Option.isSome(body)) {
    yield* store.putMemo(MEMO, { revision: out.revision, basis, body: body.value })
  }
  return out
})

/**
 * `next`'s decision, refusing with a `drift` error (xcheck's message) when a checked view
 * disagrees with the state. Nothing is recorded but view marks and the memo; record the gate
 * with `recordGate(decision, { known: { revision, sessionId } })`. With the embargo on, the
 * decision reads the dispatch history and is never memoised.
 *
 * @since 0.3.0
 * @category decision
 */
export const decide = Effect.fn("Next.decide")(function*(
  p: Project.ProjectPaths,
  store: AuditStore.AuditStoreShape
) {
  const config = yield* Project.readConfig(p)
  if (config.embargo === true) return yield* decideAfresh(p, store, config, undefined)
  const basis = basisOf(p, config)
  const hit = yield* remembered(p, yield* store.memo(MEMO), basis)
  return hit ?? (yield* decideAfresh(p, store, config, basis))
})
