import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Json from "../src/internal/json.js"

// The reference compact text: keys in code point order (Python's `sort_keys`), everything else as
// JSON.stringify writes it. (A re-built JS object cannot serve: JS lists array-index-like keys
// such as "0" first, whatever order they were added in.)
const sortedText = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(sortedText).join(",")}]`
    : typeof v === "object" && v !== null
    ? `{${
      Object.keys(v).sort(Json.codePointCompare).map((k) => `${JSON.stringify(k)}:${sortedText((v as any)[k])}`).join(
        ","
      )
    }}`
    : JSON.stringify(v)

const value = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.fullUnicodeString(),
    fc.array(tie("v"), { maxLength: 4 }),
    fc.dictionary(fc.fullUnicodeString({ maxLength: 6 }), tie("v"), { maxKeys: 4 })
  )
})).v

describe("internal/json (Python-compatible encoding)", () => {
  it("parse ∘ dumpsPretty is the identity, and compact output matches JSON.stringify of the sorted value", () =>
    fc.assert(
      fc.property(value, (v) => {
        assert.deepStrictEqual(Json.parse(Json.dumpsPretty(v)), v as Json.Json)
        assert.strictEqual(Json.dumpsCompact(v, false), sortedText(v))
        assert.match(Json.dumpsCompact(v, true), /^[\x00-\x7f]*$/)
        assert.deepStrictEqual(Json.parse(Json.dumpsCompact(v, true)), v as Json.Json)
      }),
      { numRuns: 300 }
    ))

  it("keys sort by code point, an array-index-like key included", () => {
    // found by the property above: "" sorts before "0", as in Python
    assert.strictEqual(Json.dumpsCompact({ "0": [], "": {} }, false), `{"":{},"0":[]}`)
    assert.strictEqual(Json.dumpsCompact({ "10": 1, "9": 2, "a": 3 }, false), `{"10":1,"9":2,"a":3}`)
  })

  it("the JSON.stringify fast path equals the reference encoder, including floats, NUL and surrogates", () =>
    fc.assert(
      fc.property(
        fc.letrec((tie) => ({
          v: fc.oneof(
            { depthSize: "small" },
            fc.double({ noNaN: true, noDefaultInfinity: true }),
            fc.integer().map((n) => new Json.PyFloat(n)),
            fc.constantFrom("a\u0000b", "\ud800", "x\udc00", "😀", "\u2028", "\u007f"),
            fc.fullUnicodeString(),
            fc.array(tie("v"), { maxLength: 3 }),
            fc.dictionary(
              fc.oneof(fc.fullUnicodeString({ maxLength: 4 }), fc.constantFrom("10", "2", "__proto__")),
              tie("v"),
              {
                maxKeys: 3
              }
            )
          )
        })).v,
        (v) => assert.strictEqual(Json.dumpsPretty(v), Json.dumpsPrettySlow(v))
      ),
      { numRuns: 500 }
    ))

  it("Python float repr round-trips every double", () =>
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const text = Json.pyFloat(x)
        assert.strictEqual(Number(text), x)
        assert.match(text, /^-?(\d+\.\d+|\d(\.\d+)?e[+-]\d{2,3})$/)
      }),
      { numRuns: 1000 }
    ))

  it("Python float repr examples and 12.0 vs 12 survive a round trip", () => {
    assert.strictEqual(Json.pyFloat(1e16), "1e+16")
    assert.strictEqual(Json.pyFloat(1e15), "1000000000000000.0")
    assert.strictEqual(Json.pyFloat(0.0001), "0.0001")
    assert.strictEqual(Json.pyFloat(1.5e-5), "1.5e-05")
    assert.strictEqual(Json.pyFloat(12.5), "12.5")
    const doc = "{\n  \"a\": 12.0,\n  \"b\": 12,\n  \"c\": \"\\u0001 é \\\"\"\n}"
    assert.strictEqual(Json.dumpsPretty(Json.parse(doc)), doc)
    assert.strictEqual(Json.dumpsCompact("é\u007f", true), "\"\\u00e9\u007f\"")
  })

  it("hostile input: unterminated, deep and trailing data are syntax errors with positions", () => {
    assert.instanceOf(Json.parse("\"abc"), Json.JsonSyntaxError)
    assert.instanceOf(Json.parse("[".repeat(10_000)), Json.JsonSyntaxError)
    const extra = Json.parse("{}\n x")
    assert.instanceOf(extra, Json.JsonSyntaxError)
    if (extra instanceof Json.JsonSyntaxError) assert.deepStrictEqual([extra.line, extra.column], [2, 2])
    const proto = Json.parse("{\"__proto__\": {\"polluted\": true}}") as any
    assert.isUndefined(({} as any).polluted)
    assert.deepStrictEqual(Object.keys(proto), ["__proto__"])
  })

  it("a key given twice is an error naming the key and where it is (issue 16)", () => {
    const e = Json.parse("{\"a\": [{\"k\": 1,\n \"k\": 2}]}")
    assert.instanceOf(e, Json.JsonSyntaxError)
    assert.include((e as Json.JsonSyntaxError).message, "duplicate key 'k' at a[0].k")
    assert.strictEqual((e as Json.JsonSyntaxError).line, 2)
    assert.deepStrictEqual(Json.parse("{\"k\": 1, \"j\": {\"k\": 2}}"), { k: 1, j: { k: 2 } })
  })

  it("an integer beyond 2^53 is an error naming the field; the largest exact one and floats still read", () => {
    const e = Json.parse("{\"findings\": [{\"attempts\": 9007199254740992}]}")
    assert.instanceOf(e, Json.JsonSyntaxError)
    assert.include((e as Json.JsonSyntaxError).message, "findings[0].attempts")
    assert.include((e as Json.JsonSyntaxError).message, "2^53")
    assert.strictEqual(Json.parse("-9007199254740991"), -9007199254740991)
    assert.instanceOf(Json.parse("9007199254740993.0"), Json.PyFloat)
  })
})

describe("Json.parse refuses invalid UTF-16 (issue 16)", () => {
  it("a lone high or low surrogate escape is an error naming where; a pair is read", () => {
    for (const text of ["{\"title\": \"a\\ud800b\"}", "{\"title\": \"\\udc00\"}", "{\"title\": \"\\ud800\\u0041\"}"]) {
      const r = Json.parse(text)
      assert.instanceOf(r, Json.JsonSyntaxError, text)
      assert.include((r as Json.JsonSyntaxError).message, "invalid UTF-16", text)
      assert.include((r as Json.JsonSyntaxError).message, "title", text)
    }
    assert.deepStrictEqual(Json.parse("{\"title\": \"\\ud83d\\ude00\"}"), { title: "\u{1F600}" })
  })
})
