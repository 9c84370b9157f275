/**
 * The `AlgalRuntime` service: check, digest, run and verify organisms with typed errors. It wraps
 * the synchronous interpreter (`Runtime`) with the host's `FnRegistry`, `BlobStore` and
 * `SlotStore` services; in-memory stores stay on the synchronous fast path, SQL stores are driven
 * through Effect.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AlgalRuntime } from "@steward/algal-runtime"
 *
 * declare const manifestJson: unknown
 * const program = Effect.gen(function*() {
 *   const runtime = yield* AlgalRuntime.AlgalRuntime
 *   const run = yield* runtime.run(manifestJson, { src: { n: 60 } })
 *   const verified = yield* runtime.verify(run.receipt, manifestJson)
 *   return [run.outcome, run.digest, verified.ok]
 * }).pipe(Effect.provide(AlgalRuntime.layer))
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as AlgalError from "./AlgalError.js"
import * as BlobStore from "./BlobStore.js"
import type * as Canonical from "./Canonical.js"
import * as Executor from "./Executor.js"
import * as FnRegistry from "./FnRegistry.js"
import { BAIL } from "./internal/expr/fast.js"
import { evaluate as evaluateGen, execute } from "./internal/interpreter.js"
import { driveOnHost, type Host } from "./internal/run/host.js"
import * as Receipts from "./internal/run/receipts.js"
import { planOf, runPlan } from "./internal/straightLine.js"
import * as Manifest from "./Manifest.js"
import * as Program from "./Program.js"
import * as Receipt from "./Receipt.js"
import * as Runtime from "./Runtime.js"
import * as SlotStore from "./SlotStore.js"
import * as ToolRegistry from "./ToolRegistry.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface RunOptions {
  /** Args are interface-named (`{name: value}`) rather than `{cell: {port: value}}`. */
  readonly interface?: boolean
  /** Override the receipt's runtime stamp for this run. */
  readonly runtime?: Receipt.RuntimeStamp
  /** Executors for this run, bound before the host's registered `Executors`. */
  readonly executors?: ReadonlyArray<Executor.Executor>
  /**
   * Give the host's event loop a turn every few cell activations, so a long synchronous run can
   * be interrupted between steps (the CLI sets it to honour SIGINT/SIGTERM). Receipts are unchanged.
   */
  readonly cooperative?: boolean
}

/**
 * How to continue a suspended run.
 *
 * @since 0.1.0
 * @category models
 */
export interface ResumeOptions {
  /** Executors that serve requests the checkpoint did not record (bound before the host's). */
  readonly executors?: ReadonlyArray<Executor.Executor>
  /**
   * The answer to the suspended request (the managed-controller protocol): served by the managed
   * executor for exactly that request digest; any later agent cell suspends again.
   */
  readonly response?: string
}

/**
 * `algal.replay-comparison.v1`: whether re-running a receipt against a manifest reproduced it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReplayComparison {
  readonly contract: "algal.replay-comparison.v1"
  readonly verdict: "identical" | "diverged" | "could-not-replay"
  readonly recorded: string | null
  readonly replayed?: string
  readonly outcome?: Receipt.Outcome
  readonly reason?: string
  readonly mismatches: ReadonlyArray<string>
}

/**
 * The result of `verify`: whether re-running reproduced the receipt, the recomputed fingerprint
 * and outcome, and every field that differs.
 *
 * @since 0.1.0
 * @category models
 */
export interface VerifyResult {
  readonly ok: boolean
  readonly digest: string
  readonly outcome: Receipt.Outcome
  readonly mismatches: ReadonlyArray<string>
}

/**
 * What `check` reports for a valid program.
 *
 * @since 0.1.0
 * @category models
 */
export interface CheckResult {
  readonly manifest: Manifest.Manifest
  readonly program: Program.Program
  readonly digest: string
}

/**
 * A manifest, a compiled program, or raw manifest JSON.
 *
 * @since 0.1.0
 * @category models
 */
export type Runnable = Program.Program | Manifest.Manifest | unknown

/**
 * @since 0.1.0
 * @category models
 */
