/**
 * A run as an Effect `Stream` of its events, each as it is committed, ending with the run's
 * `run.settle` (ADR 0572) — or with its `run.pause`, the end of a drive at an ask nobody could
 * answer (ADR 0573; `throughPauses` follows on across the answers to the settle). It reads the store, not the process that drives the run: a run driven
 * here and one driven by another process sharing the database stream alike. A consumer that starts
 * late gets the events already committed first, then the live ones, without a gap or a duplicate
 * (`EventStore.follow` subscribes before its first read and pages by `seq`). The stream is pulled:
 * a slow consumer reads later pages from the store, so nothing piles up in memory.
 *
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { RunStream, TranscriptText } from "@steward/harness-sessions"
 *
 * // Print a run's transcript as it happens; the stream ends with the run's settle.
 * const program = (session: string) =>
 *   RunStream.run(session, "Run the tests").pipe(
 *     Stream.map(TranscriptText.line),
 *     Stream.runForEach((line) => line === undefined ? Effect.void : Effect.log(line))
 *   )
 * ```
 *
 * @since 0.1.0
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import type * as Event from "./Event.js"
import * as EventStore from "./EventStore.js"
import type { HarnessError } from "./HarnessError.js"
import * as Session from "./Session.js"

/**
 * Where a follow starts and how often it looks for commits by other processes.
 *
 * @since 0.1.0
 * @category models
 */
export interface FollowOptions {
  /** Only events with `seq` greater than this (default 0: the run from its start). */
  readonly after?: number
  /** Milliseconds between reads for commits by other processes (default 200; commits here wake it at once). */
  readonly poll?: number
  /**
   * Follow on past a `run.pause` (the run waits for an answer, perhaps from another process) to
   * the run's settle. Default false: the stream ends with the pause, as the drive does.
   */
  readonly throughPauses?: boolean
}

// A drive ends with its run's settle, or its pause unless the follow goes through pauses.
const ends = (throughPauses: boolean) => (e: Event.SessionEvent): boolean =>
  e.type === "run.settle" || (!throughPauses && e.type === "run.pause")

/**
 * The events of one run of a session, stored ones first and then each as it is committed, ending
 * with (and including) its `run.settle`, or its first `run.pause` after `after` (unless
 * `throughPauses`). A run not started yet is waited for; a settled one yields its stored events
 * and ends. Fails with `SESSION_NOT_FOUND` for an unknown session and
 * with the store's typed error when a read fails.
 *
 * @since 0.1.0
 * @category streams
 */
export const follow = (
  session: string,
  run: string,
  options: FollowOptions = {}
): Stream.Stream<Event.SessionEvent, HarnessError, EventStore.EventStore> =>
  Stream.unwrap(
    Effect.as(
      Effect.flatMap(EventStore.EventStore, (store) => store.get(session)),
      EventStore.follow(session, {
        ...(options.after === undefined ? {} : { after: options.after }),
        ...(options.poll === undefined ? {} : { poll: options.poll })
      }).pipe(
        Stream.filter((e) => e.run === run),
        Stream.takeUntil(ends(options.throughPauses === true))
      )
    )
  )

// Drive a run in a fiber the stream owns and follow the run it starts (its id arrives through
// `started`, fixed under the lease before the run's first commit).
const driven = (
  session: string,
  poll: number | undefined,
  start: (
    sessions: Session.Sessions["Type"],
    started: Deferred.Deferred<string>
  ) => Effect.Effect<unknown, HarnessError>
): Stream.Stream<Event.SessionEvent, HarnessError, Session.Sessions | EventStore.EventStore> =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const sessions = yield* Session.Sessions
    const store = yield* EventStore.EventStore
    // Every event the drive commits comes after this read (it takes the lease later).
    const { lastSeq } = yield* store.get(session)
    const started = yield* Deferred.make<string>()
    const fiber = yield* Effect.forkScoped(start(sessions, started))
    // Only the drive's failure ends the stream early; its success ends it through its settle or pause event.
    const failure = Effect.flatMap(Fiber.join(fiber), () => Effect.never)
    const run = yield* Effect.raceFirst(Deferred.await(started), failure)
    return follow(session, run, { after: lastSeq, ...(poll === undefined ? {} : { poll }) }).pipe(
      Stream.interruptWhen(failure)
    )
  }))

/**
 * Run a person's request (`Sessions.run`) and stream its events as they are committed, ending with
 * its settle. The run is driven by a fiber the stream owns: a failure of the run fails the stream
 * with the run's typed error (`BUSY`, `INVALID_INPUT`, …); interrupting the stream interrupts the
 * run, which stays open as a killed process would leave it (`Sessions.resume` re-drives it,
 * `Sessions.reopen` settles it). The run's `RunOutcome` is its `run.settle` event's data.
 *
 * @since 0.1.0
 * @category streams
 */
export const run = (
  session: string,
  prompt: string,
  options: Omit<Session.RunOptions, "started"> & { readonly poll?: number } = {}
): Stream.Stream<Event.SessionEvent, HarnessError, Session.Sessions | EventStore.EventStore> => {
  const { poll, ...runOptions } = options
  return driven(session, poll, (sessions, started) => sessions.run(session, prompt, { ...runOptions, started }))
}

/**
 * Re-drive the run a killed process left open (`Sessions.resume`) and stream what it commits from
 * now on, ending with its settle (its earlier events: `follow` it from `after: 0`). Failures and
 * interruption as for `run`; `RUN_NOT_FOUND` when no run is open.
 *
 * @since 0.1.0
 * @category streams
 */
export const resume = (
  session: string,
  options: { readonly abort?: Deferred.Deferred<void>; readonly poll?: number } = {}
): Stream.Stream<Event.SessionEvent, HarnessError, Session.Sessions | EventStore.EventStore> => {
  const { poll, ...resumeOptions } = options
  return driven(session, poll, (sessions, started) => sessions.resume(session, { ...resumeOptions, started }))
}

/**
 * Approve the call a run is paused at (`Sessions.approve`) and stream the same run from there,
 * ending with its settle or its next pause. Failures and interruption as for `run`.
 *
 * @since 0.1.0
 * @category streams
 */
export const approve = (
  session: string,
  callId: string,
  options: Omit<Session.ApproveOptions, "started"> & { readonly poll?: number } = {}
): Stream.Stream<Event.SessionEvent, HarnessError, Session.Sessions | EventStore.EventStore> => {
  const { poll, ...approveOptions } = options
  return driven(session, poll, (sessions, started) => sessions.approve(session, callId, { ...approveOptions, started }))
}

/**
 * Reject the call a run is paused at (`Sessions.reject`) and stream the same run from there,
 * ending with its settle or its next pause. Failures and interruption as for `run`.
 *
 * @since 0.1.0
 * @category streams
 */
export const reject = (
  session: string,
  callId: string,
  options: Omit<Session.RejectOptions, "started"> & { readonly poll?: number } = {}
): Stream.Stream<Event.SessionEvent, HarnessError, Session.Sessions | EventStore.EventStore> => {
  const { poll, ...rejectOptions } = options
  return driven(session, poll, (sessions, started) => sessions.reject(session, callId, { ...rejectOptions, started }))
}
