/**
 * Run receipts (`algal.run.v1`, ALGAL v1 §3.2): the exact record shape, its digest (the *run
 * fingerprint*: `sha256` over the canonical receipt without its `digest` key), structural
 * validation with the original's bounds, and a field-by-field diff used by verify.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as AlgalError from "./AlgalError.js"
import * as Canonical from "./Canonical.js"
import type * as EffectRequest from "./EffectRequest.js"
import { has, invalid, isObj, Issue, type Obj } from "./internal/issue.js"
import type { Json } from "./Manifest.js"

/**
 * @since 0.1.0
 * @category models
 */
export type Outcome = "complete" | "failed" | "stuck" | "suspended"

/**
 * @since 0.1.0
 * @category models
 */
export type CellStatus = "committed" | "skipped" | "failed" | "suspended"

/**
 * A failure record `{code, message}` (what fail edges deliver).
 *
 * @since 0.1.0
 * @category models
 */
export interface FailureRecord {
  readonly code: AlgalError.AlgalErrorCode
  readonly message: string
}

/**
 * One cell's record, keyed by its path in `Receipt.cells`.
 *
 * @since 0.1.0
 * @category models
 */
export interface CellRecord {
  readonly status: CellStatus
  readonly work: number
  readonly outputs?: { readonly [port: string]: Json }
  readonly failure?: FailureRecord
  readonly effectDigest?: string
  readonly toolCalls?: ReadonlyArray<Json>
  readonly shadowOut?: Json
  readonly rounds?: number
  readonly items?: number
  readonly via?: string
  readonly slot?: { readonly name: string; readonly mode: "read" | "write" }
}

/**
 * @since 0.1.0
 * @category models
 */
export type Event =
  | { readonly seq: number; readonly kind: "run.start"; readonly digest: string }
  | {
    readonly seq: number
    readonly kind: "cell.commit" | "cell.skip" | "cell.fail" | "cell.suspend"
    readonly path: string
  }
  | { readonly seq: number; readonly kind: "effect"; readonly path: string; readonly digest: string }
  | { readonly seq: number; readonly kind: "run.end"; readonly outcome: Outcome }

/**
 * The runtime stamp.
 *
 * @since 0.1.0
 * @category models
 */
export interface RuntimeStamp {
  readonly name: string
  readonly version: string
}

/**
 * The default stamp: receipt format version `0.1.0` (ADR 0301).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultRuntime: RuntimeStamp = { name: "algal", version: "0.1.0" }

/**
 * An `algal.run.v1` receipt.
 *
 * @since 0.1.0
 * @category models
 */
export interface Receipt {
  readonly contract: "algal.run.v1"
  readonly runtime: RuntimeStamp
  readonly manifestDigest: string
  readonly manifestKey: string
  readonly args: { readonly [cell: string]: { readonly [port: string]: Json } }
  readonly outcome: Outcome
  readonly cells: { readonly [path: string]: CellRecord }
  readonly effects: ReadonlyArray<EffectRequest.EffectReceipt>
  readonly events: ReadonlyArray<Event>
  readonly work: { readonly steps: number; readonly agentCalls: number; readonly units: number }
  readonly failure?: FailureRecord & { readonly path: string }
  readonly digest: string
}

/**
 * Validation bounds (§3.2).
 *
 * @since 0.1.0
 * @category constants
 */
export const bounds = {
  maxBytes: 64 * 1024 * 1024,
  maxDepth: 64,
  maxNodes: 1_000_000,
  maxCells: 65_536,
  maxEffects: 16_448,
  maxEvents: 4096,
  maxPathLength: 4096,
  maxInteger: Number.MAX_SAFE_INTEGER
} as const

/**
 * The run fingerprint of a receipt body: the digest of the receipt without its `digest` key.
 *
 * @since 0.1.0
 * @category digests
 */
export const fingerprint = (receipt: Omit<Receipt, "digest"> | Receipt): string => {
  const { digest: _, ...body } = receipt as Receipt
  const digest = Canonical.digest(body)
  if (Either.isLeft(digest)) throw new Error(`canonical: ${digest.left.message}`)
  return digest.right
}

const topKeys = new Set([
  "contract",
  "runtime",
  "manifestDigest",
  "manifestKey",
  "args",
  "outcome",
  "cells",
  "effects",
  "events",
  "work",
  "failure",
  "digest"
])
const recordKeys = new Set([
  "status",
  "work",
  "outputs",
  "failure",
  "effectDigest",
  "toolCalls",
  "shadowOut",
  "rounds",
  "items",
  "via",
  "slot"
])
const outcomes = new Set(["complete", "failed", "stuck", "suspended"])
const statuses = new Set(["committed", "skipped", "failed", "suspended"])
const eventKinds = new Set(["run.start", "cell.commit", "cell.skip", "cell.fail", "cell.suspend", "effect", "run.end"])
const codes = new Set<string>(AlgalError.codes)

