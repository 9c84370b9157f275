import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "fast-check"
import * as AlgalRuntime from "../src/AlgalRuntime.js"
import { BAIL } from "../src/internal/expr/fast.js"
import { planOf, runPlan } from "../src/internal/straightLine.js"
import type * as Program from "../src/Program.js"
import * as Runtime from "../src/Runtime.js"
import { compileOk, edge, organism, settleArgs, xcb } from "./helpers.js"

// `Runtime.evaluateSync` must decide exactly what a run with a receipt decides: the same outcome,
// interface outputs (key order included), work ledger and failure, and the same typed error for
// invalid args. Pure organisms usually take the straight-line plan (ADR 0397); these tests hold
// the plan to the interpreter and check that it really answers.

const projection = (result: Runtime.RunResult): Runtime.Evaluation => {
  const { failure, work } = result.receipt
  return failure === undefined
    ? { outcome: result.outcome, outputs: result.outputs, work }
    : { outcome: result.outcome, outputs: result.outputs, work, failure }
}

/** Evaluate and run on the same args; assert they agree. Returns whether the plan answered. */
const agree = (program: Program.Program, args: unknown): boolean => {
  const want = Runtime.runSync(program, args)
  const got = Runtime.evaluateSync(program, args)
  if (!want.ok) {
    assert.isFalse(got.ok, "evaluate accepted args a run refuses")
    if (!got.ok) assert.deepStrictEqual(got.error, want.error)
    return false
  }
  assert.isTrue(got.ok, "evaluate refused args a run accepts")
  if (!got.ok) return false
  const expected = projection(want.result)
  assert.deepStrictEqual(got.evaluation, expected)
  assert.strictEqual(JSON.stringify(got.evaluation), JSON.stringify(expected))
  const plan = planOf(program)
  return plan !== undefined && runPlan(plan, args) !== BAIL
}

const settle = compileOk(xcb("settle"))

