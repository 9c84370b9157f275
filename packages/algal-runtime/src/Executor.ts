/**
 * Host authority over model calls (ALGAL v1 §2.5). An `Executor` serves `algal.effect.v1` requests
 * of the effect kinds it declares (`effects`, default agent and classifier) on the routes it
 * accepts. The host registers executors with the `Executors` service; a request nothing may serve
 * is recorded as an ordinary failed effect (`executor:"unbound"`, `EFFECT_UNBOUND`,
 * `retryable:false`). A program can reach no executor its host did not register.
 *
 * Shipped executors: `scripted` (responses by request digest, then by cell id; arrays are per-cell
 * queues — the `*.responses.json` format) and `managed` (xcb's resumable-controller executor:
 * answers the one request it was given a response for, suspends on any other). The @effect/ai
 * executor lives in `LanguageModelExecutor`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AlgalRuntime, Executor } from "@steward/algal-runtime"
 *
 * declare const triage: unknown
 * const program = Effect.gen(function*() {
 *   const runtime = yield* AlgalRuntime.AlgalRuntime
 *   return yield* runtime.run(triage, { ticket: { text: "it crashes" } }, {
 *     executors: [Executor.scripted({ route: "bug" })]
 *   })
 * }).pipe(Effect.provide(AlgalRuntime.layer))
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as AlgalError from "./AlgalError.js"
import * as Canonical from "./Canonical.js"
import * as EffectRequest from "./EffectRequest.js"
import { isObj } from "./internal/issue.js"
import type { Json } from "./Manifest.js"

/**
 * What an executor answers for one attempt.
 *
 * @since 0.1.0
 * @category models
 */
export type Reply =
  | {
    readonly output: Json
    readonly usage?: EffectRequest.Usage
    readonly cached?: true
    /** Mark the attempt non-retryable even though it succeeded (host executors). */
    readonly retryable?: false
  }
  | {
    readonly error: EffectRequest.EffectFailure
    readonly retryable?: boolean
    /** What a suspended executor needs to be woken (suspensions only). */
    readonly wake?: Json
  }

/**
 * A route as written on a cell (`provider`, `model`, `preset`).
 *
 * @since 0.1.0
 * @category models
 */
export type Route = { readonly [key: string]: string }

/**
 * An executor: a name (recorded in every effect receipt it produces), the effect kinds it declares,
 * which routes it serves, and `execute`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Executor {
  readonly name: string
  readonly effects: ReadonlyArray<EffectRequest.ModelKind>
  /** Whether it serves a cell's route (`undefined` = a cell without `route`). Absent: every route. */
  readonly routes?: (route: Route | undefined) => boolean
  /** A digest of the executor's configuration, recorded in its receipts. */
  readonly configurationDigest?: string
  readonly execute: (request: EffectRequest.ModelRequest, digest: string) => Effect.Effect<Reply>
}

/**
 * Build an executor. `effects` defaults to `["agent", "classifier"]` (undeclared capabilities).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: {
  readonly name: string
  readonly effects?: ReadonlyArray<EffectRequest.ModelKind>
  readonly routes?: (route: Route | undefined) => boolean
  readonly configurationDigest?: string
  readonly execute: (request: EffectRequest.ModelRequest, digest: string) => Effect.Effect<Reply>
}): Executor => ({
  name: options.name,
  effects: options.effects ?? ["agent", "classifier"],
  ...(options.routes === undefined ? {} : { routes: options.routes }),
  ...(options.configurationDigest === undefined ? {} : { configurationDigest: options.configurationDigest }),
  execute: options.execute
})

/**
 * Route binding: whether an executor may serve a request (its kind is declared and its route accepted).
 *
 * @since 0.1.0
 * @category binding
 */
export const serves = (executor: Executor, request: EffectRequest.ModelRequest): boolean =>
  executor.effects.includes(request.kind) && (executor.routes === undefined || executor.routes(request.route))

/**
 * The first registered executor that serves a request, if any.
 *
 * @since 0.1.0
 * @category binding
 */
export const bind = (executors: ReadonlyArray<Executor>, request: EffectRequest.ModelRequest): Executor | undefined =>
  executors.find((e) => serves(e, request))

/**
 * Turn a reply into the effect receipt the run records.
 *
 * @since 0.1.0
 * @category receipts
 */
