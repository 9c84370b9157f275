import { assert, describe, it } from "@effect/vitest"
import { Expr } from "../src/index.js"

type Row = readonly [
  name: string,
  program: unknown,
  expected: { readonly value: unknown; readonly fuel: number } | {
    readonly error: Record<string, unknown>
    readonly fuel: number
  },
  env?: Record<string, any>,
  fuel?: number
]

const ok = (value: unknown, fuel: number) => ({ value, fuel })
const err = (error: Record<string, unknown>, fuel: number) => ({ error, fuel })
const type = (op: string, arg: number, want: string, got: string) => ({ code: "EXPR_TYPE", op, arg, want, got })
const q = (value: unknown) => ["quote", value]

const runTable = (rows: ReadonlyArray<Row>) => {
  for (const [name, program, expected, env, fuel] of rows) {
    it(name, () => {
      const result = Expr.evaluate(program, env ?? {}, fuel ?? Expr.defaultFuel)
      if ("value" in expected) {
        assert.deepStrictEqual(result, { ok: true, value: expected.value as any, fuel: expected.fuel })
      } else {
        assert.deepStrictEqual(result, { ok: false, error: expected.error as Expr.ExprError, fuel: expected.fuel })
      }
    })
  }
}

describe("Expr: worked examples of the spec (§1.6 fuel)", () => {
  it("1 → fuel 1; [add,1,2] → 4; [get,x] → 4 with the exact boundary document", () => {
    assert.deepStrictEqual(Expr.evaluate(1, {}, 100), { ok: true, value: 1, fuel: 1 })
    assert.deepStrictEqual(Expr.evaluate(["add", 1, 2], {}, 100), { ok: true, value: 3, fuel: 4 })
    assert.strictEqual(Expr.evaluateJson(["get", "x"], { x: 3 }, 100).text, `{"ok":true,"value":3,"fuel":4}`)
    assert.deepStrictEqual(Expr.evaluateJson(["get", "x"], { x: 3 }, 100).document, { ok: true, value: 3, fuel: 4 })
  })

  it("error boundary documents: key order ok, error, fuel; check-time errors spend 0", () => {
    assert.strictEqual(
      Expr.evaluateJson(["div", 1, 0], {}, 100).text,
      `{"ok":false,"error":{"code":"EXPR_DIV_ZERO","op":"div"},"fuel":4}`
    )
    assert.strictEqual(
      Expr.evaluateJson(["get", "y"], { x: 9 }, 100).text,
      `{"ok":false,"error":{"code":"EXPR_PATH","op":"get","what":"unbound name \\"y\\""},"fuel":0}`
    )
  })

  it("the default budget is 10,000 and the ceiling 1,000,000", () => {
    assert.strictEqual(Expr.defaultFuel, 10_000)
    assert.strictEqual(Expr.maxFuel, 1_000_000)
    const bomb = ["map", q(Array.from({ length: 400 }, (_, i) => i)), "x", ["map", q([1, 2, 3, 4, 5]), "y", [
      "get",
      "x"
    ]]]
    const result = Expr.evaluate(bomb, {})
    assert.isFalse(result.ok)
    if (!result.ok) {
      assert.strictEqual(result.error.code, "EXPR_FUEL")
      const { cost, left } = result.error as unknown as { cost: number; left: number }
      assert.isAbove(cost, left)
      assert.strictEqual(result.fuel, 10_000 - left)
    }
  })
})

describe("Expr: literals and structure", () => {
  runTable([
    ["null self-evaluates", null, ok(null, 1)],
    ["a number self-evaluates", 42, ok(42, 1)],
    ["a string self-evaluates", "hi", ok("hi", 1)],
    ["a boolean self-evaluates", true, ok(true, 1)],
    ["an object literal evaluates each field (1 + children)", { a: ["add", 1, 2], b: "x" }, ok({ a: 3, b: "x" }, 6)],
    ["quote returns a list verbatim", q([1, 2, 3]), ok([1, 2, 3], 1)],
    ["quote returns a program-shaped map verbatim", q({ a: ["add", 1] }), ok({ a: ["add", 1] }, 1)],
    ["quote payload is never checked", q(["bogus", ["get", "nope"]]), ok(["bogus", ["get", "nope"]], 1)],
    ["a -0 literal canonicalizes to 0", ["quote", -0], ok(0, 1)]
  ])
})

