/**
 * Worker threads for the fits an import runs ahead of its replays (ADR 0450, ADR 0411). The
 * engine fits on workers only when this service is provided and `fitThreads` is 2 or more;
 * without it, or when a worker fails, every fit runs on the calling thread. Results are the same
 * either way.
 *
 * The worker modules load when the first pool starts, not with this module: the engine names this
 * service in every operation, and only an import's fits start workers.
 *
 * @since 0.2.0
 */
import type * as Worker from "@effect/platform/Worker"
import { WorkerError } from "@effect/platform/WorkerError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as url from "node:url"
import * as WorkerThreads from "node:worker_threads"

/**
 * Starts pools of fit workers: `@effect/platform` serialized worker pools whose workers run the
 * fit worker entry.
 *
 * @since 0.2.0
 * @category services
 */
export class FitWorkers extends Context.Tag("@steward/reflex-core/FitWorkers")<FitWorkers, {
  readonly makePool: <I extends Schema.TaggedRequest.All>(
    options: Worker.SerializedWorkerPool.Options<I>
  ) => Effect.Effect<Worker.SerializedWorkerPool<I>, WorkerError, Scope.Scope>
}>() {}

/** A serialized pool on a built worker platform; the worker module loads with the first pool. */
const poolOn =
  (context: Context.Context<Worker.WorkerManager | Worker.Spawner>) =>
  <I extends Schema.TaggedRequest.All>(options: Worker.SerializedWorkerPool.Options<I>) =>
    Effect.promise(() => import("@effect/platform/Worker")).pipe(
      Effect.flatMap((Worker) => Worker.makePoolSerialized<I>(options)),
      Effect.provide(context)
    )

/**
 * Fit workers on any `@effect/platform` worker platform whose spawner starts the fit worker entry.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = <E, R>(
  platform: Layer.Layer<Worker.WorkerManager | Worker.Spawner, E, R>
): Layer.Layer<FitWorkers, E, Exclude<R, Scope.Scope>> =>
  Layer.scoped(
    FitWorkers,
    Effect.map(Layer.build(platform), (context) => ({ makePool: poolOn(context) }))
  )

/**
 * Where the built fit worker entry sits: `internal/fitWorker.js` next to this module's built file
 * (the package's `dist/`, or the CLI bundle's folder, which ships the entry alongside).
 *
 * @since 0.2.0
 * @category constants
 */
export const entry: URL = new URL("./internal/fitWorker.js", import.meta.url)

const exists = (file: URL | string): boolean => {
  try {
    return fs.existsSync(typeof file === "string" ? file : url.fileURLToPath(file))
  } catch {
    return false
  }
}

/**
 * Node worker threads running the fit worker entry (`entry` unless given another file). When the
 * file is not there (sources run without a build), every pool fails at once and the engine fits
 * on the calling thread.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerNode = (options?: { readonly entry?: URL | string | undefined }): Layer.Layer<FitWorkers> => {
  const file = options?.entry ?? entry
  return Layer.sync(FitWorkers, () =>
    exists(file)
      ? {
        // each pool gets its own worker manager, built in the pool's scope
        makePool: (options) =>
          Effect.promise(() => import("@effect/platform-node/NodeWorker")).pipe(
            Effect.flatMap((NodeWorker) => Layer.build(NodeWorker.layer(() => new WorkerThreads.Worker(file)))),
            Effect.flatMap((context) => poolOn(context)(options))
          )
      }
      : {
        makePool: () =>
          Effect.fail(new WorkerError({ reason: "spawn", cause: new Error(`no fit worker entry at ${String(file)}`) }))
      })
}
