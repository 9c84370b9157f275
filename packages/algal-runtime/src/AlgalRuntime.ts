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
import * as Schema from "effect/Schema"
import * as AlgalError from "./AlgalError.js"
import * as BlobStore from "./BlobStore.js"
import type * as Canonical from "./Canonical.js"
import * as EffectRequest from "./EffectRequest.js"
import * as Executor from "./Executor.js"
import * as FnRegistry from "./FnRegistry.js"
import { BAIL } from "./internal/expr/fast.js"
import { evaluate as evaluateGen, execute, type Execution, type HostOp } from "./internal/interpreter.js"
import { measureJson } from "./internal/issue.js"
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
 * Executors and tools are host code: a reply that is not ALGAL JSON (non-finite numbers, lone
 * surrogates, > 64 levels, non-JSON values) or carries unknown keys never reaches the receipt.
 */
const sanitize = (receipt: EffectRequest.EffectReceipt): EffectRequest.EffectReceipt => {
  const problem = measureJson(receipt)
  if (typeof problem === "number") return receipt
  return {
    requestDigest: receipt.requestDigest,
    executor: receipt.executor,
    error: { code: "EFFECT_UNPARSEABLE", message: `executor reply is not JSON: ${problem}` }
  }
}

const ASYNC: unique symbol = Symbol("algal/async")

/** Activations between two turns of the event loop in a cooperative run. */
const ticksPerYield = 4

/** One turn of the event loop (a macrotask, so pending signals are delivered first). */
const macrotask: Effect.Effect<unknown> = Effect.async<unknown>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

/** Recorded effects served by request digest (record order for repeats). */
interface ReplaySource {
  readonly recorded: Map<string, Array<EffectRequest.EffectReceipt>>
  /** Fall through to live executors when nothing is recorded (resume); otherwise a miss is `EFFECT_UNBOUND`. */
  readonly fallthrough: boolean
  misses: number
}

const replaySource = (effects: ReadonlyArray<EffectRequest.EffectReceipt>, fallthrough: boolean): ReplaySource => {
  const recorded = new Map<string, Array<EffectRequest.EffectReceipt>>()
  for (const e of effects) {
    const list = recorded.get(e.requestDigest)
    if (list === undefined) recorded.set(e.requestDigest, [e])
    else list.push(e)
  }
  return { recorded, fallthrough, misses: 0 }
}

const served = (source: ReplaySource | undefined, digest: string): EffectRequest.EffectReceipt | undefined => {
  if (source === undefined) return undefined
  const queue = source.recorded.get(digest)
  if (queue !== undefined && queue.length > 0) return queue.shift()
  if (source.fallthrough) return undefined
  source.misses += 1
  return EffectRequest.unbound(digest, `no recorded effect for request ${digest}`)
}

/**
 * Drive the interpreter: store operations on in-process stores stay synchronous (the pure hot
 * path never enters Effect), everything else — executors, host tools, SQL stores — runs in Effect.
 */
const drive = <A>(
  gen: Generator<HostOp, A, unknown>,
  sync: (op: HostOp) => unknown,
  async: (op: HostOp) => Effect.Effect<unknown, AlgalError.AlgalError>
): Effect.Effect<A, AlgalError.AlgalError> => {
  const loop = (first: IteratorResult<HostOp, A>): Effect.Effect<A, AlgalError.AlgalError> => {
    let step = first
    while (!step.done) {
      const op = step.value
      const reply = sync(op)
      if (reply === ASYNC) return Effect.flatMap(async(op), (r) => loop(gen.next(r)))
      step = gen.next(reply)
    }
    return Effect.succeed(step.value)
  }
  return Effect.suspend(() => loop(gen.next()))
}

