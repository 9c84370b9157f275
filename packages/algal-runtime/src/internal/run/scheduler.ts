/**
 * The scheduler (ALGAL v1 §2.1–§2.4): a synchronous, pure interpreter written as generators that
 * yield only when they need the host's stores or effects. A scope activates its ready cells in
 * manifest order, round after round, until no cell is ready; the root scope decides the outcome.
 *
 * @internal
 */
import * as Canonical from "../../Canonical.js"
import * as Expr from "../../Expr.js"
import type * as Manifest from "../../Manifest.js"
import type * as Program from "../../Program.js"
import type * as Receipt from "../../Receipt.js"
import { isObj } from "../issue.js"
import { activate } from "./activation.js"
import {
  type Activation,
  type Args,
  checkValue,
  COMMITTED,
  type Ctx,
  type ExecOptions,
  fail,
  FAILED,
  type HostOp,
  type Json,
  maxExprFuel,
  PENDING,
  pushEvent,
  type Scope,
  SKIPPED,
  SUSPENDED
} from "./context.js"

/** The original's name for a value's type in a guard's message (`number`, `text`, `list`, `map`, `null`). */
const kindOf = (value: Json): string =>
  value === null
    ? "null"
    : Array.isArray(value)
    ? "list"
    : typeof value === "string"
    ? "text"
    : typeof value === "object"
    ? "map"
    : typeof value

const guardPasses = (
  ctx: Ctx,
  edge: Program.CompiledEdge,
  guard: Manifest.Guard,
  value: Json,
  path: string
): boolean => {
  if ("expr" in guard) {
    const result = edge.guardExpr !== undefined
      ? Expr.run(edge.guardExpr, { value }, maxExprFuel)
      : Expr.evaluate(guard.expr.program, { value }, maxExprFuel)
    ctx.work += result.fuel
    if (!result.ok) {
      fail(ctx, {
        code: "GUARD_INVALID",
        message: `guard expr ${Canonical.encodeUnsafe(result.error as unknown as Json)}`
      }, path)
      return false
    }
    if (typeof result.value !== "boolean") {
      fail(
        ctx,
        { code: "GUARD_INVALID", message: `guard expr must produce boolean, got ${kindOf(result.value)}` },
        path
      )
      return false
    }
    if (ctx.work > ctx.budgets.maxWork) {
      fail(ctx, { code: "BUDGET_EXHAUSTED", message: "maxWork exhausted" }, path)
      return false
    }
    return result.value
  }
  if ("field" in guard) {
    return isObj(value) && (value as Record<string, Json>)[guard.field] === guard.equals
  }
  return value === guard.equals
}

/**
 * Settle an activation's result: its outputs checked against the declared ports, then the cell
 * committed or failed (its receipt record and event). Whether the scope goes on: a failure that
 * no `on: "fail"` edge handles stops it.
 */
const settle = (
  ctx: Ctx,
  scope: Scope,
  ci: number,
  cell: Program.CompiledCell,
  path: string,
  activation: Activation,
  before: number
): boolean => {
  let result = activation
  if (result.ok) {
    for (const port of Object.keys(result.outputs)) {
      const decl = Object.prototype.hasOwnProperty.call(cell.outputs, port) ? cell.outputs[port] : undefined
      const f = decl === undefined
        ? { code: "TYPE_MISMATCH" as const, message: `cell ${cell.id} produced undeclared port ${port}` }
        : checkValue(result.outputs[port]!, decl, ctx.sizes, cell.id, port)
      if (f !== undefined) {
        result = { ok: false, failure: f, ...(result.extra === undefined ? {} : { extra: result.extra }) }
        break
      }
    }
  }
  const work = ctx.work - before
  // set only when an embedded organism failed inside this activation
  const raised: Ctx["failure"] = ctx.failure
  if (result.ok) {
    scope.status[ci] = COMMITTED
    scope.outputs[ci] = result.outputs
    const record: { -readonly [K in keyof Receipt.CellRecord]: Receipt.CellRecord[K] } = {
      status: "committed",
      work
    }
    if (Object.keys(result.outputs).length > 0) record.outputs = result.outputs
    if (result.extra !== undefined) Object.assign(record, result.extra)
    ctx.cells[path] = record
    pushEvent(ctx, { seq: ctx.events.length, kind: "cell.commit", path }, path)
  } else {
    scope.status[ci] = FAILED
    scope.failures[ci] = result.failure
    ctx.cells[path] = {
      status: "failed",
      work,
      ...(result.extra ?? {}),
      failure: { code: result.failure.code, message: result.failure.message }
    }
    pushEvent(ctx, { seq: ctx.events.length, kind: "cell.fail", path }, path)
    if (!cell.handlesFailure) {
      fail(ctx, result.failure, path)
      return false
    }
    // A failure re-raised from an embedded organism left the run failure set; it is handled here.
    if (raised !== undefined && ctx.failure === raised) ctx.failure = undefined
  }
  return true
}

/**
 * Schedule one program as a scope: activate ready cells in manifest order until none is ready,
 * delivering outputs (edge order, guards, failure edges), applying the skip rule and the budgets.
 *
 * @internal
 */
