/**
 * The JSON text of redacted event data is computed once and reused (issue 38 item 3): the size
 * bound, the SQL row and the history chain read it from `FrozenJson.text`. Held equal to
 * `JSON.stringify` on arbitrary values, and the chain's digest to one built from
 * `JSON.stringify([seq, at, run, type, data])` lines, as it was before.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Evidence from "@steward/governance-rules/Evidence"
import * as fc from "fast-check"
import { createHash } from "node:crypto"
import * as Event from "../src/Event.js"
import * as History from "../src/History.js"
import * as FrozenJson from "../src/internal/frozenJson.js"
import * as Limits from "../src/Limits.js"

const value = fc.jsonValue().chain((json) => fc.oneof(fc.constant(json), fc.constant(undefined), fc.anything()))

describe("FrozenJson", () => {
  it("a redacted value's text is JSON.stringify's, computed once and unchanged by later reads", () => {
    fc.assert(fc.property(value, (input) => {
      const data = Event.redact(input)
      const expected = JSON.stringify(data ?? null)
      assert.strictEqual(FrozenJson.text(data), expected)
      assert.strictEqual(FrozenJson.text(data), expected)
      assert.strictEqual(Limits.jsonSize(data), expected.length)
      assert.isTrue(FrozenJson.isImmutable(data))
    }))
  })

  it("a value not sealed is stringified each time (a caller may change it)", () => {
    const data: { n: number } = { n: 1 }
    assert.strictEqual(FrozenJson.text(data), "{\"n\":1}")
    data.n = 2
    assert.strictEqual(FrozenJson.text(data), "{\"n\":2}")
    assert.isFalse(FrozenJson.isImmutable(data))
  })

  it("the chain's digest is that of JSON.stringify([seq, at, run, type, data]) lines", () => {
    fc.assert(fc.property(
      fc.array(fc.tuple(fc.option(fc.string(), { nil: null }), value, fc.boolean()), { maxLength: 8 }),
      (rows) => {
        const events = rows.map(([run, input, sealed], i) =>
          new Event.SessionEvent({
            session: "s",
            seq: i + 1,
            at: 1_700_000_000_000 + i,
            run,
            type: "note",
            data: sealed ? Event.redact(input) : JSON.parse(JSON.stringify(input ?? null))
          })
        )
        const chain = new History.Chain()
        chain.absorb(events)
        const expected = createHash("sha256")
        for (const e of events) expected.update(`${JSON.stringify([e.seq, e.at, e.run, e.type, e.data])}\n`)
        assert.strictEqual(chain.peek([], 0).digest, `sha256:${expected.digest("hex")}`)
      }
    ))
  })
})

describe("Event.redact: a string redaction left unchanged is remembered, a secret never", () => {
  const secret = fc.oneof(
    fc.stringMatching(/^[a-z]{0,8}$/).map((s) => `GITHUB_TOKEN=ghp_${s}abcdefghijklmnopqrstuvwxyz0123`),
    fc.stringMatching(/^[a-z]{0,8}$/).map((s) => `Authorization: Bearer ${s}abcdefghijklmnop`),
    fc.stringMatching(/^[a-z]{1,8}$/).map((s) => `run it --password ${s}`)
  )
  it("every string, repeated, is what Evidence.redact makes of it", () => {
    fc.assert(fc.property(fc.array(fc.oneof(fc.string(), secret), { maxLength: 6 }), (strings) => {
      for (let round = 0; round < 3; round++) {
        for (const s of strings) {
          assert.deepStrictEqual(Event.redact({ s }), { s: Evidence.redact(s) })
          assert.strictEqual(Event.redact(s), Evidence.redact(s))
        }
      }
    }))
  })

  it("a secret seen twice is redacted twice", () => {
    const text = "export OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwxyz0123456789"
    const first = Event.redact(text)
    assert.notInclude(String(first), "sk-abcdefghijklmnopqrstuvwxyz0123456789")
    assert.strictEqual(Event.redact(text), first)
  })
})
