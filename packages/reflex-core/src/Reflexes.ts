/**
 * The reflex engine: decide (run the admitted organism, apply the gates outside it, record an
 * observation), label, train and promote, certify, import, roll back, replay and report status.
 * Generic over `ReflexDefinition`s, so user-defined reflexes get the same machinery.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as AlgalProgram from "./AlgalProgram.js"
import type { Features } from "./Features.js"
import * as Import from "./Import.js"
import * as FitPool from "./internal/fitPool.js"
import * as IdleCores from "./internal/idleCores.js"
import * as Labels from "./Labels.js"
import * as Learning from "./Learning.js"
import * as Params from "./Params.js"
import type { DecisionProgram, Violation } from "./Program.js"
import type { ProgramDecision, ReflexDefinition } from "./Reflex.js"
import * as Reflex from "./Reflex.js"
import * as ReflexConfig from "./ReflexConfig.js"
import * as ReflexError from "./ReflexError.js"
import type { Observation } from "./ReflexLedger.js"
import { clip, importId, observationId, ReflexLedger } from "./ReflexLedger.js"

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
   * Worker threads that fit an import's scheduled challengers ahead of its replays. Default, at
   * each import: the cores that sat idle while it parsed and stored its lines, plus one for the
   * calling thread (which waits for the workers), at most 4; 0 or 1 fits on the calling thread
   * only. Results are the same either way (ADR 0450).
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
  readonly decide: (
    reflex: string,
    input: unknown,
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
  readonly train: (reflex: string) => Effect.Effect<TrainReport, ReflexError.ReflexError>
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

interface Loaded {
  readonly definition: ReflexDefinition<any>
  readonly shipped: DecisionProgram
  readonly program: DecisionProgram
  readonly fault: string | null
  readonly violations: ReadonlyArray<Violation>
}

const view = (c: Learning.Certificate): CertificateView => {
  const { model: _, ...rest } = c
  return rest
}

const calibration = (head: Params.Head, examples: ReadonlyArray<Learning.Example>): Array<CalibrationBin> => {
  const bins = Array.from({ length: 10 }, (_, i) => ({ from: i / 10, to: (i + 1) / 10, n: 0, p: 0, y: 0 }))
  for (const ex of examples) {
    const p = Params.probability(head, ex.features)
    const bin = bins[Math.min(9, Math.floor(p * 10))]!
    bin.n++
    bin.p += p
    if (ex.label) bin.y++
  }
  return bins.map((b) => ({
    from: b.from,
    to: b.to,
    n: b.n,
    meanP: b.n === 0 ? null : Learning.round4(b.p / b.n),
    observed: b.n === 0 ? null : Learning.round4(b.y / b.n)
  }))
}

const decodeCertificate = (payload: string): Learning.Certificate | undefined => {
  try {
    const c = JSON.parse(payload) as Learning.Certificate
    if (typeof c !== "object" || c === null || typeof c.certified !== "boolean" || typeof c.threshold !== "number") {
      return undefined
    }
    const model = c.model
    if (typeof model !== "object" || model === null || typeof model.bias !== "number") return undefined
    return c
  } catch {
    return undefined
  }
}

// Imports with at least this many labels for a head fit on worker threads (when enabled).
const PARALLEL_FROM = 512

const token = /^[a-z0-9_.:-]{0,48}$/

/**
 * Evidence is recorded with every observation, so it must be text-free: booleans, finite numbers,
 * null, identifier-like tokens (≤ 48 of `[a-z0-9_.:-]`), or arrays of those. Returns the first problem.
 */
const textlessProblem = (evidence: Readonly<Record<string, unknown>>): string | undefined => {
  const ok = (v: unknown): boolean =>
    v === null || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v)) ||
    (typeof v === "string" && token.test(v))
  const keys = Object.keys(evidence)
  if (keys.length > 32) return `has ${keys.length} keys; at most 32`
  for (const key of keys) {
    if (!token.test(key)) return `key ${JSON.stringify(key.slice(0, 48))} is not an identifier`
    const v = evidence[key]
    if (Array.isArray(v) ? v.length > 64 || !v.every(ok) : !ok(v)) {
      return `${key} must be a boolean, a finite number, null, a short identifier, or a list of those`
    }
  }
  return undefined
}

