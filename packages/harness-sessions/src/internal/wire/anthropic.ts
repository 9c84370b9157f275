/**
 * The Anthropic layer (Messages API through `@effect/ai-anthropic`), loaded on demand so hosts
 * that never pick Anthropic need not install the package.
 *
 * @internal
 */
import type * as LanguageModel from "@effect/ai/LanguageModel"
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"

/** @internal */
export const defaultBaseUrl = "https://api.anthropic.com"

/** @internal */
export const load = () => import("./anthropicModel.js")

/** @internal */
export const layer = (
  mod: Awaited<ReturnType<typeof load>>,
  options: { readonly model: string; readonly apiKey: Redacted.Redacted; readonly baseUrl: string }
): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient.HttpClient> => mod.layer(options)
