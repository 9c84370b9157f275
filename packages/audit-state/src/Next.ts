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
import type * as Embargo from "./Embargo.js"
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

/**
 * The memo's body: the decision, its session, and the views it was checked against — every view
 * (`all`: the store's memo of every view verified at the revision) or those it lists.
 */
const Body = Schema.parseJson(Schema.Struct({
  kind: Schema.String,
  // without the embargo (which is never memoised) a decision's detail is text, a list or nothing
  detail: Schema.Union(Schema.String, Remembered.Strings, Schema.Null),
  session_id: Schema.NullOr(Schema.String),
  all: Schema.Boolean,
  ...Remembered.verifiedFields
}))
const decodeBody = Schema.decodeOption(Body)
const encodeBody = Schema.encodeOption(Body)

/** What else the decision and its check depend on: the configuration and the view banners. */
const basisOf = (p: Project.ProjectPaths, config: Decision.DecisionConfig) =>
  JSON.stringify([config, ...Remembered.bannerBasis(p)])

/** Record `next`'s memo at `out.revision`: checked against every view, or against `views`. */
const remember = (
  store: AuditStore.AuditStoreShape,
  basis: string,
  out: NextDecision,
  views: Remembered.VerifiedViews | "all"
) =>
  Option.match(
    encodeBody({
      kind: out.decision.kind,
      detail: out.decision.detail as string | ReadonlyArray<string> | null,
      session_id: out.sessionId,
      ...(views === "all" ? { all: true, files: [], marks: [] } : { all: false, ...views })
    }),
    { onNone: () => Effect.void, onSome: (body) => store.putMemo(MEMO, { revision: out.revision, basis, body }) }
  )

/** The memo's decision, when its basis is `basis` and every view it was checked against is unchanged. */
const remembered = (
  p: Project.ProjectPaths,
  store: AuditStore.AuditStoreShape,
  memo: AuditStore.Memo | undefined,
  basis: string
) =>
  Effect.gen(function*() {
    if (memo === undefined || memo.basis !== basis) return undefined
    const body = Option.getOrUndefined(decodeBody(memo.body))
    if (body === undefined) return undefined
    const views = body.all ? yield* Remembered.allVerified(p, store, memo.revision) : body
    if (views === undefined || !(yield* Remembered.stillVerified(p, views))) return undefined
    const out: NextDecision = {
      decision: { kind: body.kind, detail: body.detail },
      revision: memo.revision,
      sessionId: body.session_id
    }
    return out
  })

/** The decision at `doc`, and the session of its open dispatch. */
const decisionAt = (
  doc: State.StateDoc,
  config: Decision.DecisionConfig,
  history: ReadonlyArray<Embargo.HistoryEvent>
): NextDecision => ({
  decision: Decision.stateAndDecision(doc, config, history),
  revision: doc.state_revision,
  sessionId: State.openDispatch(doc)?.session_id ?? null
})

/** The full path: load, decide, check the views (refusing on drift), record marks and the memo. */
const decideAfresh = Effect.fn("Next.decideAfresh")(function*(
  p: Project.ProjectPaths,
  store: AuditStore.AuditStoreShape,
  config: Decision.DecisionConfig,
  basis: string | undefined
) {
  const doc = yield* store.load
  const out = decisionAt(doc, config, config.embargo === true ? yield* store.embargoHistory : [])
  const named = Project.nextDriftRecords(doc, out.decision, config)
  const verified = yield* Remembered.checkRemembering(p, store, doc, named)
  if (basis === undefined || verified === undefined) return out
  // a check of every view is the full check `status` and `metrics` make: it is remembered as such
  if (named === undefined) yield* Remembered.rememberAll(p, store, out.revision, verified)
  yield* remember(store, basis, out, named === undefined ? "all" : verified)
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
  const hit = yield* remembered(p, store, yield* store.memo(MEMO), basis)
  return hit ?? (yield* decideAfresh(p, store, config, basis))
})

/**
 * Remember `next`'s decision at `doc` — the state a verb just wrote and whose full check it
 * carried over (`Checked.carry`) — so the `next` after the verb needs neither the state nor a
 * check of the views (ADR 0141). Nothing is remembered with the embargo on, or once the store
 * has moved past `doc`'s revision.
 *
 * @since 0.3.0
 * @category decision
 */
export const prime = Effect.fn("Next.prime")(function*(
  p: Project.ProjectPaths,
  store: AuditStore.AuditStoreShape,
  doc: State.StateDoc
) {
  const config = yield* Project.readConfig(p)
  if (config.embargo === true) return
  yield* remember(store, basisOf(p, config), decisionAt(doc, config, []), "all")
})
