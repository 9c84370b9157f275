/**
 * The prequential replay (resumable, with fits shared between replays), certification with a
 * Wilson lower bound, and the one-in-ten hold-back. Exported from `Learning`.
 * @internal
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { createHash } from "node:crypto"
import type { Features } from "../../Features.js"
import type { Head } from "../../Params.js"
import { Head as HeadSchema, sameHead } from "../../Params.js"
import { hashName } from "../formerHeads.js"
import {
  CERTIFY_MIN_FIRED,
  CERTIFY_WINDOW,
  CERTIFY_Z,
  COLD_FITS_THROUGH,
  compareForward,
  defaultFitOptions,
  type Example,
  fit,
  type FitOptions,
  MAX_EXAMPLES,
  round4,
  TRAIN_EVERY,
  TRIAL_LABELS
} from "./fit.js"
import { probabilityOf } from "./probability.js"
import { chainHead, type ChainPoint, makeChain, pointAt, type WarmChain } from "./warmChain.js"

/**
 * A prediction made before the example was learned.
 *
 * @since 0.1.0
 * @category replay
 */
export interface Prediction {
  readonly p: number
  readonly example: Example
}

/**
 * A resumable replay checkpoint: a later replay whose examples extend the cached ones (same
 * observations, sequence numbers, labels and weights, in order) resumes from it instead of
 * starting over. Exact: the replay is a deterministic function of the example sequence.
 *
 * @since 0.1.0
 * @category replay
 */
export interface ReplayCache {
  state?: {
    readonly key: string
    readonly fingerprints: ReadonlyArray<string>
    readonly predictions: ReadonlyArray<Prediction>
    readonly current: Head
    readonly challenger: Head | undefined
    readonly fittedThrough: number
    readonly promotions: number
    readonly chain: ChainPoint
  }
}

/**
 * An empty replay cache.
 *
 * @since 0.1.0
 * @category replay
 */
export const makeReplayCache = (): ReplayCache => ({})

/**
 * Fits of one example sequence, shared by every replay over that same array: a challenger is
 * always fitted from the prior on a window of the examples, whatever head the replay started
 * from, so the adoption replay (from the active head) and the certification replay (from the
 * prior) fit the same windows. Exact: `fit` is a deterministic function of (prior, window,
 * options), and the memo is only consulted for the array it was made for.
 *
 * @since 0.1.0
 * @category replay
 */
export interface FitMemo {
  readonly examples: ReadonlyArray<Example>
  readonly fits: Map<string, Head>
  /**
   * The warm challengers past the certification window, by prior and options (ADR 0410); a memo
   * without it still shares its cold fits.
   */
  readonly chains?: Map<string, WarmChain>
}

/**
 * A fit memo for one example sequence (treat the array as immutable while the memo is in use).
 *
 * @since 0.1.0
 * @category replay
 */
export const makeFitMemo = (examples: ReadonlyArray<Example>): FitMemo => ({
  examples,
  fits: new Map(),
  chains: new Map()
})

const memoKey = (prior: Head, options: FitOptions, from: number, to: number): string =>
  `${from}:${to}\0${JSON.stringify([prior, options])}`

/**
 * Record a fit of `memo.examples[from, to)` made elsewhere (e.g. on a worker thread running the
 * same `fit`), so replays over those examples use it.
 *
 * @since 0.1.0
 * @category replay
 */
export const rememberFit = (
  memo: FitMemo,
  prior: Head,
  options: FitOptions,
  from: number,
  to: number,
  head: Head
): void => {
  memo.fits.set(memoKey(prior, options, from, to), head)
}

/**
 * The windows `[from, to)` a replay over `n` examples fits cold when every challenger differs from
 * the current head and every trial runs its full 48 labels: the first after 16 labels, then one
 * per decided trial, through `COLD_FITS_THROUGH` labels (past it challengers are warm, ADR 0410).
 * Worth fitting ahead of the replay; the replay fits any other window itself.
 *
 * @since 0.1.0
 * @category replay
 */
export const scheduledFits = (n: number): Array<readonly [number, number]> => {
  const out: Array<readonly [number, number]> = []
  const step = Math.ceil(TRIAL_LABELS / TRAIN_EVERY) * TRAIN_EVERY
  const last = Math.min(n, COLD_FITS_THROUGH)
  for (let seen = TRAIN_EVERY; seen <= last; seen += step) out.push([Math.max(0, seen - MAX_EXAMPLES), seen])
  return out
}

const fingerprint = (e: Example): string => `${e.observation}\0${e.seq}\0${e.label ? 1 : 0}\0${e.weight}`

/**
 * Prequential replay: each example is scored by the head active before learning it; every 16
 * labels a challenger is fitted from `prior` on the newest ≤ 4096 seen and trialled on the next
 * 48 — cold through `COLD_FITS_THROUGH` labels, past it by the warm descent of ADR 0410, so the
 * work grows linearly past the certification window. Deterministic.
 *
 * @since 0.1.0
 * @category replay
 */
