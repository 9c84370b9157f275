/**
 * Manifest parsing, part 1: the contract's constants, the primitive readers (objects, closed key sets, ids, integers, lists) and port declarations.
 *
 * @internal
 */
import * as Canonical from "../../Canonical.js"
import * as Expr from "../../Expr.js"
import type * as M from "../../Manifest.js"
import { fail, has, invalid, isObj, type Obj } from "../issue.js"
import { type SchemaVersion, validateSchema } from "../schema.js"

/** @internal */
export const maxManifestBytes = 1_048_576

/** @internal */
export const defaultBudgets: M.Budgets = {
  maxSteps: 256,
  maxAgentCalls: 16,
  maxWork: 1_000_000,
  maxContextBytes: 65_536,
  maxOutputBytes: 65_536,
  maxDepth: 4
}

/** @internal */
export const budgetRanges: Record<keyof M.Budgets, readonly [number, number]> = {
  maxSteps: [1, 1024],
  maxAgentCalls: [0, 64],
  maxWork: [1, 100_000_000],
  maxContextBytes: [1, 262_144],
  maxOutputBytes: [1, 262_144],
  maxDepth: [0, 8]
}

/** @internal */
export const idPattern = /^[a-z][a-z0-9-]{0,63}$/

/** @internal */
export const isId = (u: unknown): u is string => typeof u === "string" && idPattern.test(u)

/** @internal */
export const portTypes = new Set(["text", "json", "choice", "ref", "cap"])

/** @internal */
export const cellKinds = [
  "input",
  "const",
  "fn",
  "expr",
  "tool",
  "agent",
  "classifier",
  "gate",
  "decide",
  "recall",
  "organism",
  "repeat",
  "each",
  "store",
  "load",
  "slot",
  "spawn"
] as const

/** @internal */
export const agentBase = ["id", "kind", "inputs", "prompt", "view", "output", "route", "budget", "retry"]
/** @internal */
export const cellKeys: Record<M.CellKind, ReadonlySet<string>> = {
  input: new Set(["id", "kind", "outputs"]),
  const: new Set(["id", "kind", "outputs"]),
  fn: new Set(["id", "kind", "fn"]),
  expr: new Set(["id", "kind", "inputs", "expr", "output"]),
  tool: new Set(["id", "kind", "tool", "budget"]),
  agent: new Set([...agentBase, "tools", "compact", "shadow"]),
  classifier: new Set([...agentBase, "tools", "shadow"]),
  gate: new Set(agentBase),
  decide: new Set(["id", "kind", "inputs", "prompt", "questions", "view", "route", "budget", "retry"]),
  recall: new Set(["id", "kind", "inputs", "query", "k", "embedder", "route", "rerank", "budget", "retry"]),
  organism: new Set(["id", "kind", "manifest", "via"]),
  repeat: new Set(["id", "kind", "manifest", "via", "maxRounds", "carry", "until"]),
  each: new Set(["id", "kind", "manifest", "via", "maxItems", "over"]),
  store: new Set(["id", "kind"]),
  load: new Set(["id", "kind"]),
  slot: new Set(["id", "kind", "name", "mode", "default"]),
  spawn: new Set(["id", "kind"])
}

/** @internal */
export const kindSet = new Set<string>(cellKinds)

// ---------------------------------------------------------------------------------------------
// primitives

/** @internal */
export const object = (v: unknown, path: string): Obj => (isObj(v) ? v : invalid("expected object", path))

/** @internal */
export const closed = (o: Obj, allowed: ReadonlySet<string>, path: string): void => {
  for (const key of Object.keys(o)) {
    if (!allowed.has(key)) invalid(`unknown key ${key}`, path)
  }
}

/** @internal */
export const text = (v: unknown, max: number, path: string): string => {
  if (typeof v !== "string") return invalid("expected text", path)
  if (v.length > max) return invalid("text exceeds bound", path)
  return v
}

/** @internal */
export const id = (
  v: unknown,
  path: string
): string => (isId(v) ? v : invalid("expected lowercase kebab-case id", path))

/** @internal */
export const uint = (v: unknown, lo: number, hi: number, path: string): number => {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0) return invalid("expected non-negative integer", path)
  if (v < lo || v > hi) return invalid("integer out of bounds", path)
  return v
}

/** @internal */
export const bool = (
  v: unknown,
  path: string
): boolean => (typeof v === "boolean" ? v : invalid("expected boolean", path))

/** @internal */
export const array = (v: unknown, max: number, path: string): ReadonlyArray<unknown> => {
  if (!Array.isArray(v)) return invalid("expected array", path)
  // Count bounds are part of the manifest's shape: the original rejects them at parse.
  if (v.length > max) fail("PARSE_FAILED", "array count", path)
  return v
}

