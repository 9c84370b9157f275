import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as fs from "node:fs"
import * as path from "node:path"
import { Expr } from "../src/index.js"
import { attempt, BAIL } from "../src/internal/expr/fast.js"
import { ARITY } from "./reference/exprOps.js"
import { reference } from "./reference/exprPipeline.js"

// The fast tier (src/internal/expr/fast.ts) may only ever answer with exactly what the general
// evaluator answers — value (key order and -0 included), fuel — and must give up on everything
// else. These programs use mostly the tier's op subset, so most runs take it.
const OPS = Object.fromEntries(
  [
    ...["add", "mul", "sub", "div", "mod", "neg", "min", "max", "abs", "floor", "ceil", "round", "clamp"],
    ...["lt", "lte", "gt", "gte", "eq", "neq", "and", "or", "not", "if", "len", "nth", "slen"],
    ...["isText", "isNum", "isBool", "isList", "isMap", "isNull"],
    // outside the subset: a program using one has no fast tier
    ...["list", "sconcat"]
  ].map((op) => [op, ARITY[op]!] as const)
)

const NAMES = ["a", "b", "x", "acc", "t"] as const
const name = fc.constantFrom(...NAMES)
// keys Object.prototype has, keys JSON.parse makes own, array-index-like keys, non-BMP
const awkwardKey = fc.constantFrom("toString", "__proto__", "constructor", "length", "10", "\u{1F600}", "f", "w")
const text = fc.oneof(
  fc.constantFrom("", "a", "b", "x", "é", "\u{1F600}", "toString", "__proto__"),
  fc.string({ maxLength: 4 })
)
const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -4, max: 4 }),
  fc.constant(-0),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  text
)

const program = fc.letrec((tie) => ({
  expr: fc.oneof(
    { depthSize: "large", withCrossShrink: true },
    { arbitrary: scalar, weight: 2 },
    { arbitrary: tie("call"), weight: 6 },
    { arbitrary: tie("binder"), weight: 3 },
    { arbitrary: tie("get"), weight: 5 },
    { arbitrary: fc.jsonValue({ maxDepth: 2 }).map((value) => ["quote", value]), weight: 1 },
    {
      arbitrary: fc.dictionary(fc.constantFrom("k", "l", "m", "10", "__proto__", "\uFF61", "\u{1F600}"), tie("expr"), {
        maxKeys: 3
      }),
      weight: 2
    }
  ),
  call: fc.constantFrom(...Object.keys(OPS)).chain((op) => {
    const [min, max] = OPS[op]!
    return fc.integer({ min, max })
      .chain((n) => fc.array(tie("expr"), { minLength: n, maxLength: n }))
      .map((args) => [op, ...args])
  }),
  get: fc.tuple(
    fc.oneof({ arbitrary: name, weight: 6 }, tie("expr")),
    fc.array(fc.oneof(awkwardKey, text, fc.integer({ min: -1, max: 3 }), fc.constant(0.5), tie("expr")), {
      maxLength: 3
    })
  )
    .map(([n, steps]) => ["get", n, ...steps]),
  binder: fc.oneof(
    fc.tuple(name, tie("expr"), tie("expr")).map(([n, v, b]) => ["let", n, v, b]),
    fc.tuple(tie("expr"), tie("expr"), name, name, tie("expr")).map(([l, i, a, n, b]) => ["fold", l, i, a, n, b])
  )
})).expr

// Values as JSON.parse makes them: "__proto__" is then an own key.
const json = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)))
const record = fc.dictionary(awkwardKey, fc.oneof(scalar, json), { maxKeys: 4 })
  .map((r) => JSON.parse(JSON.stringify(r)))
const env = fc.record({
  a: fc.oneof(json, record),
  b: fc.array(
    fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constant(-0), fc.double({ noNaN: true, noDefaultInfinity: true })),
    {
      maxLength: 6
    }
  ),
  x: fc.oneof(text, record),
  t: fc.array(record, { maxLength: 4 })
}, { requiredKeys: ["a", "b", "x"] })
const budget = fc.oneof(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 20_000 }))

