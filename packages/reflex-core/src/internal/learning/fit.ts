/**
 * The fit, evaluation metrics and promotion rules (fixed hashed holdout and forward trials), with
 * the constants they share with replay and certification. Exported from `Learning`.
 * @internal
 */
import type { Features } from "../../Features.js"
import type { Comparison, Head, Metrics } from "../../Params.js"
import type { Encodings } from "../fitCore.js"
import { fitCore } from "../fitCore.js"
import { probabilityOf } from "./probability.js"

/**
 * One labeled example, in arrival (`seq`) order.
 *
 * @since 0.1.0
 * @category models
 */
export interface Example {
  readonly observation: string
  readonly features: Features
  readonly label: boolean
  readonly weight: number
  readonly source: string
  readonly seq: number
}

/**
 * Fit options (defaults: prior strength 24 pseudo-examples, 600 iterations, learning rate 0.5).
 *
 * @since 0.1.0
 * @category models
 */
export interface FitOptions {
  readonly priorStrength: number
  readonly iterations: number
  readonly learningRate: number
}

/**
 * @since 0.1.0
 * @category constants
 */
export const defaultFitOptions: FitOptions = { priorStrength: 24, iterations: 600, learningRate: 0.5 }

/**
 * Labels between training passes.
 *
 * @since 0.1.0
 * @category constants
 */
export const TRAIN_EVERY = 16

/**
 * Newest labels a fit reads.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_EXAMPLES = 4096

/**
 * Labels seen through which a replay fits each challenger cold (600 iterations from the prior, as
 * training does); past it the replay's challengers continue one warm descent (ADR 0410), so the
 * replay's work grows linearly past the certification window.
 *
 * @since 0.2.0
 * @category constants
 */
export const COLD_FITS_THROUGH = 1500

/**
 * Fresh labels a forward trial needs before it is decided.
 *
 * @since 0.1.0
 * @category constants
 */
export const TRIAL_LABELS = 48

/**
 * Certification window (newest eligible turns).
 *
 * @since 0.1.0
 * @category constants
 */
export const CERTIFY_WINDOW = 1500

/**
 * Minimum fired label weight at a threshold.
 *
 * @since 0.1.0
 * @category constants
 */
export const CERTIFY_MIN_FIRED = 30

/**
 * One-sided z of the Wilson lower bound (≈ 99%).
 *
 * @since 0.1.0
 * @category constants
 */
export const CERTIFY_Z = 2.33

/**
 * Round half away from zero to 4 decimals.
 *
 * @since 0.1.0
 * @category math
 */
export const round4 = (x: number): number => Math.sign(x) * Math.round(Math.abs(x) * 10000) / 10000

// Sparse encodings of examples per feature-name signature, cached across the many fits of a replay.
const encodings: Encodings = new WeakMap()

/**
 * Anchored MAP logistic regression: full-batch gradient descent on weighted log loss plus a
 * Gaussian penalty centred on `prior`. Examples with weight outside (0,1] are ignored; features are
 * restricted to the prior's names; examples recorded under an older feature set (missing a prior
 * name) are skipped. Rounded to 4 decimals, clamped to ±64, threshold copied.
 *
 * @since 0.1.0
 * @category fit
 */
export const fit = (prior: Head, examples: ReadonlyArray<Example>, options: FitOptions = defaultFitOptions): Head =>
  fitCore(prior, examples, options, encodings)

/**
 * Mann–Whitney AUC (ties ½, unweighted); undefined when a class is absent.
 *
 * @since 0.1.0
 * @category metrics
 */
export const auc = (scores: ReadonlyArray<number>, labels: ReadonlyArray<boolean>): number | undefined => {
  const order = scores.map((s, i) => [s, i] as const).sort((a, b) => a[0] - b[0])
  let pos = 0
  let neg = 0
  for (const l of labels) l ? pos++ : neg++
  if (pos === 0 || neg === 0) return undefined
  let rankSum = 0
  let i = 0
  while (i < order.length) {
    let j = i
    while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j++
    const rank = (i + j) / 2 + 1
    for (let q = i; q <= j; q++) if (labels[order[q]![1]]) rankSum += rank
    i = j + 1
  }
  return (rankSum - pos * (pos + 1) / 2) / (pos * neg)
}

/**
 * Weighted log loss (p clamped to [1e−6, 1−1e−6]), weighted accuracy, precision and recall at the
 * head's threshold, unweighted AUC; rounded to 4 decimals.
 *
 * @since 0.1.0
 * @category metrics
 */
