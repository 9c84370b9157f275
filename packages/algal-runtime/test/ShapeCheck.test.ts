import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { valueAsIsAt } from "../src/internal/expr/input.js"
import { type ShapeCheck, specialize } from "../src/internal/expr/shape.js"

// A specialized check (src/internal/expr/shape.ts) may only ever answer what the generic walk
// `valueAsIsAt` answers, or -1: it can make admission faster, never different. Every test below
// states that contract; the fast-check ones also check that values of the specialized structure
// are answered, not just given up on.

// Bounds wide enough that only the value itself decides.
const BIG = { limit: 1_000_000, listLen: 2_048, objectKeys: 1_024 } as const

const generic = (
  x: unknown,
  limit: number = BIG.limit,
  listLen: number = BIG.listLen,
  objectKeys: number = BIG.objectKeys
): number => valueAsIsAt(x, 1, limit, listLen, objectKeys)

/** Asserts the contract on one input and returns both answers. */
const agree = (
  check: ShapeCheck,
  x: unknown,
  limit: number = BIG.limit,
  listLen: number = BIG.listLen,
  objectKeys: number = BIG.objectKeys
): { readonly c: number; readonly g: number } => {
  const c = check(x, limit, listLen, objectKeys)
  const g = generic(x, limit, listLen, objectKeys)
  expect(Number.isInteger(c) && c >= -1).toBe(true)
  if (c !== -1) expect(c).toBe(g)
  return { c, g }
}

/** `specialize` of a value the generic walk admits (the only values it is specified for). */
const specialized = (value: unknown): ShapeCheck => {
  expect(generic(value)).toBeGreaterThanOrEqual(0)
  const check = specialize(value, 1)
  expect(check).toBeDefined()
  return check!
}

// `inner` inside `n` nested objects `{ a: { a: … inner } }`: at level n + 1 counting the value as 1.
const nest = (n: number, inner: unknown = 1): unknown => {
  let v = inner
  for (let i = 0; i < n; i++) v = { a: v }
  return v
}

class Klass {
  a = 1
}

// ------------------------------------------------------------ generators ---

// empty, index-like, spaces, non-ASCII, non-BMP, escapes, Object.prototype names, JSON's own __proto__
const KEYS = ["", "0", "7", "a", "b", "a b", "é", "\u{1F600}", "q\"\\\n", "constructor", "toString", "__proto__"]

const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.constantFrom(0, -0, 1, -1, 0.1, 1e21, -1e21, 2 ** 53, Number.MAX_VALUE, Number.MIN_VALUE),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom("", "a", "\"", "\\", "\n", "\u0000", "\u001f", "\u007f", "é", "\u{1F600}", "\u2028", "a\"b\\c"),
  fc.string({ maxLength: 6, unit: "binary" })
)

// Objects are built with `Object.fromEntries`, so a "__proto__" key is an own field, as JSON.parse makes it.
const json = fc.letrec((tie) => ({
  value: fc.oneof({ maxDepth: 5, depthSize: "small" }, scalar, tie("list"), tie("uniform"), tie("object")),
  list: fc.array(tie("value"), { maxLength: 5 }),
  // lists of one structure, so list elements get a specialized body (not only the generic walk)
  uniform: fc.tuple(tie("value"), fc.array(fc.array(scalar, { maxLength: 8 }), { minLength: 1, maxLength: 5 }))
    .map(([v, fills]) => fills.map((fill) => refill(v, fill))),
  object: fc.uniqueArray(fc.tuple(fc.constantFrom(...KEYS), tie("value")), {
    maxLength: 6,
    selector: ([key]) => key
  }).map((entries) => Object.fromEntries(entries))
}))

const container = fc.oneof(json.list, json.uniform, json.object)

/** A copy of `v` of the same structure (key order, list shapes, prototypes) with its scalars taken from `fill`, cycling. */
const refill = (v: unknown, fill: ReadonlyArray<unknown>): unknown => {
  let i = 0
  const go = (u: unknown): unknown => {
    if (Array.isArray(u)) return u.map(go)
    if (u !== null && typeof u === "object") {
      const out = Object.create(Object.getPrototypeOf(u))
      for (const key of Object.keys(u)) define(out, key, go((u as Record<string, unknown>)[key]))
      return out
    }
    return fill.length === 0 ? u : fill[i++ % fill.length]
  }
  return go(v)
}

