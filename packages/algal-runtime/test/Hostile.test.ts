import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as AlgalRuntime from "../src/AlgalRuntime.js"
import * as Manifest from "../src/Manifest.js"
import * as Runtime from "../src/Runtime.js"
import { compileOk, organism, xcb } from "./helpers.js"

describe("hostile input never crashes or hangs: typed errors only", () => {
  it.effect("cyclic and absurdly deep JS values are PARSE_FAILED (depth bound), not a stack overflow", () =>
    Effect.gen(function*() {
      const cyclic: any = organism([{ id: "in", kind: "input", outputs: { v: "json" } }])
      cyclic.cells[0].outputs.self = cyclic
      assert.strictEqual((yield* Effect.flip(Manifest.parse(cyclic))).code, "PARSE_FAILED")
      let deep: unknown = 1
      for (let i = 0; i < 200_000; i++) deep = [deep]
      assert.strictEqual((yield* Effect.flip(Manifest.parse({ ...organism([]), note: deep }))).code, "PARSE_FAILED")
      const program = compileOk(xcb("settle"))
      const cyclicArgs: any = { src: { features: {} } }
      cyclicArgs.src.features.loop = cyclicArgs
      const run = Runtime.runSync(program, cyclicArgs)
      assert.isTrue(!run.ok && run.error.code === "PARSE_FAILED")
      const deepArgs = Runtime.runSync(program, { src: { features: deep } })
      assert.isTrue(!deepArgs.ok && deepArgs.error.code === "PARSE_FAILED")
    }))

  it.effect("10,000 cells, 100,000 edges and huge strings are bounded before any work", () =>
    Effect.gen(function*() {
      const cells = Array.from({ length: 10_000 }, (_, i) => ({ id: `c${i}`, kind: "input", outputs: {} }))
      const many = yield* Effect.flip(Manifest.parse(organism(cells)))
      // a count bound is a parse error in the original (issue 14 conformance)
      assert.deepStrictEqual([many.code, many.message], ["PARSE_FAILED", "array count"])
      const edges = Array.from(
        { length: 100_000 },
        () => ({ from: { cell: "a", port: "b" }, to: { cell: "c", port: "d" } })
      )
      const big = yield* Effect.flip(Manifest.parse(organism([], edges)))
      assert.deepStrictEqual([big.code, big.message], ["BUDGET_EXHAUSTED", "manifest bytes"])
      const huge = yield* Effect.flip(Manifest.parse({ ...organism([]), name: "x".repeat(5_000_000) }))
      assert.strictEqual(huge.code, "BUDGET_EXHAUSTED")
    }))

  it.effect("non-JSON values (functions, symbols, bigints, NaN, Infinity) are rejected by parse and by run", () =>
    Effect.gen(function*() {
      for (const bad of [() => 1, Symbol("x"), BigInt(1), Number.NaN, Infinity]) {
        const error = yield* Effect.flip(Manifest.parse({ ...organism([]), note: bad }))
        assert.strictEqual(error.code, "PARSE_FAILED")
      }
      const runtime = yield* AlgalRuntime.AlgalRuntime
      const error = yield* Effect.flip(runtime.run(xcb("settle"), { src: { features: { a: Number.NaN } } }))
      assert.strictEqual(error.code, "PARSE_FAILED")
      assert.include(error.message, "non-finite")
    }).pipe(Effect.provide(AlgalRuntime.layer)))

  it.effect("an expr program at every static bound is rejected at parse time with its EXPR record", () =>
    Effect.gen(function*() {
      let nested: unknown = 1
      for (let i = 0; i < 40; i++) nested = ["neg", nested]
      const cell = {
        id: "e",
        kind: "expr",
        expr: { contract: "algal.expr.v1", program: nested },
        output: { kind: "json", schema: {} }
      }
      const error = yield* Effect.flip(Manifest.parse(organism([cell])))
      assert.strictEqual(error.code, "PARSE_FAILED")
      assert.include(error.message, `"program-depth"`)
    }))
})

describe("exotic non-JSON inputs", () => {
  it("a Proxy whose traps throw is a typed PARSE_FAILED, and a hand-built malformed manifest compiles to INTERNAL", async () => {
    const { Program } = await import("../src/index.js")
    const trap = new Proxy({}, {
      ownKeys: () => {
        throw new Error("boom")
      }
    })
    const parsed = Manifest.parseSync(trap)
    assert.isTrue(!parsed.ok && parsed.error.code === "PARSE_FAILED" && parsed.error.message.includes("boom"))
    const compiled = Program.compileSync({ cells: null, edges: [] } as any)
    assert.isTrue(!compiled.ok && compiled.error.code === "INTERNAL")
  })
})
