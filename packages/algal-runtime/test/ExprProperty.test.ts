import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import * as fc from "fast-check"
import { Canonical, Expr } from "../src/index.js"

/** op → [min, max] arguments (max 4 stands for variadic). */
const ARITY: Record<string, readonly [number, number]> = {
  add: [1, 4],
  mul: [1, 4],
  sub: [2, 2],
  div: [2, 2],
  mod: [2, 2],
  neg: [1, 1],
  min: [1, 4],
  max: [1, 4],
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
  and: [1, 4],
  or: [1, 4],
  not: [1, 1],
  if: [3, 3],
  list: [0, 4],
  len: [1, 1],
  nth: [2, 2],
  concat: [1, 4],
  contains: [2, 2],
  reverse: [1, 1],
  take: [2, 2],
  drop: [2, 2],
  flat: [1, 1],
  unique: [1, 1],
  sort: [1, 1],
  slen: [1, 1],
  sconcat: [1, 4],
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
  merge: [1, 4],
  toText: [1, 1],
  isText: [1, 1],
  isNum: [1, 1],
  isBool: [1, 1],
  isList: [1, 1],
  isMap: [1, 1],
  isNull: [1, 1],
  bogus: [0, 2]
}
const OPS = Object.keys(ARITY)

const NAMES = ["a", "b", "x", "acc"] as const
const name = fc.constantFrom(...NAMES)

const text = fc.oneof(
  fc.constantFrom("", "a", "b", ",", "a,b", "Hello World", "é", "\u{1F600}", "\uFF61", " x\t"),
  fc.string({ maxLength: 8 })
)
const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -5, max: 5 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  text
)
const json = fc.jsonValue({ maxDepth: 3 })

/** Random programs over the whole op table (arities and types mostly wrong, on purpose). */
const program = fc.letrec((tie) => ({
  expr: fc.oneof(
    { depthSize: "large", withCrossShrink: true },
    { arbitrary: scalar, weight: 2 },
    { arbitrary: tie("call"), weight: 6 },
    { arbitrary: tie("binder"), weight: 2 },
    { arbitrary: tie("get"), weight: 2 },
    { arbitrary: json.map((value) => ["quote", value]), weight: 2 },
    {
      arbitrary: fc.dictionary(fc.constantFrom("k", "l", "\uFF61", "\u{1F600}", "10", "2"), tie("expr"), {
        maxKeys: 3
      }),
      weight: 1
    }
  ),
  call: fc.constantFrom(...OPS).chain((op) => {
    const [min, max] = ARITY[op]!
    // mostly the right arity, sometimes one off
    const count = fc.oneof({ arbitrary: fc.integer({ min, max }), weight: 9 }, fc.integer({ min: 0, max: max + 1 }))
    return count.chain((n) => fc.array(tie("expr"), { minLength: n, maxLength: n })).map((args) => [op, ...args])
  }),
  get: fc.tuple(name, fc.array(fc.oneof(text, fc.integer({ min: -1, max: 3 }), tie("expr")), { maxLength: 3 }))
    .map(([n, path]) => ["get", n, ...path]),
  binder: fc.oneof(
    fc.tuple(name, tie("expr"), tie("expr")).map(([n, v, b]) => ["let", n, v, b]),
    fc.tuple(fc.constantFrom("map", "filter"), tie("expr"), name, tie("expr")).map(([op, l, n, b]) => [op, l, n, b]),
    fc.tuple(tie("expr"), tie("expr"), name, name, tie("expr")).map(([l, i, a, n, b]) => ["fold", l, i, a, n, b])
  )
})).expr

const env = fc.record({
  a: json,
  b: fc.array(fc.integer({ min: -3, max: 3 }), { maxLength: 6 }),
  x: text
})

const budget = fc.oneof(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 20_000 }))

const encode = (value: unknown): string => Either.getOrThrow(Canonical.encode(value))

