/**
 * A stored certificate is read by its Schema: every certificate `certify` can write (the Schema's
 * own arbitrary values and real replays) comes back equal; a payload that is not a certificate —
 * not JSON, a field missing or of the wrong type, a model that is not a head — reads as none.
 */
import { assert, describe, it } from "@effect/vitest"
import { Arbitrary } from "effect"
import * as fc from "fast-check"
import * as Learning from "../src/Learning.js"

const certificate = Arbitrary.make(Learning.Certificate)

describe("stored certificates", () => {
  it("every certificate survives being stored as JSON and read again", () => {
    fc.assert(
      fc.property(certificate, (c) => {
        const stored = JSON.stringify(c)
        assert.deepStrictEqual(Learning.decodeCertificatePayload(stored), JSON.parse(stored))
      }),
      { numRuns: 500 }
    )
  })

  it("a certificate a replay writes is read back as written", () => {
    const examples = Array.from({ length: 80 }, (_, i) => ({
      observation: `o${i}`,
      features: { f_a: i % 3 === 0 ? 1 : 0, f_b: i % 5 === 0 ? 1 : 0 },
      label: i % 3 === 0,
      weight: 1,
      source: "user_reply",
      seq: i + 1
    }))
    const written = Learning.certify({
      head: "stopped_short",
      prior: { bias: 0, weights: { f_a: 0.5, f_b: 0 }, threshold: 0.5 },
      examples,
      floor: 0.9,
      actionable: () => true
    })
    assert.isTrue(written.fired > 0)
    const back = Learning.decodeCertificatePayload(JSON.stringify(written))
    assert.deepStrictEqual(back, JSON.parse(JSON.stringify(written)))
  })

  it("a damaged payload reads as no certificate", () => {
    fc.assert(
      fc.property(
        certificate,
        fc.constantFrom("certified", "threshold", "model", "reason", "fired"),
        fc.constantFrom<unknown>(undefined, "x", null, 1, {}),
        (c, key, value) => {
          const damaged: Record<string, unknown> = { ...c, [key]: value }
          if (value === undefined) delete damaged[key]
          const sameType = typeof value === typeof (c as Record<string, unknown>)[key] && value !== null
          if (sameType) return
          assert.isUndefined(Learning.decodeCertificatePayload(JSON.stringify(damaged)))
        }
      ),
      { numRuns: 500 }
    )
    for (const text of ["", "{", "null", "[]", "3", "{\"certified\":true}"]) {
      assert.isUndefined(Learning.decodeCertificatePayload(text), text)
    }
  })
})
