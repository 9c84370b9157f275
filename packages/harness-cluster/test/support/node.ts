/**
 * A cluster process for the end-to-end tests: `single` (a single runner on SQLite), `team` (a
 * socket runner on PostgreSQL) or `client` (client-only). Runners serve `AppendRun`; with `submit`
 * a process starts the run, and with `result` it polls the run to completion and writes its exit
 * to that file. Arguments: one JSON object.
 */
import { NodeRuntime } from "@effect/platform-node"
import type * as WorkflowEngine from "@effect/workflow/WorkflowEngine"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as ClusterConfig from "../../src/ClusterConfig.js"
import * as ClusterLayers from "../../src/ClusterLayers.js"
import { AppendRun, AppendRunLive, awaitDone } from "./AppendRun.js"

interface Args {
  readonly role: "single" | "team" | "client"
  readonly stateDirectory: string
  readonly databaseUrl?: string
  readonly listen?: string
  readonly id: string
  readonly file: string
  readonly pauseMillis: number
  readonly submit: boolean
  readonly result?: string
}

const args = JSON.parse(process.argv[2]!) as Args
const run = { id: args.id, file: args.file, pauseMillis: args.pauseMillis }

const program = Effect.gen(function*() {
  const config = yield* ClusterConfig.decode({
    stateDirectory: args.stateDirectory,
    flags: { databaseUrl: args.databaseUrl, listen: args.listen }
  })
  const engine: Layer.Layer<WorkflowEngine.WorkflowEngine, unknown> = args.role === "single"
    ? ClusterLayers.layerSingle(config)
    : args.role === "team"
    ? ClusterLayers.layerTeam(config)
    : ClusterLayers.layerClient(config)
  const work = Effect.gen(function*() {
    // a runner's engine and the served workflow are up: a test may start the next process
    if (args.role !== "client") {
      fs.mkdirSync(args.stateDirectory, { recursive: true })
      fs.writeFileSync(`${args.stateDirectory}/ready`, String(process.pid))
    }
    if (args.submit) yield* AppendRun.execute(run, { discard: true })
    if (args.result !== undefined) {
      const exit = yield* awaitDone(args.id, args.file, args.pauseMillis)
      fs.writeFileSync(args.result, exit)
    }
    if (args.role === "client") return
    yield* Effect.never
  })
  const served = args.role === "client" ? Layer.empty : AppendRunLive
  yield* work.pipe(Effect.provide(served.pipe(Layer.provideMerge(engine))))
})

NodeRuntime.runMain(program.pipe(Effect.scoped))