describe("Runtime.evaluateSync", () => {
  it("decides the settle organism as its run does, on the straight-line plan", () => {
    assert.isDefined(planOf(settle))
    const cases = [
      settleArgs({}),
      settleArgs({ state: "needs_answer" }),
      settleArgs({ limit: 1 }),
      settleArgs({ blocked: 1, done_claim: 0 }),
      settleArgs({}, { a: 0, b: 3 }),
      settleArgs({}, { a: 2, b: 0.5, c: "x" })
    ]
    for (const args of cases) {
      // twice: the second call reads the args through the checks specialized on the first
      assert.isTrue(agree(settle, args))
      assert.isTrue(agree(settle, args))
    }
    const decided = Runtime.evaluateSync(settle, settleArgs({ limit: 1 }))
    assert.deepStrictEqual(decided.ok && decided.evaluation.outputs, {
      decision: { category: "interrupted", gate: "limit", head: "unfinished", score: 550 }
    })
  })

  it("agrees with the run on random and hostile settle args", () => {
    // mostly well-formed, so the plan gets to answer; now and then a part no run admits
    const awkward = fc.oneof(
      { arbitrary: fc.constantFrom("a", "b", "c", "d"), weight: 30 },
      { arbitrary: fc.constantFrom("toString", "__proto__", "10", "\u{1F600}", "\uD800", ""), weight: 1 }
    )
    const hostileScalar = fc.constantFrom(NaN, Infinity, -0, 1e21, "\uDC00", "é", undefined, null, true)
    const scalar = fc.oneof(
      { arbitrary: fc.double({ min: -3, max: 3, noNaN: true }), weight: 60 },
      { arbitrary: fc.string({ maxLength: 3 }), weight: 2 },
      { arbitrary: hostileScalar, weight: 1 }
    )
    const nested = fc.oneof(
      { arbitrary: scalar, weight: 40 },
      { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 2 },
      { arbitrary: fc.constantFrom(new Date(0), new Map(), [1, , 2]), weight: 1 }
    )
    const term = fc.record({ f: fc.oneof(awkward, fc.constant(7)), w: scalar })
    const head = fc.record({ bias: scalar, cut: scalar, terms: fc.array(term, { maxLength: 6 }) })
    const evidence = fc.record({
      state: fc.constantFrom("idle", "idle", "idle", "idle", "working", "failed", "nonsense", 3),
      limit: fc.constantFrom(0, 1, 0.5, "1"),
      blocked: fc.constantFrom(0, 1),
      done_claim: fc.constantFrom(0, 1)
    })
    const src = fc.tuple(
      fc.record({
        features: fc.dictionary(awkward, nested, { maxKeys: 5 }),
        params: fc.record({ unfinished: head, confirm: head }),
        evidence
      }),
      // a missing or an undeclared port, sometimes
      fc.constantFrom("", "", "", "", "", "", "drop", "stray")
    ).map(([s, change]) => {
      if (change === "drop") {
        const { evidence: _, ...rest } = s
        return rest
      }
      return change === "stray" ? { ...s, stray: 1 } : s
    })
    // args as JSON.parse makes them, or as a caller builds them (key order shuffled)
    const args = fc.tuple(src, fc.boolean(), fc.boolean(), fc.integer({ min: 0, max: 9 })).map(
      ([s, parsed, shuffled, n]) => {
        const extraCell = n === 0
        const record = shuffled ? Object.fromEntries(Object.entries(s).reverse()) : s
        const built: Record<string, unknown> = extraCell ? { src: record, other: { x: 1 } } : { src: record }
        if (!parsed) return built
        try {
          return JSON.parse(JSON.stringify(built))
        } catch {
          return built
        }
      }
    )
    let answered = 0
    fc.assert(
      fc.property(args, (a) => {
        if (agree(settle, a)) answered++
        agree(settle, a)
      }),
      { numRuns: 1_500 }
    )
    // not a test that cannot fail: the plan answers a good share of these
    assert.isAbove(answered, 400)
  })

  it("refuses invalid args with the run's typed error", () => {
    for (const args of [null, [], 3, { src: 1 }, { src: [] }, { src: { features: NaN } }]) {
      const want = Runtime.runSync(settle, args)
      const got = Runtime.evaluateSync(settle, args)
      assert.isFalse(want.ok)
      assert.isFalse(got.ok)
      if (!want.ok && !got.ok) assert.deepStrictEqual(got.error, want.error)
    }
  })

  it("survives exotic args: getters, proxies, class instances, a polluted prototype", () => {
    class Point {
      constructor(readonly x: number) {}
    }
    const throwing = {
      get features(): unknown {
        throw new Error("boom")
      }
    }
    const exotic: ReadonlyArray<() => unknown> = [
      () => ({ src: { ...settleArgs({}).src, features: new Point(1) } }),
      () => ({ src: new Proxy(settleArgs({}).src, {}) }),
      () => ({ src: Object.assign(Object.create(null), settleArgs({}).src) }),
      () => ({ src: { ...settleArgs({}).src, evidence: JSON.parse("{\"__proto__\":1,\"state\":\"idle\"}") } }),
      () => {
        const src: Record<string, unknown> = { ...settleArgs({}).src }
        Object.defineProperty(src, "features", { value: { a: 1 }, enumerable: false })
        return { src }
      },
      () => {
        const point = new Point(1) as unknown as Record<string, unknown>
        Object.defineProperty(point, "__proto__", { value: Object.prototype, enumerable: false })
        return { src: { ...settleArgs({}).src, features: point } }
      }
    ]
    for (const make of exotic) agree(settle, make())
    // a getter that throws: the run's reading throws too, so both report it the same way or throw
    const evaluate = () => Runtime.evaluateSync(settle, { src: throwing })
    const run = () => Runtime.runSync(settle, { src: throwing })
    let ran: unknown
    try {
      ran = run()
    } catch (error) {
      ran = error
    }
    let evaluated: unknown
    try {
      evaluated = evaluate()
    } catch (error) {
      evaluated = error
    }
    assert.deepStrictEqual(evaluated instanceof Error, ran instanceof Error)
    // huge and deep: refused or failed exactly as the run does, without a crash or a hang
    let deep: unknown = 1
    for (let i = 0; i < 100_000; i++) deep = { a: deep }
    const big = { k: "x".repeat(70_000) }
    const shared = Array.from({ length: 1_024 }, () => big)
    for (const features of [deep, shared, { list: Array.from({ length: 5_000 }, (_, i) => i) }]) {
      agree(settle, { src: { ...settleArgs({}).src, features } })
    }
    const proto = Object.prototype as Record<string, unknown>
    try {
      proto.polluted = 1
      assert.isFalse(agree(settle, settleArgs({})), "the plan must give way to a polluted prototype")
    } finally {
      delete proto.polluted
    }
    assert.isTrue(agree(settle, settleArgs({})))
  })
})

