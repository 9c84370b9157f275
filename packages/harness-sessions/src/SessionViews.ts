/**
 * Read-only views of stored sessions (what `Sessions.show` and `Sessions.list` return) from the
 * event store alone. Reading a session needs no model, governance engine, runtime or reflexes:
 * a host that only lists or shows sessions depends on this module and `EventStore`, and pays
 * only for the read.
 *
 * @example
 * ```ts
 * import { EventStore, SessionViews } from "@steward/harness-sessions"
 * import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
 *
 * const program = Effect.gen(function*() {
 *   const store = yield* EventStore.EventStore
 *   return yield* SessionViews.list(store)
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Event from "./Event.js"
import type * as EventStore from "./EventStore.js"
import type { HarnessError } from "./HarnessError.js"
import * as Meta from "./internal/meta.js"
import * as Transcript from "./internal/transcript.js"
import type { SessionView } from "./Session.js"

/**
 * A session as one read of the store left it: its row, its decoded meta and its events (for a
 * view, the event types `Transcript` folds).
 *
 * @since 0.1.0
 * @category models
 */
export interface Snapshot {
  readonly row: EventStore.SessionRow
  readonly meta: Meta.Meta
  readonly events: ReadonlyArray<Event.SessionEvent>
}

/**
 * A session in one line of a list: its first prompt (cut to 120 characters), when its first run
 * started (else when it was created), how many runs it has, its last run's status (`paused` for a
 * run waiting on a call, `open` for one being driven or left by a killed process, null before any
 * run) and how many calls wait for a person's answer.
 *
 * @since 0.1.0
 * @category models
 */
export interface Summary {
  readonly firstPrompt: string | null
  readonly startedAt: number
  readonly runs: number
  readonly status: string | null
  readonly pending: number
}

const cut = (text: string, n: number) => text.length <= n ? text : `${text.slice(0, n - 1)}…`

/**
 * The summary of a session's events (`SessionView.summary`).
 *
 * @since 0.1.0
 * @category views
 */
export const summary = (events: ReadonlyArray<Event.SessionEvent>, createdAt: number): Summary => {
  const runs = Transcript.runs(events)
  const first = events.find((e) => e.type === "run.start")
  const last = runs.at(-1)
  return {
    firstPrompt: runs[0] === undefined ? null : cut(runs[0].prompt.replace(/\s+/g, " ").trim(), 120),
    startedAt: first?.at ?? createdAt,
    runs: runs.length,
    status: last === undefined ? null : last.status ?? "open",
    pending: Transcript.pending(events).length
  }
}

/**
 * The view of one session from a snapshot of it.
 *
 * @since 0.1.0
 * @category views
 */
export const fromSnapshot = (id: string, { events, meta, row }: Snapshot): SessionView => ({
  id,
  createdAt: row.createdAt,
  workspace: meta.workspace,
  level: meta.level,
  events: row.lastSeq,
  runs: Transcript.runs(events),
  goal: meta.goal === null ? null : { objective: meta.goal.spec.objective, status: meta.goal.status },
  remembered: meta.remembered,
  pending: Transcript.pending(events),
  summary: summary(events, row.createdAt),
  host: meta.host,
  owner: null,
  orphaned: false
})

/**
 * A view with its owner: the lease's holder while it is live, and `orphaned` when a run is open
 * but nobody holds a live lease (its process is gone; `continue` resumes it, `reopen` settles it).
 *
 * @since 0.1.0
 * @category views
 */
export const withOwner = (view: SessionView, lease: Option.Option<EventStore.Lease>, now: number): SessionView => {
  const live = Option.filter(lease, (l) => l.expires >= now)
  return {
    ...view,
    owner: Option.match(live, { onNone: () => null, onSome: (l) => ({ id: l.owner, expires: l.expires }) }),
    orphaned: Option.isNone(live) && view.runs.some((r) => r.status === null)
  }
}

/**
 * Add the owner to a view from the store's lease, read now.
 *
 * @since 0.1.0
 * @category views
 */
export const owned = (
  store: EventStore.EventStore["Type"],
  view: SessionView
): Effect.Effect<SessionView, HarnessError> =>
  Effect.zipWith(store.lease(view.id), Clock.currentTimeMillis, (lease, now) => withOwner(view, lease, now))

/**
 * Read what a view needs of one session: its row, its meta and only the event types views fold.
 *
 * @since 0.1.0
 * @category views
 */
export const snapshot = (
  store: EventStore.EventStore["Type"],
  id: string
): Effect.Effect<Snapshot, HarnessError> =>
  Effect.gen(function*() {
    const row = yield* store.get(id)
    const meta = yield* Meta.decode(row.meta)
    const events = yield* store.read(id, { types: Transcript.viewTypes })
    return { row, meta, events }
  })

/**
 * The view of one stored session (`SESSION_NOT_FOUND` when there is none).
 *
 * @since 0.1.0
 * @category views
 */
export const show = (store: EventStore.EventStore["Type"], id: string): Effect.Effect<SessionView, HarnessError> =>
  Effect.flatMap(snapshot(store, id), (s) => owned(store, fromSnapshot(id, s)))

/**
 * The views of every stored session, oldest first.
 *
 * @since 0.1.0
 * @category views
 */
export const list = (store: EventStore.EventStore["Type"]): Effect.Effect<ReadonlyArray<SessionView>, HarnessError> =>
  Effect.flatMap(store.list, (rows) => Effect.forEach(rows, (r) => show(store, r.id)))
