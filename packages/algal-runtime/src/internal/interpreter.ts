/**
 * The scheduler (ALGAL v1 §2.1–§2.4): a synchronous, pure interpreter written as one generator
 * that yields only when it needs the host's stores (blob and slot access). `Runtime.runSync`
 * drives it with in-memory stores; the `AlgalRuntime` service drives it with Effect services.
 *
 * @internal
 */
import type { AlgalErrorCode } from "../AlgalError.js"
import * as Canonical from "../Canonical.js"
import * as Expr from "../Expr.js"
import type * as Manifest from "../Manifest.js"
import type * as Program from "../Program.js"
import type * as Receipt from "../Receipt.js"
import { canonicalSize, isObj } from "./issue.js"
import { checkSchema } from "./schema.js"

type Json = Canonical.Json

/** @internal */
export type HostOp =
  | { readonly op: "blob.get"; readonly ref: string }
  | { readonly op: "blob.put"; readonly ref: string; readonly text: string; readonly value: Json }
  | { readonly op: "slot.get"; readonly name: string }
  | { readonly op: "slot.set"; readonly name: string; readonly text: string; readonly value: Json }

/** @internal */
export interface ExecOptions {
  readonly runtime: Receipt.RuntimeStamp
  /** Replay: recorded slot reads by cell path (`undefined` value = recorded as empty). */
  readonly replaySlots?: ReadonlyMap<string, Json | undefined>
}

/** @internal */
export interface Execution {
  readonly receipt: Receipt.Receipt
  readonly outputs: Record<string, Json>
}

/** @internal */
export const maxValueBytes = 262_144
/** @internal */
export const maxExprFuel = 100_000
/** @internal */
export const maxArgsBytes = 1_048_576
/** @internal */
export const maxEvents = 4096

const PENDING = 0
const COMMITTED = 1
const SKIPPED = 2
const FAILED = 3

interface Failure {
  readonly code: AlgalErrorCode
  readonly message: string
}

interface Ctx {
  readonly budgets: Manifest.Budgets
  /** Canonical sizes of values already checked in this run (values are never mutated during a run). */
  readonly sizes: Map<object, number>
  readonly options: ExecOptions
  steps: number
  agentCalls: number
  work: number
  readonly events: Array<Receipt.Event>
  readonly cells: Record<string, Receipt.CellRecord>
  failure: (Failure & { readonly path: string }) | undefined
  suspended: boolean
}

interface Scope {
  readonly status: Uint8Array
  readonly outputs: Array<Record<string, Json> | undefined>
  readonly failures: Array<Failure | undefined>
}

const digestPattern = /^sha256:[0-9a-f]{64}$/
const capPattern = /^cap:[a-z][a-z0-9-]{0,63}:sha256:[0-9a-f]{64}$/

/**
 * `check_value`: byte bound, type, labels and schema of one value against a port declaration.
 *
 * @internal
 */
export const checkValue = (value: Json, decl: Manifest.PortDecl, sizes?: Map<object, number>): Failure | undefined => {
  let size: number | undefined
  if (sizes !== undefined && value !== null && typeof value === "object") {
    size = sizes.get(value)
    if (size === undefined) {
      size = canonicalSize(value, maxValueBytes)
      sizes.set(value, size)
    }
  } else size = canonicalSize(value, maxValueBytes)
  if (size > maxValueBytes) {
    return { code: "BUDGET_EXHAUSTED", message: `value exceeds ${maxValueBytes} bytes` }
  }
  if (decl.many === true) {
    if (!Array.isArray(value)) return { code: "TYPE_MISMATCH", message: "expected list" }
    for (const item of value as ReadonlyArray<Json>) {
      const f = checkOne(item, decl)
      if (f !== undefined) return f
    }
    return undefined
  }
  return checkOne(value, decl)
}

const mismatch = (message: string): Failure => ({ code: "TYPE_MISMATCH", message })

