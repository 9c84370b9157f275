/**
 * Effects (ALGAL v1 §2.5): the model-facing cells (agent, classifier, gate, decide) with their
 * turn and attempt loops, output binding and tool calls, and host `tool` cells. Recall shares
 * the attempt loop and the budget helpers here.
 *
 * @internal
 */
import * as Canonical from "../../Canonical.js"
import type * as EffectRequest from "../../EffectRequest.js"
import type * as Manifest from "../../Manifest.js"
import type * as Program from "../../Program.js"
import type * as Receipt from "../../Receipt.js"
import { canonicalSize, isObj, measureJson } from "../issue.js"
import { checkSchema } from "../schema.js"
import {
  type Activation,
  COMMITTED,
  type Ctx,
  type Failure,
  type HostOp,
  type Json,
  pushEvent,
  type Scope
} from "./context.js"
import { toolCall } from "./tools.js"

/**
 * A model-facing effect's byte budgets: the cell's own, capped by the root's. @internal
 */
export const effectBudget = (
  ctx: Ctx,
  budget: { readonly maxContextBytes?: number; readonly maxOutputBytes?: number }
): { readonly maxContextBytes: number; readonly maxOutputBytes: number } => {
  const root = ctx.budgets
  return {
    maxContextBytes: Math.min(budget.maxContextBytes ?? root.maxContextBytes, root.maxContextBytes),
    maxOutputBytes: Math.min(budget.maxOutputBytes ?? root.maxOutputBytes, root.maxOutputBytes)
  }
}

/** The failure of a context view over `maxContextBytes` (its full size named). @internal */
export const contextOverflow = (what: string, context: Json, maxContextBytes: number): Failure => ({
  code: "BUDGET_EXHAUSTED",
  message: `${what} ${canonicalSize(context, Number.MAX_SAFE_INTEGER)}B exceeds maxContextBytes ${maxContextBytes}B`
})

/** The digest of an effect request: sha256 of its canonical text. @internal */
export const requestDigest = (request: Record<string, Json>): string =>
  Canonical.digestText(Canonical.encodeUnsafe(request))

/** The answer record each question type asks for (ALGAL typed decisions: `noul`, `choice`, `score`). */
const answerContract = (type: string): Json => {
  if (type === "noul") {
    return { type: "object", required: ["noul"], properties: { type: { type: "string" }, noul: { type: "number" } } }
  }
  const field = type === "choice" ? "choice" : "score"
  return {
    type: "object",
    required: [field, "confidence", "probabilities"],
    properties: {
      type: { type: "string" },
      [field]: { type: field === "choice" ? "string" : "number" },
      confidence: { type: "number" },
      probabilities: { type: "object" }
    }
  }
}

const decideOutputs = new WeakMap<Manifest.AgentCell, Json>()

/**
 * The output contract a decide request carries: `{"answers": {name: answer}}` with every declared
 * question required (in declaration order) and each answer's shape fixed by its question type.
 */
const decideOutput = (cell: Manifest.AgentCell): Json => {
  let output = decideOutputs.get(cell)
  if (output === undefined) {
    const questions = (cell.questions ?? {}) as Record<string, { readonly type: string }>
    const names = Object.keys(questions)
    const properties: Record<string, Json> = {}
    for (const name of names) properties[name] = answerContract(questions[name]!.type)
    output = {
      kind: "json",
      schema: {
        type: "object",
        required: ["answers"],
        properties: { answers: { type: "object", required: names, properties } }
      }
    }
    decideOutputs.set(cell, output)
  }
  return output
}

/** @internal */
export type Bound = { readonly ok: true; readonly value: Json } | { readonly ok: false; readonly failure: Failure }

/** @internal */
export const unparseable = (message: string): Bound => ({ ok: false, failure: { code: "EFFECT_UNPARSEABLE", message } })

