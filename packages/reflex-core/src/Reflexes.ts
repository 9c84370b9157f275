/**
 * The reflex engine: decide (run the admitted organism, apply the gates outside it, record an
 * observation), label, train and promote, certify, import, roll back, replay and report status.
 * Generic over `ReflexDefinition`s, so user-defined reflexes get the same machinery.
 *
 * This module holds the service, its models and a `make` that wires; each operation lives in its
 * own internal module over one shared context (`internal/engine/`: decide, train, labels, import,
 * status).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import type * as AlgalProgram from "./AlgalProgram.js"
import type { Violation } from "./DecisionProgram.js"
import type { Features } from "./Features.js"
import * as EngineContext from "./internal/engine/context.js"
import * as Decide from "./internal/engine/decide.js"
import * as Importing from "./internal/engine/import.js"
import * as Labeling from "./internal/engine/labels.js"
import * as Reporting from "./internal/engine/status.js"
import * as Training from "./internal/engine/train.js"
import type * as Labels from "./Labels.js"
import type * as Learning from "./Learning.js"
import type * as Params from "./Params.js"
import type { InputOf, ReflexDefinition } from "./Reflex.js"
import type * as ReflexConfig from "./ReflexConfig.js"
import type * as ReflexError from "./ReflexError.js"
import type { ReflexLedger } from "./ReflexLedger.js"
import type { TrainOptions } from "./TrainProgress.js"

/**
 * Options of one decision.
 *
 * @since 0.1.0
 * @category models
 */
export interface DecideOptions {
  /** What the decision is about (a task id, `task#revision`); idempotent per subject. Never text. */
  readonly subject: string
  /** Record an observation (default true). */
  readonly record?: boolean
  /** Task and revision for the one-in-ten hold-back (default: subject, 0). */
  readonly task?: string
  readonly revision?: number
  /** Route only among these values (e.g. the tiers with an eligible account). */
  readonly eligible?: ReadonlyArray<string>
}

/**
 * A decision and what the runtime made of it.
 *
 * @since 0.1.0
 * @category models
 */
export interface DecisionResult {
  readonly reflex: string
  readonly skipped: false
  /** The observation id (recorded or, with `record: false`, the id it would have). */
  readonly observation: string
  readonly recorded: boolean
  readonly decision: Readonly<Record<string, string | number>>
  /** The program's own value before the runtime gates. */
  readonly programValue: string
  readonly features: Features
  readonly evidence: Readonly<Record<string, unknown>>
  readonly vetoed: boolean
  readonly mode: ReflexConfig.Mode
  readonly certified: boolean
  readonly held: boolean
  /** Whether the runtime may act on this decision for the person. */
  readonly acts: boolean
  /**
   * Why it acts or does not, in one line: vetoed (by which cue class), a failed gate, mode
   * observe, not certified yet (fires and precision so far against the floor and the fires
   * needed), or held back (one turn in ten, by hash).
   */
  readonly why: string
  readonly receipt: string
  readonly program: string
  readonly custom: boolean
  readonly paramsVersion: number
}

/**
 * A turn that was not scored (e.g. unknown tool-call count).
 *
 * @since 0.1.0
 * @category models
 */
export interface Skipped {
  readonly reflex: string
  readonly skipped: true
  readonly reason: string
}

/**
 * One written label.
 *
 * @since 0.1.0
 * @category models
 */
export interface WrittenLabel {
  readonly reflex: string
  readonly observation: string
  readonly head: string
  readonly label: boolean
  readonly weight: number
  readonly source: string
}

/**
 * The outcome of a reply.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReplyResult {
  readonly category: Labels.ReplyCategory
  readonly escalation: "frontier" | "standard" | null
  readonly labels: ReadonlyArray<WrittenLabel>
  readonly trained: ReadonlyArray<TrainReport>
}

/**
 * The evidence of one head's certificate.
 *
 * @since 0.1.0
 * @category models
 */
export type CertificateView = Omit<Learning.Certificate, "model">

/**
 * One head's training outcome.
 *
 * @since 0.1.0
 * @category models
 */
