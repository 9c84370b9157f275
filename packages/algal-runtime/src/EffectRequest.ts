/**
 * Effect requests and effect receipts (ALGAL v1 §2.5). An effect cell (agent, classifier, gate,
 * decide, recall) asks an executor for one output with an `algal.effect.v1` request; a `tool`
 * cell asks a host tool with an `algal.tool-effect.v1` request. The request digest (`sha256` over
 * the canonical request bytes) names the attempt: scripted executors and replay serve recorded
 * outputs by it, and it is the idempotency key of host tools. Every attempt leaves one effect
 * receipt in the run receipt's `effects`.
 *
 * @example
 * ```ts
 * import { EffectRequest } from "@steward/algal-runtime"
 *
 * const request: EffectRequest.ModelRequest = {
 *   contract: "algal.effect.v1",
 *   cellId: "route",
 *   kind: "classifier",
 *   prompt: "Classify the ticket.",
 *   context: { inputs: { ticket: "it crashes" }, turn: 0 },
 *   output: { kind: "choice", labels: ["bug", "feature"] },
 *   budget: { maxContextBytes: 65536, maxOutputBytes: 65536 }
 * }
 * EffectRequest.digest(request) // "sha256:…" — the same bytes the executor sees
 * ```
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as AlgalError from "./AlgalError.js"
import * as Canonical from "./Canonical.js"
import type { Json } from "./Manifest.js"

/**
 * Effect kinds an executor may serve (model-call family).
 *
 * @since 0.1.0
 * @category models
 */
export type ModelKind = "agent" | "classifier" | "gate" | "decide" | "recall"

/**
 * All model-call kinds.
 *
 * @since 0.1.0
 * @category constants
 */
export const modelKinds: ReadonlyArray<ModelKind> = ["agent", "classifier", "gate", "decide", "recall"]

/**
 * The context an agent-family request carries: the viewed inputs, the tool-loop turn, and
 * optionally the view note, upstream cell outputs, the graph around the cell and the tool log.
 *
 * @since 0.1.0
 * @category models
 */
export interface Context {
  readonly inputs: { readonly [name: string]: Json }
  readonly turn: number
  readonly note?: string
  readonly cells?: { readonly [cell: string]: { readonly [port: string]: Json } }
  readonly graph?: Json
  readonly toolLog?: ReadonlyArray<Json>
}

/**
 * An `algal.effect.v1` request. Its canonical bytes are exactly what an executor sees.
 *
 * @since 0.1.0
 * @category models
 */
export interface ModelRequest {
  readonly contract: "algal.effect.v1"
  readonly cellId: string
  readonly kind: ModelKind
  /** Absent only for a `decide` cell declared without one. */
  readonly prompt?: string
  readonly context: Context
  readonly output: Json
  readonly budget: { readonly maxContextBytes: number; readonly maxOutputBytes: number }
  readonly route?: { readonly [key: string]: string }
  /**
   * The tools an agent may call this turn: a hint handed to the executor, not part of the
   * digested request (the original's request carries no `tools`).
   */
  readonly tools?: ReadonlyArray<string>
  readonly questions?: Json
  readonly recall?: Json
}

/**
 * An `algal.tool-effect.v1` request (a `tool` cell, or a host tool called from an agent's tool loop).
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolRequest {
  readonly contract: "algal.tool-effect.v1"
  readonly path: string
  readonly tool: string
  readonly effect: "read" | "write"
  readonly inputs: { readonly [port: string]: Json }
}

/**
 * The failure an executor or tool reports.
 *
 * @since 0.1.0
 * @category models
 */
export interface EffectFailure {
  readonly code: AlgalError.AlgalErrorCode
  readonly message: string
}

/**
 * Token usage an executor may report.
 *
 * @since 0.1.0
 * @category models
 */
export interface Usage {
  readonly model?: string
  readonly tokensIn?: number
  readonly tokensOut?: number
}

/**
 * One effect receipt: the outcome of one attempt, in issue order in the run receipt.
 *
 * @since 0.1.0
 * @category models
 */
export interface EffectReceipt {
  readonly requestDigest: string
  readonly executor: string
  readonly output?: Json
  readonly error?: EffectFailure
  readonly usage?: Usage
  readonly cached?: true
  readonly retryable?: false
  readonly wake?: Json
  readonly configurationDigest?: string
}

/**
 * The schema of an effect receipt (closed keys; used when reading recorded effects).
 *
 * @since 0.1.0
 * @category schemas
 */
export const EffectReceiptSchema = Schema.Struct({
  requestDigest: Schema.String.pipe(Schema.pattern(/^sha256:[0-9a-f]{64}$/)),
  executor: Schema.String,
  output: Schema.optional(Schema.Unknown),
  error: Schema.optional(Schema.Struct({ code: AlgalError.AlgalErrorCode, message: Schema.String })),
  usage: Schema.optional(Schema.Struct({
    model: Schema.optional(Schema.String),
    tokensIn: Schema.optional(Schema.Number),
    tokensOut: Schema.optional(Schema.Number)
  })),
  cached: Schema.optional(Schema.Literal(true)),
  retryable: Schema.optional(Schema.Literal(false)),
  wake: Schema.optional(Schema.Unknown),
  configurationDigest: Schema.optional(Schema.String)
})

/**
 * The request digest: `sha256` over the canonical request bytes.
 *
 * @since 0.1.0
 * @category digests
 */
export const digest = (request: ModelRequest | ToolRequest): string =>
  Canonical.digestText(Canonical.encodeUnsafe(digested(request)))

// `tools` on a model request is a hint for the executor, not part of the request's identity.
const digested = (request: ModelRequest | ToolRequest): ModelRequest | ToolRequest => {
  if (request.contract !== "algal.effect.v1" || request.tools === undefined) return request
  const { tools: _, ...rest } = request
  return rest
}

/**
 * The canonical bytes of a request (what the executor sees).
 *
 * @since 0.1.0
 * @category digests
 */
export const canonical = (request: ModelRequest | ToolRequest): string => Canonical.encodeUnsafe(digested(request))

/**
 * An `EFFECT_UNBOUND` receipt: nothing the host registered may serve the request (`executor:"unbound"`,
 * `retryable:false`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const unbound = (requestDigest: string, message: string): EffectReceipt => ({
  requestDigest,
  executor: "unbound",
  error: { code: "EFFECT_UNBOUND", message },
  retryable: false
})

/**
 * Whether a receipt records a suspension.
 *
 * @since 0.1.0
 * @category guards
 */
export const isSuspended = (receipt: EffectReceipt): boolean => receipt.error?.code === "EFFECT_SUSPENDED"
