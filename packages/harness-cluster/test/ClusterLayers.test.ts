import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as ClusterConfig from "../src/ClusterConfig.js"
import type { ClusterError } from "../src/ClusterError.js"
import * as ClusterLayers from "../src/ClusterLayers.js"
import * as RunnerLock from "../src/RunnerLock.js"
import { AppendRun, AppendRunLive } from "./support/AppendRun.js"
import { lines } from "./support/processes.js"

const runOn = (engine: Layer.Layer<any>) =>
  Effect.gen(function*() {
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "cluster-layers-"))),
      (d) => Effect.sync(() => fs.rmSync(d, { recursive: true, force: true }))
    )
    const file = path.join(dir, "lines.log")
    const payload = { id: "run-1", file, pauseMillis: 1 }
    const first = yield* AppendRun.execute(payload)
    // the same run id is the same execution: its stored result, no activity runs again
    const again = yield* AppendRun.execute(payload)
    return { first, again, written: lines(file).map((l) => l.split(" ")[0]) }
  }).pipe(Effect.provide(AppendRunLive.pipe(Layer.provideMerge(engine))))

describe("ClusterLayers (in process)", () => {
  it.scopedLive("layerMemory runs a workflow; a second execute of the run id runs nothing", () =>
    Effect.gen(function*() {
      const { again, first, written } = yield* runOn(ClusterLayers.layerMemory)
      assert.deepStrictEqual([first, again, written], ["done", "done", ["first", "second"]])
    }))

  it.scopedLive("layerTest (the cluster engine on in-memory storage) runs it the same way", () =>
    Effect.gen(function*() {
      const { again, first, written } = yield* runOn(ClusterLayers.layerTest)
      assert.deepStrictEqual([first, again, written], ["done", "done", ["first", "second"]])
    }))
})

describe("ClusterLayers.layerSingle", () => {
  it.scopedLive("refuses to start while another runner holds the state directory's runner.lock (BUSY, pid named)", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "cluster-single-lock-"))),
        (d) => Effect.sync(() => fs.rmSync(d, { recursive: true, force: true }))
      )
      const config = yield* ClusterConfig.decode({ stateDirectory: dir })
      yield* RunnerLock.acquire(dir, "127.0.0.1:34431").pipe(Effect.provide(NodeContext.layer))
      const error = yield* Effect.flip(Layer.build(ClusterLayers.layerSingle(config)))
      assert.deepStrictEqual([error._tag, (error as ClusterError).code, (error as ClusterError).pid], [
        "ClusterError",
        "BUSY",
        process.pid
      ])
      assert.isFalse(fs.existsSync(path.join(dir, ClusterLayers.sqliteFileName)))
    }))
})