describe("Expr properties", () => {
  it("evaluation never throws, returns a well-formed result, and spends at most its fuel", () => {
    fc.assert(
      fc.property(program, env, budget, (p, e, fuel) => {
        const result = Expr.evaluate(p, e as any, fuel)
        assert.isTrue(Number.isInteger(result.fuel) && result.fuel >= 0 && result.fuel <= fuel)
        if (!result.ok) {
          assert.isTrue(Expr.isExprError(result.error), JSON.stringify(result.error))
          // the defensive "could not be read" path is for exotic objects only
          assert.notInclude(String(result.error.what ?? ""), "could not be read")
          if (result.error.code === "EXPR_FUEL") {
            const { cost, left } = result.error as unknown as { cost: number; left: number }
            assert.isAbove(cost, left)
            assert.strictEqual(result.fuel, fuel - left)
          }
        }
        // the boundary document is the same result: ok, then value or error (canonical), then fuel
        const boundary = Expr.evaluateJson(p, e as any, fuel)
        assert.deepStrictEqual(boundary.document, result)
        assert.strictEqual(
          boundary.text,
          result.ok
            ? `{"ok":true,"value":${encode(result.value)},"fuel":${result.fuel}}`
            : `{"ok":false,"error":${encode(result.error)},"fuel":${result.fuel}}`
        )
        assert.deepStrictEqual(JSON.parse(boundary.text), JSON.parse(encode(result)))
      }),
      { numRuns: 1_500 }
    )
  })

  it("the meter is exact and deterministic: the spent fuel reproduces the outcome, one less does not", () => {
    fc.assert(
      fc.property(program, env, (p, e) => {
        const first = Expr.evaluateJson(p, e as any, 20_000)
        const spent = first.document.fuel
        const exhausted = !first.document.ok && first.document.error.code === "EXPR_FUEL"
        fc.pre(!exhausted)
        assert.strictEqual(Expr.evaluateJson(p, e as any, spent).text, first.text)
        if (spent > 0) {
          const starved = Expr.evaluate(p, e as any, spent - 1)
          assert.strictEqual(starved.ok ? "ok" : starved.error.code, "EXPR_FUEL")
          assert.isAtMost(starved.fuel, spent - 1)
        }
      }),
      { numRuns: 1_000 }
    )
  })

  it("keys/values follow canonical key order (the order of the canonical text)", () => {
    const key = fc.oneof(
      fc.constantFrom("0", "1", "2", "10", "01", "4294967294", "4294967295", "a", "B", "é", "\uFF61", "\u{1F600}"),
      fc.string({ maxLength: 4 })
    )
    fc.assert(
      fc.property(fc.dictionary(key, fc.integer(), { maxKeys: 12 }), (object) => {
        const keys = Expr.evaluate(["keys", ["quote", object]], {})
        const expected = Object.keys(JSON.parse(encode(object)))
        assert.deepStrictEqual(keys, { ok: true, value: expected, fuel: 3 })
        assert.deepStrictEqual(expected, Canonical.sortedKeys(object))
        const values = Expr.evaluate(["values", ["quote", object]], {})
        assert.deepStrictEqual(values, { ok: true, value: expected.map((k) => object[k]!), fuel: 3 })
      })
    )
  })

  it("sort is a stable, idempotent permutation under the documented total order", () => {
    const rank = (v: unknown) =>
      v === null
        ? 0
        : typeof v === "boolean"
        ? 1
        : typeof v === "number"
        ? 2
        : typeof v === "string"
        ? 3
        : Array.isArray(v)
        ? 4
        : 5
    // the reference order, written independently: UTF-8 order of maps via Buffer.compare
    const reference = (a: unknown, b: unknown): number => {
      const r = rank(a) - rank(b)
      if (r !== 0) return r
      if (typeof a === "boolean") return Number(a) - Number(b)
      if (typeof a === "number") return Math.sign(a - (b as number))
      if (typeof a === "string") return a < (b as string) ? -1 : a > (b as string) ? 1 : 0
      if (Array.isArray(a)) {
        const y = b as Array<unknown>
        for (let i = 0; i < Math.min(a.length, y.length); i++) {
          const c = reference(a[i], y[i])
          if (c !== 0) return c
        }
        return a.length - y.length
      }
      return Buffer.compare(Buffer.from(encode(a)), Buffer.from(encode(b)))
    }
    const item = fc.oneof(scalar, fc.jsonValue({ maxDepth: 2 }))
    fc.assert(
      fc.property(fc.array(item, { maxLength: 12 }), (items) => {
        const result = Expr.evaluate(["sort", ["quote", items]], {})
        assert.isTrue(result.ok)
        const sorted = (result as unknown as { value: Array<unknown> }).value
        assert.strictEqual(result.fuel, 3 + items.length)
        // a permutation
        assert.deepStrictEqual(sorted.map(encode).slice().sort(), items.map(encode).slice().sort())
        // ordered, and stable (equal elements keep their input order)
        for (let i = 1; i < sorted.length; i++) assert.isAtMost(reference(sorted[i - 1], sorted[i]), 0)
        const stable = items.map((v, i) => [v, i] as const).sort((x, y) => reference(x[0], y[0]) || x[1] - y[1]).map((
          [v]
        ) => v)
        assert.deepStrictEqual(sorted.map(encode), stable.map(encode))
        // idempotent
        const again = Expr.evaluate(["sort", ["quote", sorted]], {})
        assert.deepStrictEqual((again as unknown as { value: unknown }).value, sorted)
      })
    )
  })

  it("string order and length are UTF-16; byte fuel is UTF-8", () => {
    const unicode = fc.string({ unit: "binary", maxLength: 10 })
    fc.assert(
      fc.property(unicode, unicode, (a, b) => {
        assert.deepStrictEqual(Expr.evaluate(["lt", a, b], {}), { ok: true, value: a < b, fuel: 4 })
        assert.deepStrictEqual(Expr.evaluate(["slen", a], {}), { ok: true, value: a.length, fuel: 3 })
        const bytes = Buffer.byteLength(a) + Buffer.byteLength(b)
        assert.deepStrictEqual(Expr.evaluate(["sconcat", a, b], {}), { ok: true, value: a + b, fuel: 4 + bytes })
      })
    )
  })

  it("eq agrees with equality of canonical text and is symmetric", () => {
    const value = fc.oneof(scalar, fc.jsonValue({ maxDepth: 2 }))
    fc.assert(
      fc.property(value, value, (a, b) => {
        const ab = Expr.evaluate(["eq", ["quote", a], ["quote", b]], {})
        const ba = Expr.evaluate(["eq", ["quote", b], ["quote", a]], {})
        assert.deepStrictEqual(ab.ok && ab.value, encode(a) === encode(b))
        assert.deepStrictEqual(ab, ba)
        assert.deepStrictEqual(Expr.evaluate(["eq", ["quote", a], ["quote", a]], {}).ok && true, true)
      })
    )
  })
})