export interface Shape {
  readonly check: (json: unknown) => Effect.Effect<CheckResult, AlgalError.AlgalError>
  readonly digest: (json: unknown) => Effect.Effect<string, AlgalError.AlgalError>
  readonly compile: (input: Runnable) => Effect.Effect<Program.Program, AlgalError.AlgalError>
  /** Run a program (or manifest JSON, parsed and compiled on each call) on args; invalid args fail, run failures are outcomes. */
  readonly run: (
    input: Runnable,
    args: unknown,
    options?: RunOptions
  ) => Effect.Effect<Runtime.RunResult, AlgalError.AlgalError>
  /**
   * Run for the decision only: the outcome, outputs, work and failure `run` would give, without
   * building a receipt (`Runtime.evaluateSync` on the host's registry, stores and executors).
   * Nothing of the run is recorded: use `run` when it must be explained, verified or replayed.
   */
  readonly evaluate: (
    input: Runnable,
    args: unknown,
    options?: Omit<RunOptions, "runtime">
  ) => Effect.Effect<Runtime.Evaluation, AlgalError.AlgalError>
  /** Re-run a receipt serving its recorded effects by request digest, and diff field by field. */
  readonly verify: (receipt: unknown, manifest: Runnable) => Effect.Effect<VerifyResult, AlgalError.AlgalError>
  /** Compare a receipt with its replay: identical | diverged | could-not-replay. */
  readonly replay: (receipt: unknown, manifest: Runnable) => Effect.Effect<ReplayComparison, AlgalError.AlgalError>
  /**
   * Continue a suspended run: the checkpoint must verify; its suspended effects are dropped, the
   * rest are served by request digest, and new requests go to live executors. A new receipt.
   */
  readonly resume: (
    checkpoint: unknown,
    manifest: Runnable,
    options?: ResumeOptions
  ) => Effect.Effect<Runtime.RunResult, AlgalError.AlgalError>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class AlgalRuntime extends Context.Tag("@steward/algal-runtime/AlgalRuntime")<AlgalRuntime, Shape>() {}

/**
 * Service options.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The receipt runtime stamp (default `{"name":"algal","version":"0.1.0"}`). */
  readonly runtime?: Receipt.RuntimeStamp
  /** Embedded manifests available to organism/repeat/each cells, by digest. */
  readonly manifests?: (digest: string) => Manifest.Manifest | undefined
  /** Host tool signatures. */
  readonly tools?: Readonly<Record<string, Program.ToolSignature>>
}

const isProgram = (u: unknown): u is Program.Program =>
  typeof u === "object" && u !== null && "byId" in u && (u as { byId: unknown }).byId instanceof Map && "digest" in u

