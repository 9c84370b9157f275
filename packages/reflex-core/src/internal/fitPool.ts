/**
 * Fits computed ahead of a replay on worker threads (ADR 0450, ADR 0411): an `@effect/platform`
 * worker pool over the fit worker entry (`fitWorker.ts`), which runs `fitCore`, the function the
 * calling thread's `Learning.fit` runs, so a head fitted here is the head the replay would have
 * fitted. Failures are the caller's to ignore: the replay fits whatever is missing itself.
 * @internal
 */
import { WorkerError } from "@effect/platform/WorkerError"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import type * as ParseResult from "effect/ParseResult"
import type { FitWorkers } from "../FitWorkers.js"
import type { Head } from "../Params.js"
import type { FitOptions, FitRow } from "./fitCore.js"
import { type FitRequest, FitWindow, InitialMessage } from "./fitProtocol.js"

/** One example sequence and the windows `[from, to)` to fit on it. @internal */
export interface FitJob {
  readonly examples: ReadonlyArray<FitRow>
  readonly prior: Head
  readonly options: FitOptions
  readonly windows: ReadonlyArray<readonly [number, number]>
  readonly store: (from: number, to: number, head: Head) => void
}

// Requests in flight per worker: the next window is already queued when a worker finishes one.
const IN_FLIGHT = 2

// A pool retries a worker that will not start for ever; past this the import fits on its own.
const START_TIMEOUT = "30 seconds"

/**
 * Fit every window of every job on `threads` workers (largest windows first), storing each head
 * as it arrives. The workers are stopped when done, failed or interrupted.
 * @internal
 */
export const prefit = (
  workers: FitWorkers["Type"],
  jobs: ReadonlyArray<FitJob>,
  threads: number
): Effect.Effect<void, WorkerError | ParseResult.ParseError> => {
  const tasks = jobs.flatMap((job, set) => job.windows.map(([from, to]) => ({ job, set, from, to })))
  tasks.sort((a, b) => (b.to - b.from) - (a.to - a.from))
  if (tasks.length === 0 || threads < 1) return Effect.void
  const initial = new InitialMessage({
    sets: jobs.map((job) => job.examples.map((e) => ({ features: e.features, label: e.label, weight: e.weight })))
  })
  const size = Math.min(threads, tasks.length)
  return Effect.gen(function*() {
    const started = yield* Deferred.make<void>()
    const pool = yield* workers.makePool<FitRequest>({
      size,
      concurrency: IN_FLIGHT,
      initialMessage: () => initial,
      onCreate: () => Deferred.succeed(started, undefined)
    })
    yield* Deferred.await(started).pipe(
      Effect.timeoutFail({
        duration: START_TIMEOUT,
        onTimeout: () => new WorkerError({ reason: "spawn", cause: new Error("no fit worker started") })
      })
    )
    yield* Effect.forEach(
      tasks,
      ({ from, job, set, to }) =>
        pool.executeEffect(
          new FitWindow({
            set,
            from,
            to,
            prior: job.prior,
            options: {
              iterations: job.options.iterations,
              learningRate: job.options.learningRate,
              priorStrength: job.options.priorStrength
            }
          })
        ).pipe(Effect.map((head) => job.store(from, to, head))),
      { concurrency: size * IN_FLIGHT, discard: true }
    )
    // the pool logs each failed start as a warning before retrying; the caller handles failure
  }).pipe(Effect.scoped, Logger.withMinimumLogLevel(LogLevel.Error))
}
