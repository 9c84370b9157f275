/**
 * Logistic heads and parameter generations. A head is `p = σ(bias + Σ w·feature)` with a policy
 * threshold (the cost of each error, never learned). A generation is versioned data: version 0 is
 * the shipped prior; learning appends generations and never edits a program.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { Features } from "./Features.js"
import * as Former from "./internal/formerHeads.js"
import { isName, Name, StrictRecord } from "./internal/names.js"
import * as ReflexError from "./ReflexError.js"

const Bounded = Schema.Number.pipe(
  Schema.finite(),
  Schema.between(-64, 64, { message: () => "a finite number within ±64" })
)

/**
 * A logistic head.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Head = Schema.Struct({
  bias: Bounded,
  weights: StrictRecord(Name, Bounded).pipe(
    Schema.filter((w) => {
      const n = Object.keys(w).length
      return (n >= 1 && n <= 32) || "between 1 and 32 weights"
    })
  ),
  threshold: Schema.Number.pipe(
    Schema.filter((t) => (Number.isFinite(t) && t > 0 && t < 1) || "a threshold in (0, 1)")
  )
})

/**
 * @since 0.1.0
 * @category models
 */
export type Head = typeof Head.Type

/**
 * Evaluation of a head on labeled examples (all rounded to 4 decimals).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Metrics = Schema.Struct({
  n: Schema.Number,
  positives: Schema.Number,
  log_loss: Schema.Number,
  accuracy: Schema.Number,
  auc: Schema.optional(Schema.Number),
  precision: Schema.optional(Schema.Number),
  recall: Schema.optional(Schema.Number)
})

/**
 * @since 0.1.0
 * @category models
 */
export type Metrics = typeof Metrics.Type

/**
 * The evidence of one promotion decision.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Comparison = Schema.Struct({
  current: Metrics,
  candidate: Metrics,
  promoted: Schema.Boolean,
  reason: Schema.String
})

/**
 * @since 0.1.0
 * @category models
 */
export type Comparison = typeof Comparison.Type

/**
 * A parameter generation.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Params = Schema.Struct({
  reflex: Name,
  version: Schema.Number.pipe(Schema.int(), Schema.nonNegative()),
  parent: Schema.NullOr(Schema.Number.pipe(Schema.int(), Schema.nonNegative())),
  heads: StrictRecord(Name, Head),
  trained_on: Schema.Number.pipe(Schema.int(), Schema.nonNegative()),
  evidence: StrictRecord(Name, Comparison)
})

/**
 * @since 0.1.0
 * @category models
 */
export type Params = typeof Params.Type

/**
 * The logistic function.
 *
 * @since 0.1.0
 * @category math
 */
export const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z))

/**
 * `bias + Σ w·feature` (missing or non-finite features read as 0).
 *
 * @since 0.1.0
 * @category math
 */
export const logit = (head: Head, features: Features): number => {
  let z = head.bias
  for (const name of Object.keys(head.weights).sort()) {
    const v = features[name]
    z += head.weights[name]! * (typeof v === "number" && Number.isFinite(v) ? v : 0)
  }
  return z
}

/**
 * `σ(logit)`.
 *
 * @since 0.1.0
 * @category math
 */
export const probability = (head: Head, features: Features): number => sigmoid(logit(head, features))

/**
 * `ln(t / (1 − t))`: deciding `p ≥ t` as `logit ≥ cut` (ALGAL expressions have no `exp`).
 *
 * @since 0.1.0
 * @category math
 */
export const thresholdLogit = (threshold: number): number => Math.log(threshold / (1 - threshold))

/**
 * The program input encoding of a generation: `{head: {bias, cut, terms: [{f, w}]}}` with terms in
 * sorted name order.
 *
 * @since 0.1.0
 * @category encoding
 */
export const programInput = (
  params: Params,
  formerHeads: Readonly<Record<string, string>> = {}
): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const name of Object.keys(params.heads).sort()) {
    const head = params.heads[name]!
    out[name] = {
      bias: head.bias,
      cut: thresholdLogit(head.threshold),
      terms: Object.keys(head.weights).sort().map((f) => ({ f, w: head.weights[f]! }))
    }
  }
  // a program written against a former head name finds the head there too (ADR 0414)
  for (const [former, current] of Object.entries(formerHeads).sort(([a], [b]) => a.localeCompare(b))) {
    if (out[current] !== undefined && out[former] === undefined) out[former] = out[current]
  }
  return out
}

/**
 * Whether two heads read the same feature names.
 *
 * @since 0.1.0
 * @category predicates
 */
export const sameSchema = (a: Head, b: Head): boolean => {
  const ka = Object.keys(a.weights).sort()
  const kb = Object.keys(b.weights).sort()
  return ka.length === kb.length && ka.every((k, i) => k === kb[i])
}

/**
 * Whether two heads are numerically identical.
 *
 * @since 0.1.0
 * @category predicates
 */
export const sameHead = (a: Head, b: Head): boolean =>
  a.bias === b.bias && a.threshold === b.threshold && sameSchema(a, b) &&
  Object.keys(a.weights).every((k) => a.weights[k] === b.weights[k])

/**
 * Head names the built-in reflexes used before (old name → current name), per reflex: read from
 * stored documents, import lines and labels for one minor version, never written (ADR 0414).
 *
 * @since 0.2.0
 * @category constants
 */
export const formerHeads = Former.formerHeads