const closed = (o: Obj, allowed: ReadonlySet<string>, path: string): void => {
  for (const key of Object.keys(o)) if (!allowed.has(key)) invalid(`receipt: unknown key ${key}`, path)
}
const str = (v: unknown, path: string): string => (typeof v === "string" ? v : invalid("receipt: expected text", path))
const int = (v: unknown, path: string): number =>
  typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= bounds.maxInteger
    ? v
    : invalid("receipt: expected a non-negative integer <= 2^53-1", path)
const obj = (v: unknown, path: string): Obj => (isObj(v) ? v : invalid("receipt: expected object", path))
const failureOf = (v: unknown, path: string, withPath: boolean): void => {
  const f = obj(v, path)
  closed(f, new Set(withPath ? ["code", "message", "path"] : ["code", "message"]), path)
  if (!codes.has(str(f.code, `${path}.code`))) invalid("receipt: unknown error code", `${path}.code`)
  str(f.message, `${path}.message`)
  if (withPath) str(f.path, `${path}.path`)
}

const countNodes = (v: unknown, limit: number): number => {
  let n = 0
  const stack: Array<unknown> = [v]
  while (stack.length > 0 && n <= limit) {
    const x = stack.pop()
    n += 1
    if (Array.isArray(x)) { for (const y of x) stack.push(y) }
    else if (isObj(x)) { for (const k in x) stack.push(x[k]) }
  }
  return n
}

const validateSync = (json: unknown): Receipt => {
  const text = Canonical.encode(json)
  if (text._tag === "Left") invalid(`receipt: ${text.left.message}`, "$")
  const r = obj(json, "$")
  if (countNodes(r, bounds.maxNodes) > bounds.maxNodes) invalid("receipt: too many nodes", "$")
  closed(r, topKeys, "$")
  for (const key of topKeys) if (key !== "failure" && !has(r, key)) invalid(`receipt: missing ${key}`, "$")
  if (r.contract !== "algal.run.v1") invalid("receipt: expected algal.run.v1", "$.contract")
  const rt = obj(r.runtime, "$.runtime")
  closed(rt, new Set(["name", "version"]), "$.runtime")
  str(rt.name, "$.runtime.name")
  str(rt.version, "$.runtime.version")
  if (!Canonical.isDigest(r.manifestDigest)) invalid("receipt: expected digest", "$.manifestDigest")
  str(r.manifestKey, "$.manifestKey")
  const args = obj(r.args, "$.args")
  for (const key of Object.keys(args)) obj(args[key], `$.args.${key}`)
  if (!outcomes.has(str(r.outcome, "$.outcome"))) invalid("receipt: unknown outcome", "$.outcome")
  const cells = obj(r.cells, "$.cells")
  const paths = Object.keys(cells)
  if (paths.length > bounds.maxCells) invalid("receipt: too many cells", "$.cells")
  for (const path of paths) {
    const at = `$.cells.${path}`
    if (path.length === 0 || path.length > bounds.maxPathLength) invalid("receipt: bad cell path", at)
    const rec = obj(cells[path], at)
    closed(rec, recordKeys, at)
    if (!statuses.has(str(rec.status, `${at}.status`))) invalid("receipt: unknown status", `${at}.status`)
    int(rec.work, `${at}.work`)
    if (has(rec, "outputs")) obj(rec.outputs, `${at}.outputs`)
    if (has(rec, "failure")) failureOf(rec.failure, `${at}.failure`, false)
    if (has(rec, "effectDigest") && !Canonical.isDigest(rec.effectDigest)) {
      invalid("receipt: expected digest", `${at}.effectDigest`)
    }
    if (has(rec, "toolCalls") && !Array.isArray(rec.toolCalls)) invalid("receipt: expected list", `${at}.toolCalls`)
    if (has(rec, "rounds")) int(rec.rounds, `${at}.rounds`)
    if (has(rec, "items")) int(rec.items, `${at}.items`)
    if (has(rec, "via")) str(rec.via, `${at}.via`)
    if (has(rec, "slot")) {
      const s = obj(rec.slot, `${at}.slot`)
      closed(s, new Set(["name", "mode"]), `${at}.slot`)
      str(s.name, `${at}.slot.name`)
      if (s.mode !== "read" && s.mode !== "write") invalid("receipt: bad slot mode", `${at}.slot.mode`)
    }
  }
  if (!Array.isArray(r.effects)) invalid("receipt: expected list", "$.effects")
  else if (r.effects.length > bounds.maxEffects) invalid("receipt: too many effects", "$.effects")
  if (!Array.isArray(r.events)) invalid("receipt: expected list", "$.events")
  else {
    if (r.events.length > bounds.maxEvents) invalid("receipt: too many events", "$.events")
    r.events.forEach((e, i) => {
      const at = `$.events[${i}]`
      const ev = obj(e, at)
      closed(ev, new Set(["seq", "kind", "path", "digest", "outcome"]), at)
      if (int(ev.seq, `${at}.seq`) !== i) invalid("receipt: event seq out of order", `${at}.seq`)
      if (!eventKinds.has(str(ev.kind, `${at}.kind`))) invalid("receipt: unknown event kind", `${at}.kind`)
      if (has(ev, "path")) {
        const p = str(ev.path, `${at}.path`)
        if (p.length > bounds.maxPathLength) invalid("receipt: bad event path", `${at}.path`)
      }
    })
  }
  const w = obj(r.work, "$.work")
  closed(w, new Set(["steps", "agentCalls", "units"]), "$.work")
  int(w.steps, "$.work.steps")
  int(w.agentCalls, "$.work.agentCalls")
  int(w.units, "$.work.units")
  if (has(r, "failure")) failureOf(r.failure, "$.failure", true)
  if (!Canonical.isDigest(r.digest)) invalid("receipt: expected digest", "$.digest")
  return r as unknown as Receipt
}