/**
 * Build the service from the registry and stores in context (and, when provided, the host's
 * `Executors` and `ToolRegistry`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}) =>
  Effect.gen(function*() {
    const fns = yield* FnRegistry.FnRegistry
    const blobs = yield* BlobStore.BlobStore
    const slots = yield* SlotStore.SlotStore
    const hostExecutors = Option.match(yield* Effect.serviceOption(Executor.Executors), {
      onNone: () => [] as ReadonlyArray<Executor.Executor>,
      onSome: (s) => s.executors
    })
    const toolRegistry = Option.getOrUndefined(yield* Effect.serviceOption(ToolRegistry.ToolRegistry))
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

    // How a run reaches the host: store operations and effects, synchronous where the stores are.
    const hostOps = (
      replay: Receipt.Receipt | undefined,
      executors: ReadonlyArray<Executor.Executor>,
      source: ReplaySource | undefined
    ) => {
      // verify never mutates host state: blob writes go to an overlay over the store
      const overlay = replay === undefined ? undefined : new Map<string, Canonical.Json>()
      const syncBlobs = blobs.sync
      const syncSlots = slots.sync
      let ticks = 0
      const sync = (op: HostOp): unknown => {
        switch (op.op) {
          case "blob.get":
            if (syncBlobs === undefined) return ASYNC
            return overlay?.get(op.ref) ?? syncBlobs.get(op.ref)
          case "blob.put":
            if (overlay !== undefined) return void overlay.set(op.ref, op.value)
            if (syncBlobs === undefined) return ASYNC
            return void syncBlobs.put(op.ref, op.text)
          case "slot.get":
            return syncSlots === undefined ? ASYNC : syncSlots.get(op.name)
          case "slot.set":
            return syncSlots === undefined ? ASYNC : void syncSlots.set(op.name, op.text)
          case "effect":
          case "tool":
            return served(source, op.digest) ?? ASYNC
          case "tick":
            // every few activations, give the event loop a turn (signals, timers, other fibers)
            ticks += 1
            return ticks % ticksPerYield === 0 ? ASYNC : undefined
        }
      }
      const async = (op: HostOp): Effect.Effect<unknown, AlgalError.AlgalError> => {
        switch (op.op) {
          case "blob.get":
            return Effect.map(blobs.get(op.ref), Option.getOrUndefined)
          case "blob.put":
            return blobs.put(op.value)
          case "slot.get":
            return Effect.map(slots.get(op.name), Option.getOrUndefined)
          case "slot.set":
            return slots.set(op.name, op.value)
          case "effect":
            return Effect.map(Executor.dispatch(executors, op.request, op.digest, op.maxEffectMs), sanitize)
          case "tool":
            return Effect.map(ToolRegistry.dispatch(toolRegistry, op.request, op.digest, op.maxEffectMs), sanitize)
          case "tick":
            return macrotask
        }
      }
      return { sync, async }
    }

    const execution = (
      program: Program.Program,
      args: Runtime.Args,
      runtime: Receipt.RuntimeStamp,
      replay: Receipt.Receipt | undefined,
      executors: ReadonlyArray<Executor.Executor>,
      source: ReplaySource | undefined,
      cooperative = false
    ): Effect.Effect<Execution, AlgalError.AlgalError> => {
      const gen = execute(program, args, {
        runtime,
        ...(cooperative ? { cooperative } : {}),
        ...(replay === undefined ? {} : { replaySlots: Runtime.recordedSlotReads(replay) }),
        ...(toolRegistry === undefined ? {} : { caps: toolRegistry.minted })
      })
      const { async, sync } = hostOps(replay, executors, source)
      return drive(gen, sync, async)
    }

    const resultOf = (result: Execution): Runtime.RunResult => ({
      outcome: result.receipt.outcome,
      outputs: result.outputs,
      receipt: result.receipt,
      digest: result.receipt.digest
    })

    const run = Effect.fn("AlgalRuntime.run")(function*(input: Runnable, args: unknown, runOptions?: RunOptions) {
      const program = isProgram(input) ? input : yield* compile(input)
      const named = runOptions?.interface === true
      if (named && (typeof args !== "object" || args === null || Array.isArray(args))) {
        return yield* AlgalError.invalid("interface args must be an object", "args")
      }
      const runArgs = named ? Runtime.interfaceArgs(program, args as Record<string, Canonical.Json>) : args
      const invalid = Runtime.validateArgs(runArgs)
      if (invalid !== undefined) return yield* invalid
      const executors = runOptions?.executors === undefined
        ? hostExecutors
        : [...runOptions.executors, ...hostExecutors]
      const result = yield* execution(
        program,
        runArgs as Runtime.Args,
        runOptions?.runtime ?? stamp,
        undefined,
        executors,
        undefined,
        runOptions?.cooperative === true
      )
      return resultOf(result)
    })

    const evaluate = Effect.fn("AlgalRuntime.evaluate")(
      function*(input: Runnable, args: unknown, runOptions?: Omit<RunOptions, "runtime">) {
        const program = isProgram(input) ? input : yield* compile(input)
        const named = runOptions?.interface === true
        if (named && (typeof args !== "object" || args === null || Array.isArray(args))) {
          return yield* AlgalError.invalid("interface args must be an object", "args")
        }
        const runArgs = named ? Runtime.interfaceArgs(program, args as Record<string, Canonical.Json>) : args
        // a pure organism whose cells all commit needs neither stores nor executors (ADR 0397)
        // (not for a cooperative run: the plan is one synchronous call, with no step between cells)
        const plan = runOptions?.cooperative === true ? undefined : planOf(program)
        if (plan !== undefined) {
          const evaluation = runPlan(plan, runArgs)
          if (evaluation !== BAIL) return evaluation as Runtime.Evaluation
        }
        const invalid = Runtime.validateArgs(runArgs)
        if (invalid !== undefined) return yield* invalid
        const executors = runOptions?.executors === undefined
          ? hostExecutors
          : [...runOptions.executors, ...hostExecutors]
        const gen = evaluateGen(program, runArgs as Runtime.Args, {
          runtime: stamp,
          ...(runOptions?.cooperative === true ? { cooperative: true } : {}),
          ...(toolRegistry === undefined ? {} : { caps: toolRegistry.minted })
        })
        const { async, sync } = hostOps(undefined, executors, undefined)
        const evaluation: Runtime.Evaluation = yield* drive(gen, sync, async)
        return evaluation
      }
    )

    /** Re-run a receipt serving its recorded effects by request digest; returns the replayed execution. */
    const reexecute = (receipt: Receipt.Receipt, program: Program.Program, source: ReplaySource) =>
      Effect.gen(function*() {
        const invalid = Runtime.validateArgs(receipt.args)
        if (invalid !== undefined) return yield* invalid
        return yield* execution(program, receipt.args, receipt.runtime, receipt, [], source)
      })

    const recordedEffects = (receipt: Receipt.Receipt) =>
      Effect.gen(function*() {
        const out: Array<EffectRequest.EffectReceipt> = []
        for (const [i, e] of receipt.effects.entries()) {
          const decoded = yield* Schema.decodeUnknown(EffectRequest.EffectReceiptSchema, { onExcessProperty: "error" })(
            e
          ).pipe(
            Effect.mapError(() => AlgalError.invalid("receipt: malformed effect receipt", `$.effects[${i}]`))
          )
          out.push(decoded as EffectRequest.EffectReceipt)
        }
        return out
      })

    const verify = Effect.fn("AlgalRuntime.verify")(function*(receiptJson: unknown, manifest: Runnable) {
      const receipt = yield* Receipt.decode(receiptJson)
      const program = isProgram(manifest) ? manifest : yield* compile(manifest)
      const mismatches: Array<string> = []
      const intrinsic = Receipt.fingerprint(receipt)
      if (intrinsic !== receipt.digest) {
        mismatches.push(`digest: recorded ${receipt.digest}, receipt hashes to ${intrinsic}`)
      }
      if (receipt.manifestDigest !== program.digest) {
        mismatches.push(`manifestDigest: receipt names ${receipt.manifestDigest}, manifest is ${program.digest}`)
        const result: VerifyResult = { ok: false, digest: receipt.digest, outcome: receipt.outcome, mismatches }
        return result
      }
      const source = replaySource(yield* recordedEffects(receipt), false)
      const replayed = yield* reexecute(receipt, program, source)
      mismatches.push(...Receipt.diff(receipt, replayed.receipt))
      const result: VerifyResult = {
        ok: mismatches.length === 0,
        digest: replayed.receipt.digest,
        outcome: replayed.receipt.outcome,
        mismatches
      }
      return result
    })

    const replay = Effect.fn("AlgalRuntime.replay")(function*(receiptJson: unknown, manifest: Runnable) {
      const program = isProgram(manifest) ? manifest : yield* compile(manifest)
      const couldNot = (reason: string, recorded: string | null): ReplayComparison => ({
        contract: "algal.replay-comparison.v1",
        verdict: "could-not-replay",
        recorded,
        reason,
        mismatches: []
      })
      const decoded = yield* Effect.either(Receipt.decode(receiptJson))
      if (decoded._tag === "Left") return couldNot(`receipt is invalid: ${decoded.left.message}`, null)
      const receipt = decoded.right
      if (receipt.manifestDigest !== program.digest) {
        return couldNot(
          `receipt names manifest ${receipt.manifestDigest}, manifest is ${program.digest}`,
          receipt.digest
        )
      }
      const effects = yield* Effect.either(recordedEffects(receipt))
      if (effects._tag === "Left") return couldNot(effects.left.message, receipt.digest)
      const source = replaySource(effects.right, false)
      const replayed = yield* Effect.either(reexecute(receipt, program, source))
      if (replayed._tag === "Left") return couldNot(replayed.left.message, receipt.digest)
      if (source.misses > 0) {
        return couldNot(`${source.misses} effect request(s) were not recorded in the receipt`, receipt.digest)
      }
      const mismatches = Receipt.diff(receipt, replayed.right.receipt)
      const intrinsic = Receipt.fingerprint(receipt)
      if (intrinsic !== receipt.digest) {
        mismatches.unshift(`digest: recorded ${receipt.digest}, receipt hashes to ${intrinsic}`)
      }
      const comparison: ReplayComparison = {
        contract: "algal.replay-comparison.v1",
        verdict: mismatches.length === 0 ? "identical" : "diverged",
        recorded: receipt.digest,
        replayed: replayed.right.receipt.digest,
        outcome: replayed.right.receipt.outcome,
        mismatches
      }
      return comparison
    })

    const resume = Effect.fn("AlgalRuntime.resume")(function*(
      checkpointJson: unknown,
      manifest: Runnable,
      resumeOptions?: ResumeOptions
    ) {
      const checkpoint = yield* Receipt.decode(checkpointJson)
      const program = isProgram(manifest) ? manifest : yield* compile(manifest)
      if (checkpoint.outcome !== "suspended") {
        return yield* AlgalError.make("RECEIPT_MISMATCH", `checkpoint outcome is ${checkpoint.outcome}, not suspended`)
      }
      if (checkpoint.manifestDigest !== program.digest) {
        return yield* AlgalError.make(
          "DIGEST_MISMATCH",
          `checkpoint names manifest ${checkpoint.manifestDigest}, manifest is ${program.digest}`
        )
      }
      const verified = yield* verify(checkpoint, program)
      if (!verified.ok) {
        return yield* AlgalError.make(
          "RECEIPT_MISMATCH",
          `checkpoint does not verify: ${verified.mismatches.join("; ")}`,
          {
            detail: { mismatches: verified.mismatches }
          }
        )
      }
      const effects = yield* recordedEffects(checkpoint)
      const suspended = effects.filter(EffectRequest.isSuspended)
      const kept = effects.filter((e) => !EffectRequest.isSuspended(e))
      const answer: ReadonlyArray<Executor.Executor> = resumeOptions?.response === undefined || suspended.length === 0
        ? []
        : [
          Executor.managed({
            requestDigest: suspended[suspended.length - 1]!.requestDigest,
            output: resumeOptions.response
          })
        ]
      const executors = [...answer, ...(resumeOptions?.executors ?? []), ...hostExecutors]
      const result = yield* execution(program, checkpoint.args, stamp, undefined, executors, replaySource(kept, true))
      return resultOf(result)
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