/** `bind_output`: text must be a string; choice a declared label (else `onMiss`); json must match its schema. */
const bindOutput = (cell: Manifest.AgentCell, value: Json): Bound => {
  if (cell.kind === "decide") {
    const schema = (decideOutput(cell) as { readonly schema: { [k: string]: unknown } }).schema
    const message = checkSchema(value, schema, 1)
    return message === undefined ? { ok: true, value } : unparseable(message)
  }
  const output = cell.output ?? { kind: "text" }
  switch (output.kind) {
    case "text":
      return typeof value === "string" ? { ok: true, value } : unparseable("expected text output")
    case "choice":
      if (typeof value === "string" && output.labels.includes(value)) return { ok: true, value }
      if (output.onMiss !== undefined) return { ok: true, value: output.onMiss }
      return unparseable(`cell ${JSON.stringify(cell.id)}: output ${truncate(value)} is not a declared label`)
    case "json": {
      const message = checkSchema(value, output.schema as { [k: string]: unknown }, output.schemaVersion ?? 1)
      return message === undefined ? { ok: true, value } : unparseable(message)
    }
  }
}

/** @internal */
export const truncate = (value: Json): string => {
  const text = Canonical.encodeUnsafe(value)
  return text.length > 200 ? text.slice(0, 200) + "…" : text
}

const isToolCall = (
  value: Json,
  tools: ReadonlyArray<string>
): value is { tool: string; inputs: Record<string, Json> } =>
  isObj(value) && typeof value.tool === "string" && tools.includes(value.tool) && isObj(value.inputs) &&
  Object.keys(value).length === 2

/** @internal */
export type Attempted =
  | { readonly kind: "value"; readonly value: Json }
  | { readonly kind: "call"; readonly call: { tool: string; inputs: Record<string, Json> } }
  | { readonly kind: "fail"; readonly failure: Failure }
  | { readonly kind: "suspended"; readonly failure: Failure }

/**
 * The attempt loop (`retry.attempts`): each attempt is an agent call (charged before it is made),
 * `500 + context bytes` work, an `effect` event and an effect receipt. Errors retry unless
 * `retryable:false`; oversize and unparseable outputs retry.
 */
export function* attemptLoop(
  ctx: Ctx,
  path: string,
  request: Record<string, Json>,
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
    const receipt = (yield {
      op: "effect",
      path,
      // The tool names ride to the executor as a hint outside the digested request (the original's
      // request has no `tools` field); `EffectRequest.digest` leaves them out likewise.
      request: (tools.length > 0 ? { ...request, tools } : request) as unknown as EffectRequest.ModelRequest,
      digest,
      maxEffectMs
    }) as EffectRequest.EffectReceipt
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
    const maxOutputBytes = (request.budget as { readonly maxOutputBytes: number }).maxOutputBytes
    if (bytes > maxOutputBytes) {
      failure = {
        code: "BUDGET_EXHAUSTED",
        message: `effect output ${bytes}B exceeds maxOutputBytes ${maxOutputBytes}B`
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

/** Agent, classifier, gate and decide cells: the turn loop over one model request per turn. @internal */
export function* activateModel(
  ctx: Ctx,
  cell: Program.CompiledCell,
  c: Manifest.AgentCell,
  env: Record<string, Json>,
  path: string,
  program: Program.Program,
  scope: Scope
): Generator<HostOp, Activation, unknown> {
  const budget = c.budget ?? {}
  const { maxContextBytes, maxOutputBytes } = effectBudget(ctx, budget)
  const tools = c.tools ?? []
  const maxTurns = budget.maxTurns ?? (tools.length > 0 ? 8 : 1)
  const attempts = c.retry?.attempts ?? 1
  const output: Json = c.kind === "decide" ? decideOutput(c) : (c.output ?? { kind: "text" }) as unknown as Json
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
      return { ok: false, failure: contextOverflow("context view", context, maxContextBytes) }
    }
    const request: Record<string, Json> = {
      contract: "algal.effect.v1",
      cellId: c.id,
      kind: c.kind,
      ...(c.prompt === undefined ? {} : { prompt: c.prompt }),
      context,
      output,
      budget: { maxContextBytes, maxOutputBytes }
    }
    if (c.route !== undefined) request.route = c.route as Json
    if (c.kind === "decide" && c.questions !== undefined) request.questions = c.questions
    digest = requestDigest(request)
    const attempted = yield* attemptLoop(
      ctx,
      path,
      request,
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
        // A failed effect cell records neither its request digest nor its tool log (as the original).
        return { ok: false, failure: attempted.failure }
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
    failure: {
      code: "BUDGET_EXHAUSTED",
      message: `cell ${JSON.stringify(c.id)} produced no final output within maxTurns ${maxTurns}`
    }
  }
}
