import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as AlgalRuntime from "../src/AlgalRuntime.js"
import * as Manifest from "../src/Manifest.js"
import * as Program from "../src/Program.js"
import * as Runtime from "../src/Runtime.js"
import { edge, example, organism, parseOk } from "./helpers.js"

const inner = (
  key: string,
  program: unknown,
  output: unknown = { kind: "json", schema: { type: ["number", "object", "string"] } }
) =>
  parseOk({
    contract: "algal.organism.v1",
    key: `organism:${key}`,
    name: key,
    interface: { inputs: { x: { cell: "in", port: "x" } }, outputs: { y: { cell: "calc", port: "out" } } },
    cells: [
      { id: "in", kind: "input", outputs: { x: "json" } },
      { id: "calc", kind: "expr", inputs: { x: "json" }, expr: { contract: "algal.expr.v1", program }, output }
    ],
    edges: [edge("in.x", "calc.x")]
  })

const inc = inner("inc", ["add", ["get", "x"], 1])
const step = inner("step", {
  n: ["add", ["get", "x", "n"], 1],
  done: ["if", ["gte", ["add", ["get", "x", "n"], 1], 3], "yes", "no"]
})
const broken = inner("broken", ["div", ["get", "x"], 0])
const manifests = Program.resolverOf([inc, step, broken])

const compile = (json: unknown) => {
  const compiled = Program.compileSync(parseOk(json), { manifests })
  if (!compiled.ok) throw new Error(`${compiled.error.code}: ${compiled.error.message}`)
  return compiled.program
}
const run = (json: unknown, args: unknown) => {
  const result = Runtime.runSync(compile(json), args)
  if (!result.ok) throw new Error(result.error.message)
  return result.result
}
const outer = (
  cell: Record<string, unknown>,
  extra: ReadonlyArray<unknown> = [],
  budgets: Record<string, number> = {}
) =>
  organism([
    { id: "in", kind: "input", outputs: { v: "json" } },
    cell,
    { id: "sink", kind: "fn", fn: "echo.v1" },
    ...extra
  ], [
    edge("in.v", `${cell.id}.x`),
    edge(`${cell.id}.y`, "sink.value")
  ], { budgets, interface: { inputs: {}, outputs: { result: { cell: "sink", port: "value" } } } })

