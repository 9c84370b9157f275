/**
 * `next`'s observational record: the gate it reached, appended without a revision change.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Decision from "../../Decision.js"
import type * as Events from "../../Events.js"
import * as State from "../../State.js"
import type { Snapshot, Tx } from "./backend.js"
import { appendEvents, appendSealed, lease } from "./commit.js"
import type { EngineContext } from "./context.js"
import type { AuditStoreShape } from "./model.js"
import { now, requireIntact, requireSnapshot } from "./snapshot.js"

/** The seal, when the store is sealed at `revision` and nothing was appended past it. */
const sealedAt = (tx: Tx, revision: number) =>
  Effect.gen(function*() {
    const m = yield* tx.marker
    const seal = yield* tx.sealed
    return m !== undefined && seal !== undefined && Number(m.revision) === revision && seal.revision === revision &&
        seal.events === Number(m.events)
      ? seal
      : undefined
  })

export const makeRecordGate = (ctx: EngineContext): AuditStoreShape["recordGate"] =>
  Effect.fn("AuditStore.recordGate")(
    function*(decision: Decision.Decision, options?: Parameters<AuditStoreShape["recordGate"]>[1]) {
      return yield* ctx.backend.transact(true, (tx) =>
        Effect.gen(function*() {
          const { ts } = yield* now
          const events = (at: Pick<Snapshot, "head" | "events">, sessionId: string | null) => {
            const event: Events.AuditEvent = {
              ts,
              event: "gate_reached",
              session_id: sessionId,
              gate: decision.kind,
              detail: decision.detail
            }
            // `next` holds the lock as the orchestrator while it decides; `--dry-run` takes no lock
            // but still records the gate it reached (xcheck)
            const { acquired, released } = lease(at, ts, sessionId, "orchestrator")
            return { event, all: options?.dryRun === true ? [event] : [acquired, event, released] }
          }
          const seal = options?.known === undefined ? undefined : yield* sealedAt(tx, options.known.revision)
          if (seal !== undefined) {
            // sealed at the decision's revision: the records are as the decision saw them (ADR 0141)
            const { all, event } = events(seal, options!.known!.sessionId)
            yield* appendSealed(tx, seal, all)
            return event
          }
          const snap = yield* requireSnapshot(ctx, tx)
          yield* requireIntact(snap)
          const { all, event } = events(snap, State.openDispatch(snap.doc)?.session_id ?? null)
          yield* appendEvents(ctx, tx, snap, all)
          return event
        }))
    }
  )