/** Equal as values (deepStrictEqual tells -0 from 0) and as JSON text (key order). */
const same = (got: Expr.Result, want: Expr.Result) => {
  assert.deepStrictEqual(got, want)
  assert.strictEqual(JSON.stringify(got), JSON.stringify(want))
}

describe("Expr fast tier", () => {
  it("answers exactly as the reference, or not at all", () => {
    let answered = 0
    let runs = 0
    fc.assert(
      fc.property(program, env, budget, (p, e, fuel) => {
        const compiled = Expr.compile(p, Object.keys(e))
        const want = reference(p, e, fuel)
        same(Expr.run(compiled, e as any, fuel), want)
        if (compiled.fast === undefined) return
        runs++
        const fast = attempt(compiled.fast, compiled.names, e, fuel, Expr.maxFuel)
        if (fast === BAIL) return
        answered++
        assert.isTrue(want.ok, "the tier answered where the reference fails")
        same({ ok: true, value: fast.value as any, fuel: fast.fuel }, want)
      }),
      { numRuns: 4_000 }
    )
    // the generator reaches the tier, and the tier answers often (not a test that cannot fail)
    assert.isAbove(runs, 1_000)
    assert.isAbove(answered, 300)
  })

  it("the shipped settle programs take the tier and agree with the reference", () => {
    const settle = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "fixtures/xcb/settle.algal.json"), "utf8"))
    const head = settle.cells.find((c: any) => c.id === "head").expr.program
    const decide = settle.cells.find((c: any) => c.id === "decide").expr.program
    const compiledHead = Expr.compile(head, ["features", "params", "evidence"])
    const compiledDecide = Expr.compile(decide, ["scored", "evidence"])
    assert.isDefined(compiledHead.fast)
    assert.isDefined(compiledDecide.fast)
    const term = fc.record({
      f: fc.constantFrom("a", "b", "toString", "zz"),
      w: fc.double({ min: -3, max: 3, noNaN: true })
    })
    const headParams = fc.record({
      bias: fc.double({ min: -2, max: 2, noNaN: true }),
      cut: fc.double({ min: -1, max: 1, noNaN: true }),
      terms: fc.array(term, { maxLength: 20 })
    })
    const args = fc.record({
      features: fc.dictionary(
        fc.constantFrom("a", "b", "c"),
        fc.oneof(fc.double({ min: -5, max: 5, noNaN: true }), fc.string({ maxLength: 2 }), fc.constant(null))
      ),
      params: fc.record({ unfinished: headParams, confirm: headParams }),
      evidence: fc.record({
        state: fc.constantFrom("idle", "failed", "working", "stopped"),
        limit: fc.integer({ min: 0, max: 2 }),
        blocked: fc.integer({ min: 0, max: 2 }),
        done_claim: fc.integer({ min: 0, max: 2 })
      })
    })
    let answered = 0
    fc.assert(
      fc.property(args, fc.oneof(fc.integer({ min: 0, max: 400 }), fc.constant(100_000)), (a, fuel) => {
        const scored = Expr.run(compiledHead, a as any, fuel)
        same(scored, reference(head, a, fuel))
        if (attempt(compiledHead.fast!, compiledHead.names, a, fuel, Expr.maxFuel) !== BAIL) answered++
        if (!scored.ok) return
        const env = { scored: scored.value, evidence: a.evidence }
        same(Expr.run(compiledDecide, env as any, fuel), reference(decide, env, fuel))
      }),
      { numRuns: 500 }
    )
    assert.isAbove(answered, 100)
  })

  it("gives up on what only the general path can report", () => {
    const cases: ReadonlyArray<readonly [unknown, Record<string, unknown>, number]> = [
      [["add", ["get", "x"], 1], { x: "a" }, 100], // type
      [["div", 1, ["get", "x"]], { x: 0 }, 100], // division by zero
      [["mul", ["get", "x"], 1e308, 10], { x: 10 }, 100], // non-finite
      [["add", ["get", "x"], 1], { x: 1 }, 3], // fuel
      [["get", "x"], { x: Number.NaN }, 100], // not JSON
      [["get", "x"], { x: "\ud800" }, 100], // lone surrogate
      [["get", "x"], { x: new Date(0) }, 100], // not a plain object
      [["get", "x"], { x: "y".repeat(70_000) }, 100], // over string-bytes
      [["nth", ["get", "x"], 3], { x: [1] }, 100], // out of range
      [["get", "y"], { y: 1, z: 2 }, 100] // names other than the compiled ones
    ]
    for (const [p, e, fuel] of cases) {
      const compiled = Expr.compile(p, p === cases[cases.length - 1]![0] ? ["y"] : Object.keys(e))
      assert.isDefined(compiled.fast, JSON.stringify(p))
      assert.strictEqual(attempt(compiled.fast!, compiled.names, e, fuel, Expr.maxFuel), BAIL, JSON.stringify(p))
      same(Expr.run(compiled, e as any, fuel), reference(p, e, fuel))
    }
    // an env compiled for other names never takes the tier
    const other = Expr.compile(["get", "y"], ["y"])
    same(Expr.run(other, { y: 1, z: 2 } as any, 100), reference(["get", "y"], { y: 1, z: 2 }, 100))
  })

  it("reads only own keys: prototype names miss, JSON's own __proto__ is found", () => {
    const env = JSON.parse(`{"o": {"__proto__": 7, "w": 1}}`)
    for (const key of ["toString", "constructor", "__proto__", "hasOwnProperty", "w", "valueOf"]) {
      for (const p of [["get", "o", key], ["get", "o", ["quote", key]]]) {
        const compiled = Expr.compile(p, ["o"])
        assert.isDefined(compiled.fast)
        same(Expr.run(compiled, env, 100), reference(p, env, 100))
      }
    }
  })

  it("a polluted Object.prototype changes no answer", () => {
    const proto = Object.prototype as Record<string, unknown>
    proto["polluted"] = 1
    try {
      const p = ["get", "o", "polluted"]
      const compiled = Expr.compile(p, ["o"])
      same(Expr.run(compiled, { o: { w: 1 } } as any, 100), reference(p, { o: { w: 1 } }, 100))
      same(Expr.run(compiled, { o: { w: 1 } } as any, 100), { ok: true, value: null, fuel: 6 })
    } finally {
      delete proto["polluted"]
    }
  })

  it("a hostile env (one list referenced a million times) is given up on at once", () => {
    const leaf = Array.from({ length: 1_000 }, () => 1)
    const wide = Array.from({ length: 1_000 }, () => leaf)
    const env = { x: Array.from({ length: 1_000 }, () => wide) }
    const compiled = Expr.compile(["len", ["get", "x"]], ["x"])
    // env-bytes is passed after a few hundred lists: the tier stops there, and so does the general path
    assert.strictEqual(attempt(compiled.fast!, compiled.names, env, 100, Expr.maxFuel), BAIL)
    same(Expr.run(compiled, env as any, 100), reference(["len", ["get", "x"]], env, 100))
  })

  it("a container result is a canonical copy, never the caller's object", () => {
    const inner = { z: 1, a: [1, -0] }
    const compiled = Expr.compile(["get", "x"], ["x"])
    const result = Expr.run(compiled, { x: inner } as any, 100)
    assert.deepStrictEqual(result, { ok: true, value: { a: [1, 0], z: 1 } as any, fuel: 4 })
    assert.notStrictEqual(result.ok && result.value, inner)
    assert.strictEqual(JSON.stringify(result.ok && result.value), `{"a":[1,0],"z":1}`)
  })
})

describe("Expr fast tier and exotic inputs", () => {
  it("a getter that throws on its second read never escapes Expr.run", () => {
    let reads = 0
    const env = {
      get x() {
        reads++
        if (reads > 1) throw new Error("second read")
        return 1
      }
    }
    const compiled = Expr.compile(["add", ["get", "x"], 1], ["x"])
    const result = Expr.run(compiled, env as any, 100)
    // the tier gave up (its read threw); the general path read the getter once more and reports
    assert.isFalse(result.ok)
    assert.strictEqual(!result.ok && result.error.code, "EXPR_PARSE")
  })
})
