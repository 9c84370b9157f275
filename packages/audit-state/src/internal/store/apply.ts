/**
 * One write verb as one transaction, in xcheck's order: authorize (before the lock), lock, load +
 * drift guard, expected revision, the verb, the commit. Every refusal after authorization still
 * records the lease pair (xcheck's do).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as AuditError from "../../AuditError.js"
import * as State from "../../State.js"
import * as Verbs from "../../Verbs.js"
import type { Snapshot, Tx } from "./backend.js"
import { appendEvents, commit, lease } from "./commit.js"
import type { EngineContext } from "./context.js"
import type { Applied, ApplyOptions, AuditStoreShape } from "./model.js"
import { now, requireIntact, requireSnapshot } from "./snapshot.js"

type Outcome =
  | { readonly _tag: "applied"; readonly applied: Applied }
  | { readonly _tag: "denied"; readonly error: AuditError.AuditError }

/** An unauthorized verb: a `write_refused` event, no lease (xcheck refuses before the lock). */
const deny = (
  ctx: EngineContext,
  tx: Tx,
  snap: Snapshot,
  request: Verbs.VerbRequestText,
  at: { readonly ts: string; readonly sessionId: string | null }
) =>
  Effect.gen(function*() {
    const denied = Verbs.authorize(snap.doc, request)
    if (denied === undefined) return undefined
    yield* appendEvents(ctx, tx, snap, [{
      ts: at.ts,
      event: "write_refused",
      session_id: at.sessionId,
      verb: request.verb,
      role: denied.role,
      target: denied.target,
      reason: denied.reason
    }])
    return AuditError.make("unauthorized", `${request.verb}: ${denied.reason}`)
  })

const applyIn = (
  ctx: EngineContext,
  tx: Tx,
  request: Verbs.VerbRequestText,
  options: ApplyOptions
): Effect.Effect<Outcome, AuditError.AuditError> =>
  Effect.gen(function*() {
    const snap = yield* requireSnapshot(ctx, tx)
    yield* requireIntact(snap)
    const { today, ts } = yield* now
    const sessionId = State.openDispatch(snap.doc)?.session_id ?? null
    const unauthorized = yield* deny(ctx, tx, snap, request, { ts, sessionId })
    if (unauthorized !== undefined) return { _tag: "denied", error: unauthorized }
    const { acquired, released } = lease(snap, ts, sessionId, "write")
    const refused = (error: AuditError.AuditError) =>
      Effect.as(appendEvents(ctx, tx, snap, [acquired, released]), { _tag: "denied" as const, error })
    if (options.guard !== undefined) {
      const guarded = yield* Effect.either(options.guard(snap.doc, tx.viewMarks))
      if (guarded._tag === "Left") return yield* refused(guarded.left)
    }
    if (options.expectRevision !== undefined && options.expectRevision !== snap.revision) {
      return yield* refused(AuditError.make(
        "stale-revision",
        `stale revision: expected state revision ${options.expectRevision}, the state is at ${snap.revision}`,
        { expected: options.expectRevision, actual: snap.revision }
      ))
    }
    const out = Verbs.apply(snap.doc, request, { today, subject: options.subject, policy: options.policy })
    if (Verbs.isRefusal(out)) return yield* refused(AuditError.make(out.code, out.message, undefined, out.hints))
    const summary = out.message.split("\n")[0]!
    const nextDoc = options.headBefore === undefined ? out.doc : { ...out.doc, head_before: options.headBefore }
    const committed = yield* Effect.either(commit(
      ctx,
      tx,
      snap,
      nextDoc,
      (revision) => ({
        ts,
        event: "state_transition",
        session_id: sessionId,
        verb: request.verb,
        target: out.target,
        state_revision: revision,
        from_status: out.fromStatus,
        to_status: out.toStatus,
        summary,
        ...(out.extras ?? {})
      }),
      { leading: [acquired], trailing: [released] }
    ))
    // a commit that fails validation wrote nothing; its lease pair still lands (xcheck's does)
    if (committed._tag === "Left") {
      if (committed.left.code !== "invalid-state") return yield* Effect.fail(committed.left)
      return yield* refused(committed.left)
    }
    const { event, next } = committed.right
    return {
      _tag: "applied",
      applied: { doc: next.doc, revision: next.revision, event, message: out.message }
    }
  })

export const makeApply = (ctx: EngineContext): AuditStoreShape["apply"] => (request, options = {}) =>
  ctx.backend.transact(true, (tx) => applyIn(ctx, tx, request, options)).pipe(
    // the refusal's events are committed with the transaction; the error leaves after it
    Effect.flatMap((r) => r._tag === "denied" ? Effect.fail(r.error) : Effect.succeed(r.applied)),
    Effect.withSpan("AuditStore.apply", { attributes: { verb: request.verb } })
  )
