/**
 * Status of one reflex: generation, program, counts and, per head, its metrics, trial,
 * certificate, calibration and what its mode means right now. Also `check` (admission alone).
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Learning from "../../Learning.js"
import * as Params from "../../Params.js"
import * as ReflexConfig from "../../ReflexConfig.js"
import type { CalibrationBin, HeadStatus, Status } from "../../Reflexes.js"
import { type EngineContext, view } from "./context.js"
import { notCertified } from "./explain.js"

const calibration = (head: Params.Head, examples: ReadonlyArray<Learning.Example>): Array<CalibrationBin> => {
  const bins = Array.from({ length: 10 }, (_, i) => ({ from: i / 10, to: (i + 1) / 10, n: 0, p: 0, y: 0 }))
  for (const ex of examples) {
    const p = Params.probability(head, ex.features)
    const bin = bins[Math.min(9, Math.floor(p * 10))]!
    bin.n++
    bin.p += p
    if (ex.label) bin.y++
  }
  return bins.map((b) => ({
    from: b.from,
    to: b.to,
    n: b.n,
    meanP: b.n === 0 ? null : Learning.round4(b.p / b.n),
    observed: b.n === 0 ? null : Learning.round4(b.y / b.n)
  }))
}

/** What a head's mode means now: `auto` acts only once certified, so say which it is. */
const standing = (
  mode: ReflexConfig.Mode,
  certifiable: boolean,
  certificate: Learning.Certificate | undefined,
  floor: number | undefined,
  uncertified: string | undefined
): string => {
  switch (mode) {
    case "off":
      return "off"
    case "observe":
      return "observe: decides and records, never acts"
    case "active":
      if (!certifiable && uncertified !== undefined) {
        return `active without a certificate (this head never certifies): ${uncertified}`
      }
      return "active: acts on every actionable decision"
    case "auto":
      if (!certifiable) return "auto: decides and records like observe; this head is never certified"
      return certificate?.certified === true
        ? `auto: certified at ${certificate.threshold}; acts on turns over it (not on held-back turns)`
        : `auto: watching until certified (${notCertified(certificate, floor).replace(/^not certified yet: /, "")})`
  }
}

/** @internal */
export const status = (ctx: EngineContext) =>
  Effect.fn("Reflexes.status")(function*(reflex: string) {
    const l = yield* ctx.loaded(reflex)
    const params = yield* ctx.activeParams(l.definition)
    const generations = yield* ctx.ledger.generations(reflex)
    const counts = yield* ctx.ledger.counts(reflex)
    const heads: Array<HeadStatus> = []
    for (const head of l.definition.heads) {
      const h = params.heads[head]!
      const examples = yield* ctx.ledger.examples(reflex, head, Learning.MAX_EXAMPLES)
      const holdout = examples.filter((e) => Learning.isHoldout(e.observation))
      const trial = ctx.config.promotion === "forward" ? yield* ctx.ledger.trial(reflex, head) : Option.none()
      const fresh = Option.isSome(trial) ? examples.filter((e) => e.seq > trial.value.fittedThrough).length : 0
      const spec = l.definition.certification[head]
      const cert = spec === undefined ? undefined : yield* ctx.certificateOf(reflex, head)
      const mode = ReflexConfig.modeOf(ctx.config, reflex, head)
      heads.push({
        head,
        mode,
        standing: standing(mode, spec !== undefined, cert, spec?.floor, l.definition.uncertified),
        labels: examples.length,
        positives: examples.filter((e) => e.label).length,
        threshold: h.threshold,
        metrics: examples.length === 0 ? null : Learning.evaluate(h, examples),
        holdout: holdout.length === 0 ? null : Learning.evaluate(h, holdout),
        trial: Option.isSome(trial)
          ? { fresh, needed: Learning.TRIAL_LABELS, reason: `trial: ${fresh} of ${Learning.TRIAL_LABELS} fresh labels` }
          : null,
        certificate: cert === undefined ? null : view(cert),
        calibration: calibration(h, examples)
      })
    }
    const result: Status = {
      reflex,
      description: l.definition.description,
      generation: { version: params.version, parent: params.parent, trainedOn: params.trained_on },
      generations: generations.length,
      program: { digest: l.program.digest, custom: l.program.custom, fault: l.fault, violations: l.violations },
      learn: ctx.config.learn,
      promotion: ctx.config.promotion,
      observed: counts.observed,
      labeled: counts.labeled,
      heads
    }
    return result
  })

/** @internal */
export const check = (ctx: EngineContext) =>
  Effect.fn("Reflexes.check")(function*(text: string) {
    const program = yield* ctx.compile("check", text, true)
    return { digest: program.digest }
  })