/**
 * An independent oracle for well-typed numeric programs: the value by direct JavaScript arithmetic,
 * the fuel by the meter's rules (a literal costs 1, each op 2, comparisons add nothing).
 */
interface ArithCall extends ReadonlyArray<Arith | string> {}
type Arith = number | ArithCall
const arith: fc.Arbitrary<Arith> = fc.letrec<{ e: Arith }>((tie) => ({
  e: fc.oneof(
    { depthSize: "medium", withCrossShrink: true },
    {
      arbitrary: fc.oneof(fc.integer({ min: -20, max: 20 }), fc.double({ min: -1e3, max: 1e3, noNaN: true })),
      weight: 2
    },
    fc.tuple(fc.constantFrom("add", "mul", "min", "max"), fc.array(tie("e"), { minLength: 1, maxLength: 3 }))
      .map(([op, args]) => [op, ...args] as const),
    fc.tuple(fc.constantFrom("sub", "div", "mod"), tie("e"), tie("e")).map(([op, a, b]) => [op, a, b] as const),
    fc.tuple(fc.constantFrom("neg", "abs", "floor", "ceil", "round"), tie("e")).map(([op, a]) => [op, a] as const)
  )
})).e

class Failure {
  constructor(readonly code: string, readonly op: string) {}
}

