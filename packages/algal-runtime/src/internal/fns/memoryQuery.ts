/**
 * `memory.query.v1` (inputs `snapshot`, `program`: json → output `result`: json; cost 10 + the
 * query's fuel). A bounded, pure query over a memory snapshot: `program` is an `algal.expr.v1`
 * envelope `{"contract":"algal.expr.v1","program":…}` evaluated against the env `{snapshot}` with a
 * fixed fuel budget. The output is `{value, work}` where `work` is the fuel the evaluation used; the
 * same amount is reported as the fn's extra work, so the run's work ledger is charged
 * `10 + result.work`. See ADR 0391.
 *
 * @internal
 */
import type { Json } from "../../Canonical.js"
import * as Expr from "../../Expr.js"
import type { FnDefinition } from "../../FnRegistry.js"
import { canonicalBytes, failed, guarded, hasOwn, isRecord, shown, succeed, typeName } from "./common.js"

/** The fn's name. @internal */
export const name = "memory.query.v1"

/** The fixed fuel budget of one query (10× the expr default; `Expr.maxFuel` is 1,000,000). @internal */
export const fuel = 100_000

/**
 * The largest snapshot, in canonical UTF-8 bytes: the expr env bound (262,144) minus the env
 * wrapper `{"snapshot":}` (13 bytes), so every admitted snapshot also fits the evaluator's env.
 *
 * @internal
 */
export const maxSnapshotBytes = Expr.bounds.envBytes - `{"snapshot":}`.length

const maxMessage = 512

const clip = (text: string): string => (text.length > maxMessage ? `${text.slice(0, maxMessage)}…` : text)

const envelopeKeys = new Set(["contract", "program"])

const invoke = (inputs: Readonly<Record<string, Json>>) => {
  if (!hasOwn(inputs, "snapshot")) return failed(`${name}: input snapshot is missing`)
  if (!hasOwn(inputs, "program")) return failed(`${name}: input program is missing`)
  const envelope = inputs.program
  if (!isRecord(envelope)) {
    return failed(`${name}: program must be an algal.expr.v1 envelope {contract, program}, got ${typeName(envelope)}`)
  }
  for (const key of Object.keys(envelope)) {
    if (!envelopeKeys.has(key)) return failed(`${name}: unknown key ${shown(key)} at program.${key.slice(0, 64)}`)
  }
  if (envelope.contract !== "algal.expr.v1") return failed(`${name}: program.contract must be "algal.expr.v1"`)
  if (!hasOwn(envelope, "program")) return failed(`${name}: program.program is missing`)
  const snapshot = inputs.snapshot!
  const size = canonicalBytes(snapshot)
  if (!size.ok) return failed(`${name}: snapshot is not canonical JSON: ${size.message}`)
  if (size.bytes > maxSnapshotBytes) {
    return failed(`${name}: snapshot is ${size.bytes} canonical bytes, over the ${maxSnapshotBytes}-byte bound`)
  }
  const result = Expr.evaluate(envelope.program, { snapshot }, fuel)
  if (!result.ok) {
    return failed(clip(`${name}: ${result.error.code} ${Expr.errorText(result.error)} (fuel ${result.fuel})`))
  }
  return succeed({ result: { value: result.value, work: result.fuel } }, result.fuel)
}

/** @internal */
export const definition: FnDefinition = {
  inputs: { snapshot: { type: "json" }, program: { type: "json" } },
  outputs: { result: { type: "json" } },
  cost: 10,
  invoke: guarded(name, invoke)
}