export const replay = (
  prior: Head,
  start: Head,
  examples: ReadonlyArray<Example>,
  options: FitOptions = defaultFitOptions,
  cache?: ReplayCache,
  memo?: FitMemo
): { readonly predictions: ReadonlyArray<Prediction>; readonly head: Head; readonly promotions: number } => {
  let current = start
  let challenger: Head | undefined
  let fittedThrough = 0
  let promotions = 0
  let predictions: Array<Prediction> = []
  let from = 0
  const fingerprints = examples.map(fingerprint)
  const key = JSON.stringify([prior, start, options])
  const cached = cache?.state
  let point: ChainPoint | undefined
  if (cached !== undefined && cached.key === key && cached.fingerprints.length <= fingerprints.length) {
    let same = true
    for (let i = 0; i < cached.fingerprints.length; i++) {
      if (cached.fingerprints[i] !== fingerprints[i]) {
        same = false
        break
      }
    }
    if (same) {
      current = cached.current
      challenger = cached.challenger
      fittedThrough = cached.fittedThrough
      promotions = cached.promotions
      predictions = cached.predictions.map((p, i) => ({ p: p.p, example: examples[i]! }))
      from = cached.fingerprints.length
      point = cached.chain
    }
  }
  const shared = memo !== undefined && memo.examples === examples ? memo : undefined
  const chainKey = JSON.stringify([prior, options])
  let chain: WarmChain | undefined
  const warmChain = (): WarmChain => {
    if (chain !== undefined) return chain
    const kept = shared?.chains?.get(chainKey)
    chain = kept !== undefined && (point === undefined || kept.point.through >= point.through) ? kept : makeChain(point)
    shared?.chains?.set(chainKey, chain)
    return chain
  }
  let currentNames = Object.keys(current.weights).sort()
  for (let i = from; i < examples.length; i++) {
    const example = examples[i]!
    predictions.push({ p: probabilityOf(current, currentNames, example.features), example })
    const seen = i + 1
    if (seen % TRAIN_EVERY !== 0) continue
    // past the window the warm chain advances at its points whether or not a fit is due, so a
    // replay resumed later pays only for the points its new labels add
    if (seen > COLD_FITS_THROUGH && pointAt(seen) === seen) chainHead(warmChain(), prior, examples, options, seen)
    if (challenger !== undefined) {
      const verdict = compareForward(current, challenger, examples.slice(fittedThrough, seen))
      if (!verdict.decided) continue
      if (verdict.comparison.promoted) {
        current = challenger
        currentNames = Object.keys(current.weights).sort()
        promotions++
      }
      challenger = undefined
    }
    let candidate: Head | undefined
    if (seen > COLD_FITS_THROUGH) {
      candidate = chainHead(warmChain(), prior, examples, options, seen)
    } else {
      const lo = Math.max(0, seen - MAX_EXAMPLES)
      const fitId = shared === undefined ? "" : memoKey(prior, options, lo, seen)
      candidate = shared?.fits.get(fitId)
      if (candidate === undefined) {
        candidate = fit(prior, examples.slice(lo, seen), options)
        shared?.fits.set(fitId, candidate)
      }
    }
    if (!sameHead(candidate, current)) {
      challenger = candidate
      fittedThrough = seen
    }
  }
  if (cache !== undefined) {
    const reached = chain?.point ?? point ?? { through: 0, descent: undefined }
    cache.state = { key, fingerprints, predictions, current, challenger, fittedThrough, promotions, chain: reached }
  }
  return { predictions, head: current, promotions }
}

/**
 * Wilson score lower bound of `hits / n` (weights allowed), clamped at 0.
 *
 * @since 0.1.0
 * @category certification
 */
export const wilsonLower = (hits: number, n: number, z: number = CERTIFY_Z): number => {
  if (n <= 0) return 0
  const p = hits / n
  const z2 = z * z
  const lower = (p + z2 / (2 * n) - z * Math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))) / (1 + z2 / n)
  return Math.max(0, lower)
}

/**
 * A head's certificate: whether it may act for this person, at which threshold, and the evidence
 * (the replay's final head in `model`: acting uses this head, never program output). The Schema
 * is the stored document's shape: a stored certificate is decoded by it.
 *
 * @since 0.1.0
 * @category certification
 */
export const Certificate = Schema.Struct({
  head: Schema.String,
  certified: Schema.Boolean,
  threshold: Schema.Finite,
  floor: Schema.Finite,
  window: Schema.Finite,
  fired: Schema.Finite,
  precision: Schema.Finite,
  lower: Schema.Finite,
  reason: Schema.String,
  model: HeadSchema
})

/**
 * @since 0.1.0
 * @category certification
 */
export type Certificate = typeof Certificate.Type

const decodeCertificate = Schema.decodeUnknownOption(Schema.parseJson(Certificate))

/**
 * A stored certificate's payload decoded, or `undefined` when it is not a certificate (a damaged
 * row counts as no certificate: the head is not certified until a replay writes a new one).
 *
 * @since 0.1.0
 * @category certification
 */
export const decodeCertificatePayload = (payload: string): Certificate | undefined =>
  Option.getOrUndefined(decodeCertificate(payload))

