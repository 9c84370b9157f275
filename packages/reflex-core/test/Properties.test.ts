import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import * as fc from "fast-check"
import * as Features from "../src/Features.js"
import * as Gates from "../src/Gates.js"
import * as Labels from "../src/Labels.js"
import * as Learning from "../src/Learning.js"
import * as Params from "../src/Params.js"

const text = fc.oneof(
  fc.string({ maxLength: 400 }),
  fc.fullUnicodeString({ maxLength: 400 }),
  fc.array(
    fc.constantFrom("next, i'll ", "done", "?", "\n\n", "- [ ] ", "delete ", "’", "🙂", "## ", ":", "waiting on "),
    { maxLength: 60 }
  )
    .map((xs) => xs.join(""))
)

describe("properties", () => {
  it("settle features are finite, bounded and deterministic for any text and tool-call count", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 1_000_000 }), (t, calls) => {
        const f = Option.getOrThrow(Features.settleFeatures(t, Features.completedTurn, calls))
        for (const [k, v] of Object.entries(f)) assert.isTrue(Number.isFinite(v) && v >= 0 && v <= 1, `${k}=${v}`)
        assert.deepStrictEqual(Option.getOrThrow(Features.settleFeatures(t, Features.completedTurn, calls)), f)
        const p = Params.probability(Params.settlePrior.heads["stopped_short"]!, f)
        assert.isTrue(p > 0 && p < 1)
      }),
      { numRuns: 300 }
    )
  })

  it("route features are bounded; verbs ≤ words; substantial is monotone in repetition", () => {
    fc.assert(
      fc.property(text, (t) => {
        const f = Features.routeFeatures(t)
        for (const v of Object.values(f)) assert.isTrue(v >= 0 && v <= 1)
        assert.isTrue(f["verbs"]! * 8 <= Math.max(8, f["words"]! * 400))
        if (Features.substantial(t)) assert.isTrue(Features.substantial(t + " " + t))
      }),
      { numRuns: 300 }
    )
  })

  it("vetoes, reply categories and escalations never throw", () => {
    fc.assert(
      fc.property(text, (t) => {
        assert.isBoolean(Gates.confirmVetoed(t))
        assert.include(Labels.ReplyCategory.literals, Labels.categorizeReply(t))
        const e = Labels.escalation(t)
        assert.isTrue(e === undefined || e === "frontier" || e === "standard")
      }),
      { numRuns: 300 }
    )
  })

  it("a veto stem anywhere forbids confirmation whatever surrounds it", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 80 }),
        fc.constantFrom("delete", "password", "production", "force push", "billing"),
        (prefix, stem) => {
          assert.isTrue(Gates.confirmVetoed(`${prefix.replace(/[\p{L}\p{N}]$/u, "")} ${stem} it. Shall I proceed?`))
        }
      ),
      { numRuns: 200 }
    )
  })

  it("the Wilson lower bound is within [0, p̂] and grows with evidence", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, p) => {
        const hits = Math.round(p * n)
        const lower = Learning.wilsonLower(hits, n)
        assert.isTrue(lower >= 0 && lower <= hits / n + 1e-12)
        assert.isTrue(Learning.wilsonLower(hits * 4, n * 4) >= lower - 1e-12)
      }),
      { numRuns: 300 }
    )
  })
})
