/**
 * The session store: sessions, each with one `seq`-ordered event stream, the stored results of
 * the run loop's steps (what a replay reuses), and the chain of managed-transition receipts.
 *
 * Everything one step produces — its events, its stored result, a revision — is written by one
 * `commit` in one transaction, so a killed process loses no committed event and never leaves a
 * half-written step. `layerSql` needs only the abstract `SqlClient` and runs its own migrations
 * (table `harness_sessions_migrations`); `layerMemory` is for tests.
 *
 * @since 0.1.0
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as Event from "./Event.js"
import type * as HarnessError from "./HarnessError.js"
import * as MemoryStore from "./internal/memoryStore.js"
import * as SqlStore from "./internal/sqlStore.js"

/**
 * A stored session.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SessionRow = Schema.Struct({
  id: Schema.String,
  createdAt: Schema.Number,
  /** What the host stored about the session (workspace, model, level, …; JSON). */
  meta: Schema.Unknown,
  /** The last event's `seq` (0 when the stream is empty). */
  lastSeq: Schema.Number
})

/**
 * @since 0.1.0
 * @category models
 */
export type SessionRow = typeof SessionRow.Type

/**
 * A stored managed-transition revision: the record that passed through the transition organism,
 * its receipt and the receipt's digest.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Revision = Schema.Struct({
  revision: Schema.Number,
  digest: Schema.String,
  record: Schema.Unknown,
  receipt: Schema.Unknown
})

/**
 * @since 0.1.0
 * @category models
 */
export type Revision = typeof Revision.Type

/**
 * A step's stored result: the run, the step's index in it, and its result (JSON). A replay
 * reuses it instead of running the step again.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Step = Schema.Struct({
  run: Schema.String,
  index: Schema.Int,
  result: Schema.Unknown
})

/**
 * @since 0.1.0
 * @category models
 */
export type Step = typeof Step.Type

/**
 * A session's lease: the one process (`owner`) that drives its runs, until `expires` (epoch ms)
 * unless it renews. Every write of a run carries its owner and is refused once another owns the
 * session (ADR 0558).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Lease = Schema.Struct({
  session: Schema.String,
  owner: Schema.String,
  heartbeat: Schema.Number,
  expires: Schema.Number
})

/**
 * @since 0.1.0
 * @category models
 */
export type Lease = typeof Lease.Type

/**
 * Who writes: the owner's id and how long a renewal holds (milliseconds).
 *
 * @since 0.1.0
 * @category models
 */
export interface Owner {
  readonly id: string
  readonly ttl: number
}

/**
 * What one step writes, atomically.
 *
 * @since 0.1.0
 * @category models
 */
export interface Commit {
  readonly events: ReadonlyArray<Event.EventInput>
  /** The step's stored result (a replay reuses it instead of running the step again). */
  readonly step?: Step
  /**
   * Earlier steps of the run committed with this one (deferred: steps a re-drive may compute
   * again, ADR 0567); their events lead `events`. All are stored, or none.
   */
  readonly steps?: ReadonlyArray<Step>
  /** A managed-transition revision stored with the events. */
  readonly revision?: Revision
  /** Replace the session's meta. */
  readonly meta?: unknown
  /** The events' time (default: the store's `Clock` at the commit). */
  readonly at?: number
  /**
   * The session's owner: the commit checks its lease in the same transaction (renewing it when
   * due, ADR 0567), and is refused (`BUSY`, nothing written) when another process owns the session.
   */
  readonly owner?: Owner
}

/**
 * Options for reading a stream.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReadOptions {
  /** Only events with `seq` greater than this. */
  readonly after?: number
  /** At most this many (default: all). */
  readonly limit?: number
  /** Only events of these types (default: every type). */
  readonly types?: ReadonlyArray<string>
}

/**
 * The store service.
 *
 * @since 0.1.0
 * @category tags
 */
