/**
 * An executor over `@effect/ai`'s `LanguageModel`: any @effect/ai provider (OpenAI, Anthropic, …)
 * can serve agent, classifier, gate and decide cells. The model sees the request's canonical bytes
 * (exactly what the digest names) after short instructions for the cell's output contract; its
 * text reply becomes the effect output — parsed as JSON for json/decide outputs and for tool calls
 * (`{"tool": name, "inputs": {…}}`), trimmed text otherwise. Binding (labels, schemas) is the
 * runtime's job, so a bad reply is `EFFECT_UNPARSEABLE` and retried per `retry.attempts`. Provider
 * errors are recorded as `EFFECT_FAILED` (retryable); token usage is recorded.
 *
 * `@effect/ai` is an optional peer of this package: only this entry point imports it, and the
 * package barrel does not re-export it, so hosts without a language model never load it.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { AlgalRuntime } from "@steward/algal-runtime"
 * import * as LanguageModelExecutor from "@steward/algal-runtime/LanguageModelExecutor"
 * import type { LanguageModel } from "@effect/ai"
 *
 * declare const model: Layer.Layer<LanguageModel.LanguageModel> // e.g. an OpenAI language model layer
 * const runtime = AlgalRuntime.layerMemory().pipe(
 *   Layer.provide(LanguageModelExecutor.layer({ model: "gpt-4o-mini" })),
 *   Layer.provide(model)
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Canonical from "./Canonical.js"
import type * as EffectRequest from "./EffectRequest.js"
import * as Executor from "./Executor.js"
import { isObj } from "./internal/issue.js"
import type { Json } from "./Manifest.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Executor name recorded in effect receipts (default `"language-model"`). */
  readonly name?: string
  /** The model name recorded in `usage.model` and in the configuration digest. */
  readonly model?: string
  /** Kinds served (default agent, classifier, gate, decide). */
  readonly effects?: ReadonlyArray<EffectRequest.ModelKind>
  /** Routes served (default: every route). */
  readonly routes?: (route: Executor.Route | undefined) => boolean
}

const instructions = (request: EffectRequest.ModelRequest): string => {
  const output = request.output as { kind?: string; labels?: ReadonlyArray<string> }
  const lines = [
    "You serve one ALGAL effect request. The request (canonical JSON) follows; `prompt` is your task and",
    "`context.inputs` your inputs. Reply with the output only — no preamble."
  ]
  if (request.kind === "decide") {
    lines.push("Reply with one JSON object {\"answers\": {<question>: <answer>}} answering every question.")
  } else if (output.kind === "choice") {
    lines.push(`Reply with exactly one of these labels: ${(output.labels ?? []).join(", ")}.`)
  } else if (output.kind === "json") lines.push("Reply with one JSON value matching output.schema.")
  else lines.push("Reply with plain text.")
  if (request.tools !== undefined && request.tools.length > 0) {
    lines.push(
      `To call a tool instead, reply with one JSON object {"tool": <one of ${
        request.tools.join(", ")
      }>, "inputs": {…}}; its result appears in context.toolLog.`
    )
  }
  return lines.join("\n")
}

/**
 * The prompt the model sees: instructions, then the request's canonical bytes.
 *
 * @since 0.1.0
 * @category rendering
 */
export const render = (request: EffectRequest.ModelRequest): string =>
  `${instructions(request)}\n\nREQUEST ${Canonical.encodeUnsafe(request)}`

const parseJson = (text: string): Json | undefined => {
  const body = text.trim().replace(/^```(?:json)?\s*/i, "").replace(/\s*```$/, "")
  const parsed = Canonical.parse(body)
  return parsed._tag === "Right" ? parsed.right : undefined
}

/**
 * Turn the model's text into the effect output for a request.
 *
 * @since 0.1.0
 * @category parsing
 */
export const outputOf = (request: EffectRequest.ModelRequest, text: string): Json => {
  const output = request.output as { kind?: string }
  const wantsJson = request.kind === "decide" || request.kind === "recall" || output.kind === "json"
  const json = parseJson(text)
  if (wantsJson) return json === undefined ? text : json
  if (request.tools !== undefined && isObj(json) && typeof json.tool === "string") return json
  return text.trim()
}

/**
 * Build the executor from the `LanguageModel` in context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<Executor.Executor, never, LanguageModel.LanguageModel> =>
  Effect.map(LanguageModel.LanguageModel, (model) => {
    const name = options.name ?? "language-model"
    return Executor.make({
      name,
      effects: options.effects ?? ["agent", "classifier", "gate", "decide"],
      ...(options.routes === undefined ? {} : { routes: options.routes }),
      configurationDigest: Canonical.digestText(Canonical.encodeUnsafe({
        contract: "algal.language-model-executor.v1",
        name,
        ...(options.model === undefined ? {} : { model: options.model })
      })),
      execute: (request) =>
        model.generateText({ prompt: render(request) }).pipe(
          Effect.map((response): Executor.Reply => {
            const usage: { model?: string; tokensIn?: number; tokensOut?: number } = {}
            if (options.model !== undefined) usage.model = options.model
            if (response.usage.inputTokens !== undefined) usage.tokensIn = response.usage.inputTokens
            if (response.usage.outputTokens !== undefined) usage.tokensOut = response.usage.outputTokens
            return { output: outputOf(request, response.text), ...(Object.keys(usage).length > 0 ? { usage } : {}) }
          }),
          Effect.catchAll((error) =>
            Effect.succeed<Executor.Reply>({
              error: { code: "EFFECT_FAILED", message: `language model: ${error.message}`.slice(0, 500) }
            })
          )
        )
    })
  })

/**
 * Register the language-model executor as the host's `Executors`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<Executor.Executors, never, LanguageModel.LanguageModel> =>
  Layer.effect(Executor.Executors, Effect.map(make(options), (executor) => ({ executors: [executor] })))