const checkOne = (value: Json, decl: Manifest.PortDecl): Failure | undefined => {
  switch (decl.type) {
    case "text":
      return typeof value === "string" ? undefined : mismatch("expected text")
    case "choice":
      if (typeof value !== "string") return mismatch("expected choice label")
      return decl.labels === undefined || decl.labels.includes(value) ? undefined : mismatch(`label ${JSON.stringify(value)} not declared`)
    case "ref":
      return typeof value === "string" && digestPattern.test(value) ? undefined : mismatch("expected sha256 reference")
    case "cap":
      return typeof value === "string" && capPattern.test(value) && value.slice(4, 4 + decl.capability!.length + 1) === `${decl.capability}:`
        ? undefined
        : mismatch(`expected ${decl.capability} capability`)
    case "json": {
      if (decl.schema === undefined) return undefined
      const message = checkSchema(value, decl.schema as { [k: string]: unknown }, decl.schemaVersion ?? 1)
      return message === undefined ? undefined : mismatch(message)
    }
  }
}

const exprFailure = (error: Expr.ExprError): Failure =>
  error.code === "EXPR_FUEL"
    ? { code: "BUDGET_EXHAUSTED", message: "expr fuel exhausted" }
    : { code: "EXPR_FAILED", message: `expr ${Canonical.encodeUnsafe(error as unknown as Json)}` }

const pushEvent = (ctx: Ctx, event: Receipt.Event, path: string): void => {
  if (ctx.events.length >= maxEvents - 1) {
    if (ctx.failure === undefined) ctx.failure = { code: "BUDGET_EXHAUSTED", message: "receipt event count", path }
    return
  }
  ctx.events.push(event)
}

const fail = (ctx: Ctx, failure: Failure, path: string): void => {
  if (ctx.failure === undefined) ctx.failure = { ...failure, path }
}

type Activation =
  | { readonly ok: true; readonly outputs: Record<string, Json>; readonly extra?: Partial<Receipt.CellRecord> }
  | { readonly ok: false; readonly failure: Failure; readonly extra?: Partial<Receipt.CellRecord> }

function* activate(
  ctx: Ctx,
  cell: Program.CompiledCell,
  env: Record<string, Json>,
  args: Readonly<Record<string, Readonly<Record<string, Json>>>>,
  path: string,
  depth: number
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
        if (cell.outputs[port]!.type === "ref" && typeof outputs[port] === "string" && digestPattern.test(outputs[port] as string)) {
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
      if (result.work !== undefined && Number.isFinite(result.work) && result.work > 0) ctx.work += Math.floor(result.work)
      return { ok: true, outputs: { ...result.outputs } }
    }
    case "expr": {
      // `evaluate` re-runs the static check with the delivered names (the env keys), as the original.
      const result = Expr.evaluate(c.expr.program, env, maxExprFuel)
      ctx.work += result.fuel
      if (!result.ok) return { ok: false, failure: exprFailure(result.error) }
      return { ok: true, outputs: { out: result.value } }
    }
    case "store": {
      const data = env.data!
      const text = Canonical.encodeUnsafe(data)
      const bytes = Buffer.byteLength(text, "utf8")
      ctx.work += bytes
      if (bytes > maxValueBytes) return { ok: false, failure: { code: "BUDGET_EXHAUSTED", message: `blob exceeds ${maxValueBytes} bytes` } }
      const ref = Canonical.digestText(text)
      yield { op: "blob.put", ref, text, value: data }
      return { ok: true, outputs: { ref } }
    }
    case "load": {
      const ref = env.ref as string
      const found = (yield { op: "blob.get", ref }) as Json | undefined
      if (found === undefined) return { ok: false, failure: { code: "INPUT_MISSING", message: `reference ${ref} does not resolve` } }
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
          failure: { code: "INPUT_MISSING", message: `slot cell "${c.id}": slot "${c.name}" is empty and declares no default` },
          extra: slot
        }
      }
      return { ok: true, outputs: { data: value }, extra: slot }
    }
    case "organism": {
      if (c.via !== undefined) return { ok: false, failure: unboundVia(c.via) }
      const child = yield* runChild(ctx, cell.child!, childArgs(cell.child!, env), `${path}/`, depth + 1)
      return child.ok ? { ok: true, outputs: child.outputs } : child
    }
    case "repeat": {
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
    case "each": {
      if (c.via !== undefined) return { ok: false, failure: unboundVia(c.via) }
      const program = cell.child!
      const items = env[c.over!]
      if (!Array.isArray(items)) return { ok: false, failure: { code: "TYPE_MISMATCH", message: "each requires a list" } }
      if (items.length > c.maxItems!) return { ok: false, failure: { code: "BUDGET_EXHAUSTED", message: "each maxItems" } }
      const lists: Record<string, Array<Json>> = {}
      for (const name of Object.keys(cell.outputs)) lists[name] = []
      for (let i = 0; i < items.length; i++) {
        const child = yield* runChild(ctx, program, childArgs(program, { ...env, [c.over!]: items[i]! }), `${path}/i${i}/`, depth + 1)
        if (!child.ok) return i > 0 ? { ...child, extra: { items: i } } : child
        for (const [name, value] of Object.entries(child.outputs)) lists[name]?.push(value)
      }
      return items.length > 0 ? { ok: true, outputs: lists, extra: { items: items.length } } : { ok: true, outputs: lists }
    }
    default:
      return {
        ok: false,
        failure: { code: "EFFECT_UNBOUND", message: `no executor is bound for ${c.kind} cell ${c.id}` }
      }
  }
}