export interface HeadTraining {
  readonly head: string
  readonly labels: number
  readonly positives: number
  readonly promoted: boolean
  readonly reason: string
  readonly comparison?: Params.Comparison
}

/**
 * A training pass.
 *
 * @since 0.1.0
 * @category models
 */
export interface TrainReport {
  readonly reflex: string
  readonly strategy: ReflexConfig.Promotion
  readonly previousVersion: number
  readonly version: number
  readonly promoted: boolean
  readonly heads: ReadonlyArray<HeadTraining>
  readonly certificates: ReadonlyArray<CertificateView>
}

/**
 * An import.
 *
 * @since 0.1.0
 * @category models
 */
export interface ImportReport {
  readonly reflex: string
  readonly dryRun: boolean
  readonly inserted: number
  readonly examples: number
  readonly adoptedVersion: number | null
  readonly certificates: ReadonlyArray<
    Pick<CertificateView, "head" | "certified" | "threshold" | "fired" | "precision" | "lower" | "reason">
  >
}

/**
 * A replayed observation.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReplayResult {
  readonly observation: string
  readonly reflex: string
  readonly recorded: {
    readonly value: string
    readonly gate: string
    readonly head: string
    readonly score: number
    readonly receipt: string
  }
  readonly replayed: {
    readonly value: string
    readonly gate: string
    readonly head: string
    readonly score: number
    readonly receipt: string
  }
  readonly matches: boolean
}

/**
 * One row of a calibration table.
 *
 * @since 0.1.0
 * @category models
 */
export interface CalibrationBin {
  readonly from: number
  readonly to: number
  readonly n: number
  readonly meanP: number | null
  readonly observed: number | null
}

/**
 * Status of one head.
 *
 * @since 0.1.0
 * @category models
 */
export interface HeadStatus {
  readonly head: string
  readonly mode: ReflexConfig.Mode
  /** What the mode means now (e.g. "auto: watching until certified (…)"). */
  readonly standing: string
  readonly labels: number
  readonly positives: number
  readonly threshold: number
  /** The active head on every retained label. */
  readonly metrics: Params.Metrics | null
  /** The active head on the fixed holdout. */
  readonly holdout: Params.Metrics | null
  readonly trial: { readonly fresh: number; readonly needed: number; readonly reason: string } | null
  readonly certificate: CertificateView | null
  readonly calibration: ReadonlyArray<CalibrationBin>
}

/**
 * Status of one reflex.
 *
 * @since 0.1.0
 * @category models
 */
export interface Status {
  readonly reflex: string
  readonly description: string
  readonly generation: { readonly version: number; readonly parent: number | null; readonly trainedOn: number }
  readonly generations: number
  readonly program: {
    readonly digest: string
    readonly custom: boolean
    readonly fault: string | null
    readonly violations: ReadonlyArray<Violation>
  }
  readonly learn: boolean
  readonly promotion: ReflexConfig.Promotion
  readonly observed: number
  readonly labeled: number
  readonly heads: ReadonlyArray<HeadStatus>
}

/**
 * A custom organism source for a reflex (`<state>/reflexes/<name>.algal.json`).
 *
 * @since 0.1.0
 * @category models
 */
export interface CustomSource {
  readonly file: string
  /** The file text, or why it could not be read. */
  readonly text: Either.Either<string, string>
}

/**
 * Engine options.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly config?: ReflexConfig.ReflexConfig
  /** Extra (user-defined) reflexes, next to `route` and `settle`. */
  readonly reflexes?: ReadonlyArray<ReflexDefinition<any>>
  /** Custom organisms by reflex name. */
  readonly custom?: Readonly<Record<string, CustomSource>>
  /** How organisms become programs (default: `AlgalProgram.compile`). */
  readonly compile?: AlgalProgram.Compile
  readonly fit?: Learning.FitOptions
  /**
   * Threads that fit an import's scheduled challengers ahead of its replays (the calling thread
   * waits for them), when the layer provides `FitWorkers`. Default: the `STEWARD_REFLEX_FIT_THREADS`
   * config value, else 2; 0 or 1 fits on the calling thread only. Results are the same either way
   * (ADR 0450, ADR 0406, ADR 0411).
   */
  readonly fitThreads?: number
}