const define = (o: object, key: string, value: unknown): void => {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true })
}

// ------------------------------------------------------------ mutations ---

// Values none of which qualify: the check must never count them.
const UNQUALIFIED: ReadonlyArray<unknown> = [
  NaN,
  Infinity,
  -Infinity,
  undefined,
  "\uD800",
  "a\uDC00b",
  "x".repeat(65_537),
  () => 1,
  Symbol("s"),
  1n,
  new Date(0),
  new Map(),
  new Klass(),
  Object.assign(Object.create({}), { a: 1 })
]

/** One edit of a container or scalar, chosen by `pick` (an index modulo the edits that apply). */
const edit = (node: unknown, pick: number, other: unknown): unknown => {
  const edits: Array<() => unknown> = [
    () => other,
    () => UNQUALIFIED[pick % UNQUALIFIED.length]
  ]
  if (Array.isArray(node)) {
    edits.push(
      () => [...node, node.length > 0 ? node[0] : other],
      () => node.slice(1),
      () => node.slice(0, -1),
      () => [...node].reverse(),
      () => Object.fromEntries(Array.from(node, (item, i) => [String(i), item])),
      // array holes, at the end and at the start
      () => {
        const copy = [...node]
        copy.length += 1
        return copy
      },
      () => {
        const copy = [...node, other]
        delete copy[0]
        return copy
      }
    )
  } else if (node !== null && typeof node === "object") {
    const keys = Object.keys(node)
    const fields = keys.map((key) => [key, (node as Record<string, unknown>)[key]] as const)
    edits.push(
      () => Object.fromEntries([...fields, [KEYS[pick % KEYS.length]! + "+", other]]),
      () => Object.fromEntries(fields.slice(1)),
      () => Object.fromEntries([...fields].reverse()),
      () => Object.fromEntries([...fields.slice(1), ...fields.slice(0, 1)]),
      () => fields.map(([, v]) => v),
      () => {
        const bare = Object.create(null)
        for (const [key, v] of fields) define(bare, key, v)
        return bare
      }
    )
  }
  return edits[pick % edits.length]!()
}

/** Every path to a node of `v` (through lists and objects of any prototype). */
const pathsOf = (v: unknown, prefix: ReadonlyArray<string | number> = []): Array<ReadonlyArray<string | number>> => {
  const out: Array<ReadonlyArray<string | number>> = [prefix]
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (i in v) out.push(...pathsOf(v[i], [...prefix, i]))
  } else if (v !== null && typeof v === "object" && !(v instanceof Date) && !(v instanceof Map)) {
    for (const key of Object.keys(v)) out.push(...pathsOf((v as Record<string, unknown>)[key], [...prefix, key]))
  }
  return out
}

/** A copy of `v` with the node at `path` replaced; key order, prototypes and holes kept. */
const replaceAt = (v: unknown, path: ReadonlyArray<string | number>, f: (node: unknown) => unknown): unknown => {
  if (path.length === 0) return f(v)
  const [head, ...rest] = path
  if (Array.isArray(v)) {
    const copy = v.slice()
    copy[head as number] = replaceAt(v[head as number], rest, f)
    return copy
  }
  const out = Object.create(Object.getPrototypeOf(v))
  for (const key of Object.keys(v as object)) {
    const field = (v as Record<string, unknown>)[key]
    define(out, key, key === head ? replaceAt(field, rest, f) : field)
  }
  return out
}

// A few edits, each at a random node of the value as edited so far.
const mutation = fc.array(fc.tuple(fc.nat(), fc.nat(), json.value), { minLength: 1, maxLength: 3 })

const mutate = (v: unknown, steps: ReadonlyArray<readonly [number, number, unknown]>): unknown =>
  steps.reduce((acc, [where, pick, other]) => {
    const paths = pathsOf(acc)
    return replaceAt(acc, paths[where % paths.length]!, (node) => edit(node, pick, other))
  }, v)

// ------------------------------------------------------------ properties ---

