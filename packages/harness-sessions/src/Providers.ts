/**
 * Real model providers as `@effect/ai` `LanguageModel` layers, chosen by a `PROVIDER:MODEL`
 * spec (`openai:gpt-4.1`, `anthropic:claude-sonnet-4-5`). The API key comes from the
 * environment (through Effect `Config`, so a host or a test can supply its own provider); the
 * base URL may be overridden, which is how the tests point a client at a local wire-format
 * server instead of the network.
 *
 * Token usage (input, cached input, output) arrives on each response's `finish` part, as the
 * provider packages decode it; the harness records it on its `model.call` event.
 *
 * @since 0.1.0
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as HarnessError from "./HarnessError.js"
import * as Anthropic from "./internal/wire/anthropic.js"
import * as OpenAi from "./internal/wire/openai.js"

/**
 * The providers Steward ships.
 *
 * @since 0.1.0
 * @category models
 */
export const Provider = Schema.Literal("openai", "anthropic")

/**
 * @since 0.1.0
 * @category models
 */
export type Provider = typeof Provider.Type

/**
 * A parsed `PROVIDER:MODEL`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ModelSpec {
  readonly provider: Provider
  readonly model: string
}

/**
 * The environment variable holding each provider's API key.
 *
 * @since 0.1.0
 * @category config
 */
export const apiKeyVariable: Readonly<Record<Provider, string>> = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY"
}

/**
 * The environment variable that may override each provider's base URL.
 *
 * @since 0.1.0
 * @category config
 */
export const baseUrlVariable: Readonly<Record<Provider, string>> = {
  openai: "OPENAI_BASE_URL",
  anthropic: "ANTHROPIC_BASE_URL"
}

/**
 * Each provider's default base URL.
 *
 * @since 0.1.0
 * @category config
 */
export const defaultBaseUrl: Readonly<Record<Provider, string>> = {
  openai: OpenAi.defaultBaseUrl,
  anthropic: Anthropic.defaultBaseUrl
}

const invalid = (message: string) => new HarnessError.HarnessError({ code: "INVALID_INPUT", message })

