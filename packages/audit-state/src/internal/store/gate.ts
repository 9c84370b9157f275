/**
 * `next`'s observational record: the gate it reached, appended without a revision change.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Decision from "../../Decision.js"
import type * as Events from "../../Events.js"
import * as State from "../../State.js"
import { appendEvents, lease } from "./commit.js"
import type { EngineContext } from "./context.js"
import type { AuditStoreShape } from "./model.js"
import { now, requireIntact, requireSnapshot } from "./snapshot.js"

export const makeRecordGate = (ctx: EngineContext): AuditStoreShape["recordGate"] =>
  Effect.fn("AuditStore.recordGate")(
    function*(decision: Decision.Decision, options?: { readonly dryRun?: boolean | undefined }) {
      return yield* ctx.backend.transact(true, (tx) =>
        Effect.gen(function*() {
          const snap = yield* requireSnapshot(ctx, tx)
          yield* requireIntact(snap)
          const { ts } = yield* now
          const sessionId = State.openDispatch(snap.doc)?.session_id ?? null
          const event: Events.AuditEvent = {
            ts,
            event: "gate_reached",
            session_id: sessionId,
            gate: decision.kind,
            detail: decision.detail
          }
          // `next` holds the lock as the orchestrator while it decides; `--dry-run` takes no lock
          // but still records the gate it reached (xcheck)
          const { acquired, released } = lease(snap, ts, sessionId, "orchestrator")
          yield* appendEvents(ctx, tx, snap, options?.dryRun === true ? [event] : [acquired, event, released])
          return event
        }))
    }
  )
