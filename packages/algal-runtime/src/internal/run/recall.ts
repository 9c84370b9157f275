/**
 * Recall (ALGAL v1 §2.5, ADR 0315): a `recall` cell evaluates its query, asks the host's memory
 * for at most `k` hits through the shared attempt loop, optionally reranks them with one
 * `decide`-kind effect, and stores the hits as a blob.
 *
 * @internal
 */
import * as Canonical from "../../Canonical.js"
import * as Expr from "../../Expr.js"
import type * as Manifest from "../../Manifest.js"
import { canonicalSize, isObj } from "../issue.js"
import { type Activation, type Ctx, exprFailure, type Failure, type HostOp, type Json, maxExprFuel } from "./context.js"
import {
  attemptLoop,
  type Bound,
  contextOverflow,
  effectBudget,
  requestDigest,
  truncate,
  unparseable
} from "./effects.js"

const recallOutput: Json = { kind: "json", schema: { type: "array" } }

/** `recall` cells: one memory query effect, an optional rerank step, hits stored as a blob. @internal */
export function* activateRecall(
  ctx: Ctx,
  c: Manifest.RecallCell,
  env: Record<string, Json>,
  path: string
): Generator<HostOp, Activation, unknown> {
  const budget = c.budget ?? {}
  const { maxContextBytes, maxOutputBytes } = effectBudget(ctx, budget)
  const query = Expr.evaluate(c.query.program, env, maxExprFuel)
  ctx.work += query.fuel
  if (!query.ok) return { ok: false, failure: exprFailure(query.error) }
  const k = c.k ?? 8
  const context: Record<string, Json> = { inputs: env, turn: 0 }
  const contextBytes = canonicalSize(context, maxContextBytes)
  if (contextBytes > maxContextBytes) {
    return { ok: false, failure: contextOverflow("context view", context, maxContextBytes) }
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
  const digest = requestDigest(request)
  const attempted = yield* attemptLoop(
    ctx,
    path,
    request,
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
      failure: attempted.kind === "fail" ? attempted.failure : { code: "INTERNAL", message: "recall tool call" }
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
        : { ok: false, failure: reranked.failure }
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
      failure: contextOverflow("rerank context view", context, maxContextBytes)
    }
  }
  const digest = requestDigest(request)
  const attempted = yield* attemptLoop(
    ctx,
    path,
    request,
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