describe("composition cells (organism, repeat, each)", () => {
  it("organism: runs the embedded manifest under <cell>/ with root-owned budgets; outputs are its interface outputs", () => {
    const out = run(outer({ id: "org", kind: "organism", manifest: Manifest.digest(inc) }), { in: { v: 41 } })
    assert.strictEqual(out.outcome, "complete")
    assert.deepStrictEqual(out.outputs, { result: 42 })
    assert.deepStrictEqual(out.receipt.events.map((e) => ("path" in e ? e.path : e.kind)), [
      "run.start",
      "in",
      "org/in",
      "org/calc",
      "org",
      "sink",
      "run.end"
    ])
    const org = out.receipt.cells.org!
    assert.strictEqual(org.work, 100 + out.receipt.cells["org/in"]!.work + out.receipt.cells["org/calc"]!.work)
    assert.strictEqual(out.receipt.work.steps, 5)
    assert.deepStrictEqual(org.outputs, { y: 42 })
  })

  it("repeat: carries outputs into the next round until the until clause holds; records rounds", () => {
    const cell = {
      id: "loop",
      kind: "repeat",
      manifest: Manifest.digest(step),
      maxRounds: 5,
      carry: { y: "x" },
      until: { output: "y", field: "done", equals: "yes" }
    }
    const out = run(outer(cell), { in: { v: { n: 0 } } })
    assert.deepStrictEqual(out.outputs, { result: { n: 3, done: "yes" } })
    assert.strictEqual(out.receipt.cells.loop!.rounds, 3)
    assert.deepStrictEqual(Object.keys(out.receipt.cells).filter((p) => p.startsWith("loop/")).sort(), [
      "loop/r0/calc",
      "loop/r0/in",
      "loop/r1/calc",
      "loop/r1/in",
      "loop/r2/calc",
      "loop/r2/in"
    ])
    const capped = run(outer({ ...cell, maxRounds: 2 }), { in: { v: { n: 0 } } })
    assert.deepStrictEqual(
      capped.outputs,
      { result: { n: 2, done: "no" } },
      "exhausting rounds commits the last outputs"
    )
    const once = run(outer({ ...cell, until: { output: "y", field: "done", equals: "no" } }), { in: { v: { n: 0 } } })
    assert.isUndefined(once.receipt.cells.loop!.rounds, "rounds is recorded only when > 1")
  })

  it("each: maps items through the embedded manifest; outputs are lists in item order; records items", () => {
    const cell = { id: "map", kind: "each", manifest: Manifest.digest(inc), over: "x", maxItems: 4 }
    const out = run(outer(cell), { in: { v: [1, 2, 3] } })
    assert.deepStrictEqual(out.outputs, { result: [2, 3, 4] })
    assert.strictEqual(out.receipt.cells.map!.items, 3)
    assert.deepStrictEqual(out.receipt.cells["map/i2/calc"]!.outputs, { out: 4 })
    const notList = run(outer(cell), { in: { v: 1 } })
    assert.deepStrictEqual(notList.receipt.failure, {
      code: "TYPE_MISMATCH",
      message: "each requires a list",
      path: "map"
    })
    const tooMany = run(outer(cell), { in: { v: [1, 2, 3, 4, 5] } })
    assert.deepStrictEqual(tooMany.receipt.failure, { code: "BUDGET_EXHAUSTED", message: "each maxItems", path: "map" })
    const empty = run(outer(cell), { in: { v: [] } })
    assert.deepStrictEqual(empty.outputs, { result: [] })
    assert.isUndefined(empty.receipt.cells.map!.items)
  })

  it("an unhandled inner failure fails the run at the inner path; a fail edge on the parent handles it", () => {
    const failing = run(outer({ id: "org", kind: "organism", manifest: Manifest.digest(broken) }), { in: { v: 1 } })
    assert.strictEqual(failing.outcome, "failed")
    assert.strictEqual(failing.receipt.failure?.path, "org/calc")
    assert.strictEqual(failing.receipt.failure?.code, "EXPR_FAILED")
    assert.strictEqual(failing.receipt.cells.org!.failure?.code, "EXPR_FAILED")
    const handled = run(
      organism([
        { id: "in", kind: "input", outputs: { v: "json" } },
        { id: "org", kind: "organism", manifest: Manifest.digest(broken) },
        { id: "fallback", kind: "fn", fn: "echo.v1" }
      ], [edge("in.v", "org.x"), edge("org.y", "fallback.value", { on: "fail" })]),
      { in: { v: 1 } }
    )
    assert.strictEqual(handled.outcome, "complete")
    assert.isUndefined(handled.receipt.failure)
    assert.strictEqual((handled.receipt.cells.fallback!.outputs!.value as any).code, "EXPR_FAILED")
  })

  it("nesting deeper than maxDepth fails DEPTH_EXCEEDED", () => {
    const out = run(outer({ id: "org", kind: "organism", manifest: Manifest.digest(inc) }, [], { maxDepth: 0 }), {
      in: { v: 1 }
    })
    assert.deepStrictEqual(out.receipt.failure, {
      code: "DEPTH_EXCEEDED",
      message: "depth 1 exceeds maxDepth 0",
      path: "org"
    })
  })

  it("steps are root-owned: inner activations count against the outer maxSteps", () => {
    const out = run(
      outer({ id: "map", kind: "each", manifest: Manifest.digest(inc), over: "x", maxItems: 8 }, [], { maxSteps: 6 }),
      { in: { v: [1, 2, 3] } }
    )
    assert.deepStrictEqual(out.receipt.failure, {
      code: "BUDGET_EXHAUSTED",
      message: "maxSteps exhausted",
      path: "map/i2/in"
    })
  })

  it("the swarm example fails at the first inner agent (no executor) with the inner path", () => {
    const swarm = Program.compileSync(parseOk(example("swarm")), {
      manifests: Program.resolverOf([parseOk(example("swarm-inner"))])
    })
    assert.isTrue(swarm.ok)
    if (!swarm.ok) return
    const result = Runtime.runSync(swarm.program, { batch: { qs: ["a?", "b?"] } })
    assert.isTrue(result.ok)
    if (!result.ok) return
    assert.deepStrictEqual(result.result.receipt.failure, {
      code: "EFFECT_UNBOUND",
      message: "no host-admitted executor for this request",
      path: "map/i0/researcher"
    })
  })

  it.effect("composition receipts verify", () =>
    Effect.gen(function*() {
      const runtime = yield* AlgalRuntime.AlgalRuntime
      const json = outer({
        id: "loop",
        kind: "repeat",
        manifest: Manifest.digest(step),
        maxRounds: 5,
        carry: { y: "x" },
        until: { output: "y", field: "done", equals: "yes" }
      })
      const result = yield* runtime.run(json, { in: { v: { n: 0 } } })
      const verified = yield* runtime.verify(result.receipt, json)
      assert.isTrue(verified.ok, verified.mismatches.join("\n"))
    }).pipe(Effect.provide(AlgalRuntime.layerMemory({ manifests }))))
})
