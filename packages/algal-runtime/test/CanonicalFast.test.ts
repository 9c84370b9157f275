import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import * as fc from "fast-check"
import { createHash } from "node:crypto"
import * as Canonical from "../src/Canonical.js"

// An independent reference for plain JSON values: sort keys (array-index keys numerically, then
// UTF-16), then let JSON.stringify write the text.
const sortDeep = (value: unknown): unknown => {
  if (value === null || typeof value !== "object") return value
  if (Array.isArray(value)) return value.map(sortDeep)
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort(Canonical.compareKeys)) {
    Object.defineProperty(out, key, {
      value: sortDeep((value as Record<string, unknown>)[key]),
      enumerable: true,
      writable: true,
      configurable: true
    })
  }
  return out
}
const referenceText = (value: unknown): string => JSON.stringify(sortDeep(value), (_k, v) => (Object.is(v, -0) ? 0 : v))

const key = fc.oneof(
  fc.constantFrom(
    "a",
    "b",
    "id",
    "name",
    "0",
    "1",
    "10",
    "02",
    "4294967294",
    "4294967295",
    "é",
    "\uFF5E",
    "\u{1F600}",
    "__proto__"
  ),
  fc.string({ maxLength: 4 })
)
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ maxLength: 6 }),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(key, tie("value"), { maxKeys: 5 })
  )
})).value

describe("Canonical fast paths (shape cache, one-shot digest)", () => {
  it("encode agrees with a sort-then-JSON.stringify reference, and digests with createHash", () => {
    fc.assert(
      fc.property(json, (value) => {
        const text = Either.getOrThrow(Canonical.encode(value))
        assert.strictEqual(text, referenceText(value))
        const expected = "sha256:" + createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex")
        assert.strictEqual(Canonical.digestText(text), expected)
      }),
      { numRuns: 2_000 }
    )
  })

  it("objects with the same keys in different own orders, and lists of records, encode correctly", () => {
    const records = [
      { b: 1, a: 2, c: 3 },
      { a: 4, b: 5, c: 6 },
      { c: 7, b: 8, a: 9 },
      { b: 1, a: 2 },
      { b: 1, a: 2, c: 3, d: 4 },
      { b: 1, a: undefined, c: 3 },
      { b: 1, x: 2, c: 3 }
    ]
    assert.strictEqual(
      Canonical.encodeUnsafe(records),
      `[{"a":2,"b":1,"c":3},{"a":4,"b":5,"c":6},{"a":9,"b":8,"c":7},{"a":2,"b":1},{"a":2,"b":1,"c":3,"d":4},{"b":1,"c":3},{"b":1,"c":3,"x":2}]`
    )
    // many shapes sharing a first key (more than are remembered) still encode correctly
    const many = Array.from({ length: 40 }, (_, i) => ({ seq: i, [`k${i % 13}`]: i, z: -i }))
    assert.strictEqual(Canonical.encodeUnsafe(many), referenceText(many))
  })

  it("errors keep their document-order precedence when a key has no canonical form", () => {
    // the non-finite number comes first in canonical order; the bad key later
    const first = Canonical.encode({ a: Number.NaN, "\uD800": 1 })
    assert.strictEqual(Either.isLeft(first) && first.left.reason, "non-finite")
    // the same shape again (now remembered): same answer
    const again = Canonical.encode({ a: Number.NaN, "\uD800": 1 })
    assert.strictEqual(Either.isLeft(again) && again.left.reason, "non-finite")
    const bad = Canonical.encode({ a: 1, "\uD800": 1 })
    assert.strictEqual(Either.isLeft(bad) && bad.left.reason, "lone-surrogate")
    // a bad key whose value is undefined is skipped, as before
    assert.strictEqual(Canonical.encodeUnsafe({ a: 1, "\uD800": undefined }), `{"a":1}`)
  })

  it("a re-entrant encode from an accessor does not disturb the outer document", () => {
    const inner = { y: 2, x: 1 }
    const outer = {
      b: 1,
      get a() {
        return Canonical.encodeUnsafe(inner)
      }
    }
    assert.strictEqual(Canonical.encodeUnsafe(outer), `{"a":"{\\"x\\":1,\\"y\\":2}","b":1}`)
  })
})