describe("Expr: arithmetic", () => {
  runTable([
    ["add sums", ["add", 1, 2, 3], ok(6, 5)],
    ["mul multiplies", ["mul", 2, 3, 4], ok(24, 5)],
    ["add of one argument", ["add", 7], ok(7, 3)],
    ["sub", ["sub", 10, 3], ok(7, 4)],
    ["div is float division", ["div", 7, 2], ok(3.5, 4)],
    ["mod is truncated (sign of dividend) -7 % 3", ["mod", -7, 3], ok(-1, 4)],
    ["mod 7 % -3", ["mod", 7, -3], ok(1, 4)],
    ["mod of floats", ["mod", 5.5, 2], ok(1.5, 4)],
    ["neg", ["neg", 5], ok(-5, 3)],
    ["f64 semantics: 0.1 * 3", ["mul", 0.1, 3], ok(0.30000000000000004, 4)],
    ["integers above 2^53 lose precision like JS", ["add", 9007199254740992, 1], ok(9007199254740992, 4)],
    ["div by zero", ["div", 1, 0], err({ code: "EXPR_DIV_ZERO", op: "div" }, 4)],
    ["div by -0", ["div", 1, -0], err({ code: "EXPR_DIV_ZERO", op: "div" }, 4)],
    ["mod by zero", ["mod", 1, 0], err({ code: "EXPR_DIV_ZERO", op: "mod" }, 4)],
    ["add of a string is a type error naming the argument", ["add", 1, "x"], err(type("add", 1, "number", "text"), 4)],
    ["mul overflow is EXPR_NUM", ["mul", 1e308, 10], err({ code: "EXPR_NUM", op: "mul" }, 4)],
    ["add overflow is EXPR_NUM", ["add", 1e308, 1e308], err({ code: "EXPR_NUM", op: "add" }, 4)],
    ["sub overflow is EXPR_NUM", ["sub", -1e308, 1e308], err({ code: "EXPR_NUM", op: "sub" }, 4)],
    ["div overflow is EXPR_NUM", ["div", 1e308, 1e-308], err({ code: "EXPR_NUM", op: "div" }, 4)],
    [
      "sub checks its first argument before evaluating the second",
      ["sub", "a", ["div", 1, 0]],
      err(type("sub", 0, "number", "text"), 3)
    ],
    ["neg of a string", ["neg", "a"], err(type("neg", 0, "number", "text"), 3)],
    ["min", ["min", 3, 1, 2], ok(1, 5)],
    ["max", ["max", 3, 1, 2], ok(3, 5)],
    ["min of a string", ["min", "a"], err(type("min", 0, "number", "text"), 3)],
    ["max with a null second argument", ["max", 1, null], err(type("max", 1, "number", "null"), 4)],
    ["abs", ["abs", -3], ok(3, 3)],
    ["abs of a boolean", ["abs", true], err(type("abs", 0, "number", "bool"), 3)],
    ["floor 1.5", ["floor", 1.5], ok(1, 3)],
    ["floor -1.5", ["floor", -1.5], ok(-2, 3)],
    ["floor of text", ["floor", "1"], err(type("floor", 0, "number", "text"), 3)],
    ["ceil 1.2", ["ceil", 1.2], ok(2, 3)],
    ["ceil -1.2", ["ceil", -1.2], ok(-1, 3)],
    ["ceil of a list", ["ceil", q([])], err(type("ceil", 0, "number", "list"), 3)],
    ["round 2.5 → 3", ["round", 2.5], ok(3, 3)],
    ["round -2.5 → -2 (JS tie rule)", ["round", -2.5], ok(-2, 3)],
    ["round -2.6 → -3", ["round", -2.6], ok(-3, 3)],
    ["round 1.4 → 1", ["round", 1.4], ok(1, 3)],
    ["round of a map", ["round", q({})], err(type("round", 0, "number", "map"), 3)],
    ["clamp above", ["clamp", 5, 0, 3], ok(3, 5)],
    ["clamp below", ["clamp", -1, 0, 3], ok(0, 5)],
    ["clamp lo > hi", ["clamp", 2, 3, 1], err({ code: "EXPR_ARG", op: "clamp", what: "clamp lo must be <= hi" }, 5)],
    ["clamp with a text lo stops before hi", ["clamp", 1, "a", 3], err(type("clamp", 1, "number", "text"), 4)]
  ])
})