export class EventStore extends Context.Tag("@steward/harness-sessions/EventStore")<EventStore, {
  /** Create a session (fails with `INVALID_INPUT` when the id exists). */
  readonly create: (id: string, meta: unknown) => Effect.Effect<SessionRow, HarnessError.HarnessError>
  /** One session (`SESSION_NOT_FOUND` when unknown). */
  readonly get: (id: string) => Effect.Effect<SessionRow, HarnessError.HarnessError>
  /** Every session, oldest first. */
  readonly list: Effect.Effect<ReadonlyArray<SessionRow>, HarnessError.HarnessError>
  /** Write one step: its events (in order, `seq` assigned), its result, a revision, the meta. */
  readonly commit: (
    session: string,
    commit: Commit
  ) => Effect.Effect<ReadonlyArray<Event.SessionEvent>, HarnessError.HarnessError>
  /** Stored events in `seq` order. */
  readonly read: (
    session: string,
    options?: ReadOptions
  ) => Effect.Effect<ReadonlyArray<Event.SessionEvent>, HarnessError.HarnessError>
  /** Every stored step result of one run, by step index (one query; what a re-driven run reuses). */
  readonly steps: (
    session: string,
    run: string
  ) => Effect.Effect<ReadonlyMap<number, unknown>, HarnessError.HarnessError>
  /** A step's stored result, if that step was committed. */
  readonly step: (
    session: string,
    run: string,
    index: number
  ) => Effect.Effect<Option.Option<unknown>, HarnessError.HarnessError>
  /** The stored revisions, in order. */
  readonly revisions: (session: string) => Effect.Effect<ReadonlyArray<Revision>, HarnessError.HarnessError>
  /**
   * Take the session's lease, or renew it when `owner` already holds it; a lease another owner
   * holds and has not let expire is refused (`BUSY`, naming the owner and the expiry).
   */
  readonly acquire: (session: string, owner: Owner) => Effect.Effect<Lease, HarnessError.HarnessError>
  /** Renew a held lease (`BUSY` when another owner took it). */
  readonly renew: (session: string, owner: Owner) => Effect.Effect<Lease, HarnessError.HarnessError>
  /** Give the lease up (nothing when `owner` does not hold it). */
  readonly release: (session: string, owner: string) => Effect.Effect<void, HarnessError.HarnessError>
  /** The session's lease, live or expired, if any. */
  readonly lease: (session: string) => Effect.Effect<Option.Option<Lease>, HarnessError.HarnessError>
  /** A queue of the session ids of later commits (in this process), for live tails. */
  readonly subscribe: Effect.Effect<Queue.Dequeue<string>, never, Scope.Scope>
}>() {}

/**
 * A live tail: the stored events after `after`, then every event committed later, in order,
 * without end (take what you need, e.g. `Stream.takeUntil`). Commits in this process wake it at
 * once; commits by other processes sharing the database are picked up by polling every `poll`
 * milliseconds (default 200).
 *
 * @since 0.1.0
 * @category streams
 */
export const follow = (
  session: string,
  options: { readonly after?: number; readonly poll?: number } = {}
): Stream.Stream<Event.SessionEvent, HarnessError.HarnessError, EventStore> =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const store = yield* EventStore
    // Subscribe before the first read so no commit falls between the read and the wait.
    const wake = yield* store.subscribe
    const pause = Queue.take(wake).pipe(
      Effect.timeout(Duration.millis(options.poll ?? 200)),
      Effect.ignore,
      Effect.zipRight(Queue.takeAll(wake))
    )
    return Stream.paginateChunkEffect(
      options.after ?? 0,
      (cursor) =>
        store.read(session, { after: cursor, limit: PAGE }).pipe(
          Effect.flatMap((events) => {
            const last = events[events.length - 1]
            return last === undefined
              ? Effect.as(pause, [Chunk.empty<Event.SessionEvent>(), Option.some(cursor)] as const)
              : Effect.succeed([Chunk.unsafeFromArray(events), Option.some(last.seq)] as const)
          })
        )
    )
  }))

const PAGE = 1000

/**
 * The stored events, page by page (ends at the last stored one).
 *
 * @since 0.1.0
 * @category streams
 */
export const stream = (
  session: string,
  options: { readonly after?: number } = {}
): Stream.Stream<Event.SessionEvent, HarnessError.HarnessError, EventStore> =>
  Stream.unwrap(
    Effect.map(EventStore, (store) =>
      Stream.paginateChunkEffect(options.after ?? 0, (cursor) =>
        store.read(session, { after: cursor, limit: PAGE }).pipe(
          Effect.map((events) => {
            const last = events[events.length - 1]
            return [
              Chunk.unsafeFromArray(events),
              last === undefined || events.length < PAGE ? Option.none<number>() : Option.some(last.seq)
            ] as const
          })
        )))
  )

/**
 * The SQL store (needs only the abstract `SqlClient`; runs its own migrations).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSql: Layer.Layer<EventStore, HarnessError.HarnessError, SqlClient.SqlClient> = Layer.effect(
  EventStore,
  SqlStore.make({ migrate: true })
)

/**
 * The SQL store for a reader that must not write: no migrations run (a database opened
 * read-only, a read-only state directory). Reads work on a migrated database; writes fail.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSqlReader: Layer.Layer<EventStore, HarnessError.HarnessError, SqlClient.SqlClient> = Layer.effect(
  EventStore,
  SqlStore.make({ migrate: false })
)

/**
 * The in-memory store.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory: Layer.Layer<EventStore> = Layer.effect(EventStore, MemoryStore.make)
