/**
 * Resumable controllers (ALGAL v1 §5.2): a program admitted under the managed-controller profile
 * runs in *slices*. Each slice runs (or resumes) until the next agent cell, where the managed
 * executor suspends the run with a checkpoint receipt and the call it awaits (`{digest, prompt}`);
 * the host answers it out of band and steps again with the checkpoint and the answer. The last
 * slice completes with the `summary` output. Re-stepping the same checkpoint with the same answer
 * is idempotent (same receipt digest).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Admission, AlgalRuntime, Controller } from "@steward/algal-runtime"
 *
 * declare const controllerJson: unknown
 * const program = Effect.gen(function*() {
 *   const admitted = yield* Admission.managed(controllerJson)
 *   let slice = yield* Controller.step(admitted, {})
 *   while (slice._tag === "Awaiting") {
 *     const answer = `done: ${slice.call.cellId}` // ask a person or a model here
 *     slice = yield* Controller.step(admitted, {}, slice.checkpoint, answer)
 *   }
 *   return slice.summary
 * }).pipe(Effect.provide(AlgalRuntime.layer))
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Admission from "./Admission.js"
import { managedCheckpoint } from "./Admission.js"
import * as AlgalError from "./AlgalError.js"
import * as AlgalRuntime from "./AlgalRuntime.js"
import * as Canonical from "./Canonical.js"
import * as Executor from "./Executor.js"
import { isObj } from "./internal/issue.js"
import type { Json } from "./Manifest.js"
import * as Receipt from "./Receipt.js"

/**
 * The call a suspended slice awaits.
 *
 * @since 0.1.0
 * @category models
 */
export interface Call {
  readonly cellId: string
  readonly path: string
  readonly digest: string
  readonly prompt: string
}

/**
 * The end of a slice.
 *
 * @since 0.1.0
 * @category models
 */
export type Slice =
  | { readonly _tag: "Complete"; readonly summary: string | undefined; readonly receipt: Receipt.Receipt }
  | { readonly _tag: "Awaiting"; readonly call: Call; readonly checkpoint: Receipt.Receipt }

/**
 * Largest interface input a managed program accepts (canonical bytes).
 *
 * @since 0.1.0
 * @category constants
 */
export const maxInputBytes = 32_768

/**
 * Run one slice: from the start (no checkpoint) or from a checkpoint with the answer to the
 * awaited call. `inputs` are interface-named. A failed run is `AlgalError` with the run's code.
 *
 * @since 0.1.0
 * @category running
 */
export const step = Effect.fn("Controller.step")(function*(
  admitted: Admission.AdmittedManaged,
  inputs: Readonly<Record<string, Json>>,
  checkpoint?: unknown,
  answer?: string
) {
  const runtime = yield* AlgalRuntime.AlgalRuntime
  const encoded = Canonical.encode(inputs)
  if (encoded._tag === "Left" || !isObj(inputs)) {
    return yield* AlgalError.invalid("controller inputs must be a JSON object", "inputs")
  }
  if (Buffer.byteLength(encoded.right, "utf8") > maxInputBytes) {
    return yield* AlgalError.limit(`controller inputs exceed ${maxInputBytes} bytes`)
  }
  const executors = [Executor.managed()]
  let result
  if (checkpoint === undefined) {
    result = yield* runtime.run(admitted.program, inputs, { interface: true, executors })
  } else {
    const receipt = yield* Receipt.decode(checkpoint)
    const problems = managedCheckpoint(receipt, admitted.agentCells)
    const args = Canonical.encodeUnsafe(receipt.args)
    const expected = Canonical.encodeUnsafe(interfaceArgsOf(admitted, inputs))
    if (args !== expected) problems.push("checkpoint args differ from the controller inputs")
    if (problems.length > 0) {
      return yield* AlgalError.make("RECEIPT_MISMATCH", `not a managed checkpoint: ${problems.join("; ")}`, {
        detail: { problems }
      })
    }
    result = yield* runtime.resume(receipt, admitted.program, {
      executors,
      ...(answer === undefined ? {} : { response: answer })
    })
  }
  const receipt = result.receipt
  if (receipt.outcome === "complete") {
    const summary = result.outputs.summary
    return { _tag: "Complete", summary: typeof summary === "string" ? summary : undefined, receipt } as Slice
  }
  if (receipt.outcome === "suspended") {
    const last = receipt.effects[receipt.effects.length - 1] as { readonly requestDigest: string; readonly wake?: Json }
    const wake = isObj(last.wake) ? (last.wake as { prompt?: unknown }) : {}
    const path = receipt.failure?.path ?? ""
    const call: Call = {
      cellId: path.slice(path.lastIndexOf("/") + 1),
      path,
      digest: last.requestDigest,
      prompt: typeof wake.prompt === "string" ? wake.prompt : ""
    }
    return { _tag: "Awaiting", call, checkpoint: receipt } as Slice
  }
  const failure = receipt.failure
  return yield* AlgalError.make(
    failure?.code ?? "STUCK",
    `controller run ${receipt.outcome}: ${failure?.message ?? ""}`,
    {
      ...(failure === undefined ? {} : { cell: failure.path }),
      detail: { receipt: receipt.digest }
    }
  )
})

const interfaceArgsOf = (admitted: Admission.AdmittedManaged, inputs: Readonly<Record<string, Json>>) => {
  const out: Record<string, Record<string, Json>> = {}
  for (const [name, ep] of Object.entries(admitted.manifest.interface.inputs)) {
    if (Object.prototype.hasOwnProperty.call(inputs, name)) (out[ep.cell] ??= {})[ep.port] = inputs[name]!
  }
  return out
}