describe("Expr: comparison and equality", () => {
  runTable([
    ["lt numbers", ["lt", 1, 2], ok(true, 4)],
    ["lte equal numbers", ["lte", 2, 2], ok(true, 4)],
    ["gt numbers", ["gt", 1, 2], ok(false, 4)],
    ["gte strings", ["gte", "b", "a"], ok(true, 4)],
    ["lt strings by code unit: B < a", ["lt", "B", "a"], ok(true, 4)],
    // U+FF61 < U+1F600 as code points, but 0xFF61 > 0xD83D as UTF-16 units.
    ["string order is UTF-16, not code points", ["lt", "\uFF61", "\u{1F600}"], ok(false, 4)],
    [
      "mixed comparison is a type error",
      ["lt", 1, "2"],
      err(type("lt", 0, "two numbers or two strings", "number,text"), 4)
    ],
    [
      "booleans do not compare",
      ["gte", true, false],
      err(type("gte", 0, "two numbers or two strings", "bool,bool"), 4)
    ],
    ["eq 1 ≡ 1.0 (+ node counts)", ["eq", 1, 1.0], ok(true, 6)],
    ["eq -0 ≡ 0", ["eq", -0, 0], ok(true, 6)],
    ["eq on maps is key-order-insensitive", ["eq", { a: 1, b: 2 }, { b: 2, a: 1 }], ok(true, 14)],
    ["eq on lists is ordered", ["eq", q([1, 2]), q([2, 1])], ok(false, 10)],
    ["eq across types is false", ["eq", 1, "1"], ok(false, 6)],
    ["eq null null", ["eq", null, null], ok(true, 6)],
    ["neq", ["neq", "a", "b"], ok(true, 6)],
    [
      "neq of equal deep values",
      ["neq", q({ a: [1, { b: null }] }), q({ a: [1, { b: null }] })],
      ok(false, 2 + 1 + 1 + 10)
    ]
  ])
})

describe("Expr: logic and control", () => {
  runTable([
    ["and true true", ["and", true, true], ok(true, 3)],
    ["and true false", ["and", true, false], ok(false, 3)],
    ["or false true", ["or", false, true], ok(true, 3)],
    ["or false false", ["or", false, false], ok(false, 3)],
    ["not false", ["not", false], ok(true, 2)],
    ["and is strict (no truthiness)", ["and", 1, true], err(type("and", 0, "bool", "number"), 2)],
    ["and names the failing argument", ["and", true, 1], err(type("and", 1, "bool", "number"), 3)],
    ["or is strict", ["or", false, "x"], err(type("or", 1, "bool", "text"), 3)],
    ["not is strict", ["not", "x"], err(type("not", 0, "bool", "text"), 2)],
    ["if condition must be boolean", ["if", 0, 1, 2], err(type("if", 0, "bool", "number"), 2)],
    ["and short-circuits", ["and", false, ["div", 1, 0]], ok(false, 2)],
    ["or short-circuits", ["or", true, ["div", 1, 0]], ok(true, 2)],
    ["if evaluates only the taken branch", ["if", true, 1, ["div", 1, 0]], ok(1, 3)],
    ["if else branch", ["if", false, ["div", 1, 0], 2], ok(2, 3)],
    ["let binds in its body", ["let", "x", 5, ["add", ["get", "x"], 1]], ok(6, 9)],
    ["let shadows", ["let", "x", 1, ["let", "x", 2, ["get", "x"]]], ok(2, 8)],
    ["lexical names win over env names", ["let", "x", 2, ["get", "x"]], ok(2, 6), { x: 1 }],
    ["let sees env names", ["let", "y", ["get", "p"], ["add", ["get", "y"], 1]], ok(11, 12), { p: 10 }]
  ])
})

describe("Expr: get paths", () => {
  const order = { order: { items: [{ sku: "a", qty: 2 }, { sku: "b", qty: 5 }] } }
  runTable([
    ["get a key and index path (base 2 + argc)", ["get", "order", "items", 0, "sku"], ok("a", 10), order],
    ["get another path", ["get", "order", "items", 1, "qty"], ok(5, 10), order],
    ["a missing key is null", ["get", "order", "missing"], ok(null, 6), order],
    ["an out-of-range index is null", ["get", "order", "items", 9], ok(null, 8), order],
    [
      "stepping into a scalar is null (every step evaluated until then)",
      ["get", "order", "items", 0, "sku", "x"],
      ok(null, 12),
      order
    ],
    [
      "a miss returns at once: later path args are not evaluated",
      ["get", "order", "missing", ["div", 1, 0]],
      ok(null, 7),
      order
    ],
    ["a hit on null still evaluates the next step", ["get", "n", "a", "b"], ok(null, 8), { n: { a: null } }],
    ["a key step into a list is null", ["get", "order", "items", "0"], ok(null, 8), order],
    [
      "a negative index is a type error",
      ["get", "order", -1],
      err(type("get", 1, "nonneg integer index", "number"), 6),
      order
    ],
    [
      "a fractional index is a type error",
      ["get", "order", "items", 1.5],
      err(type("get", 2, "nonneg integer index", "number"), 8),
      order
    ],
    [
      "a boolean step is a type error",
      ["get", "order", true],
      err(type("get", 1, "string key or nonneg integer index", "bool"), 6),
      order
    ],
    ["a computed name is looked up at run time", ["get", ["sconcat", "or", "der"], "x"], ok(1, 14), {
      order: { x: 1 }
    }],
    [
      "a computed unbound name is EXPR_PATH at run time",
      ["get", ["sconcat", "no", "pe"]],
      err({ code: "EXPR_PATH", op: "get", what: "unbound name \"nope\"" }, 11)
    ],
    ["a non-string name is a type error", ["get", 1], err(type("get", 0, "name string", "number"), 4)],
    [
      "a literal unbound name fails the check (fuel 0)",
      ["get", "nope"],
      err({ code: "EXPR_PATH", op: "get", what: "unbound name \"nope\"" }, 0)
    ],
    ["the key __proto__ is an ordinary key", ["get", "m", "__proto__"], ok(1, 6), JSON.parse(`{"m":{"__proto__":1}}`)]
  ])
})

