/**
 * The one context every engine operation (decide, train, labels, import, status) works over: the
 * ledger, the config, the loaded reflexes and their programs, and the caches shared between
 * operations (decoded payloads, replay checkpoints).
 * @internal
 */
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as AlgalProgram from "../../AlgalProgram.js"
import type { DecisionProgram, Violation } from "../../DecisionProgram.js"
import { FitWorkers } from "../../FitWorkers.js"
import * as Learning from "../../Learning.js"
import * as Params from "../../Params.js"
import type { ReflexDefinition } from "../../Reflex.js"
import * as Reflex from "../../Reflex.js"
import * as ReflexConfig from "../../ReflexConfig.js"
import * as ReflexError from "../../ReflexError.js"
import type { CertificateView, CustomSource, Options } from "../../Reflexes.js"
import { ReflexLedger } from "../../ReflexLedger.js"

/** A reflex with its shipped and running programs. @internal */
export interface Loaded {
  readonly definition: ReflexDefinition<any>
  readonly shipped: DecisionProgram
  readonly program: DecisionProgram
  readonly fault: string | null
  readonly violations: ReadonlyArray<Violation>
}

/** @internal */
export interface EngineContext {
  readonly ledger: ReflexLedger["Type"]
  readonly config: ReflexConfig.ReflexConfig
  readonly compile: AlgalProgram.Compile
  readonly fitOptions: Learning.FitOptions
  /** Fit threads an import may use (`Options.fitThreads`, else `STEWARD_REFLEX_FIT_THREADS`, else 2). */
  readonly fitThreads: number
  /** The worker platform for those fits, when the layer provides one (else the calling thread fits). */
  readonly fitWorkers: Option.Option<FitWorkers["Type"]>
  readonly definitions: ReadonlyMap<string, Loaded>
  /** Every loaded program (shipped and custom) by manifest digest, for replays. */
  readonly byDigest: ReadonlyMap<string, DecisionProgram>
  readonly loaded: (reflex: string) => Effect.Effect<Loaded, ReflexError.ReflexError>
  /** The active generation, unless unreadable or its feature schema differs from the prior. */
  readonly activeParams: (definition: ReflexDefinition<any>) => Effect.Effect<Params.Params, ReflexError.ReflexError>
  readonly certificateOf: (
    reflex: string,
    head: string
  ) => Effect.Effect<Learning.Certificate | undefined, ReflexError.ReflexError>
  /** Per-head replay checkpoints: each training pass resumes the prequential replay. */
  readonly replayCache: (reflex: string, head: string) => Learning.ReplayCache
}

/** A certificate without its model. @internal */
export const view = (c: Learning.Certificate): CertificateView => {
  const { model: _, ...rest } = c
  return rest
}

// Decoded payloads by their exact text (generations and certificates are immutable rows).
const memo = <A>(cache: Map<string, A>, text: string, decode: (text: string) => A): A => {
  if (cache.has(text)) return cache.get(text) as A
  const value = decode(text)
  if (cache.size > 64) cache.clear()
  cache.set(text, value)
  return value
}

// Without an option or `STEWARD_REFLEX_FIT_THREADS`, an import's fits use this many threads (the
// calling thread waits for its workers). Sized by configuration, never by sampling the host.
const DEFAULT_FIT_THREADS = 2
const FIT_THREADS_VARIABLE = "STEWARD_REFLEX_FIT_THREADS"

const load = (
  definition: ReflexDefinition<any>,
  compile: AlgalProgram.Compile,
  source: CustomSource | undefined
) =>
  Effect.gen(function*() {
    const shipped = yield* compile(definition.name, Reflex.organismText(definition.organism), false).pipe(
      Effect.mapError((e) =>
        ReflexError.make(
          "program-rejected",
          `the ${definition.name} organism is not admissible: ${e.message}`,
          e.details
        )
      )
    )
    if (source === undefined) return { definition, shipped, program: shipped, fault: null, violations: [] } as Loaded
    if (Either.isLeft(source.text)) {
      return {
        definition,
        shipped,
        program: shipped,
        fault: `custom reflex program rejected; using the shipped program (${source.text.left})`,
        violations: [{ rule: "file", message: source.text.left }]
      } as Loaded
    }
    const custom = yield* Effect.either(compile(definition.name, source.text.right, true))
    if (Either.isRight(custom)) return { definition, shipped, program: custom.right, fault: null, violations: [] }
    const details = custom.left.details as { readonly violations?: ReadonlyArray<Violation> } | undefined
    return {
      definition,
      shipped,
      program: shipped,
      fault: "custom reflex program rejected; using the shipped program",
      violations: details?.violations ?? [{ rule: "program", message: custom.left.message }]
    } as Loaded
  })