const unboundVia = (via: string): Failure => ({ code: "EFFECT_UNBOUND", message: `no transport is bound for via ${via}` })

const untilHolds = (until: { readonly output: string; readonly equals: string; readonly field?: string }, outputs: Record<string, Json>): boolean => {
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

type Child = { readonly ok: true; readonly outputs: Record<string, Json> } | { readonly ok: false; readonly failure: Failure }

/** Run an embedded organism as a nested scope (root-owned budgets); its failure is re-raised. */
function* runChild(
  ctx: Ctx,
  program: Program.Program,
  args: Record<string, Record<string, Json>>,
  prefix: string,
  depth: number
): Generator<HostOp, Child, unknown> {
  const scope = yield* runScope(ctx, program, args, prefix, depth)
  if (ctx.failure !== undefined) return { ok: false, failure: { code: ctx.failure.code, message: ctx.failure.message } }
  const pending = scope.status.findIndex((s) => s === PENDING)
  if (pending >= 0) {
    return { ok: false, failure: { code: "STUCK", message: `embedded organism ${program.manifest.key} never resolved ${program.cells[pending]!.id}` } }
  }
  return { ok: true, outputs: interfaceOutputs(program, scope) }
}

const interfaceOutputs = (program: Program.Program, scope: Scope): Record<string, Json> => {
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

const guardPasses = (ctx: Ctx, guard: Manifest.Guard, value: Json, path: string): boolean => {
  if ("expr" in guard) {
    const result = Expr.evaluate(guard.expr.program, { value }, maxExprFuel)
    ctx.work += result.fuel
    if (!result.ok) {
      fail(ctx, { code: "GUARD_INVALID", message: `guard expr ${Canonical.encodeUnsafe(result.error as unknown as Json)}` }, path)
      return false
    }
    if (typeof result.value !== "boolean") {
      fail(ctx, { code: "GUARD_INVALID", message: "guard expr must return a boolean" }, path)
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

function* runScope(
  ctx: Ctx,
  program: Program.Program,
  args: Readonly<Record<string, Readonly<Record<string, Json>>>>,
  prefix: string,
  depth: number
): Generator<HostOp, Scope, unknown> {
  const n = program.cells.length
  const scope: Scope = { status: new Uint8Array(n), outputs: new Array(n), failures: new Array(n) }
  const { status, outputs, failures } = scope
  if (depth > ctx.budgets.maxDepth) {
    fail(ctx, { code: "DEPTH_EXCEEDED", message: `depth ${depth} exceeds maxDepth ${ctx.budgets.maxDepth}` }, prefix.slice(0, -1))
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
          if (e.guard !== undefined && !guardPasses(ctx, e.guard, value, path)) {
            if (ctx.failure !== undefined) break
            continue
          }
        }
        const decl = cell.inputs[e.toPort]!
        if (decl.many === true) {
          many ??= {}
          const list = (many[e.toPort] ??= [])
          if (e.many && Array.isArray(value)) for (const v of value as ReadonlyArray<Json>) list.push(v)
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
      const before = ctx.work
      ctx.work += 100
      let result: Activation | undefined
      for (const name of Object.keys(env)) {
        const f = checkValue(env[name]!, cell.inputs[name]!, ctx.sizes)
        if (f !== undefined) {
          result = { ok: false, failure: f }
          break
        }
      }
      if (result === undefined) result = yield* activate(ctx, cell, env, args, path, depth)
      if (result.ok) {
        for (const port of Object.keys(result.outputs)) {
          const decl = Object.prototype.hasOwnProperty.call(cell.outputs, port) ? cell.outputs[port] : undefined
          const f = decl === undefined
            ? { code: "TYPE_MISMATCH" as const, message: `cell ${cell.id} produced undeclared port ${port}` }
            : checkValue(result.outputs[port]!, decl, ctx.sizes)
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
        status[ci] = COMMITTED
        outputs[ci] = result.outputs
        const record: { -readonly [K in keyof Receipt.CellRecord]: Receipt.CellRecord[K] } = { status: "committed", work }
        if (Object.keys(result.outputs).length > 0) record.outputs = result.outputs
        if (result.extra !== undefined) Object.assign(record, result.extra)
        ctx.cells[path] = record
        pushEvent(ctx, { seq: ctx.events.length, kind: "cell.commit", path }, path)
      } else {
        status[ci] = FAILED
        failures[ci] = result.failure
        ctx.cells[path] = {
          status: "failed",
          work,
          ...(result.extra ?? {}),
          failure: { code: result.failure.code, message: result.failure.message }
        }
        pushEvent(ctx, { seq: ctx.events.length, kind: "cell.fail", path }, path)
        if (!cell.handlesFailure) {
          fail(ctx, result.failure, path)
          break
        }
        // A failure re-raised from an embedded organism left the run failure set; it is handled here.
        if (raised !== undefined && ctx.failure === raised) ctx.failure = undefined
      }
      if (ctx.work > ctx.budgets.maxWork) {
        fail(ctx, { code: "BUDGET_EXHAUSTED", message: "maxWork exhausted" }, path)
        break
      }
    }
  }
  return scope
}

/**
 * Run a compiled program on already-validated args. Yields host store operations.
 *
 * @internal
 */
export function* execute(
  program: Program.Program,
  args: Readonly<Record<string, Readonly<Record<string, Json>>>>,
  options: ExecOptions
): Generator<HostOp, Execution, unknown> {
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
    suspended: false
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
  ctx.events.push({ seq: ctx.events.length, kind: "run.end", outcome })
  const body = {
    contract: "algal.run.v1" as const,
    runtime: options.runtime,
    manifestDigest: program.digest,
    manifestKey: program.manifest.key,
    args,
    outcome,
    cells: ctx.cells,
    effects: [],
    events: ctx.events,
    work: { steps: ctx.steps, agentCalls: ctx.agentCalls, units: ctx.work },
    ...(ctx.failure === undefined ? {} : { failure: ctx.failure })
  }
  const digest = Canonical.digestText(Canonical.encodeUnsafe(body))
  const receipt: Receipt.Receipt = { ...body, digest }
  return { receipt, outputs: interfaceOutputs(program, scope) }
}
