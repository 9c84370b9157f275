/**
 * The synchronous, pure interpreter: run a compiled `Program` on args and get the receipt and the
 * interface outputs. This is the hot path (no Effect, no allocation beyond the receipt); the
 * `AlgalRuntime` service wraps it with Effect services for stores.
 *
 * Args are `{ <input-cell-id>: { <port>: value } }` (use `interfaceArgs` to map interface names).
 *
 * @example
 * ```ts
 * import { Manifest, Program, Runtime } from "@steward/algal-runtime"
 *
 * declare const manifest: Manifest.Manifest
 * const compiled = Program.compileSync(manifest)
 * if (compiled.ok) {
 *   const result = Runtime.runSync(compiled.program, { src: { n: 2 } })
 *   if (result.ok) console.log(result.receipt.outcome, result.receipt.digest)
 * }
 * ```
 *
 * @since 0.1.0
 */
import * as AlgalError from "./AlgalError.js"
import type * as BlobStore from "./BlobStore.js"
import * as EffectRequest from "./EffectRequest.js"
import { BAIL } from "./internal/expr/fast.js"
import { evaluate, execute, type HostOp, maxArgsBytes } from "./internal/interpreter.js"
import { isObj, measureJson } from "./internal/issue.js"
import { planOf, runPlan } from "./internal/straightLine.js"
import type { Json } from "./Manifest.js"
import type * as Program from "./Program.js"
import * as Receipt from "./Receipt.js"
import type * as SlotStore from "./SlotStore.js"

/**
 * Run args: input cell id → port → value.
 *
 * @since 0.1.0
 * @category models
 */
export type Args = { readonly [cell: string]: { readonly [port: string]: Json } }

/**
 * @since 0.1.0
 * @category models
 */
export interface RunOptions {
  /** The runtime stamp written into the receipt (default `{"name":"algal","version":"0.1.0"}`). */
  readonly runtime?: Receipt.RuntimeStamp
  /** Blob store (default: a fresh in-memory store). */
  readonly blobs?: BlobStore.SyncBlobs
  /** Slot store (default: a fresh in-memory store). */
  readonly slots?: SlotStore.SyncSlots
  /** Replay recorded slot reads (cell path → value) instead of reading the store; slot writes are not persisted. */
  readonly replaySlots?: ReadonlyMap<string, Json | undefined>
}

/**
 * What a run produced: its receipt (with the fingerprint in `receipt.digest`) and the values of
 * the interface outputs that were produced.
 *
 * @since 0.1.0
 * @category models
 */
export interface RunResult {
  readonly outcome: Receipt.Outcome
  readonly outputs: Readonly<Record<string, Json>>
  readonly receipt: Receipt.Receipt
  /** The run fingerprint (= `receipt.digest`). */
  readonly digest: string
}

/**
 * Validate run args (§2.1): an object whose values are objects, canonical ≤ 1 MiB.
 *
 * @since 0.1.0
 * @category validation
 */
export const validateArgs = (args: unknown): AlgalError.AlgalError | undefined => {
  if (!isObj(args)) return AlgalError.invalid("run args must be an object of input cells", "args")
  for (const key of Object.keys(args)) {
    if (!isObj(args[key])) return AlgalError.invalid(`run args for ${key} must be an object of ports`, `args.${key}`)
  }
  const size = measureJson(args)
  if (typeof size === "string") return AlgalError.invalid(`run args are not canonical JSON: ${size}`, "args")
  if (size > maxArgsBytes) return AlgalError.limit("run argument bytes", { path: "args" })
  return undefined
}

/**
 * Map interface-named inputs `{name: value}` to run args through the manifest interface. Names
 * the interface does not declare are ignored (as the original's `interface_args`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const interfaceArgs = (program: Program.Program, inputs: Readonly<Record<string, Json>>): Args => {
  const out: Record<string, Record<string, Json>> = {}
  for (const [name, ep] of Object.entries(program.manifest.interface.inputs)) {
    if (Object.prototype.hasOwnProperty.call(inputs, name)) (out[ep.cell] ??= {})[ep.port] = inputs[name]!
  }
  return out
}

const memoryBlobs = (): BlobStore.SyncBlobs => {
  const blobs = new Map<string, string>()
  return {
    get: (ref) => {
      const text = blobs.get(ref)
      return text === undefined ? undefined : (JSON.parse(text) as Json)
    },
    put: (ref, text) => void blobs.set(ref, text)
  }
}

const memorySlots = (): SlotStore.SyncSlots => {
  const slots = new Map<string, string>()
  return {
    get: (name) => {
      const text = slots.get(name)
      return text === undefined ? undefined : (JSON.parse(text) as Json)
    },
    set: (name, text) => void slots.set(name, text)
  }
}

/** @internal */
export const drive = <A>(
  gen: Generator<HostOp, A, unknown>,
  blobs: BlobStore.SyncBlobs,
  slots: SlotStore.SyncSlots
): A => {
  let step = gen.next()
  while (!step.done) {
    const op = step.value
    let reply: unknown
    switch (op.op) {
      case "blob.get":
        reply = blobs.get(op.ref)
        break
      case "blob.put":
        blobs.put(op.ref, op.text)
        break
      case "slot.get":
        reply = slots.get(op.name)
        break
      case "slot.set":
        slots.set(op.name, op.text)
        break
      case "effect":
        // The synchronous runtime has no executors: nothing may serve a model call.
        reply = EffectRequest.unbound(
          op.digest,
          "no host-admitted executor for this request"
        )
        break
      case "tool":
        reply = EffectRequest.unbound(op.digest, `no host tool ${op.request.tool} is bound`)
        break
      case "tick":
        break
    }
    step = gen.next(reply)
  }
  return step.value
}