export function* runScope(
  ctx: Ctx,
  program: Program.Program,
  args: Args,
  prefix: string,
  depth: number
): Generator<HostOp, Scope, unknown> {
  const n = program.cells.length
  const scope: Scope = { status: new Uint8Array(n), outputs: new Array(n), failures: new Array(n) }
  const { status, outputs, failures } = scope
  if (depth > ctx.budgets.maxDepth) {
    fail(
      ctx,
      { code: "DEPTH_EXCEEDED", message: `depth ${depth} exceeds maxDepth ${ctx.budgets.maxDepth}` },
      prefix.slice(0, -1)
    )
    return scope
  }
  let progress = true
  while (progress && ctx.failure === undefined && !ctx.suspended) {
    progress = false
    for (let ci = 0; ci < n; ci++) {
      if (ctx.failure !== undefined || ctx.suspended) break
      if (status[ci] !== PENDING) continue
      const cell = program.cells[ci]!
      let ready = true
      for (const p of cell.producers) {
        if (status[p] === PENDING) {
          ready = false
          break
        }
      }
      if (!ready) continue
      progress = true
      const path = prefix + cell.id

      // delivery, in manifest edge order
      let single: Record<string, Json> | undefined
      let many: Record<string, Array<Json>> | undefined
      for (const e of cell.inbound) {
        let value: Json
        if (e.fail) {
          if (status[e.from] !== FAILED) continue
          const f = failures[e.from]!
          value = { code: f.code, message: f.message }
        } else {
          if (status[e.from] !== COMMITTED) continue
          const out = outputs[e.from]
          if (out === undefined || !Object.prototype.hasOwnProperty.call(out, e.fromPort)) continue
          value = out[e.fromPort]!
          if (e.guard !== undefined && !guardPasses(ctx, e, e.guard, value, path)) {
            if (ctx.failure !== undefined) break
            continue
          }
        }
        const decl = cell.inputs[e.toPort]!
        if (decl.many === true) {
          many ??= {}
          const list = (many[e.toPort] ??= [])
          if (e.many && Array.isArray(value)) { for (const v of value as ReadonlyArray<Json>) list.push(v) }
          else list.push(value)
        } else {
          single ??= {}
          if (!Object.prototype.hasOwnProperty.call(single, e.toPort)) single[e.toPort] = value
        }
      }
      if (ctx.failure !== undefined) break

      // input assembly and the skip rule
      const env: Record<string, Json> = {}
      let received = false
      let missing = false
      for (const name of cell.inputNames) {
        const decl = cell.inputs[name]!
        if (decl.many === true) {
          const list = many?.[name]
          if (list !== undefined && list.length > 0) {
            env[name] = list
            received = true
          } else if (decl.optional === true) env[name] = []
          else missing = true
        } else if (single !== undefined && Object.prototype.hasOwnProperty.call(single, name)) {
          env[name] = single[name]!
          received = true
        } else if (decl.optional !== true) missing = true
      }
      if (cell.inputNames.length > 0 && (!received || missing)) {
        status[ci] = SKIPPED
        ctx.cells[path] = { status: "skipped", work: 0 }
        pushEvent(ctx, { seq: ctx.events.length, kind: "cell.skip", path }, path)
        continue
      }

      // activation
      if (ctx.steps + 1 > ctx.budgets.maxSteps) {
        fail(ctx, { code: "BUDGET_EXHAUSTED", message: "maxSteps exhausted" }, path)
        break
      }
      ctx.steps += 1
      if (ctx.options.cooperative === true) yield { op: "tick" }
      const before = ctx.work
      ctx.work += 100
      let result: Activation | undefined
      for (const name of Object.keys(env)) {
        const f = checkValue(env[name]!, cell.inputs[name]!, ctx.sizes, cell.id, name)
        if (f !== undefined) {
          result = { ok: false, failure: f }
          break
        }
      }
      if (result === undefined) result = yield* activate(ctx, cell, env, args, path, depth, program, scope)
      if (!result.ok && result.suspended === true) {
        status[ci] = SUSPENDED
        ctx.cells[path] = { status: "suspended", work: ctx.work - before }
        pushEvent(ctx, { seq: ctx.events.length, kind: "cell.suspend", path }, path)
        fail(ctx, result.failure, path)
        ctx.suspended = true
        break
      }
      if (!settle(ctx, scope, ci, cell, path, result, before)) break
      if (ctx.work > ctx.budgets.maxWork) {
        fail(ctx, { code: "BUDGET_EXHAUSTED", message: "maxWork exhausted" }, path)
        break
      }
    }
  }
  return scope
}

/**
 * The root scope of a run, through to its outcome (a stuck run's failure names the pending cells).
 *
 * @internal
 */
export function* runRoot(
  program: Program.Program,
  args: Args,
  options: ExecOptions
): Generator<HostOp, { readonly ctx: Ctx; readonly scope: Scope; readonly outcome: Receipt.Outcome }, unknown> {
  const ctx: Ctx = {
    budgets: program.manifest.budgets,
    sizes: new Map(),
    options,
    steps: 0,
    agentCalls: 0,
    work: 0,
    events: [{ seq: 0, kind: "run.start", digest: program.digest }],
    cells: {},
    failure: undefined,
    suspended: false,
    effects: [],
    runScope
  }
  const scope = yield* runScope(ctx, program, args, "", 0)
  let outcome: Receipt.Outcome
  if (ctx.suspended) outcome = "suspended"
  else if (ctx.failure !== undefined) outcome = "failed"
  else {
    const pending: Array<string> = []
    scope.status.forEach((s, i) => s === PENDING && pending.push(program.cells[i]!.id))
    if (pending.length > 0) {
      outcome = "stuck"
      ctx.failure = { code: "STUCK", message: `cells never resolved: ${pending.join(", ")}`, path: pending[0]! }
    } else outcome = "complete"
  }
  return { ctx, scope, outcome }
}
