/**
 * Harness overhead per tool call (issue 13 target: ≤ 0.5 ms median), excluding the model and the
 * tool's own work: a stub model that costs nothing answers the first call of each run with
 * `CALLS` calls of a `noop` tool (allowed by a user rule; the tool returns at once) and the next
 * with a final text. Per-call overhead = (run with CALLS calls − run with no call) / CALLS, so
 * the per-run fixed cost (run start, settle, checkpoint, managed transition) cancels out. What
 * remains per call is the harness's chokepoint: input decoding, the governance decision and its
 * hooks, the tool.call / approval / tool.result events, heartbeat and step bookkeeping.
 * The governance decision alone (`engine.decide` for the same call) is a row of this file, so the
 * ratio comes from the same run; before the rows, the file also measures both runs and the
 * decision interleaved in one loop and prints the per-call overhead and its ratio to the decision
 * (the steadier figure on a loaded machine). Memory store, so SQLite cost is measured separately
 * in `EventStore.bench.ts`.
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Response from "@effect/ai/Response"
import { NodeContext } from "@effect/platform-node"
import { Evidence, Governance, Policy, Responder, Rule } from "@steward/governance-rules"
import { Effect, Layer, ManagedRuntime, Schema, Stream } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, bench, describe } from "vitest"
import * as Event from "../src/Event.js"
import * as EventStore from "../src/EventStore.js"
import * as Session from "../src/Session.js"
import * as Tools from "../src/Tools.js"

const CALLS = 20

const noop = Tools.make({
  name: "noop",
  description: "Does nothing (benchmark).",
  input: Schema.Struct({ n: Schema.Number }),
  governance: () => ({ tool: "mcp", name: "noop" }),
  execute: () => Effect.succeed({ ok: true, output: "ok" })
})

const usage = { inputTokens: 100, outputTokens: 10, totalTokens: 110, reasoningTokens: undefined, cachedInputTokens: 0 }

/** A model that answers odd calls with `calls` tool calls (when asked for any) and even calls with text. */
/**
 * A model that costs nothing: it answers a turn that ends with the person's message with `calls()`
 * calls of the `noop` tool, and a turn that ends with tool results with a final text.
 */
const stubModel = (calls: () => number) =>
  Layer.succeed(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (options) =>
        Effect.sync((): Array<Response.PartEncoded> => {
          const n = options.prompt.content.at(-1)?.role === "tool" ? 0 : calls()
          if (n === 0) return [{ type: "text", text: "Done." }, { type: "finish", reason: "stop", usage }]
          return [
            ...Array.from({ length: n }, (_, i): Response.PartEncoded => ({
              type: "tool-call",
              id: `call_${i}`,
              name: "noop",
              params: { n: i }
            })),
            { type: "finish", reason: "tool-calls", usage }
          ]
        }),
      streamText: () => Stream.die("the benchmark model does not stream")
    }).pipe(Effect.runSync)
  )

let callsPerRun = 0
// Explicit session ids: generated ones carry the second and four random hex digits, and a fast
// benchmark creates hundreds of sessions a second.
let sessionsMade = 0
const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "harness-bench-run-")))
const runtime = ManagedRuntime.make(
  Session.layer({ tools: [noop] }).pipe(
    Layer.provideMerge(Layer.mergeAll(EventStore.layerMemory, stubModel(() => callsPerRun), NodeContext.layer)),
    Layer.orDie
  )
)
afterAll(() => runtime.dispose())

const oneRun = (calls: number) => {
  callsPerRun = calls
  return runtime.runPromise(Effect.gen(function*() {
    const sessions = yield* Session.Sessions
    const view = yield* sessions.create({
      id: `bench-${sessionsMade++}`,
      workspace,
      level: "execute",
      rules: [{ id: "bench-noop", action: "mcp", resource: "noop", effect: "allow" }]
    })
    const outcome = yield* sessions.run(view.id, "Run the benchmark.")
    if (outcome.status !== "completed") throw new Error(`run settled ${outcome.status} ${outcome.code}`)
  }))
}

