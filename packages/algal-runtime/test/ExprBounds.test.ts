import { assert, describe, it } from "@effect/vitest"
import { Expr } from "../src/index.js"

const q = (value: unknown) => ["quote", value]
const bound = (what: keyof typeof Expr.boundNames): Expr.ExprError => ({
  code: "EXPR_BOUNDS",
  what,
  max: Expr.boundNames[what]
})
const range = (n: number) => Array.from({ length: n }, (_, i) => i)
const nest = (depth: number, inner: unknown, wrap: (x: unknown) => unknown) => {
  let v = inner
  for (let i = 0; i < depth; i++) v = wrap(v)
  return v
}

describe("Expr bounds: the table", () => {
  it("exposes every bound with the spec's value", () => {
    assert.deepStrictEqual(Expr.boundNames, {
      "program-bytes": 16_384,
      "program-nodes": 512,
      "program-depth": 16,
      "env-bytes": 262_144,
      "value-depth": 32,
      "list-len": 1_024,
      "object-keys": 256,
      "string-bytes": 65_536,
      "value-bytes": 262_144,
      "output-bytes": 65_536
    })
    assert.strictEqual(Expr.bounds.varLen, 64)
    assert.strictEqual(Expr.bounds.envKeys, 256)
  })
})

describe("Expr bounds: program (static, fuel 0)", () => {
  it("program-bytes: canonical bytes ≤ 16,384", () => {
    // ["quote","x…"]: 12 bytes of framing + the string
    const fits = ["quote", "x".repeat(16_384 - 12)]
    assert.isUndefined(Expr.check(fits, []))
    const over = ["quote", "x".repeat(16_384 - 11)]
    assert.deepStrictEqual(Expr.check(over, []), bound("program-bytes"))
    assert.deepStrictEqual(Expr.evaluate(over, {}), { ok: false, error: bound("program-bytes"), fuel: 0 })
  })

  it("program-nodes: ≤ 512 JSON nodes", () => {
    assert.isUndefined(Expr.check(["list", ...range(510)], []))
    assert.deepStrictEqual(Expr.check(["list", ...range(511)], []), bound("program-nodes"))
  })

  it("program-depth: root at depth 1, fail past 16", () => {
    const wrap = (x: unknown) => ["neg", x]
    assert.isUndefined(Expr.check(nest(15, 0, wrap), []))
    assert.deepStrictEqual(Expr.check(nest(16, 0, wrap), []), bound("program-depth"))
    assert.deepStrictEqual(Expr.evaluate(nest(20, 0, wrap), {}), { ok: false, error: bound("program-depth"), fuel: 0 })
    // object literals count as levels too
    assert.deepStrictEqual(Expr.check(nest(16, 0, (x) => ({ a: x })), []), bound("program-depth"))
  })

  it("program bounds come first, then the walk", () => {
    assert.deepStrictEqual(Expr.check(["bogus", ...range(600)], []), bound("program-nodes"))
  })
})

describe("Expr bounds: env (before the check, fuel 0)", () => {
  it("env ≤ 256 keys", () => {
    const env = Object.fromEntries(range(257).map((i) => [`k${i}`, 0]))
    assert.deepStrictEqual(Expr.evaluate(1, env), { ok: false, error: bound("object-keys"), fuel: 0 })
    const fits = Object.fromEntries(range(256).map((i) => [`k${i}`, 0]))
    assert.deepStrictEqual(Expr.evaluate(1, fits), { ok: true, value: 1, fuel: 1 })
  })

  it("env-bytes: canonical env ≤ 262,144 bytes", () => {
    // {"s":"…"} is 8 bytes of framing
    assert.deepStrictEqual(Expr.evaluate(1, { s: "x".repeat(262_144 - 7) }), {
      ok: false,
      error: bound("env-bytes"),
      fuel: 0
    })
    // within env-bytes, a single string still obeys string-bytes
    assert.deepStrictEqual(Expr.evaluate(1, { s: "x".repeat(65_537) }), {
      ok: false,
      error: bound("string-bytes"),
      fuel: 0
    })
    assert.deepStrictEqual(Expr.evaluate(["slen", ["get", "s"]], { s: "x".repeat(65_536) }), {
      ok: true,
      value: 65_536,
      fuel: 6
    })
  })

  it("env depth ≤ 32 (the env record counts as a level)", () => {
    const wrap = (x: unknown) => [x]
    assert.deepStrictEqual(Expr.evaluate(1, { v: nest(31, 0, wrap) as any }), { ok: true, value: 1, fuel: 1 })
    assert.deepStrictEqual(Expr.evaluate(1, { v: nest(32, 0, wrap) as any }), {
      ok: false,
      error: bound("value-depth"),
      fuel: 0
    })
  })

  it("env values obey list-len and object-keys", () => {
    assert.deepStrictEqual(Expr.evaluate(1, { l: range(1_025) }), { ok: false, error: bound("list-len"), fuel: 0 })
    const wide = Object.fromEntries(range(257).map((i) => [`k${i}`, 0]))
    assert.deepStrictEqual(Expr.evaluate(1, { m: wide }), { ok: false, error: bound("object-keys"), fuel: 0 })
  })
})

