/**
 * Activation (ALGAL v1 §2.4): one cell's work on its assembled inputs, by kind. The pure and
 * store-backed kinds are here; model, tool and recall effects and the composition kinds each
 * have their own module.
 *
 * @internal
 */
import * as Canonical from "../../Canonical.js"
import * as Expr from "../../Expr.js"
import type * as Manifest from "../../Manifest.js"
import type * as Program from "../../Program.js"
import { canonicalSize } from "../issue.js"
import { activateEach, activateOrganism, activateRepeat, activateSpawn } from "./composition.js"
import {
  type Activation,
  type Args,
  type Ctx,
  digestPattern,
  exprFailure,
  type HostOp,
  type Json,
  maxExprFuel,
  maxValueBytes,
  type Scope
} from "./context.js"
import { activateModel } from "./effects.js"
import { activateRecall } from "./recall.js"
import { activateTool } from "./tools.js"

/**
 * Activate one cell: its outputs (and receipt extras), or the failure it records.
 *
 * @internal
 */
export function* activate(
  ctx: Ctx,
  cell: Program.CompiledCell,
  env: Record<string, Json>,
  args: Args,
  path: string,
  depth: number,
  program: Program.Program,
  scope: Scope
): Generator<HostOp, Activation, unknown> {
  const c = cell.cell
  switch (c.kind) {
    case "input":
    case "const": {
      const outputs: Record<string, Json> = {}
      if (c.kind === "input") {
        const given = args[c.id]
        if (given !== undefined) {
          for (const port of Object.keys(c.outputs)) {
            if (Object.prototype.hasOwnProperty.call(given, port)) outputs[port] = given[port]!
          }
        }
      } else {
        for (const port of Object.keys(c.outputs)) outputs[port] = c.outputs[port]!.value
      }
      for (const port of Object.keys(outputs)) {
        if (
          cell.outputs[port]!.type === "cap" && typeof outputs[port] === "string" &&
          (ctx.options.caps === undefined || !ctx.options.caps(outputs[port] as string))
        ) {
          return {
            ok: false,
            failure: { code: "CAPABILITY_DENIED", message: `capability on ${c.id}.${port} was not minted by the host` }
          }
        }
        if (
          cell.outputs[port]!.type === "ref" && typeof outputs[port] === "string" &&
          digestPattern.test(outputs[port] as string)
        ) {
          const found = yield { op: "blob.get", ref: outputs[port] as string }
          if (found === undefined) {
            return { ok: false, failure: { code: "STORE_MISS", message: "input/const reference does not resolve" } }
          }
        }
      }
      return { ok: true, outputs }
    }
    case "fn": {
      const fn = cell.fn!
      ctx.work += fn.cost
      const result = fn.invoke(env)
      if (!result.ok) return { ok: false, failure: { code: result.code ?? "FN_FAILED", message: result.message } }
      if (result.work !== undefined && Number.isFinite(result.work) && result.work > 0) {
        ctx.work += Math.floor(result.work)
      }
      return { ok: true, outputs: { ...result.outputs } }
    }
    case "expr": {
      // `evaluate` re-runs the static check with the delivered names (the env keys), as the original.
      const result = cell.expr !== undefined
        ? Expr.run(cell.expr, env, maxExprFuel)
        : Expr.evaluate(c.expr.program, env, maxExprFuel)
      ctx.work += result.fuel
      if (!result.ok) return { ok: false, failure: exprFailure(result.error) }
      return { ok: true, outputs: { out: result.value } }
    }
    case "store": {
      const data = env.data!
      const text = Canonical.encodeUnsafe(data)
      const bytes = Buffer.byteLength(text, "utf8")
      ctx.work += bytes
      if (bytes > maxValueBytes) {
        return { ok: false, failure: { code: "BUDGET_EXHAUSTED", message: `blob exceeds ${maxValueBytes} bytes` } }
      }
      const ref = Canonical.digestText(text)
      yield { op: "blob.put", ref, text, value: data }
      return { ok: true, outputs: { ref } }
    }
    case "load": {
      const ref = env.ref as string
      const found = (yield { op: "blob.get", ref }) as Json | undefined
      if (found === undefined) {
        return { ok: false, failure: { code: "INPUT_MISSING", message: `reference ${ref} does not resolve` } }
      }
      ctx.work += canonicalSize(found, Number.MAX_SAFE_INTEGER)
      return { ok: true, outputs: { data: found } }
    }
    case "slot": {
      const slot = { slot: { name: c.name, mode: c.mode } } as const
      if (c.mode === "write") {
        const data = env.data!
        const text = Canonical.encodeUnsafe(data)
        ctx.work += Buffer.byteLength(text, "utf8")
        if (ctx.options.replaySlots === undefined) yield { op: "slot.set", name: c.name, text, value: data }
        return { ok: true, outputs: { data }, extra: slot }
      }
      let value: Json | undefined
      if (ctx.options.replaySlots !== undefined) value = ctx.options.replaySlots.get(path)
      else value = (yield { op: "slot.get", name: c.name }) as Json | undefined
      if (value === undefined) value = c.default
      if (value === undefined) {
        return {
          ok: false,
          failure: {
            code: "INPUT_MISSING",
            message: `slot cell "${c.id}": slot "${c.name}" is empty and declares no default`
          },
          extra: slot
        }
      }
      return { ok: true, outputs: { data: value }, extra: slot }
    }
    case "organism":
      return yield* activateOrganism(ctx, cell, env, path, depth)
    case "agent":
    case "classifier":
    case "gate":
    case "decide":
      return yield* activateModel(ctx, cell, c as Manifest.AgentCell, env, path, program, scope)
    case "recall":
      return yield* activateRecall(ctx, c as Manifest.RecallCell, env, path)
    case "tool":
      return yield* activateTool(ctx, cell, c as Manifest.ToolCell, env, path)
    case "spawn":
      return yield* activateSpawn(ctx, env, path, depth, program)
    case "repeat":
      return yield* activateRepeat(ctx, cell, env, path, depth)
    case "each":
      return yield* activateEach(ctx, cell, env, path, depth)
  }
}
