/**
 * The scheduler (ALGAL v1 §2.1–§2.4): a synchronous, pure interpreter written as one generator
 * that yields only when it needs the host's stores (blob and slot access). `Runtime.runSync`
 * drives it with in-memory stores; the `AlgalRuntime` service drives it with Effect services.
 *
 * @internal
 */
import type { AlgalErrorCode } from "../AlgalError.js"
import * as Canonical from "../Canonical.js"
import type * as EffectRequest from "../EffectRequest.js"
import * as Expr from "../Expr.js"
import * as Manifest from "../Manifest.js"
import * as Program from "../Program.js"
import type * as Receipt from "../Receipt.js"
import { canonicalSize, isObj, measureJson } from "./issue.js"
import { checkSchema } from "./schema.js"

type Json = Canonical.Json

/** @internal */
export type HostOp =
  | { readonly op: "blob.get"; readonly ref: string }
  | { readonly op: "blob.put"; readonly ref: string; readonly text: string; readonly value: Json }
  | { readonly op: "slot.get"; readonly name: string }
  | { readonly op: "slot.set"; readonly name: string; readonly text: string; readonly value: Json }
  | {
    readonly op: "effect"
    readonly path: string
    readonly request: EffectRequest.ModelRequest
    readonly digest: string
    /** Enforcement only (never recorded): the cell's `budget.maxEffectMs`. */
    readonly maxEffectMs?: number | undefined
  }
  | {
    readonly op: "tool"
    readonly path: string
    readonly request: EffectRequest.ToolRequest
    readonly digest: string
    readonly maxEffectMs?: number | undefined
  }