/**
 * Whether a label came from the person (replies, explicit labels, imports) and may certify.
 *
 * @since 0.1.0
 * @category certification
 */
export const operatorLabel = (source: string): boolean =>
  source.startsWith("user_") || source === "explicit" || source === "import" || source === "v1"

/**
 * Certification input.
 *
 * @since 0.1.0
 * @category certification
 */
export interface CertifyInput {
  readonly head: string
  readonly prior: Head
  readonly examples: ReadonlyArray<Example>
  readonly floor: number
  readonly actionable: (features: Features) => boolean
  readonly previous?: Certificate | undefined
  readonly options?: FitOptions
  /** A replay of the same examples from the prior, if already computed. */
  readonly replayed?: ReturnType<typeof replay> | undefined
  /** Resume the prequential replay from an earlier pass over a prefix of these examples. */
  readonly cache?: ReplayCache | undefined
  /** Fits already made over these same examples (e.g. by the import's adoption replay). */
  readonly memo?: FitMemo | undefined
}

const fmt = (x: number): string => String(Math.round(x * 100) / 100)

/**
 * Certify a head per the person's own history: prequential replay from the prior, operator labels
 * on actionable turns only, newest 1,500, a threshold ladder from the head's threshold in steps of
 * 0.05, ≥ 30 fired, Wilson lower bound (z = 2.33) ≥ floor; a certified head keeps its threshold
 * while raw precision stays ≥ floor − 0.05.
 *
 * @since 0.1.0
 * @category certification
 */
export const certify = (input: CertifyInput): Certificate => {
  const { actionable, floor, prior } = input
  const replayed = input.replayed ?? replay(prior, prior, input.examples, input.options, input.cache, input.memo)
  const eligible = replayed.predictions.filter((pr) =>
    operatorLabel(pr.example.source) && actionable(pr.example.features)
  )
  const window = eligible.slice(Math.max(0, eligible.length - CERTIFY_WINDOW))
  const at = (t: number) => {
    let fired = 0
    let hits = 0
    for (const pr of window) {
      if (pr.p >= t) {
        fired += pr.example.weight
        if (pr.example.label) hits += pr.example.weight
      }
    }
    return { fired, hits, precision: fired > 0 ? hits / fired : 0, lower: wilsonLower(hits, fired) }
  }
  const base = { head: input.head, floor, window: window.length, model: replayed.head }
  let first: ReturnType<typeof at> | undefined
  for (let k = 0;; k++) {
    const t = Math.round((prior.threshold + 0.05 * k) * 1e6) / 1e6
    if (!(t < 0.975)) break
    const s = at(t)
    if (first === undefined) first = s
    if (s.fired < CERTIFY_MIN_FIRED) break
    if (s.lower >= floor) {
      return {
        ...base,
        certified: true,
        threshold: t,
        fired: round4(s.fired),
        precision: round4(s.precision),
        lower: round4(s.lower),
        reason: `precision confidently at or above ${fmt(floor)}`
      }
    }
  }
  const previous = input.previous
  if (previous !== undefined && previous.certified) {
    const s = at(previous.threshold)
    if (s.fired >= CERTIFY_MIN_FIRED && s.precision >= floor - 0.05) {
      return {
        ...base,
        certified: true,
        threshold: previous.threshold,
        fired: round4(s.fired),
        precision: round4(s.precision),
        lower: round4(s.lower),
        reason: "certified; precision still within the margin"
      }
    }
  }
  const s = first ?? at(prior.threshold)
  return {
    ...base,
    certified: false,
    threshold: prior.threshold,
    fired: round4(s.fired),
    precision: round4(s.precision),
    lower: round4(s.lower),
    reason: s.fired < CERTIFY_MIN_FIRED
      ? `collecting evidence: fired on ${round4(s.fired)} of ${CERTIFY_MIN_FIRED} labeled turns`
      : `precision not yet confidently at ${fmt(floor)}`
  }
}

/**
 * Whether a certificate lets its head act on these features (computed here, never taken from
 * program output, so a custom program cannot raise it).
 *
 * @since 0.1.0
 * @category certification
 */
export const certifiedFor = (certificate: Certificate | undefined, features: Features): boolean => {
  if (certificate === undefined || !certificate.certified) return false
  const names = Object.keys(certificate.model.weights).sort()
  return probabilityOf(certificate.model, names, features) >= certificate.threshold
}

/**
 * The one-in-ten hold-back: a turn of an `auto` head is left to the person iff the first byte of
 * SHA-256("xcb-reflex-explore-v1\0{head}\0{task}\0{revision}") is below 26 (≈ 10.2%); a renamed head
 * hashes under its first name, so the rename leaves the same turns held back (ADR 0414).
 *
 * @since 0.1.0
 * @category certification
 */
export const heldTurn = (head: string, task: string, revision: number): boolean => {
  const digest = createHash("sha256").update(`xcb-reflex-explore-v1\0${hashName(head)}\0${task}\0${revision}`, "utf8")
    .digest()
  return digest[0]! < 26
}
