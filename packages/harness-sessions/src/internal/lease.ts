/**
 * What both stores say about leases: the `BUSY` refusals, named for a person.
 */
import type * as EventStore from "../EventStore.js"
import { HarnessError } from "../HarnessError.js"

const when = (ms: number) => new Date(ms).toISOString()

/** Refused: another owner holds a live lease. */
export const busy = (lease: EventStore.Lease, now: number) =>
  new HarnessError({
    code: "BUSY",
    message: `session ${lease.session} is driven by ${lease.owner}; its lease expires at ${when(lease.expires)} (in ${
      Math.max(0, Math.ceil((lease.expires - now) / 1000))
    } s) unless renewed`
  })

/** Refused: the writer's lease was taken over (or released) since it last held it. */
export const lost = (session: string, owner: string, current: EventStore.Lease | undefined) =>
  new HarnessError({
    code: "BUSY",
    message: current === undefined
      ? `session ${session}: ${owner} no longer holds its lease; nothing was written`
      : `session ${session}: ${owner} no longer holds its lease (${current.owner} does, until ${
        when(current.expires)
      }); nothing was written`
  })