describe("Expr: lists", () => {
  runTable([
    ["list", ["list", 1, 2, 3], ok([1, 2, 3], 4)],
    ["empty list", ["list"], ok([], 1)],
    ["len", ["len", ["list", 1, 2]], ok(2, 5)],
    ["len of text", ["len", "x"], err(type("len", 0, "list", "text"), 3)],
    ["nth", ["nth", q(["a", "b"]), 1], ok("b", 4)],
    [
      "nth out of range names index and length",
      ["nth", q([1]), 5],
      err({ code: "EXPR_PATH", op: "nth", what: "index 5 out of range 1" }, 4)
    ],
    [
      "nth prints the index canonically",
      ["nth", q([1]), 1e21],
      err({ code: "EXPR_PATH", op: "nth", what: "index 1e+21 out of range 1" }, 4)
    ],
    ["nth negative", ["nth", q([1]), -1], err(type("nth", 1, "nonneg integer", "number"), 4)],
    ["nth text index", ["nth", q([1]), "0"], err(type("nth", 1, "nonneg integer", "text"), 4)],
    ["concat (+ total elements)", ["concat", q([1]), q([2, 3])], ok([1, 2, 3], 7)],
    ["concat of a number", ["concat", q([1]), 2], err(type("concat", 1, "list", "number"), 4)],
    ["map (+1 per element)", ["map", q([1, 2, 3]), "x", ["mul", ["get", "x"], 2]], ok([2, 4, 6], 27)],
    ["map of text", ["map", "x", "y", 1], err(type("map", 0, "list", "text"), 3)],
    ["filter", ["filter", q([1, 2, 3, 4]), "x", ["gt", ["get", "x"], 2]], ok([3, 4], 35)],
    ["filter body must be boolean", ["filter", q([1]), "x", ["get", "x"]], err(type("filter", 0, "bool", "number"), 8)],
    [
      "filter names the element index",
      ["filter", q([true, 1]), "x", ["get", "x"]],
      err(type("filter", 1, "bool", "number"), 13)
    ],
    ["fold", ["fold", q([1, 2, 3]), 0, "acc", "x", ["add", ["get", "acc"], ["get", "x"]]], ok(6, 37)],
    ["fold over an empty list returns init", ["fold", q([]), "init", "acc", "x", ["div", 1, 0]], ok("init", 4)],
    ["fold of a map", ["fold", q({}), 0, "a", "b", 0], err(type("fold", 0, "list", "map"), 3)],
    ["contains stops at the first hit", ["contains", q([1, 2, 3]), 2], ok(true, 6)],
    ["contains visits every element on a miss", ["contains", q([1, 2, 3]), 5], ok(false, 7)],
    ["contains uses eq", ["contains", q([{ a: 1 }]), { a: 1 }], ok(true, 6)],
    ["contains of text", ["contains", "abc", "a"], err(type("contains", 0, "list", "text"), 3)],
    ["reverse", ["reverse", q([1, 2, 3])], ok([3, 2, 1], 3)],
    ["reverse of null", ["reverse", null], err(type("reverse", 0, "list", "null"), 3)],
    ["take", ["take", q([1, 2, 3]), 2], ok([1, 2], 4)],
    ["take clamps past the end", ["take", q([1, 2, 3]), 10], ok([1, 2, 3], 4)],
    ["drop", ["drop", q([1, 2, 3]), 1], ok([2, 3], 4)],
    ["drop clamps past the end", ["drop", q([1, 2, 3]), 5], ok([], 4)],
    ["take a fractional count", ["take", q([1]), 1.5], err(type("take", 1, "nonneg integer", "number"), 4)],
    ["drop a text count", ["drop", q([1]), "a"], err(type("drop", 1, "nonneg integer", "text"), 4)],
    ["flat (+ total elements)", ["flat", q([[1], [2, 3], []])], ok([1, 2, 3], 6)],
    ["flat needs lists of lists", ["flat", q([[1], 2])], err(type("flat", 1, "list", "number"), 3)],
    ["unique (+1 per comparison)", ["unique", q([1, 2, 1, 3, 2])], ok([1, 2, 3], 9)],
    ["unique dedupes by eq", ["unique", q([1, 1.0, { a: 1, b: 2 }, { b: 2, a: 1 }])], ok([1, { a: 1, b: 2 }], 7)],
    ["unique of text", ["unique", "aa"], err(type("unique", 0, "list", "text"), 3)],
    ["sort: null < bool < number < text < list < map (+ length)", [
      "sort",
      q([3, "a", null, true, [1], { b: 1 }, 2, false, "B"])
    ], ok([null, false, true, 2, 3, "B", "a", [1], { b: 1 }], 12)],
    ["sort lists elementwise then by length", ["sort", q([[2], [1, 2], [1]])], ok([[1], [1, 2], [2]], 6)],
    ["sort maps by canonical text", ["sort", q([{ b: 1 }, { a: 2 }])], ok([{ a: 2 }, { b: 1 }], 5)],
    ["sort strings by UTF-16 code units", ["sort", q(["\uFF61", "\u{1F600}"])], ok(["\u{1F600}", "\uFF61"], 5)],
    ["sort of text", ["sort", "ba"], err(type("sort", 0, "list", "text"), 3)]
  ])
})