export const evaluate = (head: Head, examples: ReadonlyArray<Example>): Metrics => {
  const names = Object.keys(head.weights).sort()
  let sumW = 0
  let loss = 0
  let correct = 0
  let tp = 0
  let predicted = 0
  let actual = 0
  let positives = 0
  const scores: Array<number> = []
  const labels: Array<boolean> = []
  for (const ex of examples) {
    const p = probabilityOf(head, names, ex.features)
    const pc = Math.min(1 - 1e-6, Math.max(1e-6, p))
    const w = ex.weight
    const y = ex.label
    sumW += w
    loss += w * (y ? -Math.log(pc) : -Math.log(1 - pc))
    const pred = p >= head.threshold
    if (pred === y) correct += w
    if (pred) predicted += w
    if (y) {
      actual += w
      positives++
    }
    if (pred && y) tp += w
    scores.push(p)
    labels.push(y)
  }
  const a = auc(scores, labels)
  return {
    n: examples.length,
    positives,
    log_loss: sumW > 0 ? round4(loss / sumW) : 0,
    accuracy: sumW > 0 ? round4(correct / sumW) : 0,
    ...(a === undefined ? {} : { auc: round4(a) }),
    ...(predicted > 0 ? { precision: round4(tp / predicted) } : {}),
    ...(actual > 0 ? { recall: round4(tp / actual) } : {})
  }
}

/**
 * A promotion decision, or `undefined` while the evidence is not yet enough to decide.
 *
 * @since 0.1.0
 * @category promotion
 */
export interface Verdict {
  readonly decided: boolean
  readonly comparison: Comparison
}

const judge = (
  current: Metrics,
  candidate: Metrics,
  where: "fresh" | "held-out",
  tolerance: number
): Comparison => {
  const base = { current, candidate }
  if (!(candidate.log_loss <= round4(current.log_loss - 0.002))) {
    return { ...base, promoted: false, reason: `no ${where} log-loss improvement` }
  }
  if (candidate.accuracy < round4(current.accuracy - tolerance)) {
    return { ...base, promoted: false, reason: `${where} accuracy regressed` }
  }
  if (current.auc !== undefined && candidate.auc !== undefined && candidate.auc < round4(current.auc - tolerance)) {
    return { ...base, promoted: false, reason: `${where} ranking (AUC) regressed` }
  }
  return { ...base, promoted: true, reason: `lower log-loss on ${where} labels` }
}

/**
 * Forward trial: decide once `TRIAL_LABELS` fresh labels exist; promote iff log loss improves by
 * ≥ 0.002 without losing more than 0.02 accuracy or AUC.
 *
 * @since 0.1.0
 * @category promotion
 */
export const compareForward = (current: Head, candidate: Head, fresh: ReadonlyArray<Example>): Verdict => {
  const cur = evaluate(current, fresh)
  const cand = evaluate(candidate, fresh)
  if (fresh.length < TRIAL_LABELS) {
    return {
      decided: false,
      comparison: {
        current: cur,
        candidate: cand,
        promoted: false,
        reason: `trial: ${fresh.length} of ${TRIAL_LABELS} fresh labels`
      }
    }
  }
  return { decided: true, comparison: judge(cur, cand, "fresh", 0.02) }
}

/**
 * 64-bit FNV-1a of a string's UTF-8 bytes.
 *
 * @since 0.1.0
 * @category holdout
 */
export const fnv1a64 = (text: string): bigint => {
  let hash = 0xcbf29ce484222325n
  for (const byte of Buffer.from(text, "utf8")) {
    hash ^= BigInt(byte)
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn
  }
  return hash
}

/**
 * The fixed hashed holdout: an observation is held out forever iff FNV-1a(id) % 5 == 0.
 *
 * @since 0.1.0
 * @category holdout
 */
export const isHoldout = (observation: string): boolean => fnv1a64(observation) % 5n === 0n

/**
 * Held-out labels a holdout comparison needs in total and per class.
 *
 * @since 0.1.0
 * @category constants
 */
export const MIN_HOLDOUT = 12

/**
 * @since 0.1.0
 * @category constants
 */
export const MIN_HOLDOUT_CLASS = 5

/**
 * Holdout promotion (the documented default): needs ≥ 12 held-out labels with ≥ 5 of each class;
 * promote iff log loss improves by ≥ 0.002 and neither accuracy nor AUC is lower (ADR 0401).
 *
 * @since 0.1.0
 * @category promotion
 */
export const compareHoldout = (current: Head, candidate: Head, holdout: ReadonlyArray<Example>): Comparison => {
  const cur = evaluate(current, holdout)
  const cand = evaluate(candidate, holdout)
  const base = { current: cur, candidate: cand, promoted: false }
  if (holdout.length < MIN_HOLDOUT) return { ...base, reason: `needs ${MIN_HOLDOUT} held-out labels` }
  const pos = holdout.filter((e) => e.label).length
  if (pos < MIN_HOLDOUT_CLASS || holdout.length - pos < MIN_HOLDOUT_CLASS) {
    return { ...base, reason: `needs ${MIN_HOLDOUT_CLASS} held-out labels of each class` }
  }
  return judge(cur, cand, "held-out", 0)
}