export const receiptOf = (executor: Executor, requestDigest: string, reply: Reply): EffectRequest.EffectReceipt => {
  const base = {
    requestDigest,
    executor: executor.name,
    ...(executor.configurationDigest === undefined ? {} : { configurationDigest: executor.configurationDigest })
  }
  if ("error" in reply) {
    return {
      ...base,
      error: { code: reply.error.code, message: reply.error.message },
      // An executor's own EFFECT_UNBOUND (a scripted executor with no response) stays retryable, as
      // the original records it; a request no executor serves is recorded by `EffectRequest.unbound`.
      ...(reply.retryable === false || reply.error.code === "EFFECT_SUSPENDED"
        ? { retryable: false as const }
        : {}),
      ...(reply.wake === undefined ? {} : { wake: reply.wake })
    }
  }
  return {
    ...base,
    output: reply.output,
    ...(reply.usage === undefined ? {} : { usage: reply.usage }),
    ...(reply.cached === true ? { cached: true as const } : {}),
    ...(reply.retryable === false ? { retryable: false as const } : {})
  }
}

/**
 * Run one attempt on the host's executors: bind, execute, record. Never fails: a defect or
 * interruption inside an executor is recorded as `EFFECT_FAILED`.
 *
 * @since 0.1.0
 * @category binding
 */
export const dispatch = (
  executors: ReadonlyArray<Executor>,
  request: EffectRequest.ModelRequest,
  digest: string,
  maxEffectMs?: number
): Effect.Effect<EffectRequest.EffectReceipt> => {
  const executor = bind(executors, request)
  if (executor === undefined) {
    return Effect.succeed(
      EffectRequest.unbound(digest, "no host-admitted executor for this request")
    )
  }
  return executor.execute(request, digest).pipe(
    deadline(
      maxEffectMs,
      (): Reply => ({ error: { code: "BUDGET_EXHAUSTED", message: `effect exceeded maxEffectMs ${maxEffectMs}` } })
    ),
    Effect.catchAllCause((cause) =>
      Effect.succeed<Reply>({
        error: { code: "EFFECT_FAILED", message: `executor ${executor.name} crashed: ${String(cause).slice(0, 200)}` }
      })
    ),
    Effect.map((reply) => receiptOf(executor, digest, reply))
  )
}

/**
 * Enforce `maxEffectMs` (never recorded as time, only as the timeout failure; uses `Clock`).
 *
 * @since 0.1.0
 * @category binding
 */
export const deadline =
  <A>(maxEffectMs: number | undefined, onTimeout: () => A) =>
  <E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    maxEffectMs === undefined
      ? self
      : Effect.timeoutTo(self, { duration: Duration.millis(maxEffectMs), onSuccess: (a: A) => a, onTimeout })

/**
 * The host's registered executors.
 *
 * @since 0.1.0
 * @category tags
 */
export class Executors extends Context.Tag("@steward/algal-runtime/Executors")<
  Executors,
  { readonly executors: ReadonlyArray<Executor> }
>() {}

/**
 * Register executors (order is binding priority).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (...executors: ReadonlyArray<Executor>): Layer.Layer<Executors> =>
  Layer.succeed(Executors, { executors })

/**
 * No executors: every model call is `EFFECT_UNBOUND`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerNone: Layer.Layer<Executors> = layer()

// ---------------------------------------------------------------------------------------------
// scripted

/**
 * Scripted responses: keys are request digests or cell ids; an array is a queue consumed one item
 * per attempt; `{"$error": {code, message, retryable?}}` scripts an executor error.
 *
 * @since 0.1.0
 * @category models
 */
export type Responses = { readonly [digestOrCell: string]: Json }