describe("Expr: strings", () => {
  runTable([
    ["slen counts UTF-16 code units", ["slen", "héllo"], ok(5, 3)],
    ["slen of an astral character is 2", ["slen", "\u{1F600}"], ok(2, 3)],
    ["slen of a number", ["slen", 1], err(type("slen", 0, "string", "number"), 3)],
    ["sconcat (+ UTF-8 bytes)", ["sconcat", "a", "b", "c"], ok("abc", 8)],
    ["sconcat counts UTF-8 bytes", ["sconcat", "é", "\u{1F600}"], ok("é\u{1F600}", 10)],
    ["sconcat of a number", ["sconcat", "a", 1], err(type("sconcat", 1, "string", "number"), 4)],
    ["upper is ASCII-only (+ input bytes)", ["upper", "héllo"], ok("HéLLO", 9)],
    ["upper leaves ß alone", ["upper", "ß"], ok("ß", 5)],
    ["lower", ["lower", "ABC"], ok("abc", 6)],
    ["lower leaves non-ASCII capitals alone", ["lower", "ÀB"], ok("Àb", 6)],
    ["lower of a number", ["lower", 1], err(type("lower", 0, "string", "number"), 3)],
    ["trim of null", ["trim", null], err(type("trim", 0, "string", "null"), 3)],
    ["trim ASCII whitespace", ["trim", "  x \n"], ok("x", 8)],
    ["trim includes \\v and \\f", ["trim", "\u000b\fx"], ok("x", 6)],
    ["trim leaves U+FEFF alone", ["trim", "\uFEFFx\uFEFF"], ok("\uFEFFx\uFEFF", 10)],
    ["upper of a list", ["upper", q([])], err(type("upper", 0, "string", "list"), 3)],
    ["split (+ input bytes + parts)", ["split", "a,b,c", ","], ok(["a", "b", "c"], 12)],
    ["split is literal and keeps empty parts", ["split", "a..b.", "."], ok(["a", "", "b", ""], 2 + 1 + 1 + 5 + 4)],
    [
      "split by an empty separator",
      ["split", "abc", ""],
      err({ code: "EXPR_ARG", op: "split", what: "separator must be non-empty" }, 4)
    ],
    ["split of a number", ["split", 1, ","], err(type("split", 0, "string", "number"), 3)],
    ["split by a number", ["split", "a", 1], err(type("split", 1, "string", "number"), 4)],
    ["join (+ output bytes)", ["join", q(["a", "b"]), "-"], ok("a-b", 7)],
    ["join needs strings", ["join", q([1, 2]), ","], err(type("join", 0, "string", "number"), 4)],
    ["join of text", ["join", "ab", ","], err(type("join", 0, "list", "text"), 3)],
    ["join with a number separator", ["join", q([]), 1], err(type("join", 1, "string", "number"), 4)],
    ["scontains (+ input bytes)", ["scontains", "hello", "ell"], ok(true, 9)],
    ["starts", ["starts", "hello", "he"], ok(true, 9)],
    ["ends", ["ends", "hello", "lo"], ok(true, 9)],
    ["ends false", ["ends", "hello", "he"], ok(false, 9)],
    ["ends with a list suffix", ["ends", "a", q([])], err(type("ends", 1, "string", "list"), 4)],
    ["starts of a number", ["starts", 1, "a"], err(type("starts", 0, "string", "number"), 3)],
    ["scontains of a number needle", ["scontains", "a", 1], err(type("scontains", 1, "string", "number"), 4)]
  ])
})