describe("Expr bounds: every intermediate value", () => {
  it("value-depth: a value nested past 32 fails at the node that built it", () => {
    // 3 + init 1 + 33 iterations of (1 + list 1 + get 4)
    const program = ["fold", q(range(40)), null, "acc", "x", ["list", ["get", "acc"]]]
    assert.deepStrictEqual(Expr.evaluate(program, {}), { ok: false, error: bound("value-depth"), fuel: 4 + 33 * 6 })
  })

  it("list-len: concat past 1,024 elements (charged first)", () => {
    const program = ["let", "a", q(range(400)), ["concat", ["get", "a"], ["get", "a"], ["get", "a"]]]
    assert.deepStrictEqual(Expr.evaluate(program, {}), {
      ok: false,
      error: bound("list-len"),
      fuel: 1 + 1 + 2 + 12 + 1_200
    })
  })

  it("list-len: split into more than 1,024 parts", () => {
    const program = ["split", ["get", "s"], ","]
    assert.deepStrictEqual(Expr.evaluate(program, { s: "a,".repeat(1_100) }), {
      ok: false,
      error: bound("list-len"),
      fuel: 2 + 4 + 1 + 2_200
    })
  })

  it("list-len: map output past 1,024 elements", () => {
    const program = ["map", ["get", "l"], "x", ["get", "x"]]
    const inner = ["map", ["get", "l"], "x", 0]
    assert.deepStrictEqual(Expr.evaluate(["concat", program, inner], { l: range(1_000) }, 100_000).ok, false)
    const result = Expr.evaluate(["concat", inner, inner], { l: range(1_000) }, 100_000)
    assert.deepStrictEqual(result.ok ? undefined : result.error, bound("list-len"))
  })

  it("object-keys: an object literal with 257 fields (after its 1 fuel)", () => {
    const program = Object.fromEntries(range(257).map((i) => [`k${i}`, 0]))
    assert.deepStrictEqual(Expr.evaluate(program, {}), { ok: false, error: bound("object-keys"), fuel: 1 })
  })

  it("object-keys: merge past 256 keys (after charging the argument's keys)", () => {
    const a = Object.fromEntries(range(200).map((i) => [`a${i}`, 0]))
    const b = Object.fromEntries(range(200).map((i) => [`b${i}`, 0]))
    assert.deepStrictEqual(Expr.evaluate(["merge", ["get", "a"], ["get", "b"]], { a, b }), {
      ok: false,
      error: bound("object-keys"),
      fuel: 2 + 4 + 4 + 200 + 200
    })
  })

  it("string-bytes: sconcat checks the bound before charging", () => {
    assert.deepStrictEqual(Expr.evaluate(["sconcat", ["get", "s"], ["get", "s"]], { s: "x".repeat(40_000) }), {
      ok: false,
      error: bound("string-bytes"),
      fuel: 10
    })
  })

  it("string-bytes counts UTF-8 bytes, not UTF-16 units", () => {
    const s = "é".repeat(20_000) // 40,000 bytes, 20,000 units
    assert.deepStrictEqual(Expr.evaluate(["sconcat", ["get", "s"], ["get", "s"]], { s }, 1_000_000).ok, false)
    assert.deepStrictEqual(Expr.evaluate(["slen", ["sconcat", ["get", "s"]]], { s }, 1_000_000), {
      ok: true,
      value: 20_000,
      fuel: 2 + 2 + 4 + 40_000
    })
  })

  it("string-bytes: join and toText", () => {
    const l = ["x".repeat(30_000), "y".repeat(30_000), "z".repeat(30_000)]
    assert.deepStrictEqual(Expr.evaluate(["join", ["get", "l"], ","], { l }, 1_000_000), {
      ok: false,
      error: bound("string-bytes"),
      fuel: 2 + 4 + 1
    })
    // toText charges its canonical bytes, then checks the bound
    assert.deepStrictEqual(Expr.evaluate(["toText", ["get", "l"]], { l }, 1_000_000), {
      ok: false,
      error: bound("string-bytes"),
      fuel: 2 + 4 + 90_010
    })
  })

  it("value-bytes: argument lists are checked cumulatively", () => {
    const s = "x".repeat(60_000)
    const program = ["list", ["get", "s"], ["get", "s"], ["get", "s"], ["get", "s"], ["get", "s"]]
    assert.deepStrictEqual(Expr.evaluate(program, { s }), { ok: false, error: bound("value-bytes"), fuel: 1 + 5 * 4 })
  })

  it("value-bytes is decided on exact sizes, also for non-integral numbers", () => {
    // each copy of f is 4,001 canonical bytes: [0.5,0.5,…]
    const f = Array.from({ length: 1_000 }, () => 0.5)
    const copies = (k: number) => ["len", ["list", ...Array.from({ length: k }, () => ["get", "f"])]]
    // 2 + 65 × 4,001 + 64 commas = 260,131 bytes: fits
    assert.deepStrictEqual(Expr.evaluate(copies(65), { f }), { ok: true, value: 65, fuel: 3 + 65 * 4 })
    // 2 + 66 × 4,001 + 65 commas = 264,133 bytes: over, at the 66th argument
    assert.deepStrictEqual(Expr.evaluate(copies(66), { f }), {
      ok: false,
      error: bound("value-bytes"),
      fuel: 3 + 66 * 4
    })
    const mapped = ["len", ["map", ["get", "l"], "x", ["get", "f"]]]
    assert.deepStrictEqual(Expr.evaluate(mapped, { f, l: range(65) }), {
      ok: true,
      value: 65,
      fuel: 2 + 2 + 4 + 65 * 5
    })
    assert.deepStrictEqual(Expr.evaluate(mapped, { f, l: range(66) }), {
      ok: false,
      error: bound("value-bytes"),
      fuel: 2 + 2 + 4 + 66 * 5
    })
  })

  it("value-bytes: map results are checked cumulatively", () => {
    const program = ["map", ["get", "l"], "x", ["get", "big"]]
    const big = range(1_000) // 3,890 canonical bytes
    const result = Expr.evaluate(program, { l: range(100), big }, 100_000)
    assert.deepStrictEqual(result.ok ? undefined : result.error, bound("value-bytes"))
  })

  it("output-bytes: the result's canonical form ≤ 65,536 bytes", () => {
    const s = "x".repeat(40_000)
    assert.deepStrictEqual(Expr.evaluate(["list", ["get", "s"], ["get", "s"]], { s }), {
      ok: false,
      error: bound("output-bytes"),
      fuel: 9
    })
    assert.deepStrictEqual(Expr.evaluate(["len", ["list", ["get", "s"], ["get", "s"]]], { s }), {
      ok: true,
      value: 2,
      fuel: 11
    })
  })

  it("value-depth of the output: 33 nested lists around an empty one", () => {
    const program = ["fold", q(range(32)), q([]), "acc", "x", ["list", ["get", "acc"]]]
    assert.deepStrictEqual(Expr.evaluate(program, {}), { ok: false, error: bound("value-depth"), fuel: 4 + 32 * 6 })
    const fits = ["fold", q(range(31)), q([]), "acc", "x", ["list", ["get", "acc"]]]
    assert.isTrue(Expr.evaluate(fits, {}).ok)
  })
})