const oracle = (e: Arith): { value: number; fuel: number } => {
  if (typeof e === "number") return { value: e, fuel: 1 }
  const op = e[0] as unknown as string
  const parts = e.slice(1).map((x) => oracle(x as Arith))
  const xs = parts.map((p) => p.value)
  const fuel = 2 + parts.reduce((n, p) => n + p.fuel, 0)
  const finite = (value: number) => {
    if (!Number.isFinite(value)) throw new Failure("EXPR_NUM", op)
    return { value, fuel }
  }
  switch (op) {
    case "add":
      return finite(xs.reduce((a, b) => a + b, 0))
    case "mul":
      return finite(xs.reduce((a, b) => a * b, 1))
    case "min":
      return finite(Math.min(...xs))
    case "max":
      return finite(Math.max(...xs))
    case "sub":
      return finite(xs[0]! - xs[1]!)
    case "div":
    case "mod":
      if (xs[1] === 0) throw new Failure("EXPR_DIV_ZERO", op)
      return finite(op === "div" ? xs[0]! / xs[1]! : xs[0]! % xs[1]!)
    case "neg":
      return finite(-xs[0]!)
    case "abs":
      return finite(Math.abs(xs[0]!))
    case "floor":
      return finite(Math.floor(xs[0]!))
    case "ceil":
      return finite(Math.ceil(xs[0]!))
    default:
      return finite(Math.round(xs[0]!))
  }
}

describe("Expr properties: arithmetic against an independent oracle", () => {
  it("values and fuel of well-typed numeric programs", () => {
    fc.assert(
      fc.property(arith, (program) => {
        fc.pre(Expr.check(program, []) === undefined)
        let expected: { value: number; fuel: number } | Failure
        try {
          expected = oracle(program)
        } catch (failure) {
          expected = failure as Failure
        }
        const result = Expr.evaluate(program, {}, Expr.maxFuel)
        if (expected instanceof Failure) {
          // both evaluate arguments left to right before applying the op: the same first failure
          assert.deepStrictEqual(
            result.ok ? undefined : result.error,
            { code: expected.code, op: expected.op } as Expr.ExprError
          )
        } else {
          assert.deepStrictEqual(result, {
            ok: true,
            value: expected.value === 0 ? 0 : expected.value,
            fuel: expected.fuel
          })
        }
      }),
      { numRuns: 2_000 }
    )
  })
})

/**
 * Well-typed programs: each generator produces a program whose value, when it has one, has the
 * named type. Env names: n (number), s (text), l (list of numbers), t (list of text), m (map).
 */
