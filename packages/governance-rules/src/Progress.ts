/**
 * The progress model: answers "did the world change?" so a looping agent is nudged and then
 * stopped, while a legitimate test-fix loop keeps going.
 *
 * Progress is any of: a file read whose content was never seen (information gain — re-reading
 * known content earns nothing), a file changed to content it never had before (content
 * digests, so flip-flopping edits earn nothing), a test outcome flipping, an exit-code pass/fail
 * pattern changing, a genuinely new error class (numbers, hex, paths and quoted strings
 * normalized away), or the task state moving. Without progress for `idleWindow` iterations the
 * verdict is `nudge` (once); after `postNudgeGrace` more it is `stuck` — even if every call
 * looked different.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Evidence from "./Evidence.js"

/**
 * One iteration of an agent loop, as observed by the host.
 *
 * @since 0.1.0
 * @category models
 */
export const Iteration = Schema.Struct({
  reads: Schema.optional(Schema.Array(Schema.Struct({
    path: Schema.String,
    digest: Schema.String,
    symbols: Schema.optional(Schema.Array(Schema.String))
  }))),
  changes: Schema.optional(Schema.Array(Schema.Struct({ path: Schema.String, digest: Schema.String }))),
  tests: Schema.optional(Schema.Array(Schema.Struct({ name: Schema.String, passed: Schema.Boolean }))),
  exitCodes: Schema.optional(Schema.Array(Schema.Int)),
  errors: Schema.optional(Schema.Array(Schema.String)),
  taskState: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type Iteration = typeof Iteration.Type

/**
 * The verdict on an iteration.
 *
 * - `progress`: something moved (the idle counter and the nudge are reset).
 * - `idle`: nothing moved, still inside the window.
 * - `nudge`: nothing moved for `idleWindow` iterations (returned once per idle stretch).
 * - `stuck`: still nothing after `postNudgeGrace` more: fail the run.
 *
 * @since 0.1.0
 * @category models
 */
export interface Verdict {
  readonly verdict: "progress" | "idle" | "nudge" | "stuck"
  /** What counted as progress, in words (empty when nothing moved). */
  readonly signals: ReadonlyArray<string>
  /** Consecutive iterations without progress. */
  readonly idle: number
  /** Information gain of this iteration's reads. */
  readonly gain: number
}

/**
 * Windows (all configurable).
 *
 * @since 0.1.0
 * @category models
 */
export interface Config {
  /** Idle iterations before the nudge. Default 4. */
  readonly idleWindow?: number
  /** Further idle iterations after the nudge before `stuck`. Default 2. */
  readonly postNudgeGrace?: number
  /** Gain a read needs to count as progress. Default 0.3. */
  readonly productiveGain?: number
}

/**
 * Normalize an error message to its class: lower-cased; hex and digits to `#`; quoted strings
 * to `S`; POSIX and Windows paths to `P`; whitespace collapsed; cut to 160 characters.
 *
 * @since 0.1.0
 * @category utils
 */
export const errorClass = (message: string): string =>
  message
    .toLowerCase()
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, "S")
    .replace(/[a-z]:\\[^\s:]*/g, "P")
    .replace(/(?:\.{0,2}\/)?(?:[\w.@-]+\/)+[\w.@-]+/g, "P")
    .replace(/\b0x[0-9a-f]+\b/g, "#")
    .replace(/\b[0-9a-f]{7,}\b/g, "#")
    .replace(/\d+(?:\.\d+)*/g, "#")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 160)

interface State {
  readonly seenPaths: ReadonlySet<string>
  readonly seenContent: ReadonlySet<string>
  readonly seenSymbols: ReadonlySet<string>
  readonly pathDigests: ReadonlyMap<string, ReadonlySet<string>>
  readonly tests: ReadonlyMap<string, boolean>
  readonly exitPattern: string | null
  readonly errorClasses: ReadonlySet<string>
  readonly taskState: string | null
  readonly idle: number
  readonly nudged: boolean
}

const initial: State = {
  seenPaths: new Set(),
  seenContent: new Set(),
  seenSymbols: new Set(),
  pathDigests: new Map(),
  tests: new Map(),
  exitPattern: null,
  errorClasses: new Set(),
  taskState: null,
  idle: 0,
  nudged: false
}

/**
 * Score one iteration against the state (pure).
 *
 * @since 0.1.0
 * @category utils
 */
