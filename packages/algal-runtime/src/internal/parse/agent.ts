/**
 * Manifest parsing, part 2: output contracts and the agent family's fields (view, route, budget, retry, tools, questions, compact).
 *
 * @internal
 */
import type * as M from "../../Manifest.js"
import { has, invalid, type Obj, utf8Length } from "../issue.js"
import { validateSchema } from "../schema.js"
import { array, bool, closed, countKeys, id, labelList, object, schemaVersionOf, text, uint } from "./primitives.js"

// ---------------------------------------------------------------------------------------------
// output contracts and the agent family

/** @internal */
export const outputContract = (v: unknown, path: string, forExpr: boolean): M.OutputContract => {
  const o = object(v, path)
  switch (o.kind) {
    case "text":
      closed(o, new Set(["kind"]), path)
      return { kind: "text" }
    case "json": {
      closed(o, new Set(["kind", "schema", "schemaVersion"]), path)
      if (!has(o, "schema")) invalid("json output requires schema", path)
      const version = schemaVersionOf(o, path)
      validateSchema(o.schema, version, `${path}.schema`)
      return has(o, "schemaVersion")
        ? { kind: "json", schema: o.schema as M.JsonSchema, schemaVersion: version }
        : { kind: "json", schema: o.schema as M.JsonSchema }
    }
    case "choice": {
      if (forExpr && has(o, "onMiss")) invalid("expr output onMiss is meaningless — programs return exact values", path)
      closed(o, new Set(["kind", "labels", "onMiss"]), path)
      const labels = labelList(o.labels, `${path}.labels`)
      if (has(o, "onMiss")) {
        const onMiss = text(o.onMiss, 64, `${path}.onMiss`)
        if (!labels.includes(onMiss)) invalid("onMiss must be one of the labels", `${path}.onMiss`)
        return { kind: "choice", labels, onMiss }
      }
      return { kind: "choice", labels }
    }
    default:
      return invalid("output kind must be text, json or choice", `${path}.kind`)
  }
}

/** @internal */
export const viewOf = (v: unknown, path: string): M.View => {
  const o = object(v, path)
  closed(o, new Set(["inputs", "cells", "graph", "note"]), path)
  const out: { -readonly [K in keyof M.View]?: M.View[K] } = {}
  if (has(o, "inputs")) {
    if (o.inputs === "*") out.inputs = "*"
    else {
      const list = array(o.inputs, 32, `${path}.inputs`)
      out.inputs = list.map((x, i) => id(x, `${path}.inputs[${i}]`))
    }
  }
  if (has(o, "cells")) {
    const list = array(o.cells, 16, `${path}.cells`)
    const seen = new Set<string>()
    out.cells = list.map((entry, i) => {
      const at = `${path}.cells[${i}]`
      let ref: M.ViewCell
      if (typeof entry === "string") ref = { cell: id(entry, at) }
      else {
        const e = object(entry, at)
        closed(e, new Set(["cell", "ports"]), at)
        const cell = id(e.cell, `${at}.cell`)
        if (has(e, "ports")) {
          const ports = array(e.ports, 32, `${at}.ports`)
          if (ports.length === 0) invalid("view ports must not be empty", `${at}.ports`)
          ref = { cell, ports: ports.map((p, j) => id(p, `${at}.ports[${j}]`)) }
        } else ref = { cell }
      }
      if (seen.has(ref.cell)) invalid("view cells must be unique", at)
      seen.add(ref.cell)
      return ref
    })
  }
  if (has(o, "graph")) out.graph = bool(o.graph, `${path}.graph`)
  if (has(o, "note")) out.note = text(o.note, 2000, `${path}.note`)
  return out as M.View
}

/** @internal */
export const routeOf = (v: unknown, path: string): Obj => {
  const o = object(v, path)
  closed(o, new Set(["provider", "model", "preset"]), path)
  for (const key of Object.keys(o)) text(o[key], 64, `${path}.${key}`)
  return { ...o }
}