/**
 * The engine service.
 *
 * @since 0.1.0
 * @category tags
 */
export class Reflexes extends Context.Tag("@steward/reflex-core/Reflexes")<Reflexes, {
  readonly names: ReadonlyArray<string>
  readonly config: ReflexConfig.ReflexConfig
  readonly definition: (reflex: string) => Effect.Effect<ReflexDefinition<any>, ReflexError.ReflexError>
  readonly features: (reflex: string, input: unknown) => Effect.Effect<Features | null, ReflexError.ReflexError>
  /**
   * Decide. The input is typed by the reflex: a definition's own input type, the built-in's
   * input for `"route"` and `"settle"`, `unknown` for any other name (checked by its extractor).
   */
  readonly decide: <R extends string | ReflexDefinition<any, any>>(
    reflex: R,
    input: InputOf<R>,
    options: DecideOptions
  ) => Effect.Effect<DecisionResult | Skipped, ReflexError.ReflexError>
  /** Explicit label (`value` per the reflex's mapping) of an observation id or the latest decision of a subject. */
  readonly label: (reflex: string, target: string, value: string) => Effect.Effect<ReplyResult, ReflexError.ReflexError>
  /** Categorize a reply and label the subject's latest settle (and, for tier requests, route) decision. */
  readonly reply: (text: string, subject?: string) => Effect.Effect<ReplyResult, ReflexError.ReflexError>
  /** The person started another task: the subject's finished turn is labeled done at half weight. */
  readonly startedAnotherTask: (subject: string) => Effect.Effect<ReplyResult, ReflexError.ReflexError>
  /** Write labels directly (e.g. continuation outcomes); runs training on the every-16 cadence. */
  readonly labelObservation: (
    reflex: string,
    observation: string,
    labels: ReadonlyArray<Labels.HeadLabel>
  ) => Effect.Effect<ReplyResult, ReflexError.ReflexError>
  /** Fit, decide promotion and certify now; `onProgress` hears each step as it starts. */
  readonly train: (reflex: string, options?: TrainOptions) => Effect.Effect<TrainReport, ReflexError.ReflexError>
  readonly rollback: (reflex: string, version: number) => Effect.Effect<number, ReflexError.ReflexError>
  readonly replay: (observation: string) => Effect.Effect<ReplayResult, ReflexError.ReflexError>
  readonly importHistory: (
    reflex: string,
    text: string,
    options?: {
      readonly dryRun?: boolean
      readonly file?: string
      /** Adopt won heads and certify after storing (default true). */
      readonly learn?: boolean
    }
  ) => Effect.Effect<ImportReport, ReflexError.ReflexError>
  readonly status: (reflex: string) => Effect.Effect<Status, ReflexError.ReflexError>
  /** Admit an organism source under the reflex `pure` profile (for `check`). */
  readonly check: (text: string) => Effect.Effect<{ readonly digest: string }, ReflexError.ReflexError>
}>() {}

/**
 * Build the engine.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}) =>
  Effect.gen(function*() {
    const ctx = yield* EngineContext.make(options)
    const decide = Decide.decide(ctx)
    const train = Training.train(ctx)
    const labels = Labeling.make(ctx, train)
    return Reflexes.of({
      names: [...ctx.definitions.keys()],
      config: ctx.config,
      definition: (reflex) => Effect.map(ctx.loaded(reflex), (l) => l.definition),
      features: Decide.features(ctx),
      decide: (reflex, input, opts) => decide(typeof reflex === "string" ? reflex : reflex.name, input, opts),
      ...labels,
      train,
      replay: Decide.replay(ctx),
      importHistory: Importing.importHistory(ctx),
      status: Reporting.status(ctx),
      check: Reporting.check(ctx)
    })
  })

/**
 * The engine over a `ReflexLedger`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<Reflexes, ReflexError.ReflexError, ReflexLedger> =>
  Layer.effect(Reflexes, make(options))