export const step = (state: State, iteration: Iteration, config: Config = {}): readonly [Verdict, State] => {
  const window = Math.max(1, config.idleWindow ?? 4)
  const grace = Math.max(0, config.postNudgeGrace ?? 2)
  const productive = config.productiveGain ?? 0.3
  const signals: Array<string> = []
  const seenPaths = new Set(state.seenPaths)
  const seenContent = new Set(state.seenContent)
  const seenSymbols = new Set(state.seenSymbols)
  const pathDigests = new Map(state.pathDigests)
  const tests = new Map(state.tests)
  const errorClasses = new Set(state.errorClasses)
  let gain = 0
  for (const read of iteration.reads ?? []) {
    let g = 0
    if (!seenPaths.has(read.path)) g += 0.2
    if (!seenContent.has(read.digest)) g += 0.3
    let fresh = 0
    for (const symbol of read.symbols ?? []) {
      if (!seenSymbols.has(symbol)) {
        seenSymbols.add(symbol)
        fresh++
      }
    }
    g += Math.min(0.2, fresh * 0.02)
    seenPaths.add(read.path)
    seenContent.add(read.digest)
    gain += g
    if (g >= productive) signals.push(`read ${read.path} (gain ${g.toFixed(2)})`)
  }
  for (const change of iteration.changes ?? []) {
    const digests = new Set(pathDigests.get(change.path) ?? [])
    if (!digests.has(change.digest)) signals.push(`changed ${change.path} to new content`)
    digests.add(change.digest)
    pathDigests.set(change.path, digests)
    seenContent.add(change.digest)
  }
  for (const test of iteration.tests ?? []) {
    const before = tests.get(test.name)
    if (before === undefined) signals.push(`test ${test.name} ${test.passed ? "passes" : "fails"} (first outcome)`)
    else if (before !== test.passed) signals.push(`test ${test.name} flipped to ${test.passed ? "pass" : "fail"}`)
    tests.set(test.name, test.passed)
  }
  let exitPattern = state.exitPattern
  if (iteration.exitCodes !== undefined && iteration.exitCodes.length > 0) {
    const pattern = iteration.exitCodes.map((c) => c === 0 ? "p" : "f").join("")
    if (exitPattern !== null && pattern !== exitPattern) signals.push(`exit pattern ${exitPattern} → ${pattern}`)
    exitPattern = pattern
  }
  for (const error of iteration.errors ?? []) {
    const cls = errorClass(error)
    if (!errorClasses.has(cls)) signals.push(`new error class: ${cls}`)
    errorClasses.add(cls)
  }
  let taskState = state.taskState
  if (iteration.taskState !== undefined) {
    if (iteration.taskState !== taskState) signals.push(`task state → ${iteration.taskState}`)
    taskState = iteration.taskState
  }
  const moved = signals.length > 0
  const idle = moved ? 0 : state.idle + 1
  let nudged = moved ? false : state.nudged
  let verdict: Verdict["verdict"] = moved ? "progress" : "idle"
  if (!moved) {
    if (nudged && idle >= window + grace) verdict = "stuck"
    else if (!nudged && idle >= window) {
      verdict = "nudge"
      nudged = true
    }
  }
  return [
    { verdict, signals, idle, gain: Math.round(gain * 1000) / 1000 },
    { seenPaths, seenContent, seenSymbols, pathDigests, tests, exitPattern, errorClasses, taskState, idle, nudged }
  ]
}

/**
 * The tracker service (one per run).
 *
 * @since 0.1.0
 * @category tags
 */
export class ProgressTracker extends Context.Tag("@steward/governance-rules/ProgressTracker")<ProgressTracker, {
  readonly record: (iteration: Iteration, options?: { readonly runId?: string }) => Effect.Effect<Verdict>
  readonly reset: Effect.Effect<void>
}>() {}

/**
 * Build a tracker.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (config: Config = {}) =>
  Effect.map(Ref.make(initial), (ref) =>
    ProgressTracker.of({
      record: (iteration) => Ref.modify(ref, (state) => step(state, iteration, config)),
      reset: Ref.set(ref, initial)
    }))

/**
 * The tracker as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (config: Config = {}): Layer.Layer<ProgressTracker> => Layer.effect(ProgressTracker, make(config))

/**
 * The empty tracker state (for the pure `step`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const empty: State = initial

/**
 * The tracker state (opaque; use `step` or the service).
 *
 * @since 0.1.0
 * @category models
 */
export type ProgressState = State

/**
 * A tracker whose every verdict is also appended to the evidence stream (`kind: "progress"`);
 * a failing store never breaks the run.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeRecorded = (config: Config = {}) =>
  Effect.gen(function*() {
    const log = yield* Evidence.EvidenceLog
    const tracker = yield* make(config)
    return ProgressTracker.of({
      record: (iteration, options = {}) =>
        Effect.tap(tracker.record(iteration), (verdict) =>
          log.append({ kind: "progress", runId: options.runId ?? null, data: verdict }).pipe(
            Effect.catchAllCause((cause) =>
              Effect.logWarning("progress evidence append failed", cause)
            )
          )),
      reset: tracker.reset
    })
  })

/**
 * The recording tracker as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerRecorded = (config: Config = {}): Layer.Layer<ProgressTracker, never, Evidence.EvidenceLog> =>
  Layer.effect(ProgressTracker, makeRecorded(config))