describe("Expr: hostile input", () => {
  it("a fuel bomb (nested maps over large lists) fails EXPR_FUEL or EXPR_BOUNDS, within its fuel", () => {
    const l = range(1_000)
    const bomb = ["map", ["get", "l"], "x", ["map", ["get", "l"], "y", ["map", ["get", "l"], "z", 1]]]
    const result = Expr.evaluate(bomb, { l }, Expr.maxFuel)
    assert.isFalse(result.ok)
    assert.include(["EXPR_FUEL", "EXPR_BOUNDS"], result.ok ? undefined : result.error.code)
    assert.isAtMost(result.fuel, Expr.maxFuel)
    // small values, a billion steps: only the meter can stop it
    const folds = ["map", ["get", "l"], "x", ["fold", ["get", "l"], 0, "a", "y", [
      "fold",
      ["get", "l"],
      0,
      "b",
      "z",
      1
    ]]]
    const starved = Expr.evaluate(folds, { l }, Expr.maxFuel)
    assert.strictEqual(starved.ok ? undefined : starved.error.code, "EXPR_FUEL")
    const left = starved.ok ? -1 : (starved.error as unknown as { left: number }).left
    assert.strictEqual(starved.fuel, Expr.maxFuel - left)
  })

  it("a value bomb (each iteration copies a large list) fails EXPR_BOUNDS", () => {
    const bomb = ["map", ["get", "l"], "x", ["get", "l"]]
    const result = Expr.evaluate(bomb, { l: range(1_000) }, Expr.maxFuel)
    assert.deepStrictEqual(result.ok ? undefined : result.error, bound("value-bytes"))
  })

  it("repeated reads of a 64 KiB string stay cheap", () => {
    const program = ["fold", ["get", "l"], 0, "acc", "x", ["add", ["get", "acc"], ["slen", ["get", "s"]]]]
    const result = Expr.evaluate(program, { l: range(1_000), s: "x".repeat(65_536) }, Expr.maxFuel)
    assert.deepStrictEqual(result, { ok: true, value: 65_536_000, fuel: 2 + 4 + 1 + 1_000 * (1 + 2 + 4 + 2 + 4) })
  })

  it("a program nested 100,000 deep is rejected without recursion", () => {
    const deep = nest(100_000, 0, (x) => ["neg", x])
    assert.deepStrictEqual(Expr.evaluate(deep, {}), { ok: false, error: bound("program-bytes"), fuel: 0 })
    const deepObject = nest(100_000, 0, (x) => ({ a: x }))
    assert.deepStrictEqual(Expr.check(deepObject, []), bound("program-bytes"))
  })

  it("an env nested 100,000 deep is rejected without recursion", () => {
    assert.deepStrictEqual(Expr.evaluate(1, { v: nest(100_000, 0, (x) => [x]) as any }), {
      ok: false,
      error: bound("value-depth"),
      fuel: 0
    })
    assert.deepStrictEqual(Expr.evaluate(1, { v: nest(1_000_000, 0, (x) => [x]) as any }), {
      ok: false,
      error: bound("env-bytes"),
      fuel: 0
    })
  })

  it("cyclic inputs end in a bound, not a hang", () => {
    const cyclic: Array<unknown> = ["list"]
    cyclic.push(cyclic)
    assert.deepStrictEqual(Expr.evaluate(cyclic, {}), { ok: false, error: bound("program-bytes"), fuel: 0 })
    const env: Record<string, unknown> = {}
    env.self = env
    assert.deepStrictEqual(Expr.evaluate(1, env as any), { ok: false, error: bound("env-bytes"), fuel: 0 })
  })

  it("lone surrogates are not JSON: EXPR_PARSE naming where", () => {
    assert.deepStrictEqual(Expr.evaluate(["slen", "a\uD800"], {}), {
      ok: false,
      error: { code: "EXPR_PARSE", what: "program is not JSON: string with a lone UTF-16 surrogate at [1]" },
      fuel: 0
    })
    assert.deepStrictEqual(Expr.evaluate(1, { s: { t: "\uDC00x" } }), {
      ok: false,
      error: { code: "EXPR_PARSE", what: "env is not JSON: string with a lone UTF-16 surrogate at .s.t" },
      fuel: 0
    })
    assert.deepStrictEqual(Expr.check({ ["k\uD83D"]: 1 }, []), {
      code: "EXPR_PARSE",
      what: "program is not JSON: key with a lone UTF-16 surrogate"
    })
    // a well-formed pair is fine everywhere
    assert.deepStrictEqual(Expr.evaluate(["slen", ["get", "s"]], { s: "\uD83D\uDE00" }), {
      ok: true,
      value: 2,
      fuel: 6
    })
  })

  it("values outside JSON are EXPR_PARSE, never a throw", () => {
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [Number.NaN, "program is not JSON: non-finite number NaN"],
      [["add", 1, Infinity], "program is not JSON: non-finite number Infinity at [2]"],
      [undefined, "program is not JSON: undefined is not a JSON value"],
      [["quote", { a: () => 1 }], "program is not JSON: function is not a JSON value at [1].a"],
      [["quote", new Date(0)], "program is not JSON: not a plain object (Date) at [1]"],
      [["list", 1n], "program is not JSON: bigint is not a JSON value at [1]"],

      [["list", 1, , 2], "program is not JSON: array with a hole at [2]"]
    ]
    for (const [program, what] of cases) {
      assert.deepStrictEqual(Expr.evaluate(program, {}), { ok: false, error: { code: "EXPR_PARSE", what }, fuel: 0 })
    }
    assert.deepStrictEqual(Expr.evaluate(1, null as any), {
      ok: false,
      error: { code: "EXPR_PARSE", what: "env must be a JSON object" },
      fuel: 0
    })
    const trap = new Proxy({}, {
      ownKeys: () => {
        throw new Error("trap")
      }
    })
    assert.deepStrictEqual(Expr.evaluate(["quote", trap], {}), {
      ok: false,
      error: { code: "EXPR_PARSE", what: "input could not be read: trap" },
      fuel: 0
    })
  })

  it("huge strings: case ops on 64 KiB are charged per byte", () => {
    const s = "a".repeat(65_536)
    const result = Expr.evaluate(["slen", ["upper", ["get", "s"]]], { s }, Expr.maxFuel)
    assert.deepStrictEqual(result, { ok: true, value: 65_536, fuel: 2 + 2 + 4 + 65_536 })
    const starved = Expr.evaluate(["upper", ["get", "s"]], { s })
    assert.deepStrictEqual(starved, {
      ok: false,
      error: { code: "EXPR_FUEL", cost: 65_536, left: 10_000 - 6 },
      fuel: 6
    })
  })
})