/** @internal */
export const cellBudget = (v: unknown, path: string, allowTurns: boolean): Obj => {
  const o = object(v, path)
  closed(
    o,
    new Set(
      allowTurns
        ? ["maxContextBytes", "maxOutputBytes", "maxTurns", "maxEffectMs"]
        : ["maxContextBytes", "maxOutputBytes", "maxEffectMs"]
    ),
    path
  )
  const out: Obj = {}
  for (const key of Object.keys(o)) {
    const [lo, hi] = key === "maxTurns" ? [1, 16] : key === "maxEffectMs" ? [1, 600_000] : [1, 262_144]
    out[key] = uint(o[key], lo, hi, `${path}.${key}`)
  }
  return out
}

/** @internal */
export const retryOf = (v: unknown, path: string): Obj => {
  const o = object(v, path)
  closed(o, new Set(["attempts"]), path)
  return { attempts: uint(o.attempts, 2, 8, `${path}.attempts`) }
}

/** @internal */
export const toolsOf = (v: unknown, path: string): Array<string> => {
  const list = array(v, 16, path)
  if (list.length === 0) invalid("tools must not be empty", path)
  const seen = new Set<string>()
  list.forEach((t, i) => {
    const name = text(t, 64, `${path}[${i}]`)
    if (name.length === 0) invalid("expected text", `${path}[${i}]`)
    if (seen.has(name)) invalid("tools must be unique", `${path}[${i}]`)
    seen.add(name)
  })
  return [...seen]
}

/** @internal */
export const questionsOf = (v: unknown, path: string): Obj => {
  const o = object(v, path)
  countKeys(o, 64, path)
  if (Object.keys(o).length === 0) invalid("questions must not be empty", path)
  const out: Obj = {}
  for (const name of Object.keys(o)) {
    const at = `${path}.${name}`
    if (typeof name !== "string" || name.length === 0 || name.length > 64 || !/^[A-Za-z0-9_-]+$/.test(name)) {
      invalid("expected question name", at)
    }
    const q = object(o[name], at)
    closed(q, new Set(["type", "instructions", "criteria"]), at)
    if (q.type !== "noul" && q.type !== "choice" && q.type !== "score") {
      invalid("question type must be noul|choice|score", `${at}.type`)
    }
    const instructions = text(q.instructions, 4096, `${at}.instructions`)
    if (utf8Length(instructions) > 4096) invalid("text exceeds bound", `${at}.instructions`)
    if (has(q, "criteria")) {
      const c = q.criteria
      if (Array.isArray(c)) {
        array(c, 64, `${at}.criteria`).forEach((x, i) => text(x, 4096, `${at}.criteria[${i}]`))
      } else {
        const co = object(c, `${at}.criteria`)
        countKeys(co, 64, `${at}.criteria`)
        for (const k of Object.keys(co)) text(co[k], 4096, `${at}.criteria.${k}`)
      }
    }
    // defineProperty: a question may be named `__proto__`, which must stay an own, verbatim key
    Object.defineProperty(out, name, { value: q, enumerable: true, writable: true, configurable: true })
  }
  return out
}

/** @internal */
export const compactOf = (v: unknown, path: string): Obj => {
  const o = object(v, path)
  closed(o, new Set(["maxLogBytes", "keepRecent", "route", "mode"]), path)
  const out: Obj = { maxLogBytes: uint(o.maxLogBytes, 1, 262_144, `${path}.maxLogBytes`) }
  if (has(o, "keepRecent")) out.keepRecent = uint(o.keepRecent, 0, 8, `${path}.keepRecent`)
  if (has(o, "route")) out.route = routeOf(o.route, `${path}.route`)
  if (has(o, "mode")) {
    if (o.mode !== "elide") invalid("compact mode must be elide", `${path}.mode`)
    out.mode = "elide"
  }
  return out
}