const validateDecision = (
  definition: ReflexDefinition<any>,
  output: unknown
): Either.Either<ProgramDecision, ReflexError.ReflexError> => {
  const fail = (message: string) =>
    Either.left(ReflexError.make("program-failed", `${definition.name} program returned ${message}`))
  if (typeof output !== "object" || output === null || Array.isArray(output)) return fail("a non-object decision")
  const o = output as Record<string, unknown>
  const value = o[definition.valueKey]
  if (typeof value !== "string" || !definition.values.includes(value)) {
    return fail(`${definition.valueKey} ${JSON.stringify(value)}, not one of ${definition.values.join(", ")}`)
  }
  const head = o["head"]
  if (typeof head !== "string" || !definition.heads.includes(head)) return fail(`head ${JSON.stringify(head)}`)
  const gate = o["gate"]
  if (typeof gate !== "string") return fail("a non-string gate")
  const score = o["score"]
  if (typeof score !== "number" || !Number.isFinite(score)) return fail("a non-numeric score")
  return Either.right({ value, head, gate: Array.from(gate).slice(0, 32).join(""), score: Math.round(score) })
}

/**
 * Build the engine.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}) =>
  Effect.gen(function*() {
    const ledger = yield* ReflexLedger
    const config = options.config ?? ReflexConfig.defaults
    const compile = options.compile ?? AlgalProgram.compile
    const fitOptions = options.fit ?? Learning.defaultFitOptions
    // Threads on busy cores make worker fits slower, not faster: only the cores that sat idle
    // while the import parsed and stored are used, plus the calling thread's own (it waits).
    const fitThreads = (since: IdleCores.CpuSnapshot) =>
      Math.max(0, Math.floor(options.fitThreads ?? Math.min(4, Math.round(IdleCores.idleSince(since)) + 1)))
    const definitions = new Map<string, Loaded>()
    const byDigest = new Map<string, DecisionProgram>()
    for (const raw of [...Reflex.builtins, ...(options.reflexes ?? [])]) {
      const definition = yield* Reflex.make(raw)
      if (definitions.has(definition.name)) {
        return yield* ReflexError.make("invalid-input", `reflex ${definition.name} is defined twice`)
      }
      const shipped = yield* compile(definition.name, definition.organism, false).pipe(
        Effect.mapError((e) =>
          ReflexError.make(
            "program-rejected",
            `the ${definition.name} organism is not admissible: ${e.message}`,
            e.details
          )
        )
      )
      let program = shipped
      let fault: string | null = null
      let violations: ReadonlyArray<Violation> = []
      const source = options.custom?.[definition.name]
      if (source !== undefined) {
        if (Either.isLeft(source.text)) {
          fault = `custom reflex program rejected; using the shipped program (${source.text.left})`
          violations = [{ rule: "file", message: source.text.left }]
        } else {
          const custom = yield* Effect.either(compile(definition.name, source.text.right, true))
          if (Either.isRight(custom)) {
            program = custom.right
          } else {
            fault = "custom reflex program rejected; using the shipped program"
            const details = custom.left.details as { readonly violations?: ReadonlyArray<Violation> } | undefined
            violations = details?.violations ?? [{ rule: "program", message: custom.left.message }]
          }
        }
      }
      byDigest.set(shipped.digest, shipped)
      byDigest.set(program.digest, program)
      definitions.set(definition.name, { definition, shipped, program, fault, violations })
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

    // Decoded payloads by their exact text (generations and certificates are immutable rows).
    const decodedParams = new Map<string, Params.Params | undefined>()
    const decodedCertificates = new Map<string, Learning.Certificate | undefined>()
    const memo = <A>(cache: Map<string, A>, text: string, decode: (text: string) => A): A => {
      if (cache.has(text)) return cache.get(text) as A
      const value = decode(text)
      if (cache.size > 64) cache.clear()
      cache.set(text, value)
      return value
    }

    /** The active generation, unless unreadable or its feature schema differs from the prior. */
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
        Option.isNone(stored) ? undefined : memo(decodedCertificates, stored.value.payload, decodeCertificate))

    const extract = (definition: ReflexDefinition<any>, input: unknown) =>
      Effect.suspend(() => {
        try {
          return definition.extract(input)
        } catch (error) {
          return Either.left(
            ReflexError.make("invalid-input", `${definition.name}: cannot extract features: ${String(error)}`)
          )
        }
      })

    const runProgram = (
      l: Loaded,
      program: DecisionProgram,
      features: Features,
      params: Params.Params,
      evidence: Record<string, unknown>
    ) =>
      Effect.flatMap(
        program.run({ features, params: Params.programInput(params), evidence }),
        (run) =>
          Either.map(validateDecision(l.definition, run.decision), (decision) => ({ decision, run }))
      )

    const decide = Effect.fn("Reflexes.decide")(function*(reflex: string, input: unknown, opts: DecideOptions) {
      const l = yield* loaded(reflex)
      const extraction = yield* extract(l.definition, input)
      if (extraction._tag === "Skipped") return { reflex, skipped: true, reason: extraction.reason } as Skipped
      const { evidence, features } = extraction.extracted
      const names = Object.keys(features)
      if (names.length > 32) {
        return yield* ReflexError.make("invalid-input", `${reflex}: ${names.length} features; at most 32`)
      }
      for (const name of names) {
        const v = features[name]
        if (!/^[a-z0-9_]{1,48}$/.test(name) || typeof v !== "number" || !Number.isFinite(v)) {
          return yield* ReflexError.make(
            "invalid-input",
            `${reflex}: feature ${JSON.stringify(name)} must be a finite number named [a-z0-9_]{1,48}`
          )
        }
      }
      const leak = textlessProblem(evidence)
      if (leak !== undefined) {
        return yield* ReflexError.make("invalid-input", `${reflex}: evidence ${leak} (the ledger never stores text)`)
      }
      const params = yield* activeParams(l.definition)
      const { decision, run } = yield* runProgram(l, l.program, features, params, evidence)
      const gated = l.definition.gate(decision, extraction.extracted)
      let value = gated.value
      let eligible = true
      if (opts.eligible !== undefined) {
        const allowed = opts.eligible.filter((v) => l.definition.values.includes(v))
        if (allowed.includes(value)) {
          // keep
        } else if (allowed.length > 0) {
          value = allowed[0]!
        } else {
          eligible = false
        }
      }
      const mode = ReflexConfig.modeOf(config, reflex, decision.head)
      const certificate = mode === "auto" && l.definition.certification[decision.head] !== undefined
        ? yield* certificateOf(reflex, decision.head)
        : undefined
      const certified = Learning.certifiedFor(certificate, features)
      const held = mode === "auto" && Learning.heldTurn(decision.head, opts.task ?? opts.subject, opts.revision ?? 0)
      const modeActs = mode === "active" || (mode === "auto" && certified && !held)
      // `actionable` already folds in the vetoes that apply to this value (the confirm veto for
      // `confirm`, owner-only steps for `stopped_short`).
      const acts = mode !== "off" && modeActs && gated.actionable && eligible
      const now = yield* Clock.currentTimeMillis
      const observation: Observation = {
        id: observationId(reflex, opts.subject),
        reflex,
        subject: clip(opts.subject, 200),
        head: decision.head,
        value,
        gate: decision.gate,
        score: decision.score,
        features,
        evidence,
        paramsVersion: params.version,
        program: l.program.digest,
        receipt: run.receiptDigest,
        atMs: now
      }
      const recorded = opts.record === false || mode === "off" ? false : yield* ledger.record(observation)
      const result: DecisionResult = {
        reflex,
        skipped: false,
        observation: observation.id,
        recorded,
        decision: {
          [l.definition.valueKey]: value,
          gate: decision.gate,
          head: decision.head,
          score: decision.score
        },
        programValue: decision.value,
        features,
        evidence,
        vetoed: gated.vetoed,
        mode,
        certified,
        held,
        acts,
        receipt: run.receiptDigest,
        program: l.program.digest,
        custom: l.program.custom,
        paramsVersion: params.version
      }
      return result
    })

    // -------------------------------------------------------------------------------------------
    // training and certification
    // -------------------------------------------------------------------------------------------

    // Per-head replay checkpoints: each training pass resumes the prequential replay.
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

    const certifyAll = (
      l: Loaded,
      replays: Readonly<
        Record<
          string,
          {
            readonly examples: ReadonlyArray<Learning.Example>
            readonly replayed?: ReturnType<typeof Learning.replay> | undefined
            readonly memo?: Learning.FitMemo | undefined
          }
        >
      > = {}
    ) =>
      Effect.gen(function*() {
        const out: Array<CertificateView> = []
        const now = yield* Clock.currentTimeMillis
        for (const [head, spec] of Object.entries(l.definition.certification)) {
          const shared = replays[head]
          const examples = shared?.examples ?? (yield* ledger.examples(l.definition.name, head, Learning.MAX_EXAMPLES))
          const previous = yield* certificateOf(l.definition.name, head)
          const certificate = Learning.certify({
            head,
            prior: l.definition.prior.heads[head]!,
            examples,
            floor: spec.floor,
            actionable: spec.actionable ?? (() => true),
            previous,
            options: fitOptions,
            replayed: shared?.replayed,
            cache: replayCache(l.definition.name, head),
            memo: shared?.memo
          })
          const through = examples.reduce((m, e) => Math.max(m, e.seq), 0)
          yield* ledger.putCertificate(l.definition.name, head, {
            payload: JSON.stringify(certificate),
            atMs: now,
            through
          })
          out.push(view(certificate))
        }
        return out
      })

    const train = Effect.fn("Reflexes.train")(function*(reflex: string) {
      const l = yield* loaded(reflex)
      const definition = l.definition
      const active = yield* activeParams(definition)
      const now = yield* Clock.currentTimeMillis
      const heads: Array<HeadTraining> = []
      const promotedHeads: Record<string, Params.Head> = {}
      const evidence: Record<string, Params.Comparison> = {}
      let trainedOn = 0
      for (const head of definition.heads) {
        const prior = definition.prior.heads[head]!
        const current = active.heads[head]!
        const examples = yield* ledger.examples(reflex, head, Learning.MAX_EXAMPLES)
        const positives = examples.filter((e) => e.label).length
        trainedOn = Math.max(trainedOn, examples.length)
        const base = { head, labels: examples.length, positives }
        if (config.promotion === "holdout") {
          const training = examples.filter((e) => !Learning.isHoldout(e.observation))
          const holdout = examples.filter((e) => Learning.isHoldout(e.observation))
          const candidate = Learning.fit(prior, training, fitOptions)
          if (Params.sameHead(candidate, current)) {
            heads.push({ ...base, promoted: false, reason: "the fitted head equals the active head" })
            continue
          }
          const comparison = Learning.compareHoldout(current, candidate, holdout)
          if (comparison.promoted) {
            promotedHeads[head] = candidate
            evidence[head] = comparison
          }
          heads.push({ ...base, promoted: comparison.promoted, reason: comparison.reason, comparison })
          continue
        }
        // forward trials
        const trial = yield* ledger.trial(reflex, head)
        let closed = true
        let outcome: HeadTraining | undefined
        if (Option.isSome(trial)) {
          const candidate = Params.decodeJsonOption(
            JSON.stringify({
              reflex,
              version: 0,
              parent: null,
              heads: { [head]: JSON.parse(trial.value.candidate) },
              trained_on: 0,
              evidence: {}
            })
          )?.heads[head]
          if (candidate === undefined || !Params.sameSchema(candidate, prior)) {
            yield* ledger.deleteTrial(reflex, head)
          } else {
            const fresh = examples.filter((e) => e.seq > trial.value.fittedThrough)
            const verdict = Learning.compareForward(current, candidate, fresh)
            if (!verdict.decided) {
              closed = false
              outcome = { ...base, promoted: false, reason: verdict.comparison.reason, comparison: verdict.comparison }
            } else {
              yield* ledger.deleteTrial(reflex, head)
              if (verdict.comparison.promoted) {
                promotedHeads[head] = candidate
                evidence[head] = verdict.comparison
              }
              outcome = {
                ...base,
                promoted: verdict.comparison.promoted,
                reason: verdict.comparison.reason,
                comparison: verdict.comparison
              }
            }
          }
        }
        if (closed) {
          const candidate = Learning.fit(prior, examples, fitOptions)
          const against = promotedHeads[head] ?? current
          if (!Params.sameHead(candidate, against) && examples.length > 0) {
            const through = examples.reduce((m, e) => Math.max(m, e.seq), 0)
            yield* ledger.putTrial(reflex, head, {
              candidate: JSON.stringify(candidate),
              startedAtMs: now,
              fittedThrough: through
            })
            outcome ??= { ...base, promoted: false, reason: "fitted a challenger; it trials on the next labels" }
          }
          outcome ??= { ...base, promoted: false, reason: "no challenger: the fit equals the active head" }
        }
        heads.push(outcome!)
      }
      let version = active.version
      const promoted = Object.keys(promotedHeads).length > 0
      if (promoted) {
        version = yield* ledger.promote(reflex, active.version, now, (v, parent) =>
          Params.encodeJson({
            reflex,
            version: v,
            parent,
            heads: { ...active.heads, ...promotedHeads },
            trained_on: trainedOn,
            evidence
          }))
      }
      const certificates = yield* certifyAll(l)
      const report: TrainReport = {
        reflex,
        strategy: config.promotion,
        previousVersion: active.version,
        version,
        promoted,
        heads,
        certificates
      }
      return report
    })

    const afterLabels = (reflex: string, before: number, after: number) =>
      config.learn && Math.floor(after / Learning.TRAIN_EVERY) > Math.floor(before / Learning.TRAIN_EVERY)
        ? train(reflex).pipe(
          Effect.map((r) => [r]),
          // another writer promoted first: its pass wins, ours is dropped
          Effect.catchIf((e) => e.code === "conflict", () => Effect.succeed([] as Array<TrainReport>))
        )
        : Effect.succeed([] as Array<TrainReport>)

    const writeLabels = (reflex: string, observation: string, labels: ReadonlyArray<Labels.HeadLabel>) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const write = yield* ledger.label(reflex, observation, labels, now)
        const trained = yield* afterLabels(reflex, write.before, write.after)
        return {
          written: labels.filter((_, i) => write.applied[i] === true).map((x): WrittenLabel => ({
            reflex,
            observation,
            ...x
          })),
          trained
        }
      })

    const resolve = (reflex: string, target: string) =>
      Effect.gen(function*() {
        if (/^obs_[0-9a-f]{32}$/.test(target)) {
          const byId = yield* ledger.observation(target)
          if (Option.isSome(byId) && byId.value.reflex === reflex) return byId.value
        }
        const latest = yield* ledger.latest(reflex, target)
        if (Option.isNone(latest)) {
          return yield* ReflexError.make("not-found", `no ${reflex} decision recorded for ${JSON.stringify(target)}`)
        }
        return latest.value
      })

    const label = Effect.fn("Reflexes.label")(function*(reflex: string, target: string, value: string) {
      const l = yield* loaded(reflex)
      const observation = yield* resolve(reflex, target)
      const mapped = l.definition.explicitLabels(value, observation.head)
      if (mapped === undefined) {
        return yield* ReflexError.make("invalid-input", `unknown ${reflex} label ${JSON.stringify(value)}`)
      }
      const labels = mapped.map((m): Labels.HeadLabel => ({ ...m, weight: 1, source: Labels.EXPLICIT }))
      const { trained, written } = yield* writeLabels(reflex, observation.id, labels)
      const result: ReplyResult = { category: "other", escalation: null, labels: written, trained }
      return result
    })

    const replyLabels = (
      category: Labels.ReplyCategory,
      escalation: "frontier" | "standard" | undefined,
      subject?: string
    ) =>
      Effect.gen(function*() {
        const written: Array<WrittenLabel> = []
        const trained: Array<TrainReport> = []
        if (subject === undefined) return { category, escalation: escalation ?? null, labels: written, trained }
        const settleLabels = Labels.settleLabels(category)
        if (settleLabels.length > 0 && definitions.has("settle")) {
          const obs = yield* ledger.latest("settle", subject)
          if (Option.isSome(obs)) {
            const r = yield* writeLabels("settle", obs.value.id, settleLabels)
            written.push(...r.written)
            trained.push(...r.trained)
          }
        }
        if (escalation !== undefined && definitions.has("route")) {
          const obs = yield* ledger.latest("route", subject)
          if (Option.isSome(obs)) {
            const r = yield* writeLabels("route", obs.value.id, [
              { head: obs.value.head, label: escalation === "frontier", weight: 1, source: Labels.MODEL_REQUEST }
            ])
            written.push(...r.written)
            trained.push(...r.trained)
          }
        }
        const result: ReplyResult = { category, escalation: escalation ?? null, labels: written, trained }
        return result
      })

    const reply = Effect.fn("Reflexes.reply")(function*(text: string, subject?: string) {
      return yield* replyLabels(Labels.categorizeReply(text), Labels.escalation(text), subject)
    })

    const startedAnotherTask = Effect.fn("Reflexes.startedAnotherTask")(function*(subject: string) {
      return yield* replyLabels("other", undefined, subject)
    })

    const labelObservation = Effect.fn("Reflexes.labelObservation")(function*(
      reflex: string,
      observation: string,
      labels: ReadonlyArray<Labels.HeadLabel>
    ) {
      const l = yield* loaded(reflex)
      for (const x of labels) {
        if (!l.definition.heads.includes(x.head)) {
          return yield* ReflexError.make("invalid-input", `reflex ${reflex} has no head ${JSON.stringify(x.head)}`)
        }
        if (!(x.weight > 0 && x.weight <= 1)) {
          return yield* ReflexError.make("invalid-input", `label weight ${x.weight} is not in (0, 1]`)
        }
      }
      const { trained, written } = yield* writeLabels(reflex, observation, labels)
      const result: ReplyResult = { category: "other", escalation: null, labels: written, trained }
      return result
    })

    const rollback = Effect.fn("Reflexes.rollback")(function*(reflex: string, version: number) {
      yield* loaded(reflex)
      if (!Number.isInteger(version) || version < 0) {
        return yield* ReflexError.make(
          "invalid-input",
          `generation version must be a non-negative integer, got ${version}`
        )
      }
      yield* ledger.rollback(reflex, version)
      return version
    })

    const paramsAt = (l: Loaded, version: number) =>
      Effect.gen(function*() {
        if (version === 0) return l.definition.prior
        const all = yield* ledger.generations(l.definition.name)
        const stored = all.find((g) => g.version === version)
        const params = stored === undefined ? undefined : Params.decodeJsonOption(stored.payload)
        if (params === undefined) {
          return yield* ReflexError.make(
            "not-found",
            `generation ${version} of ${l.definition.name} is no longer stored`
          )
        }
        return params
      })

    const replay = Effect.fn("Reflexes.replay")(function*(id: string) {
      const found = yield* ledger.observation(id)
      if (Option.isNone(found)) return yield* ReflexError.make("not-found", `no observation ${JSON.stringify(id)}`)
      const o = found.value
      const l = yield* loaded(o.reflex)
      if (o.receipt === "") {
        return yield* ReflexError.make("invalid-input", `observation ${id} was imported; it has no decision to replay`)
      }
      const program = byDigest.get(o.program)
      if (program === undefined) {
        return yield* ReflexError.make("not-found", `program ${o.program} of observation ${id} is not loaded`)
      }
      const params = yield* paramsAt(l, o.paramsVersion)
      const { decision, run } = yield* runProgram(l, program, o.features, params, o.evidence as Record<string, unknown>)
      const gated = l.definition.gate(decision, {
        features: o.features,
        evidence: o.evidence as Record<string, unknown>,
        facts: { substantial: o.evidence["substantial"] === true }
      })
      const recorded = { value: o.value, gate: o.gate, head: o.head, score: o.score, receipt: o.receipt }
      const replayed = {
        value: gated.value,
        gate: decision.gate,
        head: decision.head,
        score: decision.score,
        receipt: run.receiptDigest
      }
      // The receipt digest covers the program's outputs: equal digests mean the same decision.
      const result: ReplayResult = {
        observation: id,
        reflex: o.reflex,
        recorded,
        replayed,
        matches: recorded.receipt === replayed.receipt && recorded.head === replayed.head &&
          recorded.gate === replayed.gate && recorded.score === replayed.score
      }
      return result
    })

    const importHistory = Effect.fn("Reflexes.importHistory")(function*(
      reflex: string,
      text: string,
      opts?: { readonly dryRun?: boolean; readonly file?: string; readonly learn?: boolean }
    ) {
      const started = IdleCores.snapshot()
      const l = yield* loaded(reflex)
      const lines = yield* Import.parse(l.definition, text, opts?.file ?? "import")
      const now = yield* Clock.currentTimeMillis
      // The replays' challengers, fitted ahead on worker threads (same function, same heads);
      // should that fail, each replay fits its windows itself.
      const prefit = (
        histories: ReadonlyArray<{ head: string; examples: ReadonlyArray<Learning.Example>; memo: Learning.FitMemo }>
      ) => {
        const threads = fitThreads(started)
        if (threads <= 1 || !histories.some((h) => h.examples.length >= PARALLEL_FROM)) return Effect.void
        return FitPool.prefit(
          histories.map(({ examples, head, memo }) => {
            const prior = l.definition.prior.heads[head]!
            return {
              examples,
              prior,
              options: fitOptions,
              windows: Learning.scheduledFits(examples.length),
              store: (from: number, to: number, fitted: Params.Head) =>
                Learning.rememberFit(memo, prior, fitOptions, from, to, fitted)
            }
          }),
          threads
        ).pipe(Effect.catchAllCause(() => Effect.void))
      }
      const byHead = (
        examples: (head: string) => ReadonlyArray<Learning.Example>,
        memos?: ReadonlyMap<string, Learning.FitMemo>
      ) =>
        l.definition.heads.map((head) => {
          const spec = l.definition.certification[head]
          const prior = l.definition.prior.heads[head]!
          if (spec === undefined) {
            return {
              head,
              certified: false,
              threshold: prior.threshold,
              fired: 0,
              precision: 0,
              lower: 0,
              reason: `${reflex}.${head} is not certifiable`
            }
          }
          const c = Learning.certify({
            head,
            prior,
            examples: examples(head),
            floor: spec.floor,
            actionable: spec.actionable ?? (() => true),
            options: fitOptions,
            memo: memos?.get(head)
          })
          return {
            head,
            certified: c.certified,
            threshold: c.threshold,
            fired: c.fired,
            precision: c.precision,
            lower: c.lower,
            reason: c.reason
          }
        })
      if (opts?.dryRun === true) {
        const histories = l.definition.heads.map((head) => {
          const examples = lines.filter((x) => x.head === head).map((x, i): Learning.Example => ({
            observation: importId(reflex, head, x.id),
            features: x.features,
            label: x.label,
            weight: x.weight,
            source: "import",
            seq: i + 1
          }))
          return { head, examples, memo: Learning.makeFitMemo(examples) }
        })
        yield* prefit(histories.filter((h) => l.definition.certification[h.head] !== undefined))
        const byName = new Map(histories.map((h) => [h.head, h]))
        const report: ImportReport = {
          reflex,
          dryRun: true,
          inserted: 0,
          examples: lines.length,
          adoptedVersion: null,
          certificates: byHead(
            (head) => byName.get(head)!.examples,
            new Map(histories.map((h) => [h.head, h.memo]))
          )
        }
        return report
      }
      const rows = lines.map((x) => ({
        observation: {
          id: importId(reflex, x.head, x.id),
          reflex,
          subject: clip(`import:${x.id}`, 200),
          head: x.head,
          value: "imported",
          gate: "import",
          score: 0,
          features: x.features,
          evidence: x.evidence,
          paramsVersion: 0,
          program: "",
          receipt: "",
          atMs: now
        } satisfies Observation,
        labels: [{ head: x.head, label: x.label, weight: x.weight, source: "import" }]
      }))
      const inserted = yield* ledger.importRows(reflex, rows, now)
      let adoptedVersion: number | null = null
      // Replays from a prior-equal active head are the certification replays too: computed once.
      // Otherwise the certification replay (from the prior) reuses the adoption replay's fits:
      // every challenger is fitted from the prior on the same windows of the same examples.
      const shared: Record<
        string,
        {
          examples: ReadonlyArray<Learning.Example>
          replayed?: ReturnType<typeof Learning.replay>
          memo: Learning.FitMemo
        }
      > = {}
      if (opts?.learn === false) {
        const report: ImportReport = {
          reflex,
          dryRun: false,
          inserted,
          examples: lines.length,
          adoptedVersion,
          certificates: []
        }
        return report
      }
      if (inserted > 0) {
        const active = yield* activeParams(l.definition)
        const won: Record<string, Params.Head> = {}
        let trainedOn = 0
        const histories: Array<{ head: string; examples: ReadonlyArray<Learning.Example>; memo: Learning.FitMemo }> = []
        for (const head of l.definition.heads) {
          const examples = yield* ledger.examples(reflex, head, Learning.MAX_EXAMPLES)
          histories.push({ head, examples, memo: Learning.makeFitMemo(examples) })
        }
        yield* prefit(histories)
        for (const { examples, head, memo } of histories) {
          trainedOn = Math.max(trainedOn, examples.length)
          const prior = l.definition.prior.heads[head]!
          const replayed = Learning.replay(prior, active.heads[head]!, examples, fitOptions, undefined, memo)
          shared[head] = Params.sameHead(active.heads[head]!, prior) ? { examples, replayed, memo } : { examples, memo }
          if (replayed.promotions > 0 && !Params.sameHead(replayed.head, active.heads[head]!)) won[head] = replayed.head
        }
        if (Object.keys(won).length > 0) {
          adoptedVersion = yield* ledger.promote(reflex, active.version, now, (v, parent) =>
            Params.encodeJson({
              reflex,
              version: v,
              parent,
              heads: { ...active.heads, ...won },
              trained_on: trainedOn,
              evidence: {}
            }))
        }
      }
      const stored = yield* certifyAll(l, shared)
      const report: ImportReport = {
        reflex,
        dryRun: false,
        inserted,
        examples: lines.length,
        adoptedVersion,
        certificates: l.definition.heads.map((head) => {
          const c = stored.find((x) => x.head === head)
          return c === undefined
            ? {
              head,
              certified: false,
              threshold: l.definition.prior.heads[head]!.threshold,
              fired: 0,
              precision: 0,
              lower: 0,
              reason: `${reflex}.${head} is not certifiable`
            }
            : {
              head,
              certified: c.certified,
              threshold: c.threshold,
              fired: c.fired,
              precision: c.precision,
              lower: c.lower,
              reason: c.reason
            }
        })
      }
      return report
    })

    const status = Effect.fn("Reflexes.status")(function*(reflex: string) {
      const l = yield* loaded(reflex)
      const params = yield* activeParams(l.definition)
      const generations = yield* ledger.generations(reflex)
      const counts = yield* ledger.counts(reflex)
      const heads: Array<HeadStatus> = []
      for (const head of l.definition.heads) {
        const h = params.heads[head]!
        const examples = yield* ledger.examples(reflex, head, Learning.MAX_EXAMPLES)
        const holdout = examples.filter((e) => Learning.isHoldout(e.observation))
        const trial = config.promotion === "forward" ? yield* ledger.trial(reflex, head) : Option.none()
        const fresh = Option.isSome(trial) ? examples.filter((e) => e.seq > trial.value.fittedThrough).length : 0
        const cert = l.definition.certification[head] === undefined ? undefined : yield* certificateOf(reflex, head)
        heads.push({
          head,
          mode: ReflexConfig.modeOf(config, reflex, head),
          labels: examples.length,
          positives: examples.filter((e) => e.label).length,
          threshold: h.threshold,
          metrics: examples.length === 0 ? null : Learning.evaluate(h, examples),
          holdout: holdout.length === 0 ? null : Learning.evaluate(h, holdout),
          trial: Option.isSome(trial)
            ? {
              fresh,
              needed: Learning.TRIAL_LABELS,
              reason: `trial: ${fresh} of ${Learning.TRIAL_LABELS} fresh labels`
            }
            : null,
          certificate: cert === undefined ? null : view(cert),
          calibration: calibration(h, examples)
        })
      }
      const result: Status = {
        reflex,
        description: l.definition.description,
        generation: { version: params.version, parent: params.parent, trainedOn: params.trained_on },
        generations: generations.length,
        program: { digest: l.program.digest, custom: l.program.custom, fault: l.fault, violations: l.violations },
        learn: config.learn,
        promotion: config.promotion,
        observed: counts.observed,
        labeled: counts.labeled,
        heads
      }
      return result
    })

    const features = Effect.fn("Reflexes.features")(function*(reflex: string, input: unknown) {
      const l = yield* loaded(reflex)
      const extraction = yield* extract(l.definition, input)
      return extraction._tag === "Skipped" ? null : extraction.extracted.features
    })

    const check = Effect.fn("Reflexes.check")(function*(text: string) {
      const program = yield* compile("check", text, true)
      return { digest: program.digest }
    })

    return Reflexes.of({
      names: [...definitions.keys()],
      config,
      definition: (reflex) => Effect.map(loaded(reflex), (l) => l.definition),
      features,
      decide,
      label,
      reply,
      startedAnotherTask,
      labelObservation,
      train,
      rollback,
      replay,
      importHistory,
      status,
      check
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
