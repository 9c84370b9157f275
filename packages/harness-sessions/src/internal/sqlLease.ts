/**
 * The SQL store's session leases (table `harness_leases`, ADR 0558): taken, renewed and checked
 * by single statements inside the store's own transactions, on SQLite and PostgreSQL alike.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as EventStore from "../EventStore.js"
import type { HarnessError } from "../HarnessError.js"
import * as Lease from "./lease.js"

// PostgreSQL returns BIGINT columns as decimal strings unless the host's client parses int8
const DbInteger = Schema.Union(Schema.Number, Schema.NumberFromString)

const LeaseRow = Schema.Struct({
  session: Schema.String,
  owner: Schema.String,
  heartbeat: DbInteger,
  expires: DbInteger
})
const decodeLeases = Schema.decodeUnknown(Schema.Array(LeaseRow))

/** The lease statements over a client; `failed` names what failed. */
export const make = (
  sql: SqlClient.SqlClient,
  failed: (what: string) => (error: { readonly message: string }) => HarnessError
) => {
  const currentLease = (id: string) =>
    sql`SELECT session, owner, heartbeat, expires FROM harness_leases WHERE session = ${id}`.pipe(
      Effect.flatMap(decodeLeases),
      Effect.map((rows) => rows[0]),
      Effect.catchTag("ParseError", (e) => Effect.fail(failed("reading the session's lease")(e)))
    )
  // Renew `owner`'s lease; `take`: also take a lease that is absent or expired. One statement,
  // so two processes racing for one session cannot both win (SQLite and PostgreSQL upserts).
  const renewLease = (id: string, owner: EventStore.Owner, now: number, take: boolean) =>
    Effect.gen(function*() {
      const expires = now + owner.ttl
      const rows = yield* (take
        ? sql`INSERT INTO harness_leases (session, owner, heartbeat, expires)
          VALUES (${id}, ${owner.id}, ${now}, ${expires})
          ON CONFLICT (session) DO UPDATE SET owner = excluded.owner, heartbeat = excluded.heartbeat,
            expires = excluded.expires
          WHERE harness_leases.owner = excluded.owner OR harness_leases.expires < ${now}
          RETURNING owner`
        : sql`UPDATE harness_leases SET heartbeat = ${now}, expires = ${expires}
          WHERE session = ${id} AND owner = ${owner.id} RETURNING owner`)
      if (rows.length > 0) return { session: id, owner: owner.id, heartbeat: now, expires }
      const held = yield* currentLease(id)
      return yield* (take && held !== undefined ? Lease.busy(held, now) : Lease.lost(id, owner.id, held))
    })
  // A reader of a database older than the lease table (`tolerant`) sees no lease: it cannot migrate.
  const readLease = (id: string, tolerant: boolean) =>
    currentLease(id).pipe(
      Effect.map(Option.fromNullable),
      Effect.mapError(failed("reading the session's lease")),
      tolerant ? Effect.orElseSucceed(() => Option.none<EventStore.Lease>()) : (self) => self
    )
  return { currentLease, readLease, renewLease }
}

/**
 * When this process last renewed each of its leases (stored: after the transaction committed).
 * A commit within a third of the lease's TTL of that checks the owner in its own UPDATE instead
 * of renewing (ADR 0567): the lease then still runs at least two thirds of its TTL, and the
 * owner's heartbeat renews it every third.
 */
export const renewals = () => {
  const at = new Map<string, number>()
  const key = (id: string, owner: string) => `${id}\u0000${owner}`
  return {
    set: (id: string, owner: string, now: number): void => void at.set(key(id, owner), now),
    fresh: (id: string, owner: EventStore.Owner, now: number): boolean => {
      const last = at.get(key(id, owner.id))
      return last !== undefined && now >= last && now - last < owner.ttl / 3
    }
  }
}

/** What `renewals` returns. */
export type Renewals = ReturnType<typeof renewals>
