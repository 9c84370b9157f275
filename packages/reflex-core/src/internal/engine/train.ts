/**
 * Train and certify: fit a challenger from the prior, decide promotion (holdout or forward
 * trials), append a generation when one wins, and certify every certifiable head. The one place
 * a certificate summary is built.
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Learning from "../../Learning.js"
import * as Params from "../../Params.js"
import type { CertificateView, HeadTraining, ImportReport, TrainReport } from "../../Reflexes.js"
import type { TrainOptions, TrainProgress } from "../../TrainProgress.js"
import { type EngineContext, type Loaded, view } from "./context.js"

/** Shared replays by head: the examples, and the replay or fits already made over them. @internal */
export type SharedReplays = Readonly<
  Record<
    string,
    {
      readonly examples: ReadonlyArray<Learning.Example>
      readonly replayed?: ReturnType<typeof Learning.replay> | undefined
      readonly memo?: Learning.FitMemo | undefined
    }
  >
>

/** One head's certificate summary (an import's report); heads without certification say so. @internal */
export const summary = (
  l: Loaded,
  head: string,
  c: CertificateView | Learning.Certificate | undefined
): ImportReport["certificates"][number] =>
  c === undefined
    ? {
      head,
      certified: false,
      threshold: l.definition.prior.heads[head]!.threshold,
      fired: 0,
      precision: 0,
      lower: 0,
      reason: `${l.definition.name}.${head} is not certifiable`
    }
    : {
      head,
      certified: c.certified,
      threshold: c.threshold,
      fired: c.fired,
      precision: c.precision,
      lower: c.lower,
      reason: c.reason
    }

/** Certify every certifiable head and store the certificates. @internal */
export const certifyAll = (
  ctx: EngineContext,
  l: Loaded,
  replays: SharedReplays = {},
  report: (head: string, labels: number) => Effect.Effect<void> = () => Effect.void
) =>
  Effect.gen(function*() {
    const out: Array<CertificateView> = []
    const now = yield* Clock.currentTimeMillis
    for (const [head, spec] of Object.entries(l.definition.certification)) {
      const shared = replays[head]
      const examples = shared?.examples ?? (yield* ctx.ledger.examples(l.definition.name, head, Learning.MAX_EXAMPLES))
      yield* report(head, examples.length)
      const previous = yield* ctx.certificateOf(l.definition.name, head)
      const certificate = Learning.certify({
        head,
        prior: l.definition.prior.heads[head]!,
        examples,
        floor: spec.floor,
        actionable: spec.actionable ?? (() => true),
        previous,
        options: ctx.fitOptions,
        replayed: shared?.replayed,
        cache: ctx.replayCache(l.definition.name, head),
        memo: shared?.memo
      })
      const through = examples.reduce((m, e) => Math.max(m, e.seq), 0)
      yield* ctx.ledger.putCertificate(l.definition.name, head, {
        payload: JSON.stringify(certificate),
        atMs: now,
        through
      })
      out.push(view(certificate))
    }
    return out
  })