/**
 * Validate a responses document (an object; `$error` envelopes well-formed).
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeResponses = Effect.fn("Executor.decodeResponses")(function*(json: unknown) {
  if (!isObj(json)) {
    return yield* AlgalError.invalid("responses must be an object keyed by request digest or cell id", "$")
  }
  const encoded = Canonical.encode(json)
  if (encoded._tag === "Left") return yield* AlgalError.invalid(`responses are not JSON: ${encoded.left.message}`, "$")
  for (const [key, value] of Object.entries(json)) {
    for (const [i, item] of (Array.isArray(value) ? value : [value]).entries()) {
      const at = Array.isArray(value) ? `$.${key}[${i}]` : `$.${key}`
      if (isObj(item) && Object.prototype.hasOwnProperty.call(item, "$error")) {
        const error = item.$error
        if (
          !isObj(error) || typeof error.code !== "string" ||
          !(AlgalError.codes as ReadonlyArray<string>).includes(error.code) || typeof error.message !== "string"
        ) {
          return yield* AlgalError.invalid(
            "$error must be {code: <ALGAL code>, message: text, retryable?: boolean}",
            at
          )
        }
      }
    }
  }
  return json as Responses
})

const scriptedReply = (value: Json): Reply => {
  if (isObj(value) && Object.prototype.hasOwnProperty.call(value, "$error")) {
    const error = value.$error as { code: AlgalError.AlgalErrorCode; message: string; retryable?: boolean }
    return {
      error: { code: error.code, message: error.message },
      ...(error.retryable === false ? { retryable: false } : {})
    }
  }
  return { output: value }
}

/**
 * The scripted executor (tests, fixtures, CLI `--responses`): serves every effect kind on every
 * route. Lookup is by request digest first, then by cell id; an array is a queue shared by every
 * request with that key (consumed in issue order); a missing or exhausted key is
 * `EFFECT_UNBOUND "no scripted response for cell \"<id>\" (digest <digest>)"` (retryable, as the
 * original records it). Each call to `scripted` has fresh queues.
 *
 * @since 0.1.0
 * @category executors
 */
export const scripted = (responses: Responses, name = "scripted"): Executor => {
  const queues = new Map<string, { readonly items: ReadonlyArray<Json>; next: number }>()
  const take = (key: string): Json | undefined => {
    if (!Object.prototype.hasOwnProperty.call(responses, key)) return undefined
    const value = responses[key]!
    if (!Array.isArray(value)) return value
    let queue = queues.get(key)
    if (queue === undefined) queues.set(key, queue = { items: value, next: 0 })
    if (queue.next >= queue.items.length) return undefined
    return queue.items[queue.next++]
  }
  return make({
    name,
    effects: EffectRequest.modelKinds,
    execute: (request, digest) =>
      Effect.sync(() => {
        const value = take(digest) ?? take(request.cellId)
        return value === undefined
          ? {
            error: {
              code: "EFFECT_UNBOUND",
              message: `no scripted response for cell ${JSON.stringify(request.cellId)} (digest ${digest})`
            }
          }
          : scriptedReply(value)
      })
  })
}

// ---------------------------------------------------------------------------------------------
// managed (xcb resumable controllers, §5.2)

/**
 * The managed executor's name.
 *
 * @since 0.1.0
 * @category constants
 */
export const managedName = "xcb-managed-agent-v1"

/**
 * The managed executor's configuration digest.
 *
 * @since 0.1.0
 * @category constants
 */
export const managedConfigurationDigest: string = Canonical.digestText(Canonical.encodeUnsafe({
  contract: "xcb.managed-program-executor.v1",
  profile: "xcb-managed-agent-v1:text:8192:lookup-or-suspend:no-retry"
}))

/**
 * A supplied answer for one request.
 *
 * @since 0.1.0
 * @category models
 */
export interface Answer {
  readonly requestDigest: string
  readonly output: string
}

/**
 * xcb's resumable-controller executor: serves only `agent` requests with `{"kind":"text"}` output
 * and no route. With an answer whose request digest matches it returns the text; otherwise it
 * suspends (`EFFECT_SUSPENDED`, `retryable:false`, `wake: {digest, prompt}`). Never retried.
 *
 * @since 0.1.0
 * @category executors
 */
export const managed = (answer?: Answer): Executor =>
  make({
    name: managedName,
    effects: ["agent"],
    routes: (route) => route === undefined,
    configurationDigest: managedConfigurationDigest,
    execute: (request, digest) =>
      Effect.sync((): Reply => {
        const output = request.output as { readonly kind?: unknown }
        if (!isObj(output) || output.kind !== "text" || Object.keys(output).length !== 1) {
          return {
            error: { code: "EFFECT_UNBOUND", message: "managed executor serves text output only" },
            retryable: false
          }
        }
        if (Buffer.byteLength(request.prompt ?? "", "utf8") > 8192) {
          return {
            error: { code: "EFFECT_UNBOUND", message: "managed executor prompt exceeds 8192 bytes" },
            retryable: false
          }
        }
        if (answer !== undefined && answer.requestDigest === digest) return { output: answer.output, retryable: false }
        return {
          error: { code: "EFFECT_SUSPENDED", message: `awaiting a response for ${request.cellId}` },
          retryable: false,
          wake: { digest, prompt: request.prompt ?? "" }
        }
      })
  })