// ----------------------------------------------------------------------------- other organisms

const exprCell = (id: string, inputs: Record<string, unknown>, program: unknown, output: unknown) => ({
  id,
  kind: "expr",
  inputs,
  expr: { contract: "algal.expr.v1", program },
  output
})

const outputs = [
  { kind: "json", schema: { type: ["number", "string", "boolean", "null", "array", "object"] } },
  { kind: "json", schema: { type: ["number", "string", "boolean", "null", "array", "object"] } },
  { kind: "json", schema: {} },
  { kind: "json", schema: { type: "number", minimum: 0 }, schemaVersion: 2 },
  { kind: "json", schema: {}, schemaVersion: 3 },
  { kind: "text" },
  { kind: "choice", labels: ["yes", "no"] }
] as const

const programs = [
  ["get", "k"],
  ["quote", 3],
  ["add", ["get", "x"], ["get", "k"]],
  ["get", "x"],
  ["if", ["gt", ["get", "x"], 0], "yes", "no"],
  { n: ["get", "x"], k: ["get", "k"] },
  ["div", ["get", "x"], ["get", "k"]],
  ["add", ["get", "x"], "text"],
  ["fold", ["quote", [1, 2, 3]], 0, "acc", "t", ["add", ["get", "acc"], ["get", "t"]]],
  ["fold", ["quote", Array.from({ length: 300 }, (_, i) => i)], 0, "acc", "t", ["add", ["get", "acc"], 1]],
  ["get", "x", "deep", "er"],
  ["quote", { a: [1, 2, { b: null }] }]
] as const

// input → (k: const) → first → second, with the output contracts, budgets and wiring varied.
const chain = fc.record({
  first: fc.constantFrom(...programs),
  second: fc.constantFrom(...programs),
  firstOut: fc.constantFrom(...outputs),
  secondOut: fc.constantFrom(...outputs),
  k: fc.constantFrom(2, 2, 2, 0, "k", { deep: { er: 1 } }),
  maxWork: fc.constantFrom(350, 420, 2_000, 60_000, 60_000, 60_000),
  maxSteps: fc.constantFrom(3, 4, 16),
  passThrough: fc.boolean()
}).map((c) =>
  organism(
    [
      { id: "src", kind: "input", outputs: { x: "json" } },
      { id: "k", kind: "const", outputs: { k: { type: "json", value: c.k } } },
      exprCell("first", { x: "json", k: "json" }, c.first, c.firstOut),
      exprCell("second", { x: "json", k: "json" }, c.second, c.secondOut)
    ],
    [
      edge("src.x", "first.x"),
      edge("k.k", "first.k"),
      edge("first.out", "second.x"),
      edge("k.k", "second.k")
    ],
    {
      budgets: { maxWork: c.maxWork, maxSteps: c.maxSteps },
      interface: {
        inputs: { x: { cell: "src", port: "x" } },
        outputs: {
          result: { cell: "second", port: "out" },
          ...(c.passThrough ? { given: { cell: "src", port: "x" } } : {})
        }
      }
    }
  )
)
const x = fc.oneof(
  { arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }), weight: 4 },
  { arbitrary: fc.constantFrom(0, -0, 1, "s", null, true, { deep: { er: 2 } }, [1, 2], NaN, "\uD800"), weight: 2 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 1 }
)

