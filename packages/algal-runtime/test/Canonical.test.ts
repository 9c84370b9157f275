import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import * as fc from "fast-check"
import { createHash } from "node:crypto"
import * as Canonical from "../src/Canonical.js"

const encode = (value: unknown): string => Either.getOrThrow(Canonical.encode(value))
const issue = (value: unknown) => {
  const result = Canonical.encode(value)
  assert.isTrue(Either.isLeft(result))
  return (result as Either.Left<Canonical.CanonicalIssue, string>).left
}

describe("Canonical", () => {
  it("writes compact JSON with keys in canonical order: array-index keys numerically, then UTF-16 order", () => {
    assert.strictEqual(
      encode({ b: 1, a: [true, null], c: { y: "x", x: 2 } }),
      `{"a":[true,null],"b":1,"c":{"x":2,"y":"x"}}`
    )
    assert.strictEqual(
      encode({ "10": 0, "2": 0, "02": 0, a: 0, "4294967295": 0, "4294967294": 0 }),
      `{"2":0,"10":0,"4294967294":0,"02":0,"4294967295":0,"a":0}`
    )
    // UTF-16 order: U+FF5E sorts after U+1F600 in code points but before it in UTF-16 units
    assert.strictEqual(encode({ "\u{1F600}": 1, "\uFF5E": 2 }), `{"\u{1F600}":1,"\uFF5E":2}`)
    assert.deepStrictEqual(Canonical.sortedKeys({ b: 0, "1": 0, a: 0, "0": 0 }), ["0", "1", "a", "b"])
  })

  it("prints numbers as JavaScript does (-0 → 0, 1.0 → 1, 1e21 → 1e+21, 1e-7)", () => {
    assert.strictEqual(
      encode([-0, 1.0, 1e21, 1e-7, 0.1, 123456789012345680000, -1.5]),
      "[0,1,1e+21,1e-7,0.1,123456789012345680000,-1.5]"
    )
  })

  it("escapes strings as JSON.stringify (controls lowercase \\u00XX, no escaping of non-ASCII or U+2028)", () => {
    assert.strictEqual(
      encode("a\"b\\c\b\f\n\r\t\u0001\u001fé\u2028"),
      `"a\\"b\\\\c\\b\\f\\n\\r\\t\\u0001\\u001fé\u2028"`
    )
  })

  it("rejects non-finite numbers, lone surrogates, non-JSON values, and depth beyond 64", () => {
    assert.strictEqual(issue(Number.NaN).reason, "non-finite")
    assert.strictEqual(issue({ a: [Infinity] }).reason, "non-finite")
    assert.strictEqual(issue("x\uD800y").reason, "lone-surrogate")
    assert.strictEqual(issue({ "\uDC00": 1 }).reason, "lone-surrogate")
    assert.strictEqual(issue(() => 1).reason, "not-json")
    assert.strictEqual(issue(BigInt(1)).reason, "not-json")
    let deep: unknown = 1
    for (let i = 0; i < 64; i++) deep = [deep]
    assert.isTrue(Either.isRight(Canonical.encode(deep)))
    assert.strictEqual(issue([deep]).reason, "depth")
  })

  it("digests are sha256: + lowercase hex of the UTF-8 canonical bytes", () => {
    const value = { é: "ü", n: 1 }
    const expected = "sha256:" + createHash("sha256").update(Buffer.from(`{"n":1,"é":"ü"}`, "utf8")).digest("hex")
    assert.strictEqual(Either.getOrThrow(Canonical.digest(value)), expected)
    assert.strictEqual(
      Canonical.digestText("{}"),
      "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
    )
    assert.isTrue(Canonical.isDigest(expected))
    assert.isFalse(Canonical.isDigest(expected.toUpperCase()))
    assert.isFalse(Canonical.isDigest(expected.slice(0, 70)))
    assert.isFalse(Canonical.isDigest(42))
  })

  it("byteLength counts UTF-8 bytes", () => {
    assert.strictEqual(Either.getOrThrow(Canonical.byteLength("é")), 4)
  })

  it("parse rejects invalid JSON, 1e999 and lone surrogate escapes with a typed issue", () => {
    assert.strictEqual(
      Either.getLeft(Canonical.parse("{")).pipe((o) => o._tag === "Some" && o.value.reason),
      "not-json"
    )
    assert.strictEqual(
      Either.getLeft(Canonical.parse("[1e999]")).pipe((o) => o._tag === "Some" && o.value.reason),
      "non-finite"
    )
    assert.strictEqual(
      Either.getLeft(Canonical.parse(`"\\ud800"`)).pipe((o) => o._tag === "Some" && o.value.reason),
      "lone-surrogate"
    )
    assert.deepStrictEqual(Either.getOrThrow(Canonical.parse(`{"a":[1,2]}`)), { a: [1, 2] })
  })

  it("encodeUnsafe throws only for invalid values", () => {
    assert.strictEqual(Canonical.encodeUnsafe({ a: 1 }), `{"a":1}`)
    assert.throws(() => Canonical.encodeUnsafe(Number.NaN))
  })

  describe("properties", () => {
    const json = fc.jsonValue({ maxDepth: 6 })

    it("canonicalization is idempotent: canonical(parse(canonical(x))) = canonical(x)", () => {
      fc.assert(
        fc.property(json, (value) => {
          const once = encode(value)
          return encode(JSON.parse(once)) === once
        }),
        { numRuns: 300 }
      )
    })

    it("canonicalization is insensitive to key insertion order", () => {
      const shuffle = (value: unknown, seed: number): unknown => {
        if (Array.isArray(value)) return value.map((v) => shuffle(v, seed + 1))
        if (value !== null && typeof value === "object") {
          const keys = Object.keys(value)
          const rotated = keys.map((_, i) => keys[(i + seed) % keys.length]!).reverse()
          const out: Record<string, unknown> = {}
          for (const k of rotated) {
            Object.defineProperty(out, k, {
              value: shuffle((value as any)[k], seed + 1),
              enumerable: true,
              writable: true,
              configurable: true
            })
          }
          return out
        }
        return value
      }
      fc.assert(fc.property(json, fc.nat(7), (value, seed) => encode(shuffle(value, seed)) === encode(value)), {
        numRuns: 300
      })
    })

    it("canonical text round-trips to an equal value and equals JSON.stringify for sorted inputs", () => {
      fc.assert(
        fc.property(json, (value) => {
          const text = encode(value)
          return encode(JSON.parse(text)) === text && JSON.stringify(JSON.parse(text)) === text
        }),
        { numRuns: 300 }
      )
    })

    it("encode never throws, whatever the input", () => {
      fc.assert(
        fc.property(
          fc.anything({ withBigInt: true, withMap: true, withNullPrototype: true, withObjectString: true }),
          (value) => {
            const result = Canonical.encode(value)
            return Either.isLeft(result) || typeof result.right === "string"
          }
        ),
        { numRuns: 300 }
      )
    })
  })
})

describe("internal size measures agree with the canonical encoder", () => {
  it("measureJson and canonicalSize equal the UTF-8 length of the canonical text, and reject exactly what encode rejects", async () => {
    const { canonicalSize, measureJson } = await import("../src/internal/issue.js")
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const bytes = Buffer.byteLength(encode(value), "utf8")
        return measureJson(value) === bytes && canonicalSize(value, Number.MAX_SAFE_INTEGER) === bytes
      }),
      { numRuns: 300 }
    )
    fc.assert(
      fc.property(fc.anything({ withBigInt: true }), (value) => {
        const encoded = Canonical.encode(value)
        const measured = measureJson(value)
        return Either.isLeft(encoded)
          ? typeof measured === "string"
          : measured === Buffer.byteLength(encoded.right, "utf8")
      }),
      { numRuns: 300 }
    )
    assert.strictEqual(measureJson({ a: "\uD800" }), "string contains a lone UTF-16 surrogate")
    assert.strictEqual(measureJson([Infinity]), "non-finite number Infinity")
  })
})
