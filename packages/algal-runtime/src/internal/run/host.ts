/**
 * How the `AlgalRuntime` service drives the interpreter against the host: store operations on
 * in-process stores stay synchronous (the pure hot path never enters Effect), everything else —
 * executors, host tools, SQL stores, a cooperative run's turns of the event loop — runs in
 * Effect. Recorded effects are served by request digest when a receipt is re-run.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as AlgalError from "../../AlgalError.js"
import type * as BlobStore from "../../BlobStore.js"
import type * as Canonical from "../../Canonical.js"
import * as EffectRequest from "../../EffectRequest.js"
import * as Executor from "../../Executor.js"
import type * as SlotStore from "../../SlotStore.js"
import * as ToolRegistry from "../../ToolRegistry.js"
import { measureJson } from "../issue.js"
import type { HostOp } from "./context.js"

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

/** Recorded effects served by request digest (record order for repeats). @internal */
export interface ReplaySource {
  readonly recorded: Map<string, Array<EffectRequest.EffectReceipt>>
  /** Fall through to live executors when nothing is recorded (resume); otherwise a miss is `EFFECT_UNBOUND`. */
  readonly fallthrough: boolean
  misses: number
}

/** @internal */
export const replaySource = (
  effects: ReadonlyArray<EffectRequest.EffectReceipt>,
  fallthrough: boolean
): ReplaySource => {
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
 * Drive the interpreter: each operation is first offered to `sync`; one it cannot answer in
 * process (`ASYNC`) runs through `async`, and the generator continues with its reply.
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

/** The host services a run reaches. @internal */
export interface Host {
  readonly blobs: BlobStore.Shape
  readonly slots: SlotStore.Shape
  readonly toolRegistry: ToolRegistry.Shape | undefined
}

/**
 * Run an interpreter generator against the host. A re-run of a receipt (`replaying`) never
 * mutates host state: its blob writes go to an overlay over the store.
 *
 * @internal
 */
export const driveOnHost = <A>(
  host: Host,
  gen: Generator<HostOp, A, unknown>,
  replaying: boolean,
  executors: ReadonlyArray<Executor.Executor>,
  source: ReplaySource | undefined
): Effect.Effect<A, AlgalError.AlgalError> => {
  const { blobs, slots, toolRegistry } = host
  const overlay = replaying ? new Map<string, Canonical.Json>() : undefined
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
  return drive(gen, sync, async)
}