describe("ShapeCheck against the generic walk", () => {
  it("agrees on the value it was specialized from, its edits, and its scalar-only variants", () => {
    let specializedRuns = 0
    let answeredEdits = 0
    fc.assert(
      fc.property(container, mutation, fc.array(scalar, { maxLength: 12 }), (a, steps, fill) => {
        const n = generic(a)
        const check = specialize(a, 1)
        if (n < 0 || check === undefined) return
        specializedRuns++
        // (a) the value itself
        expect(check(a, BIG.limit, BIG.listLen, BIG.objectKeys)).toBe(n)
        // (b) an arbitrary edit: -1, or exactly the generic answer (so never >= 0 where it is -1)
        const { c } = agree(check, mutate(a, steps))
        if (c >= 0) answeredEdits++
        // (c) the same structure with other scalars: answered, exactly
        const b = refill(a, fill)
        const g = generic(b)
        expect(g).toBeGreaterThanOrEqual(0)
        expect(check(b, BIG.limit, BIG.listLen, BIG.objectKeys)).toBe(g)
      }),
      { numRuns: 300 }
    )
    // the generator reaches the checks, and some edits keep the structure (not a test that cannot fail)
    expect(specializedRuns).toBeGreaterThan(200)
    expect(answeredEdits).toBeGreaterThan(10)
  })

  it("agrees under small limit, listLen and objectKeys bounds", () => {
    fc.assert(
      fc.property(
        container,
        mutation,
        // a small limit, or one right at the value's size
        fc.oneof(fc.integer({ min: 0, max: 200 }), fc.integer({ min: -2, max: 2 }).map((d) => ({ d }))),
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 0, max: 4 }),
        (a, steps, bound, listLen, objectKeys) => {
          const n = generic(a)
          const check = n >= 0 ? specialize(a, 1) : undefined
          if (check === undefined) return
          const limit = typeof bound === "number" ? bound : n + bound.d
          // the value's own structure: answered exactly whenever the generic walk admits it
          const { c, g } = agree(check, a, limit, listLen, objectKeys)
          expect(c).toBe(g)
          agree(check, mutate(a, steps), limit, listLen, objectKeys)
        }
      ),
      { numRuns: 300 }
    )
  })
})

// ------------------------------------------------------------ hostile inputs ---