type P = unknown
const typed = fc.letrec<{
  num: P
  text: P
  bool: P
  nums: P
  texts: P
  map: P
  any: P
}>((tie) => {
  const small = fc.integer({ min: -3, max: 6 })
  const opts = { depthSize: "medium", withCrossShrink: true } as const
  return {
    num: fc.oneof(
      opts,
      small,
      fc.constant(["get", "n"]),
      fc.tuple(fc.constantFrom("add", "mul", "sub", "div", "mod", "min", "max"), tie("num"), tie("num")).map((
        [op, a, b]
      ) => [op, a, b]),
      fc.tuple(fc.constantFrom("neg", "abs", "floor", "ceil", "round"), tie("num")).map(([op, a]) => [op, a]),
      fc.tuple(tie("num"), tie("num"), tie("num")).map(([x, lo, hi]) => ["clamp", x, lo, hi]),
      tie("nums").map((l) => ["len", l]),
      tie("text").map((s) => ["slen", s]),
      fc.tuple(tie("nums"), fc.nat(4)).map(([l, i]) => ["nth", l, i]),
      fc.tuple(tie("nums"), tie("num")).map((
        [l, i]
      ) => ["fold", l, i, "acc", "it", ["add", ["get", "acc"], ["get", "it"]]]),
      fc.tuple(tie("bool"), tie("num"), tie("num")).map(([c, a, b]) => ["if", c, a, b]),
      fc.tuple(tie("num"), tie("num")).map(([v, b]) => ["let", "v", v, ["mul", ["get", "v"], b]])
    ),
    text: fc.oneof(
      opts,
      fc.constantFrom("", "a", "a,b", "Hé", "\u{1F600}", " x "),
      fc.constant(["get", "s"]),
      fc.tuple(tie("text"), tie("text")).map(([a, b]) => ["sconcat", a, b]),
      fc.tuple(fc.constantFrom("upper", "lower", "trim"), tie("text")).map(([op, a]) => [op, a]),
      tie("any").map((v) => ["toText", v]),
      fc.tuple(tie("texts"), tie("text")).map(([l, sep]) => ["join", l, sep]),
      fc.tuple(tie("texts"), fc.nat(3)).map(([l, i]) => ["nth", l, i]),
      fc.tuple(tie("bool"), tie("text"), tie("text")).map(([c, a, b]) => ["if", c, a, b])
    ),
    bool: fc.oneof(
      opts,
      fc.boolean(),
      fc.tuple(fc.constantFrom("lt", "lte", "gt", "gte"), tie("num"), tie("num")).map(([op, a, b]) => [op, a, b]),
      fc.tuple(fc.constantFrom("lt", "gte"), tie("text"), tie("text")).map(([op, a, b]) => [op, a, b]),
      fc.tuple(fc.constantFrom("eq", "neq"), tie("any"), tie("any")).map(([op, a, b]) => [op, a, b]),
      fc.tuple(fc.constantFrom("and", "or"), tie("bool"), tie("bool")).map(([op, a, b]) => [op, a, b]),
      tie("bool").map((b) => ["not", b]),
      fc.tuple(tie("nums"), tie("num")).map(([l, x]) => ["contains", l, x]),
      fc.tuple(fc.constantFrom("scontains", "starts", "ends"), tie("text"), tie("text")).map((
        [op, a, b]
      ) => [op, a, b]),
      fc.tuple(tie("map"), tie("text")).map(([m, k]) => ["has", m, k]),
      fc.tuple(fc.constantFrom("isText", "isNum", "isBool", "isList", "isMap", "isNull"), tie("any")).map((
        [op, v]
      ) => [op, v])
    ),
    nums: fc.oneof(
      opts,
      fc.array(small, { maxLength: 6 }).map((l) => ["quote", l]),
      fc.constant(["get", "l"]),
      fc.array(tie("num"), { maxLength: 3 }).map((l) => ["list", ...l]),
      fc.tuple(tie("nums"), tie("nums")).map(([a, b]) => ["concat", a, b]),
      fc.tuple(tie("nums"), tie("num")).map(([l, k]) => ["map", l, "x", ["mul", ["get", "x"], k]]),
      fc.tuple(tie("nums"), tie("num")).map(([l, k]) => ["filter", l, "x", ["gt", ["get", "x"], k]]),
      fc.tuple(fc.constantFrom("reverse", "sort", "unique"), tie("nums")).map(([op, l]) => [op, l]),
      fc.tuple(fc.constantFrom("take", "drop"), tie("nums"), fc.nat(4)).map(([op, l, n]) => [op, l, n]),
      fc.tuple(tie("nums"), tie("nums")).map(([a, b]) => ["flat", ["list", a, b]]),
      fc.constant(["values", ["get", "m"]])
    ),
    texts: fc.oneof(
      opts,
      fc.constant(["get", "t"]),
      fc.tuple(tie("text"), fc.constantFrom(",", "a", " ")).map(([s, sep]) => ["split", s, sep]),
      tie("map").map((m) => ["keys", m]),
      tie("nums").map((l) => ["map", l, "x", ["toText", ["get", "x"]]]),
      tie("texts").map((l) => ["sort", l])
    ),
    map: fc.oneof(
      opts,
      fc.constant(["get", "m"]),
      fc.tuple(tie("num"), tie("text")).map(([a, b]) => ({ a, b })),
      fc.tuple(tie("map"), tie("map")).map(([a, b]) => ["merge", a, b]),
      fc.dictionary(fc.constantFrom("a", "b", "10", "2"), small, { maxKeys: 3 }).map((m) => ["quote", m])
    ),
    any: fc.oneof(opts, tie("num"), tie("text"), tie("bool"), tie("nums"), tie("map"))
  }
})

