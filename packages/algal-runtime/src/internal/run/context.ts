/**
 * What every part of the interpreter shares (ALGAL v1 §2.1–§2.4): the host operations the
 * generator yields, the run context and a scope's cell states, value checks against port
 * declarations, and the helpers that record events and the first failure.
 *
 * @internal
 */
import type { AlgalErrorCode } from "../../AlgalError.js"
import * as Canonical from "../../Canonical.js"
import type * as EffectRequest from "../../EffectRequest.js"
import type * as Expr from "../../Expr.js"
import type * as Manifest from "../../Manifest.js"
import type * as Program from "../../Program.js"
import type * as Receipt from "../../Receipt.js"
import { canonicalSize } from "../issue.js"
import { checkSchema } from "../schema.js"

/** @internal */
export type Json = Canonical.Json

/** @internal */
export type HostOp =
  | { readonly op: "blob.get"; readonly ref: string }
  | { readonly op: "blob.put"; readonly ref: string; readonly text: string; readonly value: Json }
  | { readonly op: "slot.get"; readonly name: string }
  /** Between two activations of a cooperative run: the host may yield to its event loop. */
  | { readonly op: "tick" }
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
  /** Yield a `tick` before each activation, so a host can let signals and other work run. */
  readonly cooperative?: boolean
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

/** @internal */
export const PENDING = 0
/** @internal */
export const COMMITTED = 1
/** @internal */
export const SKIPPED = 2
/** @internal */
export const FAILED = 3
/** @internal */
export const SUSPENDED = 4

/** @internal */
export interface Failure {
  readonly code: AlgalErrorCode
  readonly message: string
}

/** @internal */
export interface Ctx {
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
  /** The scheduler, handed to composition cells (kept here so the modules form no import cycle). */
  readonly runScope: RunScope
}

/** @internal */
export type Args = Readonly<Record<string, Readonly<Record<string, Json>>>>

/** Run one program's cells as a scope of the run (the scheduler's signature). @internal */
export type RunScope = (
  ctx: Ctx,
  program: Program.Program,
  args: Args,
  prefix: string,
  depth: number
) => Generator<HostOp, Scope, unknown>

/** @internal */
export interface Scope {
  readonly status: Uint8Array
  readonly outputs: Array<Record<string, Json> | undefined>
  readonly failures: Array<Failure | undefined>
}

/** @internal */
export const digestPattern = /^sha256:[0-9a-f]{64}$/
/** @internal */
export const capPattern = /^cap:[a-z][a-z0-9-]{0,63}:sha256:[0-9a-f]{64}$/

/**
 * `check_value`: byte bound, type, labels and schema of one value against a port declaration.
 * `cell` and `port` label the message of a type or label mismatch (`"c.v: expected text"`), as
 * the original writes it; schema messages carry no label.
 *
 * @internal
 */
export const checkValue = (
  value: Json,
  decl: Manifest.PortDecl,
  sizes?: Map<object, number>,
  cell?: string,
  port?: string
): Failure | undefined => {
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
    if (!Array.isArray(value)) return labelled(cell, port, "expected list")
    for (const item of value as ReadonlyArray<Json>) {
      const f = checkOne(item, decl, cell, port)
      if (f !== undefined) return f
    }
    return undefined
  }
  return checkOne(value, decl, cell, port)
}

const mismatch = (message: string): Failure => ({ code: "TYPE_MISMATCH", message })

// Built only on failure, so a passing check allocates no label.
const labelled = (cell: string | undefined, port: string | undefined, message: string): Failure =>
  mismatch(cell === undefined ? message : `${cell}.${port}: ${message}`)

/**
 * `check_value` without the byte bound, for one value (not a `many` list): type, labels, schema.
 *
 * @internal
 */
export const checkOne = (
  value: Json,
  decl: Manifest.PortDecl,
  cell?: string,
  port?: string
): Failure | undefined => {
  switch (decl.type) {
    case "text":
      return typeof value === "string" ? undefined : labelled(cell, port, "expected text")
    case "choice":
      if (typeof value !== "string") return labelled(cell, port, "expected choice label")
      return decl.labels === undefined || decl.labels.includes(value)
        ? undefined
        : labelled(cell, port, `${JSON.stringify(value)} not in declared labels`)
    case "ref":
      return typeof value === "string" && digestPattern.test(value)
        ? undefined
        : labelled(cell, port, "expected sha256 reference")
    case "cap":
      return typeof value === "string" && capPattern.test(value) &&
          value.slice(4, 4 + decl.capability!.length + 1) === `${decl.capability}:`
        ? undefined
        : labelled(cell, port, `expected ${decl.capability} capability`)
    case "json": {
      if (decl.schema === undefined) return undefined
      const message = checkSchema(value, decl.schema as { [k: string]: unknown }, decl.schemaVersion ?? 1)
      return message === undefined ? undefined : mismatch(message)
    }
  }
}

/** @internal */
export const exprFailure = (error: Expr.ExprError): Failure =>
  error.code === "EXPR_FUEL"
    ? { code: "BUDGET_EXHAUSTED", message: "expr fuel exhausted" }
    : { code: "EXPR_FAILED", message: `expr ${Canonical.encodeUnsafe(error as unknown as Json)}` }

/** @internal */
export const pushEvent = (ctx: Ctx, event: Receipt.Event, path: string): void => {
  if (ctx.events.length >= maxEvents - 1) {
    if (ctx.failure === undefined) ctx.failure = { code: "BUDGET_EXHAUSTED", message: "receipt event count", path }
    return
  }
  ctx.events.push(event)
}

/** @internal */
export const fail = (ctx: Ctx, failure: Failure, path: string): void => {
  if (ctx.failure === undefined) ctx.failure = { ...failure, path }
}

/** @internal */
export type Activation =
  | { readonly ok: true; readonly outputs: Record<string, Json>; readonly extra?: Partial<Receipt.CellRecord> }
  | {
    readonly ok: false
    readonly failure: Failure
    readonly extra?: Partial<Receipt.CellRecord>
    /** An executor suspended the run (`EFFECT_SUSPENDED`). */
    readonly suspended?: true
  }