describe("ShapeCheck and hostile inputs", () => {
  it("a getter that throws gives -1, at a specialized field and through a generic part", () => {
    const throwing = {
      a: 1,
      get b(): number {
        throw new Error("read")
      }
    }
    expect(agree(specialized({ a: 1, b: 2 }), throwing)).toEqual({ c: -1, g: -1 })
    // an empty list's elements have no structure: the check hands them to the generic walk
    expect(agree(specialized({ l: [] }), { l: [throwing] })).toEqual({ c: -1, g: -1 })
  })

  it("a getter that answers differently on each read gives a number", () => {
    let reads = 0
    const fickle = {
      a: 1,
      get b(): unknown {
        return reads++ % 2 === 0 ? "s" : { deep: [1, 2] }
      }
    }
    const check = specialized({ a: 1, b: "t" })
    for (let i = 0; i < 4; i++) {
      expect(typeof check(fickle, BIG.limit, BIG.listLen, BIG.objectKeys)).toBe("number")
    }
  })

  it("a Proxy around a plain object is answered as the generic walk answers it", () => {
    const check = specialized({ a: 1, b: [true, "x"] })
    const { g } = agree(check, new Proxy({ a: 2, b: [false, "y"] }, {}))
    expect(g).toBeGreaterThanOrEqual(0)
  })

  it("an own enumerable __proto__ key (JSON.parse) is not taken for the prototype", () => {
    const parsed = JSON.parse("{\"__proto__\": 1, \"a\": 2}")
    expect(generic(parsed)).toBeGreaterThanOrEqual(0)
    agree(specialized({ a: 2 }), parsed)
    // a value with such a key is left to the generic walk, at the top or nested
    expect(specialize(parsed, 1)).toBeUndefined()
    const nested = specialized({ o: parsed, n: 1 })
    expect(agree(nested, { o: parsed, n: 1 }).c).toBe(generic({ o: parsed, n: 1 }))
    const other = { o: Object.fromEntries([["__proto__", { x: [1, NaN] }], ["a", 2]]), n: 1 }
    expect(agree(nested, other)).toEqual({ c: -1, g: -1 })
  })

  it("a class instance claiming Object.prototype through an own __proto__ gives -1", () => {
    const inst = new Klass() as Klass & { b: number }
    inst.b = 2
    Object.defineProperty(inst, "__proto__", { value: Object.prototype, enumerable: false })
    expect(agree(specialized({ a: 1, b: 2 }), inst)).toEqual({ c: -1, g: -1 })
  })

  it("a non-enumerable own field is not counted, as the generic walk does not count it", () => {
    const hidden = { a: 1 }
    Object.defineProperty(hidden, "b", { value: 2, enumerable: false })
    const { g } = agree(specialized({ a: 1, b: 2 }), hidden)
    expect(g).toBeGreaterThanOrEqual(0)
    expect(agree(specialized({ a: 1 }), hidden).c).toBe(g)
  })

  it("a string whose JSON form passes 65,536 bytes gives -1 at a specialized field", () => {
    // 65,534 characters and two quotes: exactly at the bound
    const long = "x".repeat(65_534)
    const check = specialized({ s: "short", l: ["a"] })
    expect(agree(check, { s: long, l: ["a"] }).c).toBe(generic({ s: long, l: ["a"] }))
    expect(agree(check, { s: long + "x", l: ["a"] })).toEqual({ c: -1, g: -1 })
    expect(agree(check, { s: "", l: ["a", "\n".repeat(32_768)] })).toEqual({ c: -1, g: -1 })
  })

  it("a polluted Object.prototype changes no answer", () => {
    const check = specialized({ a: 1, b: { c: [1] } })
    const proto = Object.prototype as Record<string, unknown>
    try {
      proto["polluted"] = 1
      agree(check, { a: 1, b: { c: [1] } })
      // specialized while polluted: the inherited key is part of the structure, and only then
      const during = specialized({ a: 1 })
      agree(during, { a: 1 })
      delete proto["polluted"]
      agree(during, { a: 1 })
    } finally {
      delete proto["polluted"]
    }
    agree(check, { a: 1, b: { c: [1] } })
  })

  it("one large object referenced 1024 times is given up on quickly", () => {
    const large = { numbers: Array.from({ length: 500 }, (_, i) => i), text: "x".repeat(1_000) }
    const bounds = [10_000, 2_048, 64] as const
    const hostile = Array.from({ length: 1_024 }, () => large)
    expect(specialized([large, large])(hostile, ...bounds)).toBe(-1)
    // through the generic walk too (a list with no structure of its own)
    expect(specialized({ l: [] })({ l: hostile }, ...bounds)).toBe(-1)
    expect(generic(hostile, ...bounds)).toBe(-1)
  })

  it("nesting past 30 levels gives -1", () => {
    expect(generic(nest(30))).toBeGreaterThanOrEqual(0)
    expect(generic(nest(31))).toBe(-1)
    expect(generic(nest(40))).toBe(-1)
    const deepest = specialized(nest(30))
    expect(deepest(nest(30), BIG.limit, BIG.listLen, BIG.objectKeys)).toBe(generic(nest(30)))
    expect(agree(deepest, nest(31))).toEqual({ c: -1, g: -1 })
    expect(agree(deepest, nest(40))).toEqual({ c: -1, g: -1 })
    expect(agree(specialized({ a: [] }), { a: [nest(40)] })).toEqual({ c: -1, g: -1 })
    // a part the check hands to the generic walk is counted from its own level: a list at level 28
    const deepList = specialized(nest(27, []))
    expect(agree(deepList, nest(27, [nest(2)])).c).toBe(generic(nest(27, [nest(2)])))
    expect(generic(nest(27, [nest(2)]))).toBeGreaterThanOrEqual(0)
    expect(agree(deepList, nest(27, [nest(3)]))).toEqual({ c: -1, g: -1 })
    expect(agree(specialized([1, []]), [1, nest(40)])).toEqual({ c: -1, g: -1 })
  })

  it("a value that changes between admission and specialization cannot widen what the check admits", () => {
    // the generic walk reads a scalar; `specialize`, reading again, sees 40 levels of objects
    let reads = 0
    const shifty = {
      get a(): unknown {
        return reads++ === 0 ? 1 : nest(39)
      }
    }
    expect(generic(shifty)).toBeGreaterThanOrEqual(0)
    const check = specialize(shifty, 1)
    if (check !== undefined) agree(check, { a: nest(39) })
  })
})

describe("specialize", () => {
  it("returns undefined for scalars", () => {
    for (const v of [null, undefined, true, false, 0, -0, 1e21, 0.1, NaN, "", "a", "\u{1F600}"]) {
      expect(specialize(v, 1)).toBeUndefined()
    }
  })
})
