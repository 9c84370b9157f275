/**
 * The OpenAI layer (Responses API through `@effect/ai-openai`), loaded on demand so hosts that
 * never pick OpenAI need not install the package.
 *
 * @internal
 */
import type * as LanguageModel from "@effect/ai/LanguageModel"
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"

/** @internal */
export const defaultBaseUrl = "https://api.openai.com/v1"

/** @internal */
export const load = () => import("./openaiModel.js")

/** @internal */
export const layer = (
  mod: Awaited<ReturnType<typeof load>>,
  options: { readonly model: string; readonly apiKey: Redacted.Redacted; readonly baseUrl: string }
): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient.HttpClient> => mod.layer(options)