/**
 * Validate a receipt structurally (closed key sets and the bounds of §3.2); fails with
 * `PARSE_FAILED` naming the path.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode: (json: unknown) => Effect.Effect<Receipt, AlgalError.AlgalError> = Effect.fn("Receipt.decode")(
  function*(json: unknown) {
    try {
      return validateSync(json)
    } catch (error) {
      if (error instanceof Issue) {
        return yield* AlgalError.make(
          error.code,
          error.message,
          error.path === undefined ? undefined : { path: error.path }
        )
      }
      return yield* AlgalError.invalid("receipt: malformed", "$")
    }
  }
)

const show = (v: unknown): string => {
  if (v === undefined) return "(absent)"
  const text = Canonical.encode(v)
  const s = text._tag === "Right" ? text.right : String(v)
  return s.length > 200 ? s.slice(0, 200) + "…" : s
}
const same = (a: unknown, b: unknown): boolean => {
  if (a === undefined || b === undefined) return a === b
  const x = Canonical.encode(a)
  const y = Canonical.encode(b)
  return x._tag === "Right" && y._tag === "Right" && x.right === y.right
}

const recordFields = [
  "status",
  "outputs",
  "work",
  "rounds",
  "items",
  "failure",
  "toolCalls",
  "shadowOut",
  "via",
  "slot",
  "effectDigest"
] as const

/**
 * Field-by-field differences between a recorded and a recomputed receipt (empty when identical):
 * outcome, the cell set, each cell's fields, effects, events, work, failure, and finally the whole
 * canonical record.
 *
 * @since 0.1.0
 * @category combinators
 */
export const diff = (recorded: Receipt, replayed: Receipt): Array<string> => {
  const out: Array<string> = []
  const field = (name: string, a: unknown, b: unknown) => {
    if (!same(a, b)) out.push(`${name}: recorded ${show(a)}, replayed ${show(b)}`)
  }
  field("contract", recorded.contract, replayed.contract)
  field("runtime", recorded.runtime, replayed.runtime)
  field("manifestDigest", recorded.manifestDigest, replayed.manifestDigest)
  field("outcome", recorded.outcome, replayed.outcome)
  const paths = new Set([...Object.keys(recorded.cells), ...Object.keys(replayed.cells)])
  for (const path of [...paths].sort(Canonical.compareKeys)) {
    const a = recorded.cells[path]
    const b = replayed.cells[path]
    if (a === undefined) out.push(`cells.${path}: not recorded, replayed ${b!.status}`)
    else if (b === undefined) out.push(`cells.${path}: recorded ${a.status}, not replayed`)
    else for (const f of recordFields) field(`cells.${path}.${f}`, a[f], b[f])
  }
  if (recorded.effects.length !== replayed.effects.length) {
    out.push(`effects: recorded ${recorded.effects.length}, replayed ${replayed.effects.length}`)
  } else recorded.effects.forEach((e, i) => field(`effects[${i}]`, e, replayed.effects[i]))
  if (recorded.events.length !== replayed.events.length) {
    out.push(`events: recorded ${recorded.events.length}, replayed ${replayed.events.length}`)
  } else recorded.events.forEach((e, i) => field(`events[${i}]`, e, replayed.events[i]))
  field("work.steps", recorded.work.steps, replayed.work.steps)
  field("work.agentCalls", recorded.work.agentCalls, replayed.work.agentCalls)
  field("work.units", recorded.work.units, replayed.work.units)
  field("failure", recorded.failure, replayed.failure)
  field("args", recorded.args, replayed.args)
  field("manifestKey", recorded.manifestKey, replayed.manifestKey)
  if (out.length === 0) {
    const { digest: _a, ...ra } = recorded
    const { digest: _b, ...rb } = replayed
    if (!same(ra, rb)) out.push("receipt: canonical bytes differ")
  }
  return out
}
