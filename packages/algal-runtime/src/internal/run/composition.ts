/**
 * Composition (ALGAL v1 §2.6): `organism`, `repeat`, `each` and `spawn` run another program as a
 * nested scope of the same run — root-owned budgets, paths under the cell's own, a child failure
 * re-raised as the cell's.
 *
 * @internal
 */
import * as Manifest from "../../Manifest.js"
import * as Program from "../../Program.js"
import { isObj } from "../issue.js"
import {
  type Activation,
  COMMITTED,
  type Ctx,
  type Failure,
  type HostOp,
  type Json,
  PENDING,
  type Scope
} from "./context.js"

/** `organism`: run the embedded program as a nested scope on the delivered interface inputs. @internal */
export function* activateOrganism(
  ctx: Ctx,
  cell: Program.CompiledCell,
  env: Record<string, Json>,
  path: string,
  depth: number
): Generator<HostOp, Activation, unknown> {
  const c = cell.cell as Manifest.CompositionCell
  if (c.via !== undefined) return { ok: false, failure: unboundVia(c.via) }
  const child = yield* runChild(ctx, cell.child!, childArgs(cell.child!, env), `${path}/`, depth + 1)
  return child.ok ? { ok: true, outputs: child.outputs } : child
}

export function* activateSpawn(
  ctx: Ctx,
  env: Record<string, Json>,
  path: string,
  depth: number,
  program: Program.Program
): Generator<HostOp, Activation, unknown> {
  const parsed = Manifest.parseSync(env.manifest)
  if (!parsed.ok) return { ok: false, failure: { code: parsed.error.code, message: `spawn: ${parsed.error.message}` } }
  const compiled = Program.compileSync(parsed.manifest, program.options ?? { fns: program.fns })
  if (!compiled.ok) {
    return { ok: false, failure: { code: compiled.error.code, message: `spawn: ${compiled.error.message}` } }
  }
  const args = env.args === undefined ? {} : env.args
  if (!isObj(args)) {
    return {
      ok: false,
      failure: { code: "TYPE_MISMATCH", message: "spawn args must be an object of interface inputs" }
    }
  }
  const text = Manifest.canonical(parsed.manifest)
  const digest = compiled.program.digest
  yield { op: "blob.put", ref: digest, text, value: parsed.manifest as unknown as Json }
  const child = yield* runChild(
    ctx,
    compiled.program,
    childArgs(compiled.program, args as Record<string, Json>),
    `${path}/`,
    depth + 1
  )
  if (!child.ok) return child
  return { ok: true, outputs: { data: child.outputs, digest } }
}

const unboundVia = (via: string): Failure => ({
  code: "EFFECT_UNBOUND",
  message: `no transport is bound for via ${via}`
})

const untilHolds = (
  until: { readonly output: string; readonly equals: string; readonly field?: string },
  outputs: Record<string, Json>
): boolean => {
  const value = outputs[until.output]
  if (until.field === undefined) return value === until.equals
  return isObj(value) && (value as Record<string, Json>)[until.field] === until.equals
}

/** `interface_args`: interface-named values → `{cell: {port: value}}` (undeclared names ignored). */
const childArgs = (program: Program.Program, inputs: Record<string, Json>): Record<string, Record<string, Json>> => {
  const out: Record<string, Record<string, Json>> = {}
  for (const [name, ep] of Object.entries(program.manifest.interface.inputs)) {
    if (Object.prototype.hasOwnProperty.call(inputs, name)) (out[ep.cell] ??= {})[ep.port] = inputs[name]!
  }
  return out
}

type Child =
  | { readonly ok: true; readonly outputs: Record<string, Json> }
  | { readonly ok: false; readonly failure: Failure; readonly suspended?: true }

