/**
 * Re-running receipts (ALGAL v1 §3.3, §4): `verify` diffs a receipt with its re-run field by
 * field, `replay` classifies the re-run (identical | diverged | could-not-replay), and `resume`
 * continues a suspended checkpoint. Recorded effects are served by request digest; only a resume
 * falls through to live executors.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as AlgalError from "../../AlgalError.js"
import * as EffectRequest from "../../EffectRequest.js"
import * as Executor from "../../Executor.js"
import type * as Program from "../../Program.js"
import * as Receipt from "../../Receipt.js"
import * as Runtime from "../../Runtime.js"
import type { Execution } from "../interpreter.js"
import { type ReplaySource, replaySource } from "./host.js"

/** What re-running needs from the service: its stamp, its executors and one execution. @internal */
export interface Engine {
  readonly stamp: Receipt.RuntimeStamp
  readonly hostExecutors: ReadonlyArray<Executor.Executor>
  readonly execution: (
    program: Program.Program,
    args: Runtime.Args,
    runtime: Receipt.RuntimeStamp,
    replay: Receipt.Receipt | undefined,
    executors: ReadonlyArray<Executor.Executor>,
    source: ReplaySource | undefined,
    cooperative?: boolean
  ) => Effect.Effect<Execution, AlgalError.AlgalError>
}

/** The result of `verify` (the public model is `AlgalRuntime.VerifyResult`). @internal */
export interface Verified {
  readonly ok: boolean
  readonly digest: string
  readonly outcome: Receipt.Outcome
  readonly mismatches: ReadonlyArray<string>
}

/** The result of `replay` (the public model is `AlgalRuntime.ReplayComparison`). @internal */
export interface Comparison {
  readonly contract: "algal.replay-comparison.v1"
  readonly verdict: "identical" | "diverged" | "could-not-replay"
  readonly recorded: string | null
  readonly replayed?: string
  readonly outcome?: Receipt.Outcome
  readonly reason?: string
  readonly mismatches: ReadonlyArray<string>
}

/** @internal */
export const resultOf = (result: Execution): Runtime.RunResult => ({
  outcome: result.receipt.outcome,
  outputs: result.outputs,
  receipt: result.receipt,
  digest: result.receipt.digest
})