// Runs take milliseconds: enough warm-up for the JIT and enough samples for a stable median.
const runs = { warmupIterations: 20, iterations: 60 }

describe("harness overhead per tool call (memory store, stub model, noop tool)", () => {
  bench("a run with no tool call (the per-run fixed cost)", () => oneRun(0), runs)
  bench(`a run with ${CALLS} tool calls`, () => oneRun(CALLS), runs)
  bench("reference: the governance decision alone (engine.decide, the same call)", async () => {
    await decideAlone()
  })
})

// The floor: the chokepoint's parts composed by hand for one call (decode the input, authorize
// through the governance gate, execute, commit tool.call / approval / tool.result in one step).
const floor = ManagedRuntime.make(
  Layer.mergeAll(
    EventStore.layerMemory,
    Governance.layerFrom({
      home: os.homedir(),
      level: "execute",
      workspace,
      rules: [Rule.make({ id: "bench-noop", action: "mcp", resource: "noop", effect: "allow" })]
    }).pipe(Layer.provideMerge(Layer.merge(Responder.layerNone, Evidence.layerMemory)))
  ).pipe(Layer.orDie)
)
afterAll(() => floor.dispose())

const noopCall: Policy.ToolCall = { tool: "mcp", name: "noop" }
const decideAlone = () => floor.runPromise(Effect.flatMap(Policy.PolicyEngine, (engine) => engine.decide(noopCall)))

const median = (xs: Array<number>): number => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const time = async (f: () => Promise<unknown>, times = 1): Promise<number> => {
  const start = performance.now()
  for (let i = 0; i < times; i++) await f()
  return (performance.now() - start) / times
}
// Interleaved: a load spike hits the three measures alike.
{
  for (let i = 0; i < 20; i++) {
    await oneRun(0)
    await oneRun(CALLS)
    await decideAlone()
  }
  const empty: Array<number> = [], full: Array<number> = [], alone: Array<number> = []
  for (let i = 0; i < 60; i++) {
    empty.push(await time(() => oneRun(0)))
    full.push(await time(() => oneRun(CALLS)))
    alone.push(await time(decideAlone, 20))
  }
  const perCall = (median(full) - median(empty)) / CALLS
  console.log(
    `[harness overhead per tool call] ${perCall.toFixed(3)} ms per call (run with ${CALLS} calls ${
      median(full).toFixed(2)
    } ms − run with none ${median(empty).toFixed(2)} ms, / ${CALLS}); governance decision alone ${
      median(alone).toFixed(4)
    } ms; ratio ${(perCall / median(alone)).toFixed(1)}`
  )
}
await floor.runPromise(Effect.flatMap(EventStore.EventStore, (store) => store.create("floor", {})))
let floorCall = 0

describe("the same call composed by hand (lower bound for the chokepoint)", () => {
  bench("decode + authorize + execute + commit 3 events", () =>
    floor.runPromise(Effect.gen(function*() {
      const id = `c${floorCall++}`
      const input = yield* Tools.decodeInput(noop, { n: 1 })
      const context = { workspace, runId: "r1", callId: id }
      const call = noop.governance(input, context)
      const granted = yield* Effect.flatMap(Governance.Governance, (gate) => gate.authorize(call, { runId: "r1" }))
      const result = yield* noop.execute(input, context)
      yield* Effect.flatMap(EventStore.EventStore, (store) =>
        store.commit("floor", {
          events: [
            Event.make("r1", "tool.call", { callId: id, tool: noop.name, input }),
            Event.make("r1", "approval", { callId: id, by: granted.grantedBy, rule: granted.decision.citation.ruleId }),
            Event.make("r1", "tool.result", { callId: id, ok: result.ok, output: result.output })
          ],
          step: { run: "r1", index: floorCall, result }
        }))
    })))
})
