/**
 * The in-memory session store (tests, hosts that keep nothing).
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import type { SessionEvent } from "../Event.js"
import type * as EventStore from "../EventStore.js"
import { HarnessError } from "../HarnessError.js"
import * as FrozenJson from "./frozenJson.js"
import * as Lease from "./lease.js"
import * as Rows from "./rows.js"

interface Session {
  readonly id: string
  readonly createdAt: number
  meta: unknown
  readonly events: Array<SessionEvent>
  /**
   * Step results by run, then by step index, as JSON text (as the SQL store keeps them): one
   * `JSON.stringify` per step instead of a clone, and every read gets its own copy.
   */
  readonly steps: Map<string, Map<number, string>>
  readonly revisions: Array<EventStore.Revision>
  lease: EventStore.Lease | undefined
}

const notFound = (id: string) => new HarnessError({ code: "SESSION_NOT_FOUND", message: `no session ${id}` })

// A caller's value is copied so later changes to it do not reach the store; a frozen one (event
// data built by `Event.redact`) cannot change and is kept as it is.
const clone = (value: unknown): unknown =>
  value === undefined ? null : FrozenJson.isImmutable(value) ? value : JSON.parse(JSON.stringify(value))

const row = (s: Session): EventStore.SessionRow => ({
  id: s.id,
  createdAt: s.createdAt,
  meta: s.meta,
  lastSeq: s.events.length
})

/** Build the in-memory store. */
export const make = Effect.gen(function*() {
  const sessions = new Map<string, Session>()
  const hub = yield* PubSub.unbounded<string>()
  const lock = yield* Effect.makeSemaphore(1)
  const find = (id: string) => {
    const s = sessions.get(id)
    return s === undefined ? Effect.fail(notFound(id)) : Effect.succeed(s)
  }
  // Renew `owner`'s lease on `s` at `now`, or say who holds it instead.
  const renewed = (s: Session, owner: EventStore.Owner, now: number, take: boolean) => {
    const held = s.lease
    if (held !== undefined && held.owner !== owner.id && (!take || held.expires >= now)) {
      return Effect.fail(take ? Lease.busy(held, now) : Lease.lost(s.id, owner.id, held))
    }
    if (held === undefined && !take) return Effect.fail(Lease.lost(s.id, owner.id, undefined))
    s.lease = { session: s.id, owner: owner.id, heartbeat: now, expires: now + owner.ttl }
    return Effect.succeed(s.lease)
  }
  const leased = (take: boolean) => (id: string, owner: EventStore.Owner) =>
    lock.withPermits(1)(Effect.gen(function*() {
      const s = yield* find(id)
      return yield* renewed(s, owner, yield* Clock.currentTimeMillis, take)
    }))
  const store: EventStore.EventStore["Type"] = {
    create: (id, meta) =>
      lock.withPermits(1)(Effect.gen(function*() {
        if (sessions.has(id)) {
          return yield* new HarnessError({ code: "INVALID_INPUT", message: `session ${id} already exists` })
        }
        const createdAt = yield* Clock.currentTimeMillis
        const s: Session = {
          id,
          createdAt,
          meta: clone(meta),
          events: [],
          steps: new Map(),
          revisions: [],
          lease: undefined
        }
        sessions.set(id, s)
        return row(s)
      })),
    get: (id) => Effect.map(find(id), row),
    list: Effect.sync(() => [...sessions.values()].map(row)),
    commit: (id, commit) =>
      lock.withPermits(1)(Effect.gen(function*() {
        yield* Rows.checkInputs(commit.events)
        const s = yield* find(id)
        if (commit.owner !== undefined) yield* renewed(s, commit.owner, yield* Clock.currentTimeMillis, false)
        const steps = commit.step === undefined ? commit.steps ?? [] : [...(commit.steps ?? []), commit.step]
        const taken = steps.find((step) => s.steps.get(step.run)?.has(step.index) === true)
        if (taken !== undefined) {
          return yield* new HarnessError({
            code: "STORE_FAILED",
            message: `step ${taken.run}#${taken.index} is already committed`
          })
        }
        if (commit.revision !== undefined && commit.revision.revision !== s.revisions.length + 1) {
          return yield* new HarnessError({
            code: "STORE_FAILED",
            message: `revision ${commit.revision.revision} does not follow ${s.revisions.length}`
          })
        }
        const at = commit.at ?? (yield* Clock.currentTimeMillis)
        const written = commit.events.map((e, i) => Rows.written(id, s.events.length + i + 1, at, e, clone(e.data)))
        s.events.push(...written)
        for (const step of steps) {
          const ofRun = s.steps.get(step.run) ?? new Map<number, string>()
          ofRun.set(step.index, FrozenJson.stepText(step))
          s.steps.set(step.run, ofRun)
        }
        if (commit.revision !== undefined) {
          s.revisions.push({ ...commit.revision, record: clone(commit.revision.record) })
        }
        if (commit.meta !== undefined) s.meta = clone(commit.meta)
        yield* PubSub.publish(hub, id)
        return written
      })),
    read: (id, options = {}) =>
      Effect.map(find(id), (s) => {
        const after = options.after ?? 0
        const from = s.events.findIndex((e) => e.seq > after)
        if (from < 0) return []
        const types = options.types === undefined ? undefined : new Set(options.types)
        const events = types === undefined
          ? s.events.slice(from)
          : s.events.slice(from).filter((e) => types.has(e.type))
        return options.limit === undefined ? events : events.slice(0, options.limit)
      }),
    steps: (id, run) =>
      Effect.map(
        find(id),
        (s) => new Map([...s.steps.get(run) ?? []].map(([index, text]) => [index, JSON.parse(text) as unknown]))
      ),
    step: (id, run, index) =>
      Effect.map(find(id), (s) => {
        const text = s.steps.get(run)?.get(index)
        return text === undefined ? Option.none() : Option.some(JSON.parse(text) as unknown)
      }),
    revisions: (id) => Effect.map(find(id), (s) => [...s.revisions]),
    acquire: leased(true),
    renew: leased(false),
    release: (id, owner) =>
      lock.withPermits(1)(Effect.map(find(id), (s) => {
        if (s.lease?.owner === owner) s.lease = undefined
      })),
    lease: (id) => Effect.map(find(id), (s) => Option.fromNullable(s.lease)),
    subscribe: PubSub.subscribe(hub)
  }
  return store
})