/** Re-run a receipt serving its recorded effects by request digest; returns the replayed execution. */
const reexecute = (engine: Engine, receipt: Receipt.Receipt, program: Program.Program, source: ReplaySource) =>
  Effect.gen(function*() {
    const invalid = Runtime.validateArgs(receipt.args)
    if (invalid !== undefined) return yield* invalid
    return yield* engine.execution(program, receipt.args, receipt.runtime, receipt, [], source)
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

const intrinsicMismatch = (receipt: Receipt.Receipt): string | undefined => {
  const intrinsic = Receipt.fingerprint(receipt)
  return intrinsic === receipt.digest ? undefined : `digest: recorded ${receipt.digest}, receipt hashes to ${intrinsic}`
}

/** Re-run a decoded receipt against its program and diff field by field. @internal */
export const verify = (engine: Engine, receipt: Receipt.Receipt, program: Program.Program) =>
  Effect.gen(function*() {
    const mismatches: Array<string> = []
    const intrinsic = intrinsicMismatch(receipt)
    if (intrinsic !== undefined) mismatches.push(intrinsic)
    if (receipt.manifestDigest !== program.digest) {
      mismatches.push(`manifestDigest: receipt names ${receipt.manifestDigest}, manifest is ${program.digest}`)
      const result: Verified = { ok: false, digest: receipt.digest, outcome: receipt.outcome, mismatches }
      return result
    }
    const source = replaySource(yield* recordedEffects(receipt), false)
    const replayed = yield* reexecute(engine, receipt, program, source)
    mismatches.push(...Receipt.diff(receipt, replayed.receipt))
    const result: Verified = {
      ok: mismatches.length === 0,
      digest: replayed.receipt.digest,
      outcome: replayed.receipt.outcome,
      mismatches
    }
    return result
  })

const couldNot = (reason: string, recorded: string | null): Comparison => ({
  contract: "algal.replay-comparison.v1",
  verdict: "could-not-replay",
  recorded,
  reason,
  mismatches: []
})

/** Compare a receipt (still undecoded) with its replay against a program. @internal */
export const replay = (engine: Engine, receiptJson: unknown, program: Program.Program) =>
  Effect.gen(function*() {
    const decoded = yield* Effect.either(Receipt.decode(receiptJson))
    if (decoded._tag === "Left") return couldNot(`receipt is invalid: ${decoded.left.message}`, null)
    const receipt = decoded.right
    if (receipt.manifestDigest !== program.digest) {
      return couldNot(`receipt names manifest ${receipt.manifestDigest}, manifest is ${program.digest}`, receipt.digest)
    }
    const effects = yield* Effect.either(recordedEffects(receipt))
    if (effects._tag === "Left") return couldNot(effects.left.message, receipt.digest)
    const source = replaySource(effects.right, false)
    const replayed = yield* Effect.either(reexecute(engine, receipt, program, source))
    if (replayed._tag === "Left") return couldNot(replayed.left.message, receipt.digest)
    if (source.misses > 0) {
      return couldNot(`${source.misses} effect request(s) were not recorded in the receipt`, receipt.digest)
    }
    const mismatches = Receipt.diff(receipt, replayed.right.receipt)
    const intrinsic = intrinsicMismatch(receipt)
    if (intrinsic !== undefined) mismatches.unshift(intrinsic)
    const comparison: Comparison = {
      contract: "algal.replay-comparison.v1",
      verdict: mismatches.length === 0 ? "identical" : "diverged",
      recorded: receipt.digest,
      replayed: replayed.right.receipt.digest,
      outcome: replayed.right.receipt.outcome,
      mismatches
    }
    return comparison
  })

/**
 * Continue a suspended checkpoint: it must verify; its suspended effects are dropped, the rest are
 * served by request digest, and `response` answers the last suspended request. @internal
 */
export const resume = (
  engine: Engine,
  checkpoint: Receipt.Receipt,
  program: Program.Program,
  options: { readonly executors?: ReadonlyArray<Executor.Executor>; readonly response?: string } | undefined
) =>
  Effect.gen(function*() {
    if (checkpoint.outcome !== "suspended") {
      return yield* AlgalError.make("RECEIPT_MISMATCH", `checkpoint outcome is ${checkpoint.outcome}, not suspended`)
    }
    if (checkpoint.manifestDigest !== program.digest) {
      return yield* AlgalError.make(
        "DIGEST_MISMATCH",
        `checkpoint names manifest ${checkpoint.manifestDigest}, manifest is ${program.digest}`
      )
    }
    const verified = yield* verify(engine, checkpoint, program)
    if (!verified.ok) {
      return yield* AlgalError.make(
        "RECEIPT_MISMATCH",
        `checkpoint does not verify: ${verified.mismatches.join("; ")}`,
        { detail: { mismatches: verified.mismatches } }
      )
    }
    const effects = yield* recordedEffects(checkpoint)
    const suspended = effects.filter(EffectRequest.isSuspended)
    const kept = effects.filter((e) => !EffectRequest.isSuspended(e))
    const answer: ReadonlyArray<Executor.Executor> = options?.response === undefined || suspended.length === 0
      ? []
      : [
        Executor.managed({
          requestDigest: suspended[suspended.length - 1]!.requestDigest,
          output: options.response
        })
      ]
    const executors = [...answer, ...(options?.executors ?? []), ...engine.hostExecutors]
    const result = yield* engine.execution(
      program,
      checkpoint.args,
      engine.stamp,
      undefined,
      executors,
      replaySource(kept, true)
    )
    return resultOf(result)
  })