/**
 * A generation as stored by any version still read: a renamed head's `heads` and `evidence` keys
 * move to the current name on decode. Encodes unchanged.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ParamsFromStored = Schema.transform(Schema.Unknown, Params, {
  strict: false,
  decode: Former.upgradeParams,
  encode: (params) => params
})

const decodeParams = Schema.decodeUnknownEither(ParamsFromStored, { errors: "all", onExcessProperty: "error" })

/**
 * Decode and validate a generation for a reflex whose heads are `headNames` (exactly those,
 * at most 4), parent below version.
 *
 * @since 0.1.0
 * @category constructors
 */
export const decode = (u: unknown, reflex: string, headNames: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const decoded = decodeParams(u)
    if (decoded._tag === "Left") {
      return yield* ReflexError.make(
        "invalid-params",
        `invalid ${reflex} parameters: ${ParseResult.TreeFormatter.formatErrorSync(decoded.left)}`
      )
    }
    const params = decoded.right
    const problem = validate(params, reflex, headNames)
    if (problem !== undefined) return yield* ReflexError.make("invalid-params", problem)
    return params
  })

/**
 * The first validation problem of an already-typed generation, if any.
 *
 * @since 0.1.0
 * @category predicates
 */
export const validate = (params: Params, reflex: string, headNames: ReadonlyArray<string>): string | undefined => {
  if (params.reflex !== reflex) return `parameters are for reflex ${params.reflex}, not ${reflex}`
  const names = Object.keys(params.heads).sort()
  const want = [...headNames].sort()
  if (want.length > 4) return `a reflex has at most 4 heads (${reflex} declares ${want.length})`
  if (names.length !== want.length || names.some((n, i) => n !== want[i])) {
    return `${reflex} parameters must have exactly the heads ${want.join(", ")} (got ${names.join(", ") || "none"})`
  }
  if (params.parent !== null && params.parent >= params.version) {
    return `parent ${params.parent} must be below version ${params.version}`
  }
  for (const name of names) {
    const head = params.heads[name]!
    const n = Object.keys(head.weights).length
    if (n < 1 || n > 32) return `head ${reflex}.${name} needs 1..32 weights`
    if (!(head.threshold > 0 && head.threshold < 1)) return `head ${reflex}.${name} threshold must be in (0,1)`
    for (const [k, w] of Object.entries(head.weights)) {
      if (!isName(k)) return `head ${reflex}.${name} weight name ${JSON.stringify(k)} is invalid`
      if (!Number.isFinite(w) || Math.abs(w) > 64) {
        return `head ${reflex}.${name} weight ${k} must be finite and within ±64`
      }
    }
    if (!Number.isFinite(head.bias) || Math.abs(head.bias) > 64) {
      return `head ${reflex}.${name} bias must be finite and within ±64`
    }
  }
  return undefined
}

/**
 * Encode a generation as its stored JSON payload.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeJson = (params: Params): string => JSON.stringify(params)

/**
 * Decode a stored payload synchronously (undefined when unreadable).
 *
 * @since 0.1.0
 * @category encoding
 */
export const decodeJsonOption = (text: string): Params | undefined => {
  try {
    const decoded = decodeParams(JSON.parse(text))
    return decoded._tag === "Right" ? decoded.right : undefined
  } catch {
    return undefined
  }
}

/**
 * The shipped route prior (`route.judged` = ALGAL model-router generation 1; `route.plain` =
 * keyword fallback: frontier iff complex cue).
 *
 * @since 0.1.0
 * @category priors
 */
export const routePrior: Params = {
  reflex: "route",
  version: 0,
  parent: null,
  heads: {
    judged: {
      bias: -1.7683,
      weights: {
        ambiguity: -0.1459,
        difficulty: 0.0045,
        frontier: 0.6107,
        imperative: 1.4028,
        resume: 0.4491,
        scope: 0.9353,
        stakes: -0.5129,
        verbs: 0.4438,
        words: 0.5271
      },
      threshold: 0.35
    },
    plain: {
      bias: -1.0,
      weights: { complex_cue: 2.0, imperative: 0.0, resume: 0.0, routine_cue: 0.0, verbs: 0.0, words: 0.0 },
      threshold: 0.5
    }
  },
  trained_on: 0,
  evidence: {}
}

/**
 * The shipped settle prior (`stopped_short` @0.65, `confirm` @0.45).
 *
 * @since 0.1.0
 * @category priors
 */
export const settlePrior: Params = {
  reflex: "settle",
  version: 0,
  parent: null,
  heads: {
    confirm: {
      bias: -3.398,
      weights: {
        ask: 2.004,
        awaiting: -0.506,
        brief: -0.178,
        done_claim: 0.168,
        ends_mid: 0.473,
        no_tools: -0.086,
        offer_more: -0.192,
        progressive: -1.367,
        promise_next: 0.42,
        question: 1.3,
        report: -0.334,
        risk: 0.482,
        tools: 0.485,
        user_act: -0.159,
        words: -0.015
      },
      threshold: 0.45
    },
    stopped_short: {
      bias: -3.206,
      weights: {
        ask: -0.267,
        awaiting: 0.63,
        blocked: -0.076,
        brief: 0.855,
        done_claim: -0.122,
        ends_colon: 1.128,
        ends_mid: -0.247,
        ends_question: -0.308,
        future_self: 0.26,
        no_tools: 1.201,
        offer_more: 0.274,
        open_checklist: -0.02,
        progressive: 1.177,
        promise_next: 0.109,
        question: -1.151,
        remaining_work: 0.502,
        report: -0.275,
        risk: -0.234,
        tools: 2.627,
        user_act: -0.919,
        words: -0.849
      },
      threshold: 0.65
    }
  },
  trained_on: 0,
  evidence: {}
}