/** Run an embedded organism as a nested scope (root-owned budgets); its failure is re-raised. */
export function* runChild(
  ctx: Ctx,
  program: Program.Program,
  args: Record<string, Record<string, Json>>,
  prefix: string,
  depth: number
): Generator<HostOp, Child, unknown> {
  const scope = yield* ctx.runScope(ctx, program, args, prefix, depth)
  if (ctx.suspended) {
    return { ok: false, failure: { code: "EFFECT_SUSPENDED", message: "embedded organism suspended" }, suspended: true }
  }
  if (ctx.failure !== undefined) return { ok: false, failure: { code: ctx.failure.code, message: ctx.failure.message } }
  const pending = scope.status.findIndex((s) => s === PENDING)
  if (pending >= 0) {
    return {
      ok: false,
      failure: {
        code: "STUCK",
        message: `embedded organism ${program.manifest.key} never resolved ${program.cells[pending]!.id}`
      }
    }
  }
  return { ok: true, outputs: interfaceOutputs(program, scope) }
}

export const interfaceOutputs = (program: Program.Program, scope: Scope): Record<string, Json> => {
  const result: Record<string, Json> = {}
  for (const [name, ep] of Object.entries(program.manifest.interface.outputs)) {
    const i = program.byId.get(ep.cell)!.index
    const out = scope.outputs[i]
    if (scope.status[i] === COMMITTED && out !== undefined && Object.prototype.hasOwnProperty.call(out, ep.port)) {
      result[name] = out[ep.port]!
    }
  }
  return result
}
/** `repeat`: run the embedded program up to `maxRounds` times, carrying outputs to inputs, until `until` holds. @internal */
export function* activateRepeat(
  ctx: Ctx,
  cell: Program.CompiledCell,
  env: Record<string, Json>,
  path: string,
  depth: number
): Generator<HostOp, Activation, unknown> {
  const c = cell.cell as Manifest.CompositionCell
  if (c.via !== undefined) return { ok: false, failure: unboundVia(c.via) }
  const program = cell.child!
  const inputs: Record<string, Json> = { ...env }
  let outputs: Record<string, Json> = {}
  let rounds = 0
  for (let round = 0; round < c.maxRounds!; round++) {
    rounds += 1
    const child = yield* runChild(ctx, program, childArgs(program, inputs), `${path}/r${round}/`, depth + 1)
    if (!child.ok) return rounds > 1 ? { ...child, extra: { rounds } } : child
    outputs = child.outputs
    if (c.until !== undefined && untilHolds(c.until, outputs)) break
    for (const [out, inp] of Object.entries(c.carry ?? {})) {
      if (Object.prototype.hasOwnProperty.call(outputs, out)) inputs[inp] = outputs[out]!
    }
  }
  return rounds > 1 ? { ok: true, outputs, extra: { rounds } } : { ok: true, outputs }
}

/** `each`: run the embedded program once per item of the `over` list; outputs are collected into lists. @internal */
export function* activateEach(
  ctx: Ctx,
  cell: Program.CompiledCell,
  env: Record<string, Json>,
  path: string,
  depth: number
): Generator<HostOp, Activation, unknown> {
  const c = cell.cell as Manifest.CompositionCell
  if (c.via !== undefined) return { ok: false, failure: unboundVia(c.via) }
  const program = cell.child!
  const items = env[c.over!]
  if (!Array.isArray(items)) {
    return { ok: false, failure: { code: "TYPE_MISMATCH", message: "each requires a list" } }
  }
  if (items.length > c.maxItems!) {
    return { ok: false, failure: { code: "BUDGET_EXHAUSTED", message: "each maxItems" } }
  }
  const lists: Record<string, Array<Json>> = {}
  for (const name of Object.keys(cell.outputs)) lists[name] = []
  for (let i = 0; i < items.length; i++) {
    const child = yield* runChild(
      ctx,
      program,
      childArgs(program, { ...env, [c.over!]: items[i]! }),
      `${path}/i${i}/`,
      depth + 1
    )
    if (!child.ok) return i > 0 ? { ...child, extra: { items: i } } : child
    for (const [name, value] of Object.entries(child.outputs)) lists[name]?.push(value)
  }
  return items.length > 0
    ? { ok: true, outputs: lists, extra: { items: items.length } }
    : { ok: true, outputs: lists }
}
