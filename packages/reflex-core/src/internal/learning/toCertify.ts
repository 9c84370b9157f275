/**
 * What it would take a head to certify: the fired turns still needed at its current precision, or
 * the precision needed at its current count. Both read the same Wilson lower bound the ladder
 * tests, so the answer is what `certify` would decide, not a rule of thumb.
 * @internal
 */
import { wilsonLower } from "./certification.js"
import { CERTIFY_MIN_FIRED, round4 } from "./fit.js"

/**
 * The gap between a rung's evidence and a certificate.
 *
 * @since 0.2.0
 * @category certification
 */
export interface CertifyGap {
  /** Fired (weighted) labeled turns at this threshold now. */
  readonly fired: number
  /** Fired turns the rule asks for at the least (30). */
  readonly minimum: number
  /**
   * Fired turns still needed, at the current precision, until the lower bound reaches the floor;
   * `null` when the precision is at or below the floor (more of the same never certifies).
   */
  readonly moreFired: number | null
  /**
   * The precision that would certify at the current count (or at 30, whichever is more); `null`
   * when even every fired turn right would not.
   */
  readonly precisionNeeded: number | null
}

const enough = (precision: number, n: number, floor: number) => wilsonLower(precision * n, n) >= floor

// The lower bound tends to the precision as n grows, so a precision over the floor certifies at
// some finite count; past this cap the answer is "not in any history a person would label".
const MAX_FIRED = 10_000_000

/**
 * How far a head is from certifying at a threshold where it fired `fired` (weighted) turns with
 * `precision`, against `floor`.
 *
 * @since 0.2.0
 * @category certification
 */
export const toCertify = (fired: number, precision: number, floor: number): CertifyGap => {
  const n = Math.max(fired, CERTIFY_MIN_FIRED)
  let moreFired: number | null = null
  if (precision > floor) {
    let hi = Math.max(1, Math.ceil(n))
    while (hi < MAX_FIRED && !enough(precision, hi, floor)) hi *= 2
    if (enough(precision, hi, floor)) {
      let lo = Math.floor(n)
      while (lo < hi) {
        const mid = Math.floor((lo + hi) / 2)
        if (enough(precision, mid, floor)) hi = mid
        else lo = mid + 1
      }
      moreFired = Math.max(0, Math.ceil(hi - fired))
    }
  }
  let precisionNeeded: number | null = null
  if (enough(1, n, floor)) {
    let lo = floor
    let hi = 1
    for (let i = 0; i < 40; i++) {
      const mid = (lo + hi) / 2
      if (enough(mid, n, floor)) hi = mid
      else lo = mid
    }
    precisionNeeded = Math.ceil(hi * 10_000) / 10_000
  }
  return { fired: round4(fired), minimum: CERTIFY_MIN_FIRED, moreFired, precisionNeeded }
}