/** Load every reflex and wire the context. @internal */
export const make = (options: Options) =>
  Effect.gen(function*() {
    const ledger = yield* ReflexLedger
    const config = options.config ?? ReflexConfig.defaults
    const compile = options.compile ?? AlgalProgram.compile
    const definitions = new Map<string, Loaded>()
    const byDigest = new Map<string, DecisionProgram>()
    for (const raw of [...Reflex.builtins, ...(options.reflexes ?? [])]) {
      const definition = yield* Reflex.make(raw)
      if (definitions.has(definition.name)) {
        return yield* ReflexError.make("invalid-input", `reflex ${definition.name} is defined twice`)
      }
      const l = yield* load(definition, compile, options.custom?.[definition.name])
      byDigest.set(l.shipped.digest, l.shipped)
      byDigest.set(l.program.digest, l.program)
      definitions.set(definition.name, l)
    }

    const loaded = (reflex: string) => {
      const l = definitions.get(reflex)
      return l === undefined
        ? Effect.fail(
          ReflexError.make(
            "unknown-reflex",
            `unknown reflex ${JSON.stringify(reflex)} (known: ${[...definitions.keys()].join(", ")})`
          )
        )
        : Effect.succeed(l)
    }

    const decodedParams = new Map<string, Params.Params | undefined>()
    const decodedCertificates = new Map<string, Learning.Certificate | undefined>()

    const activeParams = (definition: ReflexDefinition<any>) =>
      Effect.map(ledger.activeGeneration(definition.name), (stored): Params.Params => {
        if (Option.isNone(stored)) return definition.prior
        const params = memo(decodedParams, stored.value.payload, Params.decodeJsonOption)
        if (params === undefined) return definition.prior
        if (Params.validate(params, definition.name, definition.heads) !== undefined) return definition.prior
        for (const head of definition.heads) {
          if (!Params.sameSchema(params.heads[head]!, definition.prior.heads[head]!)) return definition.prior
        }
        return params
      })

    const certificateOf = (reflex: string, head: string) =>
      Effect.map(ledger.certificate(reflex, head), (stored) =>
        Option.isNone(stored)
          ? undefined
          : memo(decodedCertificates, stored.value.payload, Learning.decodeCertificatePayload))

    const replayCaches = new Map<string, Learning.ReplayCache>()
    const replayCache = (reflex: string, head: string) => {
      const k = `${reflex}.${head}`
      let cache = replayCaches.get(k)
      if (cache === undefined) {
        cache = Learning.makeReplayCache()
        replayCaches.set(k, cache)
      }
      return cache
    }

    const configured = yield* Config.option(Config.integer(FIT_THREADS_VARIABLE)).pipe(
      Effect.mapError((e) => ReflexError.make("invalid-input", `${FIT_THREADS_VARIABLE}: ${String(e)}`))
    )
    const fitThreads = options.fitThreads ?? Option.getOrElse(configured, () => DEFAULT_FIT_THREADS)
    const fitWorkers = yield* Effect.serviceOption(FitWorkers)
    const context: EngineContext = {
      ledger,
      config,
      compile,
      fitOptions: options.fit ?? Learning.defaultFitOptions,
      fitThreads: Math.max(0, Math.min(16, Math.floor(fitThreads))),
      fitWorkers,
      definitions,
      byDigest,
      loaded,
      activeParams,
      certificateOf,
      replayCache
    }
    return context
  })
