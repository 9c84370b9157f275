/**
 * The `algal.organism.v1` parser and normalizer (ALGAL v1 §1.1–§1.4, §3.1). Pure and synchronous;
 * failures are thrown as `Issue`s and converted to `AlgalError` by `Manifest.parse`.
 *
 * @internal
 */
import * as Canonical from "../Canonical.js"
import type * as M from "../Manifest.js"
import { fail, has, invalid, type Obj } from "./issue.js"
import { cell } from "./parse/cells.js"
import {
  array,
  budgetRanges,
  closed,
  countKeys,
  defaultBudgets,
  exprEnvelope,
  id,
  isId,
  maxManifestBytes,
  object,
  text,
  uint
} from "./parse/primitives.js"

export { cellKinds, defaultBudgets, isId, maxManifestBytes } from "./parse/primitives.js"

// ---------------------------------------------------------------------------------------------
// edges, interface, top level

const endpoint = (v: unknown, path: string): M.Endpoint => {
  const o = object(v, path)
  closed(o, new Set(["cell", "port"]), path)
  return { cell: id(o.cell, `${path}.cell`), port: id(o.port, `${path}.port`) }
}

const edge = (v: unknown, path: string): M.Edge => {
  const o = object(v, path)
  closed(o, new Set(["from", "to", "guard", "on"]), path)
  const out: { -readonly [K in keyof M.Edge]?: M.Edge[K] } = {
    from: endpoint(o.from, `${path}.from`),
    to: endpoint(o.to, `${path}.to`)
  }
  if (has(o, "guard")) {
    const g = object(o.guard, `${path}.guard`)
    const at = `${path}.guard`
    if (has(g, "expr")) {
      if (has(g, "equals") || has(g, "field")) fail("PARSE_FAILED", "guard expr cannot mix with equals/field", at)
      closed(g, new Set(["expr"]), at)
      out.guard = { expr: exprEnvelope(g.expr, ["value"], `${at}.expr`, "guard expr") }
    } else {
      closed(g, new Set(["equals", "field"]), at)
      if (!has(g, "equals")) fail("PARSE_FAILED", "guard requires equals or expr", at)
      const equals = text(g.equals, 64, `${at}.equals`)
      out.guard = has(g, "field") ? { field: id(g.field, `${at}.field`), equals } : { equals }
    }
  }
  if (has(o, "on")) {
    if (o.on !== "fail") invalid("edge on must be \"fail\"", `${path}.on`)
    if (has(o, "guard")) fail("GUARD_INVALID", "failure edges cannot carry a guard", `${path}.guard`)
    out.on = "fail"
  }
  return out as M.Edge
}

const interfaceSide = (v: unknown, path: string): Record<string, M.Endpoint> => {
  const o = object(v, path)
  countKeys(o, 32, path)
  const out: Record<string, M.Endpoint> = {}
  for (const name of Object.keys(o)) {
    id(name, `${path}.${name}`)
    out[name] = endpoint(o[name], `${path}.${name}`)
  }
  return out
}

const budgetsOf = (v: unknown, path: string): M.Budgets => {
  const o = object(v, path)
  closed(o, new Set(Object.keys(defaultBudgets)), path)
  const out: Record<string, number> = { ...defaultBudgets }
  for (const key of Object.keys(o) as Array<keyof M.Budgets>) {
    const [lo, hi] = budgetRanges[key]
    out[key] = uint(o[key], lo, hi, `${path}.${key}`)
  }
  return out as unknown as M.Budgets
}

const topKeys = new Set(["contract", "key", "name", "note", "budgets", "interface", "cells", "edges"])

/**
 * Validate and normalize. Throws `Issue`.
 *
 * @internal
 */
export const normalize = (json: unknown): M.Manifest => {
  const size = Canonical.encode(json)
  if (size._tag === "Left") invalid(`manifest is not canonical JSON: ${size.left.message}`, "$")
  else if (Buffer.byteLength(size.right, "utf8") > maxManifestBytes) fail("BUDGET_EXHAUSTED", "manifest bytes", "$")
  const m = object(json, "$")
  closed(m, topKeys, "$")
  if (m.contract !== "algal.organism.v1") invalid("expected algal.organism.v1", "$.contract")
  const key = text(m.key, 64, "$.key")
  if (!key.startsWith("organism:") || !isId(key.slice("organism:".length))) {
    invalid("key must be organism:<id>", "$.key")
  }
  const out: Obj = {
    contract: "algal.organism.v1",
    key,
    name: text(m.name, 120, "$.name")
  }
  if (has(m, "note")) out.note = text(m.note, 2000, "$.note")
  out.budgets = has(m, "budgets") ? budgetsOf(m.budgets, "$.budgets") : { ...defaultBudgets }
  if (has(m, "interface")) {
    const i = object(m.interface, "$.interface")
    closed(i, new Set(["inputs", "outputs"]), "$.interface")
    out.interface = {
      inputs: has(i, "inputs") ? interfaceSide(i.inputs, "$.interface.inputs") : {},
      outputs: has(i, "outputs") ? interfaceSide(i.outputs, "$.interface.outputs") : {}
    }
  } else {
    // A manifest without an interface has none in its normalized form (the original writes no
    // `interface` key, so the digest covers none); code still reads the empty default.
    Object.defineProperty(out, "interface", {
      value: { inputs: {}, outputs: {} },
      enumerable: false,
      writable: false,
      configurable: false
    })
  }
  if (!has(m, "cells")) invalid("missing cells", "$")
  const rawCells = array(m.cells, 64, "$.cells")
  // Duplicate cell ids are a compile-stage MANIFEST_INVALID in the original (`Program.compile`).
  out.cells = rawCells.map((c, i) => cell(c, `$.cells[${i}]`))
  out.edges = has(m, "edges") ? array(m.edges, 256, "$.edges").map((e, i) => edge(e, `$.edges[${i}]`)) : []
  const normalized = Canonical.encode(out)
  if (normalized._tag === "Left") invalid(`normalized manifest is not canonical JSON: ${normalized.left.message}`, "$")
  else if (Buffer.byteLength(normalized.right, "utf8") > maxManifestBytes) {
    fail("BUDGET_EXHAUSTED", "manifest bytes", "$")
  }
  return out as unknown as M.Manifest
}
