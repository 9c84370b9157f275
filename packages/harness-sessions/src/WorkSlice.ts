/**
 * The work-slice guard: a slice ends after `maxCalls` tool calls or `maxMinutes` minutes. The
 * reply then continues in place as its next slice, up to `maxSlices`, with a checkpoint and a
 * notice at each boundary — never after a fruitless slice (no progress by governance-rules'
 * progress model, or the same tool-activity digest as the slice before), nor after a blocked,
 * failed, aborted or plan slice; then the run settles `interrupted{slice_complete}`. No call is
 * ever refused for repeating.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { createHash } from "node:crypto"

/**
 * Guard settings (the shape a session stores, with its bounds).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Config = Schema.Struct({
  /** `false` removes the boundary (as does `STEWARD_WORK_SLICE=off`). Default true. */
  enabled: Schema.optional(Schema.Boolean),
  /** Default 320. */
  maxCalls: Schema.optional(Schema.Int.pipe(Schema.positive())),
  /** Default 60. */
  maxMinutes: Schema.optional(Schema.Number.pipe(Schema.positive(), Schema.finite())),
  /** Default 8. */
  maxSlices: Schema.optional(Schema.Int.pipe(Schema.between(1, 64))),
  /** Optional per-slice token limit (none by default). */
  maxTokens: Schema.optional(Schema.Int.pipe(Schema.positive()))
})

/**
 * @since 0.1.0
 * @category models
 */
export type Config = typeof Config.Type

/**
 * The settings with defaults applied (and the environment switch read by the caller).
 *
 * @since 0.1.0
 * @category models
 */
export interface Resolved {
  readonly enabled: boolean
  readonly maxCalls: number
  readonly maxMs: number
  readonly maxSlices: number
  readonly maxTokens: number | undefined
}

/**
 * Apply the defaults; `env` is the value of `STEWARD_WORK_SLICE` (`off` disables the guard).
 *
 * @since 0.1.0
 * @category constructors
 */
export const resolve = (config: Config = {}, env?: string): Resolved => ({
  enabled: config.enabled !== false && env?.trim().toLowerCase() !== "off",
  maxCalls: Math.max(1, Math.floor(config.maxCalls ?? 320)),
  maxMs: Math.max(1, config.maxMinutes ?? 60) * 60_000,
  maxSlices: Math.max(1, Math.floor(config.maxSlices ?? 8)),
  maxTokens: config.maxTokens
})

/**
 * What the guard knows about the slice in progress.
 *
 * @since 0.1.0
 * @category models
 */
export interface SliceState {
  readonly slice: number
  readonly calls: number
  readonly startedAt: number
  readonly tokens: number
  /** Progress-model verdicts of the slice that counted as progress. */
  readonly progressed: boolean
  /** The tool-activity digest of the slice (see `activityDigest`). */
  readonly activity: string
  readonly blocked: boolean
  readonly failed: boolean
}

/**
 * Whether the slice has reached its boundary (its counts only: no activity digest is needed).
 *
 * @since 0.1.0
 * @category guard
 */
export const reached = (
  config: Resolved,
  state: Pick<SliceState, "calls" | "startedAt" | "tokens">,
  now: number
): boolean =>
  config.enabled &&
  (state.calls >= config.maxCalls || now - state.startedAt >= config.maxMs ||
    (config.maxTokens !== undefined && state.tokens >= config.maxTokens))

/**
 * The decision at a boundary: continue as the next slice, or stop with the reason.
 *
 * @since 0.1.0
 * @category guard
 */
export const atBoundary = (
  config: Resolved,
  state: SliceState,
  previousActivity: string | undefined,
  plan: boolean
): { readonly continue: true } | { readonly continue: false; readonly reason: string } => {
  if (plan) return { continue: false, reason: "a plan slice is not continued" }
  if (state.blocked) return { continue: false, reason: "the slice was blocked on a refused or unanswered call" }
  if (state.failed) return { continue: false, reason: "the slice failed" }
  if (!state.progressed) return { continue: false, reason: "fruitless slice: no progress by the progress model" }
  if (previousActivity !== undefined && previousActivity === state.activity) {
    return { continue: false, reason: "fruitless slice: the same tool activity as the slice before" }
  }
  if (state.slice >= config.maxSlices) {
    return { continue: false, reason: `the run used its ${config.maxSlices} slices` }
  }
  return { continue: true }
}

/**
 * A digest of tool activity: each call's name, input and outcome, in order. Equal digests mean
 * the same work was done again; the empty activity has its own digest.
 *
 * @since 0.1.0
 * @category guard
 */
export const activityDigest = (
  calls: ReadonlyArray<
    { readonly name: string; readonly input: unknown; readonly ok: boolean; readonly output: string }
  >
): string => {
  const hash = createHash("sha256")
  for (const c of calls) hash.update(JSON.stringify([c.name, c.input, c.ok, c.output])).update("\n")
  return `sha256:${hash.digest("hex")}`
}
