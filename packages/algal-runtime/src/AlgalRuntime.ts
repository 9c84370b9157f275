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
import * as Canonical from "./Canonical.js"
import * as FnRegistry from "./FnRegistry.js"
import { type Execution, execute, type HostOp } from "./internal/interpreter.js"
import * as Manifest from "./Manifest.js"
import * as Program from "./Program.js"
import * as Receipt from "./Receipt.js"
import * as Runtime from "./Runtime.js"
import * as SlotStore from "./SlotStore.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface RunOptions {
  /** Args are interface-named (`{name: value}`) rather than `{cell: {port: value}}`. */
  readonly interface?: boolean
  /** Override the receipt's runtime stamp for this run. */
  readonly runtime?: Receipt.RuntimeStamp
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
  readonly verify: (receipt: unknown, manifest: Runnable) => Effect.Effect<VerifyResult, AlgalError.AlgalError>
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

/** Drive the interpreter with Effect stores (used when a store is not in-process). */
const driveEffect = (
  gen: Generator<HostOp, Execution, unknown>,
  blobs: BlobStore.Shape,
  slots: SlotStore.Shape,
  overlay: Map<string, Canonical.Json> | undefined
): Effect.Effect<Execution, AlgalError.AlgalError> =>
  Effect.gen(function*() {
    let step = gen.next()
    while (!step.done) {
      const op = step.value
      let reply: unknown
      switch (op.op) {
        case "blob.get":
          reply = overlay?.get(op.ref) ?? Option.getOrUndefined(yield* blobs.get(op.ref))
          break
        case "blob.put":
          if (overlay !== undefined) overlay.set(op.ref, op.value)
          else yield* blobs.put(op.value)
          break
        case "slot.get":
          reply = Option.getOrUndefined(yield* slots.get(op.name))
          break
        case "slot.set":
          yield* slots.set(op.name, op.value)
          break
      }
      step = gen.next(reply)
    }
    return step.value
  })

/**
 * Build the service from the registry and stores in context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}) =>
  Effect.gen(function*() {
    const fns = yield* FnRegistry.FnRegistry
    const blobs = yield* BlobStore.BlobStore
    const slots = yield* SlotStore.SlotStore
    const stamp = options.runtime ?? Receipt.defaultRuntime
    const compileOptions: Program.CompileOptions = {
      fns,
      ...(options.manifests === undefined ? {} : { manifests: options.manifests }),
      ...(options.tools === undefined ? {} : { tools: options.tools })
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

    const execution = (
      program: Program.Program,
      args: Runtime.Args,
      runtime: Receipt.RuntimeStamp,
      replay: Receipt.Receipt | undefined
    ): Effect.Effect<Execution, AlgalError.AlgalError> => {
      const gen = execute(program, args, {
        runtime,
        ...(replay === undefined ? {} : { replaySlots: Runtime.recordedSlotReads(replay) })
      })
      if (blobs.sync !== undefined && slots.sync !== undefined) {
        const base = blobs.sync
        const target: BlobStore.SyncBlobs = replay === undefined ? base : (() => {
          const overlay = new Map<string, string>()
          return {
            get: (ref) => {
              const text = overlay.get(ref)
              return text === undefined ? base.get(ref) : (JSON.parse(text) as Canonical.Json)
            },
            put: (ref, text) => void overlay.set(ref, text)
          }
        })()
        return Effect.sync(() => Runtime.drive(gen, target, slots.sync!))
      }
      return driveEffect(gen, blobs, slots, replay === undefined ? undefined : new Map())
    }

    const run = Effect.fn("AlgalRuntime.run")(function*(input: Runnable, args: unknown, runOptions?: RunOptions) {
      const program = isProgram(input) ? input : yield* compile(input)
      const named = runOptions?.interface === true
      if (named && (typeof args !== "object" || args === null || Array.isArray(args))) {
        return yield* AlgalError.invalid("interface args must be an object", "args")
      }
      const runArgs = named ? Runtime.interfaceArgs(program, args as Record<string, Canonical.Json>) : args
      const invalid = Runtime.validateArgs(runArgs)
      if (invalid !== undefined) return yield* invalid
      const result = yield* execution(program, runArgs as Runtime.Args, runOptions?.runtime ?? stamp, undefined)
      const out: Runtime.RunResult = {
        outcome: result.receipt.outcome,
        outputs: result.outputs,
        receipt: result.receipt,
        digest: result.receipt.digest
      }
      return out
    })

    const verify = Effect.fn("AlgalRuntime.verify")(function*(receiptJson: unknown, manifest: Runnable) {
      const receipt = yield* Receipt.decode(receiptJson)
      const program = isProgram(manifest) ? manifest : yield* compile(manifest)
      const mismatches: Array<string> = []
      const intrinsic = Receipt.fingerprint(receipt)
      if (intrinsic !== receipt.digest) mismatches.push(`digest: recorded ${receipt.digest}, receipt hashes to ${intrinsic}`)
      if (receipt.manifestDigest !== program.digest) {
        mismatches.push(`manifestDigest: receipt names ${receipt.manifestDigest}, manifest is ${program.digest}`)
        const result: VerifyResult = { ok: false, digest: receipt.digest, outcome: receipt.outcome, mismatches }
        return result
      }
      const invalid = Runtime.validateArgs(receipt.args)
      if (invalid !== undefined) return yield* invalid
      const replayed = yield* execution(program, receipt.args, receipt.runtime, receipt)
      mismatches.push(...Receipt.diff(receipt, replayed.receipt))
      const result: VerifyResult = {
        ok: mismatches.length === 0,
        digest: replayed.receipt.digest,
        outcome: replayed.receipt.outcome,
        mismatches
      }
      return result
    })

    const digest = Effect.fn("AlgalRuntime.digest")(function*(json: unknown) {
      return Manifest.digest(yield* Manifest.parse(json))
    })

    return AlgalRuntime.of({ check, digest, compile, run, verify })
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