/** One head under forward trials: close or continue its trial, then fit the next challenger. */
const forwardHead = (
  ctx: EngineContext,
  reflex: string,
  head: string,
  prior: Params.Head,
  current: Params.Head,
  examples: ReadonlyArray<Learning.Example>,
  base: Pick<HeadTraining, "head" | "labels" | "positives">,
  promotedHeads: Record<string, Params.Head>,
  evidence: Record<string, Params.Comparison>,
  now: number
) =>
  Effect.gen(function*() {
    const trial = yield* ctx.ledger.trial(reflex, head)
    let closed = true
    let outcome: HeadTraining | undefined
    if (Option.isSome(trial)) {
      const candidate = Params.decodeJsonOption(
        JSON.stringify({
          reflex,
          version: 0,
          parent: null,
          heads: { [head]: JSON.parse(trial.value.candidate) },
          trained_on: 0,
          evidence: {}
        })
      )?.heads[head]
      if (candidate === undefined || !Params.sameSchema(candidate, prior)) {
        yield* ctx.ledger.deleteTrial(reflex, head)
      } else {
        const fresh = examples.filter((e) => e.seq > trial.value.fittedThrough)
        const verdict = Learning.compareForward(current, candidate, fresh)
        if (!verdict.decided) {
          closed = false
          outcome = { ...base, promoted: false, reason: verdict.comparison.reason, comparison: verdict.comparison }
        } else {
          yield* ctx.ledger.deleteTrial(reflex, head)
          if (verdict.comparison.promoted) {
            promotedHeads[head] = candidate
            evidence[head] = verdict.comparison
          }
          outcome = {
            ...base,
            promoted: verdict.comparison.promoted,
            reason: verdict.comparison.reason,
            comparison: verdict.comparison
          }
        }
      }
    }
    if (closed) {
      const candidate = Learning.fit(prior, examples, ctx.fitOptions)
      const against = promotedHeads[head] ?? current
      if (!Params.sameHead(candidate, against) && examples.length > 0) {
        const through = examples.reduce((m, e) => Math.max(m, e.seq), 0)
        yield* ctx.ledger.putTrial(reflex, head, {
          candidate: JSON.stringify(candidate),
          startedAtMs: now,
          fittedThrough: through
        })
        outcome ??= { ...base, promoted: false, reason: "fitted a challenger; it trials on the next labels" }
      }
      outcome ??= { ...base, promoted: false, reason: "no challenger: the fit equals the active head" }
    }
    return outcome!
  })

/** @internal */
export const train = (ctx: EngineContext) =>
  Effect.fn("Reflexes.train")(function*(reflex: string, options: TrainOptions = {}) {
    const l = yield* ctx.loaded(reflex)
    const definition = l.definition
    // progress: one step per head fitted, then one per head certified
    const steps = definition.heads.length + Object.keys(definition.certification).length
    let step = 0
    const progress = (stage: TrainProgress["stage"], head: string, labels: number) =>
      options.onProgress === undefined
        ? Effect.void
        : Effect.suspend(() => options.onProgress!({ reflex, stage, head, labels, step: ++step, steps }))
    const active = yield* ctx.activeParams(definition)
    const now = yield* Clock.currentTimeMillis
    const heads: Array<HeadTraining> = []
    const promotedHeads: Record<string, Params.Head> = {}
    const evidence: Record<string, Params.Comparison> = {}
    let trainedOn = 0
    for (const head of definition.heads) {
      const prior = definition.prior.heads[head]!
      const current = active.heads[head]!
      const examples = yield* ctx.ledger.examples(reflex, head, Learning.MAX_EXAMPLES)
      yield* progress("fit", head, examples.length)
      const positives = examples.filter((e) => e.label).length
      trainedOn = Math.max(trainedOn, examples.length)
      const base = { head, labels: examples.length, positives }
      if (ctx.config.promotion === "holdout") {
        const training = examples.filter((e) => !Learning.isHoldout(e.observation))
        const holdout = examples.filter((e) => Learning.isHoldout(e.observation))
        const candidate = Learning.fit(prior, training, ctx.fitOptions)
        if (Params.sameHead(candidate, current)) {
          heads.push({ ...base, promoted: false, reason: "the fitted head equals the active head" })
          continue
        }
        const comparison = Learning.compareHoldout(current, candidate, holdout)
        if (comparison.promoted) {
          promotedHeads[head] = candidate
          evidence[head] = comparison
        }
        heads.push({ ...base, promoted: comparison.promoted, reason: comparison.reason, comparison })
        continue
      }
      heads.push(
        yield* forwardHead(ctx, reflex, head, prior, current, examples, base, promotedHeads, evidence, now)
      )
    }
    let version = active.version
    const promoted = Object.keys(promotedHeads).length > 0
    if (promoted) {
      version = yield* ctx.ledger.promote(reflex, active.version, now, (v, parent) =>
        Params.encodeJson({
          reflex,
          version: v,
          parent,
          heads: { ...active.heads, ...promotedHeads },
          trained_on: trainedOn,
          evidence
        }))
    }
    const certificates = yield* certifyAll(ctx, l, {}, (head, labels) => progress("certify", head, labels))
    const report: TrainReport = {
      reflex,
      strategy: ctx.config.promotion,
      previousVersion: active.version,
      version,
      promoted,
      heads,
      certificates
    }
    return report
  })
