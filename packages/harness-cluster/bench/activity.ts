/**
 * Per-activity overhead of the engine stacks: a workflow of `count` activities, each the test
 * workflow's activity (append one line to a file), on `layerMemory`, the SQLite single runner and
 * the PostgreSQL socket runner (when STEWARD_TEST_DATABASE_URL is set), beside `count` direct calls
 * of the same function. Per activity = a run's wall time / count (the workflow's start is amortised).
 * Medians of `rounds`, ratios to the direct call.
 *
 *   node --import tsx bench/activity.ts [count=50] [rounds=5]
 */
import { NodeRuntime } from "@effect/platform-node"
import * as Activity from "@effect/workflow/Activity"
import * as Workflow from "@effect/workflow/Workflow"
import type * as WorkflowEngine from "@effect/workflow/WorkflowEngine"
import { SqlBackends } from "@steward/testing"
import { Clock, Effect, Layer, Schema } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as ClusterConfig from "../src/ClusterConfig.js"
import * as ClusterLayers from "../src/ClusterLayers.js"
import { append } from "../test/support/AppendRun.js"
import { freePort } from "../test/support/processes.js"

const count = Number(process.argv[2] ?? 50)
const rounds = Number(process.argv[3] ?? 5)

const ManyAppends = Workflow.make({
  name: "bench/many-appends",
  payload: { id: Schema.String, file: Schema.String, count: Schema.Number },
  success: Schema.Number,
  idempotencyKey: (payload) => payload.id
})

const ManyAppendsLive = ManyAppends.toLayer(Effect.fn(function*(payload) {
  for (let i = 0; i < payload.count; i++) {
    yield* Activity.make({ name: `append/${i}`, execute: append(payload.file, `append ${i}`) })
  }
  return payload.count
}))

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

/** Milliseconds per activity of each round. */
const timed = <E, R>(body: (round: number) => Effect.Effect<unknown, E, R>) =>
  Effect.forEach(Array.from({ length: rounds }, (_, round) => round), (round) =>
    Effect.gen(function*() {
      const start = yield* Clock.currentTimeNanos
      yield* body(round)
      return Number((yield* Clock.currentTimeNanos) - start) / 1e6 / count
    }))

const onEngine = (name: string, dir: string, engine: Layer.Layer<WorkflowEngine.WorkflowEngine, unknown>) =>
  timed((round) => ManyAppends.execute({ id: `${name}-${round}`, file: path.join(dir, `${name}.log`), count })).pipe(
    Effect.provide(ManyAppendsLive.pipe(Layer.provideMerge(engine))),
    Effect.scoped
  )

const program = Effect.gen(function*() {
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "cluster-bench-"))),
    (d) => Effect.sync(() => fs.rmSync(d, { recursive: true, force: true }))
  )
  const direct = yield* timed(() =>
    Effect.forEach(
      Array.from({ length: count }, (_, i) => i),
      (i) => append(path.join(dir, "direct.log"), `append ${i}`)
    )
  )
  const results: Array<readonly [string, ReadonlyArray<number>]> = [["direct call", direct]]
  results.push(["layerMemory", yield* onEngine("memory", dir, ClusterLayers.layerMemory)])
  const single = yield* ClusterConfig.decode({ stateDirectory: path.join(dir, "single"), flags: {} })
  results.push(["SQLite single runner", yield* onEngine("single", dir, ClusterLayers.layerSingle(single))])
  if (SqlBackends.postgresUrl !== undefined) {
    const team = yield* ClusterConfig.decode({
      stateDirectory: path.join(dir, "team"),
      flags: { databaseUrl: yield* SqlBackends.freshPostgresDatabase(), listen: `127.0.0.1:${yield* freePort}` }
    })
    results.push(["PostgreSQL socket runner", yield* onEngine("team", dir, ClusterLayers.layerTeam(team))])
  }
  const floor = median(direct)
  console.log(
    `per-activity time, ${count} activities a run, median of ${rounds} runs; load: ${
      os.loadavg().map((l) => l.toFixed(2)).join(" ")
    }`
  )
  for (const [name, xs] of results) {
    const m = median(xs)
    console.log(
      `${name.padEnd(26)} ${m.toFixed(3).padStart(9)} ms  ×${(m / floor).toFixed(0).padStart(6)}  (runs: ${
        xs.map((x) => x.toFixed(2)).join(", ")
      })`
    )
  }
})

NodeRuntime.runMain(program.pipe(Effect.scoped))