// `digest` writes canonical bytes straight into a buffer (no text), giving up to the text path on
// anything irregular. It must give exactly `digestText(encode(value))`, or the same issue.
const viaText = (value: unknown) => Either.map(Canonical.encode(value), Canonical.digestText)
const awkwardString = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.string({ unit: "binary", maxLength: 8 }),
  fc.string({
    unit: fc.constantFrom(
      "a",
      "\"",
      "\\",
      "\n",
      "\u0000",
      "\u001f",
      "\u007f",
      "é",
      "\u2028",
      "\uD83D",
      "\uDE00",
      "\uFFFF"
    ),
    maxLength: 10
  })
)
const awkward = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.constantFrom(-0, 1e15, -1e15, 999_999_999_999_999, 2 ** 53, 1e21, 1.5e-7, Number.NaN, Number.POSITIVE_INFINITY),
    fc.double(),
    awkwardString,
    fc.constant(undefined),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(key, awkwardString), tie("value"), { maxKeys: 5 })
  )
})).value

describe("Canonical.digest writes bytes, not text", () => {
  it("equals the digest of the canonical text, or the same issue, for any value", () => {
    fc.assert(
      fc.property(awkward, (value) => {
        assert.deepStrictEqual(Canonical.digest(value), viaText(value))
      }),
      { numRuns: 3_000 }
    )
  })

  it("plain JSON values: the digest of the reference text", () => {
    fc.assert(
      fc.property(json, (value) => {
        const expected = "sha256:" +
          createHash("sha256").update(Buffer.from(referenceText(value), "utf8")).digest("hex")
        assert.deepStrictEqual(Canonical.digest(value), Either.right(expected))
      }),
      { numRuns: 1_000 }
    )
  })

  it("escapes mid-string, long strings, deep nesting, non-plain objects and sizes past the buffer", () => {
    const cases: ReadonlyArray<unknown> = [
      "plain then \"quoted\" then \\ then \n and é \u{1F600} \u0001",
      "é".repeat(70_000) + "\n" + "x".repeat(10),
      { ["k\n"]: 1, "é": [true, false, null], "\u{1F600}": { z: -0, a: 0.1 } },
      new Date(0),
      [undefined],
      { a: undefined, b: [1, 2, { c: "d" }] },
      Array.from({ length: 20_000 }, (_, i) => ({ i, s: `row ${i} é` })), // grows the buffer
      JSON.parse("[".repeat(64) + "1" + "]".repeat(64)),
      JSON.parse("[".repeat(63) + "1" + "]".repeat(63)),
      { x: "\uD800" },
      { "\uDC00": 1 }
    ]
    for (const value of cases) assert.deepStrictEqual(Canonical.digest(value), viaText(value))
  })

  it("a document over the byte path's bound takes the text path with the same digest", () => {
    const big = Array.from({ length: 9 }, (_, i) => `${i}`.repeat(1024 * 1024))
    assert.deepStrictEqual(Canonical.digest(big), viaText(big))
  })

  it("a re-entrant digest from an accessor does not disturb the outer document", () => {
    const inner = { y: 2, x: [1, "é"] }
    const outer = {
      b: "é",
      get a() {
        return Either.getOrThrow(Canonical.digest(inner))
      }
    }
    assert.deepStrictEqual(Canonical.digest(outer), viaText(outer))
    assert.strictEqual(
      Either.getOrThrow(Canonical.digest(outer)),
      Canonical.digestText(`{"a":"${Either.getOrThrow(Canonical.digest(inner))}","b":"é"}`)
    )
  })
})
