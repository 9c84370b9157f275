/**
 * What a training pass reports as it runs, for a host's progress line (`steward reflex train`):
 * each step — fitting one head, then certifying one — as it starts. Hearing it changes nothing the
 * pass computes.
 *
 * @example
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Reflexes } from "@steward/reflex-core"
 *
 * const program = Effect.flatMap(Reflexes.Reflexes, (reflexes) =>
 *   reflexes.train("route", {
 *     onProgress: (p) => Effect.log(`${p.stage} ${p.head} (${p.step}/${p.steps})`)
 *   }))
 * ```
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"

/**
 * One step of a training pass as it starts: `step` of `steps` (1-based), over `labels` labels.
 *
 * @since 0.1.0
 * @category models
 */
export interface TrainProgress {
  readonly reflex: string
  readonly stage: "fit" | "certify"
  readonly head: string
  readonly labels: number
  readonly step: number
  readonly steps: number
}

/**
 * Options of one training pass.
 *
 * @since 0.1.0
 * @category models
 */
export interface TrainOptions {
  /** Called as each step starts; the step runs after its effect (keep it cheap). */
  readonly onProgress?: (progress: TrainProgress) => Effect.Effect<void>
}
