/**
 * The store's fast row decoder against the Schema decoder it stands in for: on arbitrary rows —
 * the ones the store writes (SQLite numbers, PostgreSQL decimal strings) and damaged ones (bad
 * types, non-integers, broken JSON, missing fields) — both accept the same rows, produce equal
 * events, and refuse the same rows with the same error.
 */
import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import * as fc from "fast-check"
import * as Event from "../src/Event.js"
import * as Rows from "../src/internal/rows.js"

const json = fc.jsonValue({ maxDepth: 3 })
const goodType = fc.oneof(
  fc.constantFrom(...Event.types),
  fc.stringMatching(/^[a-z][a-z0-9_]{0,8}(?:\.[a-z0-9_]{1,6}){0,3}$/)
)
const badType = fc.oneof(
  fc.constantFrom("", "Run.start", "run..start", "run.", ".run", "9lives", "a-b", "a".repeat(65), "tool.call "),
  fc.string({ maxLength: 12 })
)
const integer = fc.integer({ min: -2, max: 2 ** 40 })
const at = fc.oneof(
  integer,
  integer.map(String),
  fc.constantFrom("12.5", "", " 7", "1e3", "NaN", "Infinity", "-0", "007")
)
const seq = fc.oneof(integer, fc.constantFrom(1.5, Number.NaN, Number.POSITIVE_INFINITY, -0), integer.map(String))
const run = fc.oneof(fc.constant(null), fc.string({ maxLength: 8 }), fc.constant(7))
const data = fc.oneof(
  json.map((v) => JSON.stringify(v)),
  fc.constantFrom("{", "", "undefined", "{\"a\":}", "[1,]"),
  fc.constant(12)
)

const written = fc.record({ seq: fc.nat(), at: fc.oneof(fc.nat(), fc.nat().map(String)), run, type: goodType, data })
const anyRow = fc.oneof(
  written,
  fc.record({ seq, at, run, type: fc.oneof(goodType, badType), data }),
  fc.record({ seq, at, run, type: goodType, data }, { requiredKeys: ["seq", "type"] }),
  fc.constantFrom(null, 3, "row", [])
)

const same = (row: unknown) => {
  const fast = Rows.decode("s", row)
  const reference = Rows.decodeSchema("s", row)
  assert.strictEqual(fast._tag, reference._tag, JSON.stringify(row))
  if (Either.isRight(fast) && Either.isRight(reference)) {
    assert.instanceOf(fast.right, Event.SessionEvent)
    assert.deepStrictEqual({ ...fast.right }, { ...reference.right })
  }
  if (Either.isLeft(fast) && Either.isLeft(reference)) {
    assert.deepStrictEqual([fast.left.code, fast.left.message], [reference.left.code, reference.left.message])
  }
}

describe("stored rows", () => {
  it("the fast decoder equals the Schema decoder on rows the store writes", () => {
    fc.assert(fc.property(written, same), { numRuns: 2_000 })
  })

  it("the fast decoder equals the Schema decoder on arbitrary and damaged rows", () => {
    fc.assert(fc.property(anyRow, same), { numRuns: 4_000 })
  })

  it("a written event decodes back to itself", () => {
    fc.assert(
      fc.property(goodType, run, json, fc.nat(), (type, r, value, n) => {
        const input = Event.make(typeof r === "number" ? null : r, type, value)
        const stored = JSON.stringify(input.data ?? null)
        const back = Rows.decode("s", { seq: n + 1, at: n, run: input.run, type, data: stored })
        assert.isTrue(Either.isRight(back))
        assert.deepStrictEqual(Either.getOrThrow(back).data, JSON.parse(stored))
      }),
      { numRuns: 1_000 }
    )
  })

  it("events are checked before they are written: a bad type is a typed INVALID_INPUT", () => {
    assert.isTrue(Either.isRight(Rows.checkInputs([Event.make("r", "host.note", {}), Event.make(null, "x", 1)])))
    const bad = Rows.checkInputs([Event.make("r", "message", {}), Event.make("r", "Not A Type", {})])
    assert.isTrue(Either.isLeft(bad))
    if (Either.isLeft(bad)) {
      assert.strictEqual(bad.left.code, "INVALID_INPUT")
      assert.include(bad.left.message, "event 1")
    }
  })
})