/**
 * Run synchronously. Returns the typed error for invalid args (nothing runs); every other failure
 * is a run outcome recorded in the receipt.
 *
 * @since 0.1.0
 * @category running
 */
export const runSync = (
  program: Program.Program,
  args: unknown,
  options: RunOptions = {}
): { readonly ok: true; readonly result: RunResult } | {
  readonly ok: false
  readonly error: AlgalError.AlgalError
} => {
  const invalid = validateArgs(args)
  if (invalid !== undefined) return { ok: false, error: invalid }
  return { ok: true, result: runUnchecked(program, args as Args, options) }
}

/**
 * Run on args already validated with `validateArgs` (skips the canonical size pass).
 *
 * @since 0.1.0
 * @category running
 */
export const runUnchecked = (program: Program.Program, args: Args, options: RunOptions = {}): RunResult => {
  const execution = drive(
    execute(program, args, {
      runtime: options.runtime ?? Receipt.defaultRuntime,
      ...(options.replaySlots === undefined ? {} : { replaySlots: options.replaySlots })
    }),
    options.blobs ?? memoryBlobs(),
    options.slots ?? memorySlots()
  )
  return {
    outcome: execution.receipt.outcome,
    outputs: execution.outputs,
    receipt: execution.receipt,
    digest: execution.receipt.digest
  }
}

/**
 * What a run decided, without its receipt: the outcome, the interface outputs produced, the work
 * ledger and, unless complete, the failure — each exactly as the receipt of the same run records
 * it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Evaluation {
  readonly outcome: Receipt.Outcome
  readonly outputs: Readonly<Record<string, Json>>
  readonly work: Receipt.Receipt["work"]
  readonly failure?: Receipt.Receipt["failure"]
}

/**
 * Options of a receipt-less run: the stores (no runtime stamp, as there is no receipt).
 *
 * @since 0.1.0
 * @category models
 */
export type EvaluateOptions = Omit<RunOptions, "runtime">

/**
 * Run for the decision only: the same outcome, outputs, work and failure as `runSync`, without
 * building or digesting a receipt (use `runSync` when the run must be explainable or verified).
 *
 * A pure organism (only `input`, `const` and `expr` cells, wired by plain edges) whose every cell
 * commits runs as straight-line code: the args are admitted once and each expression's generated
 * code is called in activation order (ADR 0397). Anything else — including every failing run —
 * runs on the interpreter. Returns the typed error for invalid args (nothing runs).
 *
 * @example
 * ```ts
 * import { Manifest, Program, Runtime } from "@steward/algal-runtime"
 *
 * declare const manifest: Manifest.Manifest
 * const compiled = Program.compileSync(manifest)
 * if (compiled.ok) {
 *   const result = Runtime.evaluateSync(compiled.program, { src: { n: 2 } })
 *   if (result.ok) console.log(result.evaluation.outcome, result.evaluation.outputs)
 * }
 * ```
 *
 * @since 0.1.0
 * @category running
 */
export const evaluateSync = (
  program: Program.Program,
  args: unknown,
  options: EvaluateOptions = {}
): { readonly ok: true; readonly evaluation: Evaluation } | {
  readonly ok: false
  readonly error: AlgalError.AlgalError
} => {
  const plan = planOf(program)
  if (plan !== undefined) {
    // the plan answers only for args `validateArgs` accepts
    const evaluation = runPlan(plan, args)
    if (evaluation !== BAIL) return { ok: true, evaluation }
  }
  const invalid = validateArgs(args)
  if (invalid !== undefined) return { ok: false, error: invalid }
  return { ok: true, evaluation: evaluateOnInterpreter(program, args as Args, options) }
}

/**
 * `evaluateSync` on args already validated with `validateArgs`.
 *
 * @since 0.1.0
 * @category running
 */
export const evaluateUnchecked = (program: Program.Program, args: Args, options: EvaluateOptions = {}): Evaluation => {
  const plan = planOf(program)
  if (plan !== undefined) {
    const evaluation = runPlan(plan, args)
    if (evaluation !== BAIL) return evaluation
  }
  return evaluateOnInterpreter(program, args, options)
}

const evaluateOnInterpreter = (program: Program.Program, args: Args, options: EvaluateOptions): Evaluation =>
  drive(
    evaluate(program, args, {
      runtime: Receipt.defaultRuntime,
      ...(options.replaySlots === undefined ? {} : { replaySlots: options.replaySlots })
    }),
    options.blobs ?? memoryBlobs(),
    options.slots ?? memorySlots()
  )

/**
 * Recorded slot reads of a receipt (for replay): read-slot cell paths → the value they emitted.
 *
 * @since 0.1.0
 * @category replay
 */
export const recordedSlotReads = (receipt: Receipt.Receipt): ReadonlyMap<string, Json | undefined> => {
  const reads = new Map<string, Json | undefined>()
  for (const [path, record] of Object.entries(receipt.cells)) {
    if (record.slot?.mode === "read") {
      reads.set(path, record.status === "committed" ? record.outputs?.data : undefined)
    }
  }
  return reads
}