/** @internal */
export const countKeys = (o: Obj, max: number, path: string): void => {
  if (Object.keys(o).length > max) fail("PARSE_FAILED", "object count", path)
}

/** @internal */
export const labelList = (v: unknown, path: string): Array<string> => {
  const list = array(v, 32, path)
  if (list.length === 0) invalid("labels must not be empty", path)
  const seen = new Set<string>()
  list.forEach((label, i) => {
    const s = text(label, 64, `${path}[${i}]`)
    if (seen.has(s)) invalid("labels must be unique", `${path}[${i}]`)
    seen.add(s)
  })
  return [...seen]
}

/** @internal */
export const schemaVersionOf = (o: Obj, path: string): SchemaVersion => {
  if (!has(o, "schemaVersion")) return 1
  if (!has(o, "schema")) invalid("schemaVersion requires schema", path)
  return uint(o.schemaVersion, 1, 3, `${path}.schemaVersion`) as SchemaVersion
}

/** Static check of an `algal.expr.v1` envelope; returns the program. */
export const exprEnvelope = (v: unknown, names: ReadonlyArray<string>, path: string, label: string): M.ExprEnvelope => {
  const o = object(v, path)
  closed(o, new Set(["contract", "program"]), path)
  if (o.contract !== "algal.expr.v1") invalid("expected algal.expr.v1", `${path}.contract`)
  if (!has(o, "program")) invalid("missing program", path)
  const error = Expr.check(o.program, names)
  if (error !== undefined) invalid(`${label}: ${Canonical.encodeUnsafe(error)}`, `${path}.program`)
  return { contract: "algal.expr.v1", program: o.program as Canonical.Json }
}

// ---------------------------------------------------------------------------------------------
// ports

type PortMode = "inputs" | "outputs" | "const"

/** @internal */
export const portKeys = new Set(["type", "optional", "many", "labels", "schema", "schemaVersion", "capability"])
/** @internal */
export const constPortKeys = new Set([...portKeys, "value"])

/** @internal */
export const portDecl = (v: unknown, mode: PortMode, path: string): M.PortDecl | M.ConstPortDecl => {
  if (typeof v === "string") {
    if (mode === "const") return invalid("const outputs must be objects with type and value", path)
    if (!portTypes.has(v)) return invalid("unknown port type", path)
    if (v === "cap") return invalid("cap ports require capability", path)
    return { type: v as M.PortType }
  }
  const o = object(v, path)
  closed(o, mode === "const" ? constPortKeys : portKeys, path)
  const type = o.type
  if (typeof type !== "string" || !portTypes.has(type)) return invalid("unknown port type", `${path}.type`)
  const out: { -readonly [K in keyof M.ConstPortDecl]?: M.ConstPortDecl[K] } = { type: type as M.PortType }
  // `optional: false` is the default and the original's normalized form leaves it out.
  if (has(o, "optional") && bool(o.optional, `${path}.optional`)) out.optional = true
  if (has(o, "many")) {
    if (mode !== "inputs") invalid("many is only valid on input ports", `${path}.many`)
    out.many = bool(o.many, `${path}.many`)
  }
  if (has(o, "labels")) {
    if (type !== "choice") invalid("labels are only valid on choice ports", `${path}.labels`)
    out.labels = labelList(o.labels, `${path}.labels`)
  }
  if (has(o, "schema") || has(o, "schemaVersion")) {
    if (type !== "json") invalid("schema is only valid on json ports", `${path}.schema`)
    const version = schemaVersionOf(o, path)
    validateSchema(o.schema, version, `${path}.schema`)
    out.schema = o.schema as Canonical.Json as M.JsonSchema
    if (has(o, "schemaVersion")) out.schemaVersion = version
  }
  if (type === "cap") {
    if (mode === "const") invalid("cap ports are not valid on const cells", path)
    if (!has(o, "capability")) invalid("cap ports require capability", path)
    out.capability = id(o.capability, `${path}.capability`)
  } else if (has(o, "capability")) invalid("capability is only valid on cap ports", `${path}.capability`)
  if (mode === "const") {
    if (!has(o, "value")) invalid("const outputs require a value", path)
    out.value = o.value as Canonical.Json
  }
  return out as M.PortDecl
}

/** @internal */
export const portMap = (v: unknown, mode: PortMode, path: string): Record<string, M.PortDecl> => {
  const o = object(v, path)
  countKeys(o, 32, path)
  const out: Record<string, M.PortDecl> = {}
  for (const name of Object.keys(o)) {
    id(name, `${path}.${name}`)
    out[name] = portDecl(o[name], mode, `${path}.${name}`)
  }
  return out
}