const typedEnv = { n: 3, s: "a,b,c", l: [3, 1, 2], t: ["b", "a"], m: { a: 1, b: 2 } }

describe("Expr properties: well-typed programs", () => {
  const kinds: ReadonlyArray<readonly [keyof typeof typed, (v: unknown) => boolean]> = [
    ["num", (v) => typeof v === "number"],
    ["text", (v) => typeof v === "string"],
    ["bool", (v) => typeof v === "boolean"],
    ["nums", (v) => Array.isArray(v) && v.every((x) => typeof x === "number")],
    ["texts", (v) => Array.isArray(v) && v.every((x) => typeof x === "string")],
    ["map", (v) => typeof v === "object" && v !== null && !Array.isArray(v)]
  ]
  // Failures a well-typed program can still meet at run time.
  const runtimeOnly = ["EXPR_DIV_ZERO", "EXPR_NUM", "EXPR_PATH", "EXPR_ARG", "EXPR_BOUNDS", "EXPR_FUEL"]

  for (const [kind, hasType] of kinds) {
    it(`a well-typed ${kind} program yields a ${kind} or a run-time-only failure, with an exact meter`, () => {
      fc.assert(
        fc.property(typed[kind], fc.integer({ min: 0, max: 5_000 }), (program, fuel) => {
          fc.pre(Expr.check(program, Object.keys(typedEnv)) === undefined)
          const result = Expr.evaluate(program, typedEnv, fuel)
          assert.isAtMost(result.fuel, fuel)
          if (result.ok) assert.isTrue(hasType(result.value), JSON.stringify(result.value))
          else assert.include(runtimeOnly, result.error.code, JSON.stringify(result.error))
          if (!result.ok && result.error.code === "EXPR_FUEL") return
          // the spent fuel reproduces the outcome; one less exhausts
          assert.strictEqual(
            Expr.evaluateJson(program, typedEnv, result.fuel).text,
            Expr.evaluateJson(program, typedEnv, fuel).text
          )
          if (result.fuel > 0) {
            const starved = Expr.evaluate(program, typedEnv, result.fuel - 1)
            assert.strictEqual(starved.ok ? "ok" : starved.error.code, "EXPR_FUEL")
          }
        }),
        { numRuns: 400 }
      )
    })
  }
})

describe("Expr internals: byte measures", () => {
  it("numberLength is the length of the canonical number text", async () => {
    const { numberLength, numberText } = await import("../src/internal/expr/value.js")
    fc.assert(
      fc.property(
        fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.maxSafeInteger()),
        (n) => {
          assert.strictEqual(numberLength(n), numberText(n).length)
        }
      ),
      { numRuns: 5_000 }
    )
  })

  it("size limits on inputs and runtime values are decided on exact canonical bytes", async () => {
    const { measure } = await import("../src/internal/expr/input.js")
    const { canonicalText, exactBytes, fromJson } = await import("../src/internal/expr/value.js")
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: "binary" }), (value, s) => {
        for (const v of [value, s, [s, value], { [s]: value }]) {
          // a size limit is decided exactly: a value of exactly `limit` bytes fits, one byte less does not
          const expected = Buffer.byteLength(encode(v))
          assert.strictEqual(measure(v, expected)._tag, "Ok")
          assert.strictEqual(measure(v, expected - 1)._tag, "Over")
          // the memoized runtime measure and canonical text agree with Canonical too
          const runtime = fromJson(v)
          assert.strictEqual(exactBytes(runtime), expected)
          assert.strictEqual(canonicalText(runtime), encode(v))
        }
      })
    )
  })
})
