/**
 * One owner per session (ADR 0558): a process takes the session's lease before it drives or
 * settles a run, checks it on every commit (renewing it there when due, ADR 0567) and renews it
 * from a heartbeat every third of its TTL, and gives
 * it up when done. A lost lease ends this process's drive: the heartbeat's failure interrupts the
 * run, and every later commit is refused by the store, so a process never settles a run it does
 * not own.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as EventStore from "../EventStore.js"
import type { HarnessError } from "../HarnessError.js"

/** Drive `body` as the owner of session `id`. */
export const owned = (store: EventStore.EventStore["Type"], owner: EventStore.Owner) =>
<A>(
  id: string,
  body: Effect.Effect<A, HarnessError>
): Effect.Effect<A, HarnessError> =>
  Effect.gen(function*() {
    yield* store.acquire(id, owner)
    // A renewal failing for a moment (a busy database) is tried again within the lease; a lease
    // another owner took (`BUSY`) ends the drive at once.
    const heartbeat = store.renew(id, owner).pipe(
      Effect.retry({ times: 2, while: (e) => e.code !== "BUSY" }),
      Effect.delay(Duration.millis(Math.max(1, Math.floor(owner.ttl / 3)))),
      Effect.forever
    )
    return yield* Effect.raceFirst(body, heartbeat).pipe(
      Effect.ensuring(Effect.ignore(store.release(id, owner.id)))
    )
  })
