import { ManagedRuntime } from "effect"
import { afterAll, bench, describe } from "vitest"
import * as AlgalRuntime from "../src/AlgalRuntime.js"
import * as Executor from "../src/Executor.js"
import * as Manifest from "../src/Manifest.js"
import * as Program from "../src/Program.js"

// Issue 4 targets: a 4-cell agent chain served by scripted responses (per-run overhead excluding
// the model, target ≤ 200 µs median) and the resume of a suspended run.
const agent = (id: string, from: string) => ({
  id,
  kind: "agent",
  inputs: { prev: "text" },
  prompt: `Step ${id}: improve the previous answer.`,
  output: { kind: "text" },
  _from: from
})
const cells = [agent("a1", "in"), agent("a2", "a1"), agent("a3", "a2"), agent("a4", "a3")]
const chain = {
  contract: "algal.organism.v1",
  key: "organism:agent-chain",
  name: "Four-agent chain",
  interface: { inputs: { task: { cell: "in", port: "prev" } }, outputs: { answer: { cell: "a4", port: "out" } } },
  cells: [{ id: "in", kind: "input", outputs: { prev: "text" } }, ...cells.map(({ _from: _, ...c }) => c)],
  edges: cells.map((c) => ({
    from: { cell: c._from, port: c._from === "in" ? "prev" : "out" },
    to: { cell: c.id, port: "prev" }
  }))
}
const parsed = Manifest.parseSync(chain)
if (!parsed.ok) throw new Error(parsed.error.message)
const compiled = Program.compileSync(parsed.manifest)
if (!compiled.ok) throw new Error(compiled.error.message)
const program = compiled.program
const args = { in: { prev: "Summarize the incident report in two sentences." } }
const responses = { a1: "Draft one.", a2: "Draft two.", a3: "Draft three.", a4: "Final answer." }

const managed = ManagedRuntime.make(AlgalRuntime.layer)
const service = managed.runSync(AlgalRuntime.AlgalRuntime)
afterAll(() => managed.dispose())

const suspended = managed.runSync(service.run(program, args, {
  executors: [
    Executor.scripted({ ...responses, a4: { $error: { code: "EFFECT_SUSPENDED", message: "awaiting review" } } })
  ]
}))
if (suspended.outcome !== "suspended") throw new Error("expected a suspended checkpoint")
const checkpoint = suspended.receipt

describe("effects: agent chain and resume", () => {
  bench("4-cell agent chain, scripted responses (AlgalRuntime.run, receipt + digest)", () => {
    managed.runSync(service.run(program, args, { executors: [Executor.scripted(responses)] }))
  })
  bench("resume of a run suspended at the 4th agent (verify checkpoint + replay 3 effects + 1 live)", () => {
    managed.runSync(service.resume(checkpoint, program, { executors: [Executor.scripted({ a4: "Final answer." })] }))
  })
})