describe("Runtime.evaluateSync on pure organisms", () => {
  it("agrees with the run whatever the programs, contracts, budgets and inputs", () => {
    let planned = 0
    let answered = 0
    let completed = 0
    fc.assert(
      fc.property(chain, fc.array(x, { minLength: 1, maxLength: 3 }), (json, xs) => {
        const program = compileOk(json)
        if (planOf(program) !== undefined) planned++
        for (const value of xs) {
          const args = { src: { x: value } }
          if (agree(program, args)) answered++
          const ran = Runtime.runSync(program, args)
          if (planOf(program) !== undefined && ran.ok && ran.result.outcome === "complete") completed++
        }
      }),
      { numRuns: 600 }
    )
    assert.isAbove(planned, 300)
    // the plan answers most runs of a planned organism that complete (it gives way only where an
    // expression's fast tier does, e.g. an object literal holding a list)
    assert.isAbove(completed, 60)
    assert.isAbove(answered, completed * 0.8)
  })

  it("leaves programs that need the scheduler to the interpreter", () => {
    const base = (extra: Record<string, unknown>, cellExtra: Record<string, unknown> = {}, edgeExtra = {}) =>
      compileOk(organism(
        [
          { id: "src", kind: "input", outputs: { x: "json" } },
          { ...exprCell("e", { x: "json" }, ["get", "x"], { kind: "json", schema: {} }), ...cellExtra }
        ],
        [edge("src.x", "e.x", edgeExtra)],
        {
          interface: { inputs: { x: { cell: "src", port: "x" } }, outputs: { out: { cell: "e", port: "out" } } },
          ...extra
        }
      ))
    const guarded = base({}, {}, {
      guard: { expr: { contract: "algal.expr.v1", program: ["eq", ["get", "value"], "go"] } }
    })
    const tight = base({ budgets: { maxSteps: 1 } })
    const optional = base({}, { inputs: { x: { type: "json", optional: true } } })
    for (const program of [guarded, tight, optional]) {
      assert.isUndefined(planOf(program))
      for (const value of [{ a: 1 }, "go", 3]) agree(program, { src: { x: value } })
    }
    // an fn cell: the interpreter runs it
    const withFn = compileOk(organism(
      [
        { id: "src", kind: "input", outputs: { x: "json" } },
        { id: "f", kind: "fn", fn: "echo.v1" }
      ],
      [edge("src.x", "f.value")],
      { interface: { inputs: { x: { cell: "src", port: "x" } }, outputs: { out: { cell: "f", port: "value" } } } }
    ))
    assert.isUndefined(planOf(withFn))
    agree(withFn, { src: { x: { a: 1, b: 2 } } })
  })
})

describe("AlgalRuntime.evaluate", () => {
  it.effect("decides as run does, through the service", () =>
    Effect.gen(function*() {
      const runtime = yield* AlgalRuntime.AlgalRuntime
      const json = xcb("settle")
      const args = settleArgs({ blocked: 1, done_claim: 0 })
      const ran = yield* runtime.run(json, args)
      const evaluated = yield* runtime.evaluate(json, args)
      assert.deepStrictEqual(evaluated, projection(ran))
      const named = yield* runtime.evaluate(json, args.src, { interface: true })
      assert.deepStrictEqual(named, evaluated)
      // args the plan gives way on (a port the organism does not declare) run on the interpreter
      const stray = { src: { ...args.src, stray: 1 } }
      assert.deepStrictEqual(yield* runtime.evaluate(json, stray), projection(yield* runtime.run(json, stray)))
      const invalid = yield* Effect.flip(runtime.evaluate(json, { src: 1 }))
      assert.deepStrictEqual(invalid, yield* Effect.flip(runtime.run(json, { src: 1 })))
      const error = yield* Effect.flip(runtime.evaluate(json, 3, { interface: true }))
      assert.deepStrictEqual(error, yield* Effect.flip(runtime.run(json, 3, { interface: true })))
    }).pipe(Effect.provide(AlgalRuntime.layer)))
})