describe("Expr: maps and text", () => {
  runTable([
    ["has", ["has", { a: 1 }, "a"], ok(true, 5)],
    ["has a missing key", ["has", q({ a: 1 }), "b"], ok(false, 4)],
    ["has of a list", ["has", q([1]), "a"], err(type("has", 0, "map", "list"), 3)],
    ["has with a number key", ["has", q({}), 1], err(type("has", 1, "string", "number"), 4)],
    [
      "keys in canonical order: array-index keys numerically first",
      ["keys", q({ b: 1, "10": 2, "2": 3, a: 4 })],
      ok(["2", "10", "a", "b"], 3)
    ],
    ["values in canonical key order", ["values", q({ b: 1, "10": 2, "2": 3, a: 4 })], ok([3, 2, 4, 1], 3)],
    [
      "keys order other keys by UTF-16",
      ["keys", q({ "\uFF61": 1, "\u{1F600}": 2, "02": 3 })],
      ok(["02", "\u{1F600}", "\uFF61"], 3)
    ],
    ["keys of a list", ["keys", q([])], err(type("keys", 0, "map", "list"), 3)],
    ["values of text", ["values", "m"], err(type("values", 0, "map", "text"), 3)],
    ["merge of one map copies it", ["merge", { a: 1 }], ok({ a: 1 }, 2 + 2 + 1)],
    [
      "merge is shallow, rightmost wins (+ key counts)",
      ["merge", q({ a: 1, b: 1 }), q({ b: 2, c: 3 })],
      ok({ a: 1, b: 2, c: 3 }, 8)
    ],
    ["merge of a number", ["merge", q({ a: 1 }), 1], err(type("merge", 1, "map", "number"), 5)],
    ["toText is canonical JSON (+ bytes)", ["toText", q({ b: [1, 2.5], a: "x" })], ok(`{"a":"x","b":[1,2.5]}`, 24)],
    ["toText counts UTF-8 bytes", ["toText", "é"], ok(`"é"`, 7)],
    ["toText of numbers is JavaScript's", ["toText", q([1e21, 1e-7, -0, 1.5])], ok("[1e+21,1e-7,0,1.5]", 3 + 18)]
  ])
})

describe("Expr: predicates", () => {
  runTable([
    ["isText", ["isText", "x"], ok(true, 2)],
    ["isNum", ["isNum", 1], ok(true, 2)],
    ["isNum of text", ["isNum", "1"], ok(false, 2)],
    ["isBool", ["isBool", true], ok(true, 2)],
    ["isList", ["isList", q([])], ok(true, 2)],
    ["isMap", ["isMap", { a: 1 }], ok(true, 3)],
    ["isMap of a list", ["isMap", q([])], ok(false, 2)],
    ["isNull", ["isNull", null], ok(true, 2)],
    ["isNull of false", ["isNull", false], ok(false, 2)]
  ])
})

describe("Expr: object literal evaluation order", () => {
  runTable([
    // UTF-8 byte order puts U+FF61 before U+1F600 (UTF-16 order would not).
    [
      "fields evaluate in UTF-8 key order",
      { "\u{1F600}": ["nth", q([]), 0], "\uFF61": ["div", 1, 0] },
      err({ code: "EXPR_DIV_ZERO", op: "div" }, 5)
    ],
    ["the result object is canonical", { b: 1, a: 2, "10": 3, "9": 4 }, ok({ "9": 4, "10": 3, a: 2, b: 1 }, 5)]
  ])
})

