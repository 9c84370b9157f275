import { assert, describe, it } from "@effect/vitest"
import { explain } from "../src/internal/engine/explain.js"
import type * as Learning from "../src/Learning.js"

const certificate = (certified: boolean, fired: number): Learning.Certificate => ({
  head: "stopped_short",
  certified,
  threshold: 0.55,
  floor: 0.75,
  window: 40,
  fired,
  precision: 0.8,
  lower: 0.61,
  reason: "",
  model: { bias: 0, weights: {}, threshold: 0.55 }
})

const base = {
  reflex: "settle",
  head: "stopped_short",
  value: "stopped_short",
  mode: "auto" as const,
  acts: false,
  gated: { value: "stopped_short", vetoed: false, actionable: true },
  eligible: true,
  certifiable: true,
  certificate: certificate(true, 40),
  certified: true,
  held: false,
  floor: 0.75
}

describe("why a decision does not act", () => {
  it("names the hold-back, a failed gate, the certificate's evidence and a veto", () => {
    assert.strictEqual(
      explain({ ...base, held: true }),
      "does not act: held back (one turn in ten is left to the person, chosen by hash)"
    )
    assert.strictEqual(
      explain({ ...base, eligible: false }),
      "does not act: gate failed: no eligible value among the tiers given"
    )
    assert.strictEqual(
      explain({ ...base, certificate: certificate(false, 12), certified: false }),
      "does not act: not certified yet: fired on 12 labeled turns, precision 0.8 (lower bound 0.61) against the floor 0.75; needs 18 more fired turns to reach the 30 needed and precision 0.934 or more"
    )
    assert.strictEqual(
      explain({ ...base, certificate: certificate(false, 40), certified: false }),
      "does not act: not certified yet: precision not confidently at the floor; fired on 40 labeled turns, precision 0.8 (lower bound 0.61) against the floor 0.75; needs about 368 more fired turns at this precision, or precision 0.91 or more at this count"
    )
    assert.strictEqual(
      explain({ ...base, certified: false }),
      "does not act: this turn scores below the certified threshold 0.55"
    )
    assert.strictEqual(
      explain({
        ...base,
        gated: {
          value: "stopped_short",
          vetoed: true,
          actionable: false,
          reason: "owner-only: the turn names a step only the owner can take ('merge')"
        }
      }),
      "does not act: owner-only: the turn names a step only the owner can take ('merge')"
    )
    assert.strictEqual(
      explain({ ...base, acts: true }),
      "acts: settle.stopped_short is certified at 0.55 on the person's own history"
    )
    assert.strictEqual(explain({ ...base, mode: "off" }), "does not act: settle is off")
  })
})
