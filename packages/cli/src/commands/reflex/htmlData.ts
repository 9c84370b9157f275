/**
 * What the status page shows for one head, computed from the ledger's labels exactly as
 * `Learning.certify` sees them: the same prequential replay from the shipped prior over the head's
 * newest labels, operator labels on actionable turns only, the newest 1,500. From that window come
 * the certification ladder (thresholds from the head's own upward in steps of 0.05 until one
 * passes or fires on fewer than 30), the precision, Wilson-bound and coverage curves across every
 * threshold, the window's AUC, and the turns the head fired on that the person said were wrong.
 * @internal
 */
import * as Learning from "@steward/reflex-core/Learning"
import type * as Params from "@steward/reflex-core/Params"
import type * as Reflexes from "@steward/reflex-core/Reflexes"

/**
 * One tried threshold of a head's certification ladder.
 *
 * @since 0.1.0
 * @category models
 */
export interface Rung {
  readonly threshold: number
  readonly fired: number
  readonly hits: number
  readonly precision: number
  readonly lower: number
  /** Share of the window's labeled turns the head fires on at this threshold. */
  readonly coverage: number
}

/** A turn the head fired on (scored at or over the threshold) that the person labeled `no`. @internal */
export interface Misfire {
  readonly observation: string
  /** The head's probability when the turn was scored (prequential: before its own label). */
  readonly p: number
  readonly weight: number
  readonly source: string
  /** The features the current head weighs most on this turn (weight × value), strongest first. */
  readonly drivers: ReadonlyArray<{ readonly feature: string; readonly contribution: number }>
}

/** The certification evidence of one head (see the module note). @internal */
export interface HeadEvidence {
  /** Labeled turns in the window. */
  readonly window: number
  readonly rungs: ReadonlyArray<Rung>
  /** Every threshold from 0.025 to 0.975 in steps of 0.025 (fired 0: precision and bound 0). */
  readonly curve: ReadonlyArray<Rung>
  /** AUC of the replay's predictions over the window (null without both labels). */
  readonly auc: number | null
  /** The newest misfires at `misfireThreshold`, newest first (at most 8), and how many there are. */
  readonly misfires: ReadonlyArray<Misfire>
  readonly misfireCount: number
  readonly misfireThreshold: number
}

/**
 * What the page shows for one reflex.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReflexPage {
  readonly status: Reflexes.Status
  readonly generations: ReadonlyArray<
    {
      readonly version: number
      readonly parent: number | null
      readonly trainedOn: number
      readonly active: boolean
      readonly createdAt: number
      readonly evidence: ReadonlyArray<string>
    }
  >
  /** Per certifiable head: the window, ladder, curves, AUC and misfires. */
  readonly evidence: Readonly<Record<string, HeadEvidence>>
  /** The recorded observations the misfires name (subject and time), by id. */
  readonly observations: Readonly<Record<string, { readonly subject: string; readonly atMs: number }>>
}

const round4 = Learning.round4
const step = (from: number, k: number, by: number) => Math.round((from + by * k) * 1e6) / 1e6

const rungAt = (window: ReadonlyArray<Learning.Prediction>, total: number, threshold: number): Rung => {
  let fired = 0
  let hits = 0
  for (const p of window) {
    if (p.p < threshold) continue
    fired += p.example.weight
    if (p.example.label) hits += p.example.weight
  }
  return {
    threshold,
    fired: round4(fired),
    hits: round4(hits),
    precision: round4(fired > 0 ? hits / fired : 0),
    lower: round4(Learning.wilsonLower(hits, fired)),
    coverage: round4(total > 0 ? fired / total : 0)
  }
}

const driversOf = (model: Params.Head, features: Learning.Example["features"]) =>
  Object.entries(features)
    .map(([feature, value]) => ({ feature, contribution: round4((model.weights[feature] ?? 0) * value) }))
    .filter((d) => d.contribution > 0)
    .sort((a, b) => b.contribution - a.contribution || a.feature.localeCompare(b.feature))
    .slice(0, 3)

/**
 * The evidence of one head over its labeled examples (see the module note). Misfires are read at
 * `misfireThreshold`: the certified threshold, or the head's own when it is not certified.
 *
 * @since 0.1.0
 * @category constructors
 */
export const evidence = (
  prior: Params.Head,
  examples: ReadonlyArray<Learning.Example>,
  actionable: (features: Learning.Example["features"]) => boolean,
  floor: number,
  misfireThreshold: number
): HeadEvidence => {
  const replayed = Learning.replay(prior, prior, examples)
  const eligible = replayed.predictions.filter((p) =>
    Learning.operatorLabel(p.example.source) && actionable(p.example.features)
  )
  const window = eligible.slice(Math.max(0, eligible.length - Learning.CERTIFY_WINDOW))
  const total = window.reduce((sum, p) => sum + p.example.weight, 0)
  const rungs: Array<Rung> = []
  for (let k = 0;; k++) {
    const threshold = step(prior.threshold, k, 0.05)
    if (!(threshold < 0.975)) break
    const rung = rungAt(window, total, threshold)
    rungs.push(rung)
    // certification stops at the first rung with too little evidence or a lower bound at the floor
    if (rung.fired < Learning.CERTIFY_MIN_FIRED || rung.lower >= floor) break
  }
  const curve = Array.from({ length: 39 }, (_, k) => rungAt(window, total, step(0.025, k, 0.025)))
  const auc = Learning.auc(window.map((p) => p.p), window.map((p) => p.example.label))
  const wrong = window.filter((p) => p.p >= misfireThreshold && !p.example.label)
  const misfires = wrong.slice(-8).reverse().map((p) => ({
    observation: p.example.observation,
    p: round4(p.p),
    weight: p.example.weight,
    source: p.example.source,
    drivers: driversOf(replayed.head, p.example.features)
  }))
  return {
    window: window.length,
    rungs,
    curve,
    auc: auc === undefined ? null : round4(auc),
    misfires,
    misfireCount: wrong.length,
    misfireThreshold
  }
}
