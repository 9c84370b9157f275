import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as fs from "node:fs"
import * as path from "node:path"
import { Expr } from "../src/index.js"
import { ARITY as OPS } from "./reference/exprOps.js"
import { reference } from "./reference/exprPipeline.js"

const NAMES = ["a", "b", "x", "acc", "t"] as const
const name = fc.constantFrom(...NAMES)
const text = fc.oneof(
  fc.constantFrom("", "a", "b", "x", ",", "a,b", "é", "\u{1F600}", " t\t"),
  fc.string({ maxLength: 6 })
)
const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -4, max: 4 }),
  fc.double({ noNaN: true }),
  text
)
const json = fc.jsonValue({ maxDepth: 3 })

const program = fc.letrec((tie) => ({
  expr: fc.oneof(
    { depthSize: "large", withCrossShrink: true },
    { arbitrary: scalar, weight: 2 },
    { arbitrary: tie("call"), weight: 6 },
    { arbitrary: tie("binder"), weight: 3 },
    { arbitrary: tie("get"), weight: 4 },
    { arbitrary: json.map((value) => ["quote", value]), weight: 1 },
    { arbitrary: fc.dictionary(fc.constantFrom("k", "l", "10", "\uFF61"), tie("expr"), { maxKeys: 3 }), weight: 1 }
  ),
  call: fc.constantFrom(...Object.keys(OPS)).chain((op) => {
    const [min, max] = OPS[op]!
    return fc.integer({ min, max })
      .chain((n) => fc.array(tie("expr"), { minLength: n, maxLength: n }))
      .map((args) => [op, ...args])
  }),
  get: fc.tuple(
    fc.oneof({ arbitrary: name, weight: 5 }, tie("expr")),
    fc.array(fc.oneof(text, fc.integer({ min: -1, max: 3 }), tie("expr")), { maxLength: 3 })
  )
    .map(([n, steps]) => ["get", n, ...steps]),
  binder: fc.oneof(
    fc.tuple(name, tie("expr"), tie("expr")).map(([n, v, b]) => ["let", n, v, b]),
    fc.tuple(fc.constantFrom("map", "filter"), tie("expr"), name, tie("expr")).map(([op, l, n, b]) => [op, l, n, b]),
    fc.tuple(tie("expr"), tie("expr"), name, name, tie("expr")).map(([l, i, a, n, b]) => ["fold", l, i, a, n, b])
  )
})).expr

const env = fc.record({
  a: json,
  b: fc.array(fc.oneof(fc.integer({ min: -3, max: 3 }), fc.double({ noNaN: true, noDefaultInfinity: true })), {
    maxLength: 6
  }),
  x: text,
  t: fc.array(fc.record({ f: fc.constantFrom("a", "b", "x"), w: fc.double({ min: -2, max: 2, noNaN: true }) }), {
    maxLength: 4
  })
}, { requiredKeys: ["a", "b", "x"] })

const budget = fc.oneof(fc.integer({ min: 0, max: 80 }), fc.integer({ min: 0, max: 20_000 }))