/** @internal */
export interface ExecOptions {
  readonly runtime: Receipt.RuntimeStamp
  /** Replay: recorded slot reads by cell path (`undefined` value = recorded as empty). */
  readonly replaySlots?: ReadonlyMap<string, Json | undefined>
  /** Whether a `cap` token was minted by the host (absent: no capability is honoured). */
  readonly caps?: (token: string) => boolean
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
const SUSPENDED = 4

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
  readonly effects: Array<EffectRequest.EffectReceipt>
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

/**
 * `check_value` without the byte bound, for one value (not a `many` list): type, labels, schema.
 *
 * @internal
 */
export const checkOne = (value: Json, decl: Manifest.PortDecl): Failure | undefined => {
  switch (decl.type) {
    case "text":
      return typeof value === "string" ? undefined : mismatch("expected text")
    case "choice":
      if (typeof value !== "string") return mismatch("expected choice label")
      return decl.labels === undefined || decl.labels.includes(value)
        ? undefined
        : mismatch(`label ${JSON.stringify(value)} not declared`)
    case "ref":
      return typeof value === "string" && digestPattern.test(value) ? undefined : mismatch("expected sha256 reference")
    case "cap":
      return typeof value === "string" && capPattern.test(value) &&
          value.slice(4, 4 + decl.capability!.length + 1) === `${decl.capability}:`
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
  | {
    readonly ok: false
    readonly failure: Failure
    readonly extra?: Partial<Receipt.CellRecord>
    /** An executor suspended the run (`EFFECT_SUSPENDED`). */
    readonly suspended?: true
  }

function* activate(
  ctx: Ctx,
  cell: Program.CompiledCell,
  env: Record<string, Json>,
  args: Readonly<Record<string, Readonly<Record<string, Json>>>>,
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
    case "organism": {
      if (c.via !== undefined) return { ok: false, failure: unboundVia(c.via) }
      const child = yield* runChild(ctx, cell.child!, childArgs(cell.child!, env), `${path}/`, depth + 1)
      return child.ok ? { ok: true, outputs: child.outputs } : child
    }
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
  }
}

// ---------------------------------------------------------------------------------------------
// effects (§2.5)

/** The output contract a decide request carries: a json record of answers. */
const decideOutput: Json = {
  kind: "json",
  schema: { type: "object", required: ["answers"], properties: { answers: { type: "object" } } }
}

const recallOutput: Json = { kind: "json", schema: { type: "array" } }

type Bound = { readonly ok: true; readonly value: Json } | { readonly ok: false; readonly failure: Failure }

const unparseable = (message: string): Bound => ({ ok: false, failure: { code: "EFFECT_UNPARSEABLE", message } })

/** `bind_output`: text must be a string; choice a declared label (else `onMiss`); json must match its schema. */
const bindOutput = (cell: Manifest.AgentCell, value: Json): Bound => {
  if (cell.kind === "decide") {
    if (!isObj(value) || !isObj((value as Record<string, Json>).answers)) {
      return unparseable("decide output must be {\"answers\": {…}}")
    }
    const answers = (value as { answers: Record<string, Json> }).answers
    for (const name of Object.keys(cell.questions ?? {})) {
      if (!Object.prototype.hasOwnProperty.call(answers, name)) {
        return unparseable(`decide output is missing answer ${name}`)
      }
    }
    return { ok: true, value }
  }
  const output = cell.output ?? { kind: "text" }
  switch (output.kind) {
    case "text":
      return typeof value === "string" ? { ok: true, value } : unparseable("expected text output")
    case "choice":
      if (typeof value === "string" && output.labels.includes(value)) return { ok: true, value }
      if (output.onMiss !== undefined) return { ok: true, value: output.onMiss }
      return unparseable(`output ${truncate(value)} is not one of ${output.labels.join("|")}`)
    case "json": {
      const message = checkSchema(value, output.schema as { [k: string]: unknown }, output.schemaVersion ?? 1)
      return message === undefined ? { ok: true, value } : unparseable(message)
    }
  }
}

const truncate = (value: Json): string => {
  const text = Canonical.encodeUnsafe(value)
  return text.length > 200 ? text.slice(0, 200) + "…" : text
}

const isToolCall = (
  value: Json,
  tools: ReadonlyArray<string>
): value is { tool: string; inputs: Record<string, Json> } =>
  isObj(value) && typeof value.tool === "string" && tools.includes(value.tool) && isObj(value.inputs) &&
  Object.keys(value).length === 2

type Attempted =
  | { readonly kind: "value"; readonly value: Json }
  | { readonly kind: "call"; readonly call: { tool: string; inputs: Record<string, Json> } }
  | { readonly kind: "fail"; readonly failure: Failure }
  | { readonly kind: "suspended"; readonly failure: Failure }

/**
 * The attempt loop (`retry.attempts`): each attempt is an agent call (charged before it is made),
 * `500 + context bytes` work, an `effect` event and an effect receipt. Errors retry unless
 * `retryable:false`; oversize and unparseable outputs retry.
 */
function* attemptLoop(
  ctx: Ctx,
  path: string,
  request: EffectRequest.ModelRequest,
  digest: string,
  contextBytes: number,
  attempts: number,
  tools: ReadonlyArray<string>,
  bind: (value: Json) => Bound,
  maxEffectMs: number | undefined
): Generator<HostOp, Attempted, unknown> {
  let failure: Failure = { code: "EFFECT_FAILED", message: "no attempt was made" }
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (ctx.agentCalls + 1 > ctx.budgets.maxAgentCalls) {
      return { kind: "fail", failure: { code: "BUDGET_EXHAUSTED", message: "maxAgentCalls exhausted" } }
    }
    ctx.agentCalls += 1
    ctx.work += 500 + contextBytes
    pushEvent(ctx, { seq: ctx.events.length, kind: "effect", path, digest }, path)
    const receipt = (yield { op: "effect", path, request, digest, maxEffectMs }) as EffectRequest.EffectReceipt
    ctx.effects.push(receipt)
    if (receipt.error !== undefined) {
      failure = { code: receipt.error.code, message: receipt.error.message }
      if (receipt.error.code === "EFFECT_SUSPENDED") return { kind: "suspended", failure }
      if (receipt.retryable === false) break
      continue
    }
    const value: Json = receipt.output === undefined ? null : receipt.output
    const bytes = measureJson(value)
    if (typeof bytes === "string") {
      failure = { code: "EFFECT_UNPARSEABLE", message: `effect output is not JSON: ${bytes}` }
      continue
    }
    if (bytes > request.budget.maxOutputBytes) {
      failure = {
        code: "BUDGET_EXHAUSTED",
        message: `effect output ${bytes}B exceeds maxOutputBytes ${request.budget.maxOutputBytes}B`
      }
      continue
    }
    ctx.work += bytes
    if (tools.length > 0 && isToolCall(value, tools)) return { kind: "call", call: value }
    const bound = bind(value)
    if (bound.ok) return { kind: "value", value: bound.value }
    failure = bound.failure
  }
  return { kind: "fail", failure }
}

const viewInputs = (view: Manifest.View, env: Record<string, Json>): Record<string, Json> => {
  if (view.inputs === undefined || view.inputs === "*") return env
  const out: Record<string, Json> = {}
  for (const name of view.inputs) if (Object.prototype.hasOwnProperty.call(env, name)) out[name] = env[name]!
  return out
}

/** The static part of a context view: note, upstream cell outputs and the graph between them. */
const viewExtras = (
  view: Manifest.View,
  cellId: string,
  program: Program.Program,
  scope: Scope
): Record<string, Json> => {
  const out: Record<string, Json> = {}
  if (view.note !== undefined) out.note = view.note
  if (view.cells !== undefined) {
    const cells: Record<string, Record<string, Json>> = {}
    for (const ref of view.cells) {
      const compiled = program.byId.get(ref.cell)!
      const outputs = scope.status[compiled.index] === COMMITTED ? scope.outputs[compiled.index] : undefined
      const picked: Record<string, Json> = {}
      if (outputs !== undefined) {
        for (const port of ref.ports ?? Object.keys(outputs)) {
          if (Object.prototype.hasOwnProperty.call(outputs, port)) picked[port] = outputs[port]!
        }
      }
      cells[ref.cell] = picked
    }
    out.cells = cells
    if (view.graph === true) {
      const ids = new Set([...view.cells.map((r) => r.cell), cellId])
      out.graph = {
        cells: program.cells.filter((c) => ids.has(c.id)).map((c) => ({ id: c.id, kind: c.kind })),
        edges: program.manifest.edges
          .filter((e) => ids.has(e.from.cell) && ids.has(e.to.cell))
          .map((e) => `${e.from.cell}.${e.from.port}->${e.to.cell}.${e.to.port}`)
      }
    }
  }
  return out
}

/** `compact` (mode `elide`): when the tool log exceeds `maxLogBytes`, older entries collapse into one marker. */
const compactLog = (log: ReadonlyArray<Json>, compact: Manifest.AgentCell["compact"]): ReadonlyArray<Json> => {
  if (compact === undefined) return log
  const max = typeof compact.maxLogBytes === "number" ? compact.maxLogBytes : Number.MAX_SAFE_INTEGER
  if (canonicalSize(log, max) <= max) return log
  const keep = Math.min(typeof compact.keepRecent === "number" ? compact.keepRecent : 2, log.length)
  const elided = log.length - keep
  return elided <= 0 ? log : [{ elided }, ...log.slice(log.length - keep)]
}

function* activateModel(
  ctx: Ctx,
  cell: Program.CompiledCell,
  c: Manifest.AgentCell,
  env: Record<string, Json>,
  path: string,
  program: Program.Program,
  scope: Scope
): Generator<HostOp, Activation, unknown> {
  const root = ctx.budgets
  const budget = c.budget ?? {}
  const maxContextBytes = Math.min(budget.maxContextBytes ?? root.maxContextBytes, root.maxContextBytes)
  const maxOutputBytes = Math.min(budget.maxOutputBytes ?? root.maxOutputBytes, root.maxOutputBytes)
  const tools = c.tools ?? []
  const maxTurns = budget.maxTurns ?? (tools.length > 0 ? 8 : 1)
  const attempts = c.retry?.attempts ?? 1
  const output: Json = c.kind === "decide" ? decideOutput : (c.output ?? { kind: "text" }) as unknown as Json
  const inputs = viewInputs(c.view, env)
  const extras = viewExtras(c.view, c.id, program, scope)
  const toolLog: Array<Json> = []
  const bind = (value: Json) => bindOutput(c, value)
  let digest = ""
  const withLog = (extra: Partial<Receipt.CellRecord>): Partial<Receipt.CellRecord> =>
    toolLog.length > 0 ? { ...extra, toolCalls: toolLog } : extra
  for (let turn = 0; turn < maxTurns; turn++) {
    const context: Record<string, Json> = { inputs, turn, ...extras }
    if (toolLog.length > 0) context.toolLog = compactLog(toolLog.slice(), c.compact)
    const contextBytes = canonicalSize(context, maxContextBytes)
    if (contextBytes > maxContextBytes) {
      return {
        ok: false,
        failure: {
          code: "BUDGET_EXHAUSTED",
          message: `context view ${
            canonicalSize(context, Number.MAX_SAFE_INTEGER)
          }B exceeds maxContextBytes ${maxContextBytes}B`
        },
        extra: withLog({})
      }
    }
    const request: Record<string, Json> = {
      contract: "algal.effect.v1",
      cellId: c.id,
      kind: c.kind,
      prompt: c.prompt,
      context,
      output,
      budget: { maxContextBytes, maxOutputBytes }
    }
    if (c.route !== undefined) request.route = c.route as Json
    if (tools.length > 0) request.tools = tools
    if (c.kind === "decide" && c.questions !== undefined) request.questions = c.questions
    digest = Canonical.digestText(Canonical.encodeUnsafe(request))
    const attempted = yield* attemptLoop(
      ctx,
      path,
      request as unknown as EffectRequest.ModelRequest,
      digest,
      contextBytes,
      attempts,
      tools,
      bind,
      budget.maxEffectMs
    )
    switch (attempted.kind) {
      case "suspended":
        return { ok: false, failure: attempted.failure, suspended: true }
      case "fail":
        return { ok: false, failure: attempted.failure, extra: withLog({ effectDigest: digest }) }
      case "call": {
        const entry = yield* toolCall(ctx, program, attempted.call, path)
        if (entry === undefined) {
          return {
            ok: false,
            failure: { code: "EFFECT_SUSPENDED", message: `tool ${attempted.call.tool} suspended` },
            suspended: true
          }
        }
        toolLog.push(entry)
        continue
      }
      case "value": {
        if (c.kind === "classifier" && c.shadow !== undefined) {
          return {
            ok: true,
            outputs: { out: c.shadow.take },
            extra: withLog({ effectDigest: digest, shadowOut: attempted.value })
          }
        }
        return { ok: true, outputs: { out: attempted.value }, extra: withLog({ effectDigest: digest }) }
      }
    }
  }
  return {
    ok: false,
    failure: { code: "BUDGET_EXHAUSTED", message: `maxTurns ${maxTurns} exhausted` },
    extra: withLog({ effectDigest: digest })
  }
}

/** One tool call of an agent's tool loop: a registry fn (recomputed) or a host tool (an effect). */
function* toolCall(
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

function* activateTool(
  ctx: Ctx,
  cell: Program.CompiledCell,
  c: Manifest.ToolCell,
  env: Record<string, Json>,
  path: string
): Generator<HostOp, Activation, unknown> {
  const outcome = yield* hostTool(ctx, c.tool, cell.tool!, env, path, c.budget?.maxEffectMs)
  if (outcome.ok) return { ok: true, outputs: outcome.outputs, extra: { effectDigest: outcome.digest } }
  if (outcome.suspended) return { ok: false, failure: outcome.failure, suspended: true }
  return { ok: false, failure: outcome.failure, extra: { effectDigest: outcome.digest } }
}

function* activateRecall(
  ctx: Ctx,
  c: Manifest.RecallCell,
  env: Record<string, Json>,
  path: string
): Generator<HostOp, Activation, unknown> {
  const root = ctx.budgets
  const budget = c.budget ?? {}
  const maxContextBytes = Math.min(budget.maxContextBytes ?? root.maxContextBytes, root.maxContextBytes)
  const maxOutputBytes = Math.min(budget.maxOutputBytes ?? root.maxOutputBytes, root.maxOutputBytes)
  const query = Expr.evaluate(c.query.program, env, maxExprFuel)
  ctx.work += query.fuel
  if (!query.ok) return { ok: false, failure: exprFailure(query.error) }
  const k = c.k ?? 8
  const context: Record<string, Json> = { inputs: env, turn: 0 }
  const contextBytes = canonicalSize(context, maxContextBytes)
  if (contextBytes > maxContextBytes) {
    return {
      ok: false,
      failure: {
        code: "BUDGET_EXHAUSTED",
        message: `context view ${
          canonicalSize(context, Number.MAX_SAFE_INTEGER)
        }B exceeds maxContextBytes ${maxContextBytes}B`
      }
    }
  }
  const recall: Record<string, Json> = { query: query.value, k }
  if (c.embedder !== undefined) recall.embedder = c.embedder
  if (c.rerank !== undefined) recall.rerank = c.rerank as Json
  const request: Record<string, Json> = {
    contract: "algal.effect.v1",
    cellId: c.id,
    kind: "recall",
    prompt: "",
    context,
    output: recallOutput,
    budget: { maxContextBytes, maxOutputBytes },
    recall
  }
  if (c.route !== undefined) request.route = c.route as Json
  const digest = Canonical.digestText(Canonical.encodeUnsafe(request))
  const attempted = yield* attemptLoop(
    ctx,
    path,
    request as unknown as EffectRequest.ModelRequest,
    digest,
    contextBytes,
    c.retry?.attempts ?? 1,
    [],
    (value) =>
      Array.isArray(value) && value.length <= k
        ? { ok: true, value }
        : unparseable(`recall output must be a list of at most ${k} items`),
    budget.maxEffectMs
  )
  if (attempted.kind === "suspended") return { ok: false, failure: attempted.failure, suspended: true }
  if (attempted.kind !== "value") {
    return {
      ok: false,
      failure: attempted.kind === "fail" ? attempted.failure : { code: "INTERNAL", message: "recall tool call" },
      extra: { effectDigest: digest }
    }
  }
  let hits = attempted.value
  let effectDigest = digest
  const rerank = c.rerank as { readonly route: Json; readonly take?: number } | undefined
  if (rerank !== undefined && Array.isArray(hits) && hits.length > 0) {
    const reranked = yield* rerankHits(ctx, c, path, query.value, hits, {
      route: rerank.route,
      take: rerank.take ?? k,
      maxContextBytes,
      maxOutputBytes
    })
    if (reranked.digest !== undefined) effectDigest = reranked.digest
    if (!reranked.ok) {
      return reranked.suspended
        ? { ok: false, failure: reranked.failure, suspended: true }
        : { ok: false, failure: reranked.failure, extra: { effectDigest } }
    }
    hits = reranked.hits
  }
  const text = Canonical.encodeUnsafe(hits)
  const ref = Canonical.digestText(text)
  yield { op: "blob.put", ref, text, value: hits }
  return { ok: true, outputs: { out: hits, ref }, extra: { effectDigest } }
}

/** The fixed task of a rerank request (ADR 0315); `take` is spelled out so the model knows the bound. */
const rerankPrompt = (take: number): string =>
  `Rerank the recalled hits in context.inputs.hits by relevance to context.inputs.query. ` +
  `Reply {"answers":{"order":[…]}}: the 0-based indices of the hits to keep, most relevant first, ` +
  `each at most once; leave out irrelevant hits; only the first ${take} are kept.`

/** The output contract a rerank request carries: a decide answers record with one `order` list. */
const rerankOutput: Json = {
  kind: "json",
  schema: {
    type: "object",
    required: ["answers"],
    properties: {
      answers: {
        type: "object",
        required: ["order"],
        properties: { order: { type: "array", items: { type: "integer", minimum: 0 } } }
      }
    }
  }
}

/**
 * Bind a rerank reply: `{"answers":{"order":[i…]}}` with distinct integer indices into `hits`;
 * the selected hits in the model's order, at most `take` of them.
 */
const bindRerank = (value: Json, hits: ReadonlyArray<Json>, take: number): Bound => {
  const answers = isObj(value) ? (value as Record<string, Json>).answers : undefined
  const order = isObj(answers) ? (answers as Record<string, Json>).order : undefined
  if (!Array.isArray(order)) return unparseable("rerank output must be {\"answers\": {\"order\": [index, …]}}")
  const seen = new Set<number>()
  for (let i = 0; i < order.length; i++) {
    const index = order[i]
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= hits.length) {
      return unparseable(`rerank order[${i}] ${truncate(index ?? null)} is not a hit index 0..${hits.length - 1}`)
    }
    if (seen.has(index)) return unparseable(`rerank order[${i}] repeats hit index ${index}`)
    seen.add(index)
  }
  return { ok: true, value: order.slice(0, take).map((index) => hits[index as number]!) }
}

type Reranked =
  | { readonly ok: true; readonly hits: Json; readonly digest: string }
  | { readonly ok: false; readonly suspended: boolean; readonly failure: Failure; readonly digest?: string }

/**
 * The recall cell's `rerank` step (ADR 0315): one `decide`-kind effect on the rerank route whose
 * context is the evaluated query and the recalled hits. It runs the ordinary attempt loop (agent
 * calls, work, event, effect receipt, retries) and keeps at most `take` hits in the model's order.
 */
function* rerankHits(
  ctx: Ctx,
  c: Manifest.RecallCell,
  path: string,
  query: Json,
  hits: ReadonlyArray<Json>,
  options: {
    readonly route: Json
    readonly take: number
    readonly maxContextBytes: number
    readonly maxOutputBytes: number
  }
): Generator<HostOp, Reranked, unknown> {
  const { maxContextBytes, maxOutputBytes, take } = options
  const context: Record<string, Json> = { inputs: { query, hits: hits as Array<Json> }, turn: 0 }
  const contextBytes = canonicalSize(context, maxContextBytes)
  const request: Record<string, Json> = {
    contract: "algal.effect.v1",
    cellId: c.id,
    kind: "decide",
    prompt: rerankPrompt(take),
    context,
    output: rerankOutput,
    budget: { maxContextBytes, maxOutputBytes },
    route: options.route
  }
  if (contextBytes > maxContextBytes) {
    return {
      ok: false,
      suspended: false,
      failure: {
        code: "BUDGET_EXHAUSTED",
        message: `rerank context view ${
          canonicalSize(context, Number.MAX_SAFE_INTEGER)
        }B exceeds maxContextBytes ${maxContextBytes}B`
      }
    }
  }
  const digest = Canonical.digestText(Canonical.encodeUnsafe(request))
  const attempted = yield* attemptLoop(
    ctx,
    path,
    request as unknown as EffectRequest.ModelRequest,
    digest,
    contextBytes,
    c.retry?.attempts ?? 1,
    [],
    (value) => bindRerank(value, hits, take),
    c.budget?.maxEffectMs
  )
  switch (attempted.kind) {
    case "value":
      return { ok: true, hits: attempted.value, digest }
    case "suspended":
      return { ok: false, suspended: true, failure: attempted.failure, digest }
    case "fail":
      return { ok: false, suspended: false, failure: attempted.failure, digest }
    case "call":
      return { ok: false, suspended: false, failure: { code: "INTERNAL", message: "rerank tool call" }, digest }
  }
}

/** `spawn`: admit a delivered manifest (full contract), store it, compile at depth + 1 and run it. */
function* activateSpawn(
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
function* runChild(
  ctx: Ctx,
  program: Program.Program,
  args: Record<string, Record<string, Json>>,
  prefix: string,
  depth: number
): Generator<HostOp, Child, unknown> {
  const scope = yield* runScope(ctx, program, args, prefix, depth)
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
      if (result === undefined) result = yield* activate(ctx, cell, env, args, path, depth, program, scope)
      if (!result.ok && result.suspended === true) {
        status[ci] = SUSPENDED
        ctx.cells[path] = { status: "suspended", work: ctx.work - before }
        pushEvent(ctx, { seq: ctx.events.length, kind: "cell.suspend", path }, path)
        fail(ctx, result.failure, path)
        ctx.suspended = true
        break
      }
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
        const record: { -readonly [K in keyof Receipt.CellRecord]: Receipt.CellRecord[K] } = {
          status: "committed",
          work
        }
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

// The root scope of a run, through to its outcome (a stuck run's failure names the pending cells).
function* runRoot(
  program: Program.Program,
  args: Readonly<Record<string, Readonly<Record<string, Json>>>>,
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
    effects: []
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
  const { ctx, outcome, scope } = yield* runRoot(program, args, options)
  ctx.events.push({ seq: ctx.events.length, kind: "run.end", outcome })
  const body = {
    contract: "algal.run.v1" as const,
    runtime: options.runtime,
    manifestDigest: program.digest,
    manifestKey: program.manifest.key,
    args,
    outcome,
    cells: ctx.cells,
    effects: ctx.effects,
    events: ctx.events,
    work: { steps: ctx.steps, agentCalls: ctx.agentCalls, units: ctx.work },
    ...(ctx.failure === undefined ? {} : { failure: ctx.failure })
  }
  const digest = Canonical.digestText(Canonical.encodeUnsafe(body))
  const receipt: Receipt.Receipt = { ...body, digest }
  return { receipt, outputs: interfaceOutputs(program, scope) }
}

/** What a run decided, without its receipt. @internal */
export interface Evaluated {
  readonly outcome: Receipt.Outcome
  readonly outputs: Record<string, Json>
  readonly work: Receipt.Receipt["work"]
  readonly failure?: Receipt.Receipt["failure"]
}

/**
 * `execute` without the receipt: the same scheduling, outcome, outputs, work and failure, but no
 * receipt body is built or digested.
 *
 * @internal
 */
export function* evaluate(
  program: Program.Program,
  args: Readonly<Record<string, Readonly<Record<string, Json>>>>,
  options: ExecOptions
): Generator<HostOp, Evaluated, unknown> {
  const { ctx, outcome, scope } = yield* runRoot(program, args, options)
  const work = { steps: ctx.steps, agentCalls: ctx.agentCalls, units: ctx.work }
  const outputs = interfaceOutputs(program, scope)
  return ctx.failure === undefined ? { outcome, outputs, work } : { outcome, outputs, work, failure: ctx.failure }
}
