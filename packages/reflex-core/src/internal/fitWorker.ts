/**
 * The fit worker's entry file (ADR 0411): an `@effect/platform` worker runner that keeps the
 * import's example sets and answers each window with `fitCore`, the function the calling thread's
 * `Learning.fit` runs. Built next to the package's modules (`dist/internal/fitWorker.js`) and
 * next to the CLI bundle, where `FitWorkers.layerNode` finds it.
 * @internal
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeWorkerRunner from "@effect/platform-node/NodeWorkerRunner"
import * as WorkerRunner from "@effect/platform/WorkerRunner"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type Encodings, fitCore, type FitRow } from "./fitCore.js"
import { FitRequest } from "./fitProtocol.js"

class Sets extends Context.Tag("@steward/reflex-core/internal/fitWorker/Sets")<
  Sets,
  ReadonlyArray<ReadonlyArray<FitRow>>
>() {}

// The rows of a set are the same objects for every window, so their encodings are cached.
const encodings: Encodings = new WeakMap()

const runner = WorkerRunner.layerSerialized(FitRequest, {
  InitialMessage: ({ sets }) => Layer.succeed(Sets, sets),
  FitWindow: ({ from, options, prior, set, to }) =>
    Effect.map(Sets, (sets) => fitCore(prior, (sets[set] ?? []).slice(from, to), options, encodings))
})

WorkerRunner.launch(runner.pipe(Layer.provide(NodeWorkerRunner.layer))).pipe(NodeRuntime.runMain)