describe("Expr compiled evaluation agrees with the reference machine", () => {
  it("evaluate: same value, fuel and error as the tree-walking reference", () => {
    fc.assert(
      fc.property(program, env, budget, (p, e, fuel) => {
        assert.deepStrictEqual(Expr.evaluate(p, e as any, fuel), reference(p, e, fuel))
      }),
      { numRuns: 3_000 }
    )
  })

  it("run(compile(p, keys(env))) is evaluate(p, env), also for an env with other keys", () => {
    fc.assert(
      fc.property(program, env, budget, fc.subarray([...NAMES]), (p, e, fuel, names) => {
        const expected = Expr.evaluate(p, e as any, fuel)
        const compiled = Expr.compile(p, Object.keys(e))
        assert.deepStrictEqual(Expr.run(compiled, e as any, fuel), expected)
        // the same compiled program runs again identically (no state survives a run)
        assert.deepStrictEqual(Expr.run(compiled, e as any, fuel), expected)
        // compiled for other names: checked again for the env's own keys
        assert.deepStrictEqual(Expr.run(Expr.compile(p, names), e as any, fuel), expected)
      }),
      { numRuns: 1_500 }
    )
  })

  it("the shipped settle programs: identical results and fuel through both paths", () => {
    const settle = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "fixtures/xcb/settle.algal.json"), "utf8"))
    const head = settle.cells.find((c: any) => c.id === "head").expr.program
    const decide = settle.cells.find((c: any) => c.id === "decide").expr.program
    const compiledHead = Expr.compile(head, ["features", "params", "evidence"])
    const compiledDecide = Expr.compile(decide, ["scored", "evidence"])
    assert.isUndefined(compiledHead.error)
    assert.isUndefined(compiledDecide.error)
    const term = fc.record({
      f: fc.constantFrom("a", "b", "c", "d", "zz"),
      w: fc.double({ min: -3, max: 3, noNaN: true })
    })
    const headParams = fc.record({
      bias: fc.double({ min: -2, max: 2, noNaN: true }),
      cut: fc.double({ min: -1, max: 1, noNaN: true }),
      terms: fc.array(term, { maxLength: 20 })
    })
    const args = fc.record({
      features: fc.dictionary(
        fc.constantFrom("a", "b", "c", "d"),
        fc.oneof(fc.double({ min: -5, max: 5, noNaN: true }), fc.string({ maxLength: 2 }), fc.constant(null))
      ),
      params: fc.record({ unfinished: headParams, confirm: headParams }),
      evidence: fc.record({
        state: fc.constantFrom("idle", "failed", "stopped"),
        limit: fc.integer({ min: 0, max: 2 }),
        blocked: fc.integer({ min: 0, max: 2 }),
        done_claim: fc.integer({ min: 0, max: 2 })
      })
    })
    fc.assert(
      fc.property(args, fc.integer({ min: 0, max: 400 }), (a, fuel) => {
        const scored = Expr.run(compiledHead, a as any, fuel)
        assert.deepStrictEqual(scored, reference(head, a, fuel))
        assert.deepStrictEqual(scored, Expr.evaluate(head, a as any, fuel))
        if (!scored.ok) return
        const env = { scored: scored.value, evidence: a.evidence }
        assert.deepStrictEqual(Expr.run(compiledDecide, env as any, fuel), reference(decide, env, fuel))
      }),
      { numRuns: 500 }
    )
  })

  it("compile reports the static check's error; run reports it after env admission, with fuel 0", () => {
    const bad = Expr.compile(["get", "nope"], ["yes"])
    assert.deepStrictEqual(bad.error, { code: "EXPR_PATH", op: "get", what: "unbound name \"nope\"" })
    assert.deepStrictEqual(Expr.run(bad, { yes: 1 }, 100), { ok: false, error: bad.error!, fuel: 0 })
    // env admission comes first, exactly as in evaluate
    assert.deepStrictEqual(
      Expr.run(bad, { yes: Number.NaN } as any, 100),
      Expr.evaluate(["get", "nope"], { yes: Number.NaN } as any, 100)
    )
    // the fuel budget is checked after the program, before the run
    const good = Expr.compile(["add", 1, 2], [])
    assert.deepStrictEqual(Expr.run(good, {}, -1), Expr.evaluate(["add", 1, 2], {}, -1))
    assert.deepStrictEqual(Expr.run(good, {}, 4), { ok: true, value: 3, fuel: 4 })
    assert.deepStrictEqual(Expr.run(good, {}, 3), {
      ok: false,
      error: { code: "EXPR_FUEL", cost: 1, left: 0 },
      fuel: 3
    })
  })

  it("a compiled program is a private copy: mutating the program value afterwards changes nothing", () => {
    const source: Array<unknown> = ["add", ["get", "x"], 1]
    const compiled = Expr.compile(source, ["x"])
    source[2] = 100
    assert.deepStrictEqual(Expr.run(compiled, { x: 1 }, 100), { ok: true, value: 2, fuel: 7 })
    // also on the re-check path (an env with other keys)
    assert.deepStrictEqual(Expr.run(compiled, { x: 1, y: 0 }, 100), { ok: true, value: 2, fuel: 7 })
  })

  it("evaluate reuses a program's compiled form only while the program is unchanged", () => {
    const inner: Array<unknown> = ["get", "x"]
    const source: Array<unknown> = ["add", inner, 1]
    assert.deepStrictEqual(Expr.evaluate(source, { x: 1 }, 100), { ok: true, value: 2, fuel: 7 })
    assert.deepStrictEqual(Expr.evaluate(source, { x: 1 }, 100), { ok: true, value: 2, fuel: 7 })
    source[2] = 10 // a changed literal
    assert.deepStrictEqual(Expr.evaluate(source, { x: 1 }, 100), { ok: true, value: 11, fuel: 7 })
    inner[1] = "y" // a change deep inside: now an unbound name
    assert.deepStrictEqual(Expr.evaluate(source, { x: 1 }, 100), {
      ok: false,
      error: { code: "EXPR_PATH", op: "get", what: "unbound name \"y\"" },
      fuel: 0
    })
    assert.deepStrictEqual(Expr.evaluate(source, { y: 5 }, 100), { ok: true, value: 15, fuel: 7 })
    source.push(1) // a new argument
    assert.deepStrictEqual(Expr.evaluate(source, { y: 5 }, 100), { ok: true, value: 16, fuel: 8 })
    source[2] = -0 // -0 is not 0 to the cache (Object.is)
    assert.deepStrictEqual(Expr.evaluate(source, { y: 5 }, 100), reference(source, { y: 5 }, 100))
    const object: Record<string, unknown> = { b: ["get", "y"], a: 1 }
    assert.deepStrictEqual(Expr.evaluate(object, { y: 5 }, 100), reference(object, { y: 5 }, 100))
    delete object.a
    object.c = 2 // same key count, other keys
    assert.deepStrictEqual(Expr.evaluate(object, { y: 5 }, 100), { ok: true, value: { b: 5, c: 2 }, fuel: 6 })
    Object.setPrototypeOf(object, Array.prototype) // no longer a plain object
    assert.deepStrictEqual(Expr.evaluate(object, { y: 5 }, 100), reference(object, { y: 5 }, 100))
  })

  it("random mutations between evaluations of one program object never reuse a stale form", () => {
    fc.assert(
      fc.property(program, program, env, budget, (p, q, e, fuel) => {
        fc.pre(Array.isArray(p) && p.length > 1)
        const live = p as Array<unknown>
        assert.deepStrictEqual(Expr.evaluate(live, e as any, fuel), reference(live, e, fuel))
        live[live.length - 1] = q
        assert.deepStrictEqual(Expr.evaluate(live, e as any, fuel), reference(live, e, fuel))
      }),
      { numRuns: 800 }
    )
  })

  it("compile and run never throw on hostile programs and envs (deep, cyclic, huge, exotic)", () => {
    let deep: unknown = 1
    for (let i = 0; i < 100_000; i++) deep = ["neg", deep]
    const cyclic: Array<unknown> = ["add", 1]
    cyclic.push(cyclic)
    const huge = ["list", ...Array.from({ length: 5_000 }, (_, i) => i)]
    const trap = new Proxy(["add", 1, 2], {
      get(_target, property) {
        if (property === "length") throw new Error("trap")
        return undefined
      }
    })
    for (const p of [deep, cyclic, huge, trap, undefined, () => 1, Symbol("x"), 10n]) {
      const compiled = Expr.compile(p, ["x"])
      assert.isDefined(compiled.error)
      const result = Expr.run(compiled, { x: 1 }, 100)
      assert.deepStrictEqual(result, { ok: false, error: compiled.error!, fuel: 0 })
      assert.deepStrictEqual(result, Expr.evaluate(p, { x: 1 }, 100))
    }
    let nested: unknown = 0
    for (let i = 0; i < 100_000; i++) nested = [nested]
    const compiled = Expr.compile(["get", "x"], ["x"])
    for (const e of [{ x: nested }, { x: Array.from({ length: 300_000 }, () => 1) }, null, [], "x"]) {
      assert.deepStrictEqual(Expr.run(compiled, e as any, 100), Expr.evaluate(["get", "x"], e as any, 100))
      assert.isFalse(Expr.run(compiled, e as any, 100).ok)
    }
    // names that are not a list of strings are read as no names
    assert.deepStrictEqual(Expr.compile(["add", 1, 2], "x" as any).names, [])
    assert.deepStrictEqual(Expr.compile(["add", 1, 2], ["b", 1, "a", "b"] as any).names, ["a", "b"])
  })

  it("the fast env admission defers every unusual input to the exact checks", () => {
    const deep = (n: number): unknown => (n === 0 ? 1 : [deep(n - 1)])
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const sparse = [1, , 3]
    const envs: Array<unknown> = [
      { v: deep(29) },
      { v: deep(30) },
      { v: deep(31) },
      { v: deep(32) },
      { v: deep(33) },
      { v: "x".repeat(65_534) },
      { v: "x".repeat(65_535) },
      { v: "é".repeat(40_000) },
      { v: Array.from({ length: 1024 }, (_, i) => i) },
      { v: Array.from({ length: 1025 }, (_, i) => i) },
      { v: Object.fromEntries(Array.from({ length: 257 }, (_, i) => [`k${i}`, i])) },
      { v: Array.from({ length: 9 }, () => "y".repeat(30_000)) },
      { v: Array.from({ length: 1000 }, () => Math.PI) },
      { v: cyclic },
      { v: sparse },
      { v: [undefined] },
      { v: new Date(0) },
      { v: "\uD800" },
      { "\uDC00": 1 },
      { v: Number.POSITIVE_INFINITY },
      { v: { __proto__: null, a: 1 } },
      JSON.parse(`{"__proto__": {"a": 1}}`)
    ]
    for (const e of envs) {
      for (const p of [["get", "v"], ["toText", ["get", "v"]], ["list", ["get", "v"], ["get", "v"]]]) {
        assert.deepStrictEqual(Expr.evaluate(p, e as any, 100_000), reference(p, e, 100_000))
      }
    }
  })
})
