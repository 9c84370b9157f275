/**
 * The cost of one governed tool call. Issue 13 target: harness overhead per tool call ≤ 0.5 ms
 * median, excluding the model and the tool's own work, reported beside the governance decision
 * alone. This file measures the governance side: the engine's decision, and the whole gate
 * (`Governance.authorize`: decision, evidence append, `pre_tool` hooks) for the same calls the
 * harness bench makes — a named tool allowed by a user rule, and a workspace `read`.
 */
import { Evidence, Governance, Policy, Responder, Rule } from "@steward/governance-rules"
import { Effect, Layer, ManagedRuntime } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, bench, describe } from "vitest"

const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "harness-bench-gov-")))
const rules = [Rule.make({ id: "bench-noop", action: "mcp", resource: "noop", effect: "allow" })]

const runtime = ManagedRuntime.make(
  Governance.layerFrom({ home: os.homedir(), level: "execute", workspace, rules }).pipe(
    Layer.provideMerge(Layer.merge(Responder.layerNone, Evidence.layerMemory)),
    Layer.orDie
  )
)
afterAll(() => runtime.dispose())

const noop: Policy.ToolCall = { tool: "mcp", name: "noop" }
const read: Policy.ToolCall = { tool: "read", paths: [`${workspace}/src/index.ts`] }

describe("governance decision alone (per call)", () => {
  bench("engine.decide: named tool (user rule allow)", async () => {
    await runtime.runPromise(Effect.flatMap(Policy.PolicyEngine, (engine) => engine.decide(noop)))
  })
  bench("engine.decide: workspace read", async () => {
    await runtime.runPromise(Effect.flatMap(Policy.PolicyEngine, (engine) => engine.decide(read)))
  })
  bench("Governance.authorize: named tool (decision + evidence + pre_tool hooks)", async () => {
    await runtime.runPromise(Effect.flatMap(Governance.Governance, (gate) => gate.authorize(noop, { runId: "r1" })))
  })
})