/**
 * Parse `PROVIDER:MODEL`; an unknown provider or an empty model is a typed `INVALID_INPUT`.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseSpec = (spec: string): Either.Either<ModelSpec, HarnessError.HarnessError> => {
  const colon = spec.indexOf(":")
  if (colon <= 0) {
    return Either.left(invalid(`model ${JSON.stringify(spec)}: expected PROVIDER:MODEL, e.g. openai:gpt-4.1`))
  }
  const provider = spec.slice(0, colon)
  const model = spec.slice(colon + 1).trim()
  if (!Schema.is(Provider)(provider)) {
    return Either.left(
      invalid(
        `model ${JSON.stringify(spec)}: unknown provider ${JSON.stringify(provider)} (known: ${
          Provider.literals.join(", ")
        })`
      )
    )
  }
  if (model === "" || /\s/.test(model)) {
    return Either.left(
      invalid(`model ${JSON.stringify(spec)}: the model name after "${provider}:" is missing or has spaces`)
    )
  }
  return Either.right({ provider, model })
}

/**
 * Options for `layer`. `apiKey` and `baseUrl` win over the environment.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly apiKey?: Redacted.Redacted | undefined
  readonly baseUrl?: string | undefined
}

const optionalString = (name: string) =>
  Config.option(Config.string(name)).pipe(
    Effect.map(Option.filter((value) => value.trim() !== "")),
    Effect.mapError((error) => invalid(`${name}: ${String(error)}`))
  )

const resolveBaseUrl = (spec: ModelSpec, options: Options) =>
  Effect.gen(function*() {
    const fromEnv = yield* optionalString(baseUrlVariable[spec.provider])
    const where = options.baseUrl !== undefined ? "baseUrl" : baseUrlVariable[spec.provider]
    const raw = options.baseUrl ?? Option.getOrElse(fromEnv, () => defaultBaseUrl[spec.provider])
    const url = yield* Effect.try({
      try: () => new URL(raw),
      catch: () => invalid(`${where}: ${JSON.stringify(raw)} is not a URL`)
    })
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      return yield* invalid(`${where}: ${JSON.stringify(raw)} is not an http or https URL`)
    }
    return raw.replace(/\/+$/, "")
  })

const resolveApiKey = (spec: ModelSpec, options: Options) =>
  Effect.gen(function*() {
    if (options.apiKey !== undefined && Redacted.value(options.apiKey).trim() !== "") return options.apiKey
    const fromEnv = yield* optionalString(apiKeyVariable[spec.provider])
    if (Option.isNone(fromEnv)) {
      return yield* invalid(
        `model ${spec.provider}:${spec.model}: no API key; set ${apiKeyVariable[spec.provider]} in the environment`
      )
    }
    return Redacted.make(fromEnv.value)
  })

const missingPackage = (name: string) => () =>
  invalid(`the ${name} package is not installed; add it next to @steward/harness-sessions to use this provider`)

/**
 * A `LanguageModel` layer for `PROVIDER:MODEL`. Fails when the layer is built with a typed
 * `INVALID_INPUT` for a malformed spec, an unknown provider, a missing key, a bad base URL or a
 * provider package that is not installed. Requires an `HttpClient` (e.g. `NodeHttpClient`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  spec: string,
  options: Options = {}
): Layer.Layer<LanguageModel.LanguageModel, HarnessError.HarnessError, HttpClient.HttpClient> =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      const parsed = yield* parseSpec(spec)
      const apiKey = yield* resolveApiKey(parsed, options)
      const baseUrl = yield* resolveBaseUrl(parsed, options)
      const settings = { model: parsed.model, apiKey, baseUrl }
      switch (parsed.provider) {
        case "openai": {
          const mod = yield* Effect.tryPromise({ try: OpenAi.load, catch: missingPackage("@effect/ai-openai") })
          return OpenAi.layer(mod, settings)
        }
        case "anthropic": {
          const mod = yield* Effect.tryPromise({ try: Anthropic.load, catch: missingPackage("@effect/ai-anthropic") })
          return Anthropic.layer(mod, settings)
        }
      }
    }).pipe(Effect.withSpan("Providers.layer", { attributes: { spec } }))
  )

/**
 * The `LanguageModel` service for `PROVIDER:MODEL` as a value (for hosts that hold several models,
 * such as one per route tier).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  spec: string,
  options: Options = {}
): Effect.Effect<LanguageModel.Service, HarnessError.HarnessError, HttpClient.HttpClient | Scope.Scope> =>
  Layer.build(layer(spec, options)).pipe(Effect.map((context) => Context.get(context, LanguageModel.LanguageModel)))

/**
 * Route tiers a host maps to models (issue 13: the route reflex picks the tier for a new task).
 *
 * @since 0.1.0
 * @category models
 */
export type Tier = "frontier" | "standard"

/**
 * Build one `LanguageModel` per configured tier from `PROVIDER:MODEL` specs (each key from the
 * environment as for `layer`). A tier left out is absent from the result.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeTiers = (
  specs: Partial<Record<Tier, string>>,
  options: Options = {}
): Effect.Effect<
  Partial<Record<Tier, LanguageModel.Service>>,
  HarnessError.HarnessError,
  HttpClient.HttpClient | Scope.Scope
> =>
  Effect.gen(function*() {
    const models: Partial<Record<Tier, LanguageModel.Service>> = {}
    for (const tier of ["frontier", "standard"] as const) {
      const spec = specs[tier]
      if (spec === undefined) continue
      models[tier] = yield* make(spec, options).pipe(
        Effect.mapError((error) =>
          new HarnessError.HarnessError({ code: error.code, message: `tier ${tier}: ${error.message}` })
        )
      )
    }
    return models
  })
