/**
 * Tools (ALGAL v1 §2.5): an agent's tool calls (a registry fn recomputed in place, or a host tool)
 * and host `tool` cells, each host call one `algal.tool-effect.v1` request and effect receipt.
 *
 * @internal
 */
import * as Canonical from "../../Canonical.js"
import type * as EffectRequest from "../../EffectRequest.js"
import type * as Manifest from "../../Manifest.js"
import type * as Program from "../../Program.js"
import { isObj, measureJson } from "../issue.js"
import { type Activation, checkValue, type Ctx, type Failure, type HostOp, type Json, pushEvent } from "./context.js"

/** One tool call of an agent's tool loop: a registry fn (recomputed) or a host tool (an effect). */
export function* toolCall(
  ctx: Ctx,
  program: Program.Program,
  call: { tool: string; inputs: Record<string, Json> },
  path: string
): Generator<HostOp, Json | undefined, unknown> {
  const entry = (result: { output: Json } | { error: Failure }): Json =>
    "output" in result
      ? { fn: call.tool, inputs: call.inputs, output: result.output }
      : { fn: call.tool, inputs: call.inputs, error: { code: result.error.code, message: result.error.message } }
  const fn = program.fns.fns.get(call.tool)
  const signature = fn ?? program.options?.tools?.[call.tool]
  if (signature === undefined) return entry({ error: { code: "TOOL_UNKNOWN", message: `unknown tool ${call.tool}` } })
  for (const [name, decl] of Object.entries(signature.inputs)) {
    if (!Object.prototype.hasOwnProperty.call(call.inputs, name)) {
      if (decl.optional !== true) {
        return entry({ error: { code: "TYPE_MISMATCH", message: `tool input ${name} is missing` } })
      }
      continue
    }
    const f = checkValue(call.inputs[name]!, decl, ctx.sizes)
    if (f !== undefined) return entry({ error: f })
  }
  for (const name of Object.keys(call.inputs)) {
    if (!Object.prototype.hasOwnProperty.call(signature.inputs, name)) {
      return entry({ error: { code: "TYPE_MISMATCH", message: `tool input ${name} is not declared` } })
    }
  }
  if (fn !== undefined) {
    ctx.work += fn.cost
    const result = fn.invoke(call.inputs)
    if (!result.ok) return entry({ error: { code: result.code ?? "FN_FAILED", message: result.message } })
    if (result.work !== undefined && Number.isFinite(result.work) && result.work > 0) {
      ctx.work += Math.floor(result.work)
    }
    return entry({ output: result.outputs as Json })
  }
  const outcome = yield* hostTool(ctx, call.tool, signature as Program.ToolSignature, call.inputs, path)
  if (outcome.suspended) return undefined
  return outcome.ok ? entry({ output: outcome.outputs }) : entry({ error: outcome.failure })
}

type ToolOutcome =
  | { readonly ok: true; readonly suspended: false; readonly outputs: Record<string, Json>; readonly digest: string }
  | { readonly ok: false; readonly suspended: boolean; readonly failure: Failure; readonly digest: string }

/** Call a host tool: an `algal.tool-effect.v1` request, one effect receipt, `cost + output bytes` work. */
function* hostTool(
  ctx: Ctx,
  name: string,
  signature: Program.ToolSignature,
  inputs: Record<string, Json>,
  path: string,
  maxEffectMs?: number
): Generator<HostOp, ToolOutcome, unknown> {
  const request: EffectRequest.ToolRequest = {
    contract: "algal.tool-effect.v1",
    path,
    tool: name,
    effect: signature.effect ?? "read",
    inputs
  }
  const digest = Canonical.digestText(Canonical.encodeUnsafe(request))
  pushEvent(ctx, { seq: ctx.events.length, kind: "effect", path, digest }, path)
  const receipt = (yield { op: "tool", path, request, digest, maxEffectMs }) as EffectRequest.EffectReceipt
  ctx.effects.push(receipt)
  ctx.work += signature.cost ?? 0
  if (receipt.error !== undefined) {
    const failure = { code: receipt.error.code, message: receipt.error.message }
    return { ok: false, suspended: receipt.error.code === "EFFECT_SUSPENDED", failure, digest }
  }
  const value: Json = receipt.output === undefined ? null : receipt.output
  const bytes = measureJson(value)
  if (typeof bytes === "string") {
    return {
      ok: false,
      suspended: false,
      failure: { code: "TOOL_FAILED", message: `tool ${name} output is not JSON: ${bytes}` },
      digest
    }
  }
  const max = signature.maxOutputBytes ?? 65_536
  if (bytes > max) {
    return {
      ok: false,
      suspended: false,
      failure: { code: "BUDGET_EXHAUSTED", message: `tool output ${bytes}B exceeds maxOutputBytes ${max}B` },
      digest
    }
  }
  ctx.work += bytes
  if (!isObj(value)) {
    return {
      ok: false,
      suspended: false,
      failure: { code: "TOOL_FAILED", message: `tool ${name} must return an object of output ports` },
      digest
    }
  }
  return { ok: true, suspended: false, outputs: value as Record<string, Json>, digest }
}

/** `tool` cells: one host tool call on the delivered inputs. @internal */
export function* activateTool(
  ctx: Ctx,
  cell: Program.CompiledCell,
  c: Manifest.ToolCell,
  env: Record<string, Json>,
  path: string
): Generator<HostOp, Activation, unknown> {
  const outcome = yield* hostTool(ctx, c.tool, cell.tool!, env, path, c.budget?.maxEffectMs)
  if (outcome.ok) return { ok: true, outputs: outcome.outputs, extra: { effectDigest: outcome.digest } }
  if (outcome.suspended) return { ok: false, failure: outcome.failure, suspended: true }
  return { ok: false, failure: outcome.failure }
}
