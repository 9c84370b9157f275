/**
 * The Anthropic `LanguageModel` layer from the two modules it needs, loaded on demand by
 * `anthropic.ts`. Imported by subpath with each use resolved to its export, so a bundle keeps
 * only what the layer reaches: not `AnthropicTokenizer` with its tokenizer, which the package
 * index would bring.
 *
 * @internal
 */
import * as AnthropicClient from "@effect/ai-anthropic/AnthropicClient"
import * as AnthropicLanguageModel from "@effect/ai-anthropic/AnthropicLanguageModel"
import type * as LanguageModel from "@effect/ai/LanguageModel"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"

/** @internal */
export const layer = (
  options: { readonly model: string; readonly apiKey: Redacted.Redacted; readonly baseUrl: string }
): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient.HttpClient> =>
  AnthropicLanguageModel.layer({ model: options.model }).pipe(
    Layer.provide(AnthropicClient.layer({ apiKey: options.apiKey, apiUrl: options.baseUrl }))
  )
