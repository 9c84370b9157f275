/**
 * The replay's challengers past the certification window (ADR 0410): one descent carried from
 * one point to the next instead of a cold 600-iteration fit on a window that keeps growing. The
 * points are every 48 labels (a trial's length) from the first multiple of 16 past
 * `COLD_FITS_THROUGH`; the first is a cold fit, each later one continues the descent for
 * `warmIterations(options)` steps on the newest ≤ 4096 examples, penalty still centred on the
 * prior. A challenger asked for after `seen` labels is the head of the newest point ≤ `seen`. The
 * chain depends only on the examples (not on which head the replay started from, nor on when it
 * asked), so replays over one array share it.
 * @internal
 */
import type { Head } from "../../Params.js"
import { type Descent, type Encodings, fitCore } from "../fitCore.js"
import { COLD_FITS_THROUGH, type Example, type FitOptions, MAX_EXAMPLES, TRAIN_EVERY, TRIAL_LABELS } from "./fit.js"

// Sparse encodings of the chain's examples (the cold fits keep their own cache in fit.ts).
const encodings: Encodings = new WeakMap()

/** Warm steps per point: a tenth of a cold fit's iterations (60 of 600). @internal */
export const warmIterations = (options: FitOptions): number => Math.max(1, Math.ceil(options.iterations / 10))

/** Where a chain stands, as a replay cache keeps it (immutable). @internal */
export interface ChainPoint {
  readonly through: number
  readonly descent: Descent | undefined
}

/** A chain over one example array: its newest point and the heads it produced by labels seen. @internal */
export interface WarmChain {
  point: ChainPoint
  readonly heads: Map<number, Head>
}

/** A chain from its start, or resumed from a point a replay cache kept. @internal */
export const makeChain = (point: ChainPoint = { through: 0, descent: undefined }): WarmChain => ({
  point,
  heads: new Map()
})

/** The first point: the first labels-seen count that the chain (not a cold fit) serves. @internal */
export const FIRST_WARM = (Math.floor(COLD_FITS_THROUGH / TRAIN_EVERY) + 1) * TRAIN_EVERY

/** Labels between points: a trial's length in whole training passes (48). @internal */
export const WARM_EVERY = Math.ceil(TRIAL_LABELS / TRAIN_EVERY) * TRAIN_EVERY

/** The newest point at or before `seen` (≥ `FIRST_WARM`). @internal */
export const pointAt = (seen: number): number => FIRST_WARM + Math.floor((seen - FIRST_WARM) / WARM_EVERY) * WARM_EVERY

/**
 * The challenger after `seen` labels (past the window): the head of the newest point ≤ `seen`,
 * advancing the chain over every point up to it, whichever of them the replay asks for.
 * @internal
 */
export const chainHead = (
  chain: WarmChain,
  prior: Head,
  examples: ReadonlyArray<Example>,
  options: FitOptions,
  seen: number
): Head => {
  const target = pointAt(seen)
  const known = chain.heads.get(target)
  if (known !== undefined) return known
  let { descent, through } = chain.point
  // a point before this chain's newest that it does not hold: recompute from the chain's start
  if (through >= target) {
    descent = undefined
    through = 0
  }
  let head: Head = prior
  while (through < target) {
    const next = through < FIRST_WARM ? FIRST_WARM : through + WARM_EVERY
    const window = examples.slice(Math.max(0, next - MAX_EXAMPLES), next)
    const out: { descent?: Descent } = {}
    head = descent === undefined
      ? fitCore(prior, window, options, encodings, undefined, out)
      : fitCore(prior, window, { ...options, iterations: warmIterations(options) }, encodings, descent, out)
    descent = out.descent
    through = next
    chain.heads.set(next, head)
  }
  if (through > chain.point.through) chain.point = { through, descent }
  return head
}
