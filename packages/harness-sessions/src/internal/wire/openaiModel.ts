/**
 * The OpenAI `LanguageModel` layer from the two modules it needs, loaded on demand by `openai.ts`.
 * Imported by subpath with each use resolved to its export, so a bundle keeps only what the layer
 * reaches: not `OpenAiTokenizer` with `gpt-tokenizer` (about half of the package's load time,
 * which a session does not use before it counts tokens), which the package index would bring.
 *
 * @internal
 */
import * as OpenAiClient from "@effect/ai-openai/OpenAiClient"
import * as OpenAiLanguageModel from "@effect/ai-openai/OpenAiLanguageModel"
import type * as LanguageModel from "@effect/ai/LanguageModel"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"

/** @internal */
export const layer = (
  options: { readonly model: string; readonly apiKey: Redacted.Redacted; readonly baseUrl: string }
): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient.HttpClient> =>
  OpenAiLanguageModel.layer({ model: options.model }).pipe(
    Layer.provide(OpenAiClient.layer({ apiKey: options.apiKey, apiUrl: options.baseUrl }))
  )