describe("Expr: fuel meter", () => {
  it("exhaustion reports the failing charge and what was left; fuel spent = budget − left", () => {
    assert.deepStrictEqual(Expr.evaluate(["add", 1, 2], {}, 3), {
      ok: false,
      error: { code: "EXPR_FUEL", cost: 1, left: 0 },
      fuel: 3
    })
    assert.deepStrictEqual(Expr.evaluate(["add", 1, 2], {}, 1), {
      ok: false,
      error: { code: "EXPR_FUEL", cost: 2, left: 1 },
      fuel: 0
    })
    assert.deepStrictEqual(Expr.evaluate(1, {}, 0), {
      ok: false,
      error: { code: "EXPR_FUEL", cost: 1, left: 0 },
      fuel: 0
    })
    assert.deepStrictEqual(Expr.evaluate(["add", 1, 2], {}, 4), { ok: true, value: 3, fuel: 4 })
  })

  it("byte-based extras are charged whole: sconcat's bytes after its arguments", () => {
    // base 2 + 2 literals = 4, then 6 bytes: a budget of 9 fails on the byte charge.
    assert.deepStrictEqual(Expr.evaluate(["sconcat", "abc", "def"], {}, 9), {
      ok: false,
      error: { code: "EXPR_FUEL", cost: 6, left: 5 },
      fuel: 4
    })
  })

  it("unique charges one unit per comparison", () => {
    // 3 + comparisons 0 + 1 + 2 + 3 = 9 for four distinct items
    assert.strictEqual(Expr.evaluate(["unique", q([1, 2, 3, 4])], {}).fuel, 9)
    assert.deepStrictEqual(Expr.evaluate(["unique", q([1, 2, 3, 4])], {}, 7), {
      ok: false,
      error: { code: "EXPR_FUEL", cost: 1, left: 0 },
      fuel: 7
    })
  })

  it("the fuel budget must be an integer in [0, 1000000]", () => {
    for (const fuel of [1_000_001, -1, 1.5, Number.NaN]) {
      assert.deepStrictEqual(Expr.evaluate(1, {}, fuel), {
        ok: false,
        error: { code: "EXPR_BOUNDS", what: "fuel budget must be an integer in [0, 1000000]", max: 1_000_000 },
        fuel: 0
      })
    }
    assert.deepStrictEqual(Expr.evaluate(1, {}, 1_000_000), { ok: true, value: 1, fuel: 1 })
  })
})

describe("Expr.check", () => {
  const rows: ReadonlyArray<readonly [string, unknown, ReadonlyArray<string>, Record<string, unknown> | undefined]> = [
    ["an admitted program", ["add", ["get", "x"], 1], ["x"], undefined],
    ["an unknown op, even in a dead branch", ["if", true, 1, ["bogus", 2]], [], { code: "EXPR_OP", op: "bogus" }],
    ["variadic arity", ["add"], [], { code: "EXPR_ARITY", op: "add", want: "1..", got: 0 }],
    ["fixed arity", ["if", true, 1], [], { code: "EXPR_ARITY", op: "if", want: "3..3", got: 2 }],
    ["a non-string head", [[1, 2]], [], { code: "EXPR_PARSE", what: "op head must be a string" }],
    ["an empty array", [], [], { code: "EXPR_PARSE", what: "op head must be a string" }],
    ["a bad binder name", ["let", "9x", 1, 0], [], {
      code: "EXPR_PARSE",
      op: "let",
      what: "binder arg 0 must be an identifier <= 64 chars"
    }],
    ["a computed binder name", ["let", ["quote", "x"], 1, 0], [], {
      code: "EXPR_PARSE",
      op: "let",
      what: "binder arg 0 must be an identifier <= 64 chars"
    }],
    ["fold's second binder", ["fold", q([]), 0, "acc", "b-d", 0], [], {
      code: "EXPR_PARSE",
      op: "fold",
      what: "binder arg 3 must be an identifier <= 64 chars"
    }],
    ["a 65-character binder", ["let", "x".repeat(65), 1, 0], [], {
      code: "EXPR_PARSE",
      op: "let",
      what: "binder arg 0 must be an identifier <= 64 chars"
    }],
    ["a 64-character binder", ["let", "x".repeat(64), 1, ["get", "x".repeat(64)]], [], undefined],
    ["a binder is visible in the body", ["map", q([1]), "x", ["get", "x"]], [], undefined],
    ["an unbound name in a body", ["map", q([1]), "x", ["get", "y"]], [], {
      code: "EXPR_PATH",
      op: "get",
      what: "unbound name \"y\""
    }],
    ["a binder is not visible outside its op", ["list", ["let", "x", 1, 0], ["get", "x"]], [], {
      code: "EXPR_PATH",
      op: "get",
      what: "unbound name \"x\""
    }],
    ["a binder is not visible in its own value", ["let", "x", ["get", "x"], 0], [], {
      code: "EXPR_PATH",
      op: "get",
      what: "unbound name \"x\""
    }],
    [
      "fold binders are visible in the body",
      ["fold", q([]), 0, "a", "b", ["add", ["get", "a"], ["get", "b"]]],
      [],
      undefined
    ],
    ["errors come in document order (children left to right)", ["list", ["bogus"], ["add"]], [], {
      code: "EXPR_OP",
      op: "bogus"
    }],
    ["object fields are checked in sorted key order", { b: ["bogus"], a: ["add"] }, [], {
      code: "EXPR_ARITY",
      op: "add",
      want: "1..",
      got: 0
    }],
    ["sorted means UTF-8 byte order", { "\u{1F600}": ["bogus"], "\uFF61": ["add"] }, [], {
      code: "EXPR_ARITY",
      op: "add",
      want: "1..",
      got: 0
    }],
    ["a guard sees only value", ["gt", ["get", "value"], 100], ["value"], undefined]
  ]
  for (const [name, program, names, expected] of rows) {
    it(name, () => {
      assert.deepStrictEqual(Expr.check(program, names), expected as Expr.ExprError | undefined)
      if (expected !== undefined) {
        // evaluate runs the same check with the env keys as names: the same error, fuel 0
        const env = Object.fromEntries(names.map((n) => [n, 0]))
        assert.deepStrictEqual(Expr.evaluate(program, env), { ok: false, error: expected as Expr.ExprError, fuel: 0 })
      }
    })
  }
})