/**
 * Build the service from the registry and stores in context (and, when provided, the host's
 * `Executors` and `ToolRegistry`). Driving the interpreter against the host is `internal/run/host`;
 * re-running receipts (verify, replay, resume) is `internal/run/receipts`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}) =>
  Effect.gen(function*() {
    const fns = yield* FnRegistry.FnRegistry
    const host: Host = {
      blobs: yield* BlobStore.BlobStore,
      slots: yield* SlotStore.SlotStore,
      toolRegistry: Option.getOrUndefined(yield* Effect.serviceOption(ToolRegistry.ToolRegistry))
    }
    const hostExecutors = Option.match(yield* Effect.serviceOption(Executor.Executors), {
      onNone: () => [] as ReadonlyArray<Executor.Executor>,
      onSome: (s) => s.executors
    })
    const { toolRegistry } = host
    const stamp = options.runtime ?? Receipt.defaultRuntime
    const tools = {
      ...(toolRegistry === undefined ? {} : ToolRegistry.signatures(toolRegistry)),
      ...(options.tools ?? {})
    }
    const compileOptions: Program.CompileOptions = {
      fns,
      ...(options.manifests === undefined ? {} : { manifests: options.manifests }),
      tools
    }
    const caps = toolRegistry === undefined ? {} : { caps: toolRegistry.minted }

    const check = Effect.fn("AlgalRuntime.check")(function*(json: unknown) {
      const manifest = yield* Manifest.parse(json)
      const program = yield* Program.compile(manifest, compileOptions)
      return { manifest, program, digest: program.digest }
    })

    // Raw JSON is parsed and compiled on every call (it may have been mutated); pass a compiled
    // `Program` to run the same organism many times without that cost.
    const compile = Effect.fn("AlgalRuntime.compile")(function*(input: Runnable) {
      if (isProgram(input)) return input
      const { program } = yield* check(input)
      return program
    })

    const engine: Receipts.Engine = {
      stamp,
      hostExecutors,
      execution: (program, args, runtime, replay, executors, source, cooperative = false) =>
        driveOnHost(
          host,
          execute(program, args, {
            runtime,
            ...(cooperative ? { cooperative } : {}),
            ...(replay === undefined ? {} : { replaySlots: Runtime.recordedSlotReads(replay) }),
            ...caps
          }),
          replay !== undefined,
          executors,
          source
        )
    }

    /** What `run` and `evaluate` share: the program, the args by cell, the executors. */
    const prepare = (input: Runnable, args: unknown, runOptions: Omit<RunOptions, "runtime"> | undefined) =>
      Effect.gen(function*() {
        const program = isProgram(input) ? input : yield* compile(input)
        const named = runOptions?.interface === true
        if (named && (typeof args !== "object" || args === null || Array.isArray(args))) {
          return yield* AlgalError.invalid("interface args must be an object", "args")
        }
        const runArgs = named ? Runtime.interfaceArgs(program, args as Record<string, Canonical.Json>) : args
        const executors = runOptions?.executors === undefined
          ? hostExecutors
          : [...runOptions.executors, ...hostExecutors]
        return { program, runArgs, executors }
      })

    const run = Effect.fn("AlgalRuntime.run")(function*(input: Runnable, args: unknown, runOptions?: RunOptions) {
      const { executors, program, runArgs } = yield* prepare(input, args, runOptions)
      const invalid = Runtime.validateArgs(runArgs)
      if (invalid !== undefined) return yield* invalid
      const result = yield* engine.execution(
        program,
        runArgs as Runtime.Args,
        runOptions?.runtime ?? stamp,
        undefined,
        executors,
        undefined,
        runOptions?.cooperative === true
      )
      return Receipts.resultOf(result)
    })

    const evaluate = Effect.fn("AlgalRuntime.evaluate")(
      function*(input: Runnable, args: unknown, runOptions?: Omit<RunOptions, "runtime">) {
        const { executors, program, runArgs } = yield* prepare(input, args, runOptions)
        // a pure organism whose cells all commit needs neither stores nor executors (ADR 0397)
        // (not for a cooperative run: the plan is one synchronous call, with no step between cells)
        const plan = runOptions?.cooperative === true ? undefined : planOf(program)
        if (plan !== undefined) {
          const evaluation = runPlan(plan, runArgs)
          if (evaluation !== BAIL) return evaluation as Runtime.Evaluation
        }
        const invalid = Runtime.validateArgs(runArgs)
        if (invalid !== undefined) return yield* invalid
        const gen = evaluateGen(program, runArgs as Runtime.Args, {
          runtime: stamp,
          ...(runOptions?.cooperative === true ? { cooperative: true } : {}),
          ...caps
        })
        const evaluation: Runtime.Evaluation = yield* driveOnHost(host, gen, false, executors, undefined)
        return evaluation
      }
    )

    const verify = Effect.fn("AlgalRuntime.verify")(function*(receiptJson: unknown, manifest: Runnable) {
      const receipt = yield* Receipt.decode(receiptJson)
      const program = isProgram(manifest) ? manifest : yield* compile(manifest)
      const result: VerifyResult = yield* Receipts.verify(engine, receipt, program)
      return result
    })

    const replay = Effect.fn("AlgalRuntime.replay")(function*(receiptJson: unknown, manifest: Runnable) {
      const program = isProgram(manifest) ? manifest : yield* compile(manifest)
      const comparison: ReplayComparison = yield* Receipts.replay(engine, receiptJson, program)
      return comparison
    })

    const resume = Effect.fn("AlgalRuntime.resume")(function*(
      checkpointJson: unknown,
      manifest: Runnable,
      resumeOptions?: ResumeOptions
    ) {
      const checkpoint = yield* Receipt.decode(checkpointJson)
      const program = isProgram(manifest) ? manifest : yield* compile(manifest)
      return yield* Receipts.resume(engine, checkpoint, program, resumeOptions)
    })

    const digest = Effect.fn("AlgalRuntime.digest")(function*(json: unknown) {
      return Manifest.digest(yield* Manifest.parse(json))
    })

    return AlgalRuntime.of({ check, digest, compile, run, evaluate, verify, replay, resume })
  })

/**
 * The service over whatever `FnRegistry`, `BlobStore` and `SlotStore` the host provides.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWith = (
  options: Options = {}
): Layer.Layer<AlgalRuntime, never, FnRegistry.FnRegistry | BlobStore.BlobStore | SlotStore.SlotStore> =>
  Layer.effect(AlgalRuntime, make(options))

/**
 * What `layerWith` needs, in memory: the built-in fns and in-memory blob and slot stores.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerDeps: Layer.Layer<FnRegistry.FnRegistry | BlobStore.BlobStore | SlotStore.SlotStore> = Layer.mergeAll(
  FnRegistry.layer,
  BlobStore.layerMemory,
  SlotStore.layerMemory
)

/**
 * The service with the built-in fns and in-memory stores.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<AlgalRuntime> = layerWith().pipe(
  Layer.provide(Layer.mergeAll(FnRegistry.layer, BlobStore.layerMemory, SlotStore.layerMemory))
)

/**
 * The built-in fns and in-memory stores with options (runtime stamp, embedded manifests, tools).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = (options: Options = {}): Layer.Layer<AlgalRuntime> =>
  layerWith(options).pipe(Layer.provide(Layer.mergeAll(FnRegistry.layer, BlobStore.layerMemory, SlotStore.layerMemory)))
