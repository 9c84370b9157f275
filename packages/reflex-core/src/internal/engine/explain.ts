/**
 * Why a decision acts or does not, in one line a person can read: the veto and its cue class,
 * the failed precondition, an ineligible value, the mode, a missing certificate (fires and
 * precision so far against the floor, and what it would take to certify) or the one-in-ten hold-back.
 * @internal
 */
import * as Learning from "../../Learning.js"
import type { Gated } from "../../Reflex.js"
import type * as ReflexConfig from "../../ReflexConfig.js"

/** What a decision knew when it decided whether to act. @internal */
export interface Facts {
  readonly reflex: string
  readonly head: string
  readonly value: string
  readonly mode: ReflexConfig.Mode
  readonly acts: boolean
  readonly gated: Gated
  readonly eligible: boolean
  readonly certifiable: boolean
  readonly certificate: Learning.Certificate | undefined
  /** The certificate covers this turn (certified, and the turn scores over its threshold). */
  readonly certified: boolean
  readonly held: boolean
  /** The certification floor of the head, when it has one. */
  readonly floor?: number | undefined
}

const num = (x: number) => String(Math.round(x * 1000) / 1000)

/**
 * Why a head is not certified: its certificate's evidence against the floor, and what it would
 * take (the fired turns still short of 30, or more turns at this precision, or a higher precision).
 * @internal
 */
export const notCertified = (
  certificate: Pick<Learning.Certificate, "fired" | "precision" | "lower" | "floor" | "threshold"> | undefined,
  floor: number | undefined
): string => {
  if (certificate === undefined) {
    return `not certified yet: no labeled history (it must fire on at least ${Learning.CERTIFY_MIN_FIRED} labeled turns)`
  }
  const against = floor ?? certificate.floor
  const evidence = `fired on ${num(certificate.fired)} labeled turns, precision ${
    num(certificate.precision)
  } (lower bound ${num(certificate.lower)}) against the floor ${num(against)}`
  const gap = Learning.toCertify(certificate.fired, certificate.precision, against)
  const precision = gap.precisionNeeded === null
    ? `a precision over ${num(against)}`
    : `precision ${num(gap.precisionNeeded)} or more`
  if (certificate.fired < Learning.CERTIFY_MIN_FIRED) {
    const more = `${
      num(Learning.CERTIFY_MIN_FIRED - certificate.fired)
    } more fired turns to reach the ${Learning.CERTIFY_MIN_FIRED} needed`
    const enough = gap.moreFired !== null && gap.moreFired <= Learning.CERTIFY_MIN_FIRED - certificate.fired
    return `not certified yet: ${evidence}; needs ${more}${enough ? "" : ` and ${precision}`}`
  }
  const needs = gap.moreFired === null
    ? `${precision} at this count (more turns at this precision never certify)`
    : `about ${gap.moreFired} more fired turns at this precision, or ${precision} at this count`
  return `not certified yet: precision not confidently at the floor; ${evidence}; needs ${needs}`
}

/** The one-line reason. @internal */
export const explain = (f: Facts): string => {
  const subject = `${f.reflex}.${f.head}`
  if (f.acts) {
    return f.mode === "active"
      ? `acts: ${subject} is in mode active`
      : `acts: ${subject} is certified at ${f.certificate?.threshold ?? "?"} on the person's own history`
  }
  if (f.mode === "off") return `does not act: ${f.reflex} is off`
  if (!f.gated.actionable) return `does not act: ${f.gated.reason ?? `${f.value} is not acted on`}`
  if (!f.eligible) return `does not act: gate failed: no eligible value among the tiers given`
  if (f.mode === "observe") return `does not act: ${subject} is in mode observe (decide and record only)`
  // mode auto
  if (!f.certifiable) return `does not act: ${subject} is never certified (auto acts only on certified heads)`
  if (f.certificate === undefined || !f.certificate.certified) {
    return `does not act: ${notCertified(f.certificate, f.floor)}`
  }
  if (!f.certified) {
    return `does not act: this turn scores below the certified threshold ${f.certificate.threshold}`
  }
  if (f.held) return "does not act: held back (one turn in ten is left to the person, chosen by hash)"
  return "does not act"
}