describe("Expr: arity of every op (static, fuel 0)", () => {
  // op → [min, max]; Infinity for variadic ops
  const arity: Record<string, readonly [number, number]> = {
    add: [1, Infinity],
    mul: [1, Infinity],
    sub: [2, 2],
    div: [2, 2],
    mod: [2, 2],
    neg: [1, 1],
    min: [1, Infinity],
    max: [1, Infinity],
    abs: [1, 1],
    floor: [1, 1],
    ceil: [1, 1],
    round: [1, 1],
    clamp: [3, 3],
    lt: [2, 2],
    lte: [2, 2],
    gt: [2, 2],
    gte: [2, 2],
    eq: [2, 2],
    neq: [2, 2],
    and: [1, Infinity],
    or: [1, Infinity],
    not: [1, 1],
    if: [3, 3],
    let: [3, 3],
    get: [1, Infinity],
    list: [0, Infinity],
    len: [1, 1],
    nth: [2, 2],
    concat: [1, Infinity],
    map: [3, 3],
    filter: [3, 3],
    fold: [5, 5],
    contains: [2, 2],
    reverse: [1, 1],
    take: [2, 2],
    drop: [2, 2],
    flat: [1, 1],
    unique: [1, 1],
    sort: [1, 1],
    slen: [1, 1],
    sconcat: [1, Infinity],
    upper: [1, 1],
    lower: [1, 1],
    trim: [1, 1],
    split: [2, 2],
    join: [2, 2],
    scontains: [2, 2],
    starts: [2, 2],
    ends: [2, 2],
    has: [2, 2],
    keys: [1, 1],
    values: [1, 1],
    merge: [1, Infinity],
    toText: [1, 1],
    isText: [1, 1],
    isNum: [1, 1],
    isBool: [1, 1],
    isList: [1, 1],
    isMap: [1, 1],
    isNull: [1, 1],
    quote: [1, 1]
  }

  it("covers the 61 ops of the table", () => {
    assert.strictEqual(Object.keys(arity).length, 61)
  })

  for (const [op, [min, max]] of Object.entries(arity)) {
    const want = max === Infinity ? `${min}..` : `${min}..${max}`
    if (min > 0) {
      it(`${op} with ${min - 1} arguments`, () => {
        const program = [op, ...Array.from({ length: min - 1 }, () => "x")]
        assert.deepStrictEqual(Expr.evaluate(program, {}), {
          ok: false,
          error: { code: "EXPR_ARITY", op, want, got: min - 1 },
          fuel: 0
        })
      })
    }
    if (max !== Infinity) {
      it(`${op} with ${max + 1} arguments`, () => {
        const program = [op, ...Array.from({ length: max + 1 }, () => "x")]
        assert.deepStrictEqual(Expr.check(program, []), { code: "EXPR_ARITY", op, want, got: max + 1 })
      })
    }
  }

  it("an unknown op is EXPR_OP, whatever its arguments", () => {
    assert.deepStrictEqual(Expr.evaluate(["pow", 2, 3], {}), {
      ok: false,
      error: { code: "EXPR_OP", op: "pow" },
      fuel: 0
    })
    assert.deepStrictEqual(Expr.check(["If", true, 1, 2], []), { code: "EXPR_OP", op: "If" })
  })
})
