/**
 * What it would take to certify is the certification rule itself, read backwards: at the fired
 * count `toCertify` names, the Wilson lower bound reaches the floor and one turn fewer it does
 * not; at the precision it names, the bound reaches the floor at the current count.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Learning from "../src/Learning.js"

const passes = (precision: number, n: number, floor: number) =>
  n >= Learning.CERTIFY_MIN_FIRED && Learning.wilsonLower(precision * n, n) >= floor

describe("toCertify", () => {
  it("names the least fired count and the least precision that certify", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom(0.75, 0.85),
        (fired, precision, floor) => {
          const gap = Learning.toCertify(fired, precision, floor)
          if (gap.moreFired === null) {
            assert.isAtMost(precision, floor, "only a precision at or below the floor never certifies")
          } else {
            const n = fired + gap.moreFired
            assert.isTrue(passes(precision, n, floor), `certifies at ${n}`)
            if (gap.moreFired > 0 && n - 1 >= Math.max(fired, Learning.CERTIFY_MIN_FIRED)) {
              assert.isFalse(passes(precision, n - 1, floor), `not at ${n - 1}`)
            }
          }
          const count = Math.max(fired, Learning.CERTIFY_MIN_FIRED)
          if (gap.precisionNeeded === null) assert.isFalse(passes(1, count, floor))
          else {
            assert.isTrue(passes(gap.precisionNeeded, count, floor))
            assert.isFalse(passes(gap.precisionNeeded - 0.001, count, floor))
          }
        }
      ),
      { numRuns: 300 }
    )
  })

  it("a head at 0.8 precision over 40 fired needs hundreds more turns, or 0.91 at this count", () => {
    const gap = Learning.toCertify(40, 0.8, 0.75)
    assert.deepStrictEqual(gap, { fired: 40, minimum: 30, moreFired: 368, precisionNeeded: 0.9096 })
    assert.strictEqual(Learning.toCertify(280, 0.7, 0.75).moreFired, null)
  })
})
