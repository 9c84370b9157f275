/**
 * The `algal.organism.v1` parser and normalizer (ALGAL v1 §1.1–§1.4, §3.1). Pure and synchronous;
 * failures are thrown as `Issue`s and converted to `AlgalError` by `Manifest.parse`.
 *
 * @internal
 */
import * as Canonical from "../Canonical.js"
import * as Expr from "../Expr.js"
import type * as M from "../Manifest.js"
import { fail, has, invalid, isObj, type Obj, utf8Length } from "./issue.js"
import { type SchemaVersion, validateSchema } from "./schema.js"

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

const budgetRanges: Record<keyof M.Budgets, readonly [number, number]> = {
  maxSteps: [1, 1024],
  maxAgentCalls: [0, 64],
  maxWork: [1, 100_000_000],
  maxContextBytes: [1, 262_144],
  maxOutputBytes: [1, 262_144],
  maxDepth: [0, 8]
}

const idPattern = /^[a-z][a-z0-9-]{0,63}$/

/** @internal */
export const isId = (u: unknown): u is string => typeof u === "string" && idPattern.test(u)

const portTypes = new Set(["text", "json", "choice", "ref", "cap"])

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

const agentBase = ["id", "kind", "inputs", "prompt", "view", "output", "route", "budget", "retry"]
const cellKeys: Record<M.CellKind, ReadonlySet<string>> = {
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

const kindSet = new Set<string>(cellKinds)

// ---------------------------------------------------------------------------------------------
// primitives

const object = (v: unknown, path: string): Obj => (isObj(v) ? v : invalid("expected object", path))

const closed = (o: Obj, allowed: ReadonlySet<string>, path: string): void => {
  for (const key of Object.keys(o)) {
    if (!allowed.has(key)) invalid(`unknown key ${key}`, path)
  }
}

const text = (v: unknown, max: number, path: string): string => {
  if (typeof v !== "string") return invalid("expected text", path)
  if (v.length > max) return invalid("text exceeds bound", path)
  return v
}

const id = (v: unknown, path: string): string => (isId(v) ? v : invalid("expected lowercase kebab-case id", path))

const uint = (v: unknown, lo: number, hi: number, path: string): number => {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0) return invalid("expected non-negative integer", path)
  if (v < lo || v > hi) return invalid("integer out of bounds", path)
  return v
}

const bool = (v: unknown, path: string): boolean => (typeof v === "boolean" ? v : invalid("expected boolean", path))

const array = (v: unknown, max: number, path: string): ReadonlyArray<unknown> => {
  if (!Array.isArray(v)) return invalid("expected array", path)
  // Count bounds are part of the manifest's shape: the original rejects them at parse.
  if (v.length > max) fail("PARSE_FAILED", "array count", path)
  return v
}

const countKeys = (o: Obj, max: number, path: string): void => {
  if (Object.keys(o).length > max) fail("PARSE_FAILED", "object count", path)
}

const labelList = (v: unknown, path: string): Array<string> => {
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

const schemaVersionOf = (o: Obj, path: string): SchemaVersion => {
  if (!has(o, "schemaVersion")) return 1
  if (!has(o, "schema")) invalid("schemaVersion requires schema", path)
  return uint(o.schemaVersion, 1, 3, `${path}.schemaVersion`) as SchemaVersion
}

/** Static check of an `algal.expr.v1` envelope; returns the program. */
const exprEnvelope = (v: unknown, names: ReadonlyArray<string>, path: string, label: string): M.ExprEnvelope => {
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

const portKeys = new Set(["type", "optional", "many", "labels", "schema", "schemaVersion", "capability"])
const constPortKeys = new Set([...portKeys, "value"])

const portDecl = (v: unknown, mode: PortMode, path: string): M.PortDecl | M.ConstPortDecl => {
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

const portMap = (v: unknown, mode: PortMode, path: string): Record<string, M.PortDecl> => {
  const o = object(v, path)
  countKeys(o, 32, path)
  const out: Record<string, M.PortDecl> = {}
  for (const name of Object.keys(o)) {
    id(name, `${path}.${name}`)
    out[name] = portDecl(o[name], mode, `${path}.${name}`)
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// output contracts and the agent family

const outputContract = (v: unknown, path: string, forExpr: boolean): M.OutputContract => {
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

const viewOf = (v: unknown, path: string): M.View => {
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

const routeOf = (v: unknown, path: string): Obj => {
  const o = object(v, path)
  closed(o, new Set(["provider", "model", "preset"]), path)
  for (const key of Object.keys(o)) text(o[key], 64, `${path}.${key}`)
  return { ...o }
}

const cellBudget = (v: unknown, path: string, allowTurns: boolean): Obj => {
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

const retryOf = (v: unknown, path: string): Obj => {
  const o = object(v, path)
  closed(o, new Set(["attempts"]), path)
  return { attempts: uint(o.attempts, 2, 8, `${path}.attempts`) }
}

const toolsOf = (v: unknown, path: string): Array<string> => {
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

const questionsOf = (v: unknown, path: string): Obj => {
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

const compactOf = (v: unknown, path: string): Obj => {
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

// ---------------------------------------------------------------------------------------------
// cells

const withInputs = (c: Obj, out: Obj, path: string): Array<string> => {
  if (!has(c, "inputs")) return []
  const inputs = portMap(c.inputs, "inputs", `${path}.inputs`)
  const names = Object.keys(inputs)
  if (names.length > 0) out.inputs = inputs
  return names
}

const digestField = (v: unknown, path: string): string =>
  Canonical.isDigest(v) ? v : invalid("expected sha256 digest", path)

const cell = (v: unknown, path: string): M.Cell => {
  const c = object(v, path)
  const kind = c.kind
  if (typeof kind !== "string" || !kindSet.has(kind)) return invalid("unknown cell kind", `${path}.kind`)
  const k = kind as M.CellKind
  closed(c, cellKeys[k], path)
  const out: Obj = { id: id(c.id, `${path}.id`), kind: k }
  switch (k) {
    case "input":
      out.outputs = portMap(has(c, "outputs") ? c.outputs : {}, "outputs", `${path}.outputs`)
      break
    case "const":
      out.outputs = portMap(has(c, "outputs") ? c.outputs : {}, "const", `${path}.outputs`)
      break
    case "fn":
      out.fn = text(c.fn, 64, `${path}.fn`)
      break
    case "expr": {
      const names = withInputs(c, out, path)
      if (!has(c, "expr")) invalid("expr cell requires expr", path)
      out.expr = exprEnvelope(c.expr, names, `${path}.expr`, "expr program")
      if (!has(c, "output")) invalid("expr cell requires output", path)
      out.output = outputContract(c.output, `${path}.output`, true)
      break
    }
    case "tool":
      out.tool = text(c.tool, 64, `${path}.tool`)
      if (has(c, "budget")) {
        const b = object(c.budget, `${path}.budget`)
        closed(b, new Set(["maxEffectMs"]), `${path}.budget`)
        out.budget = {
          ...(has(b, "maxEffectMs")
            ? { maxEffectMs: uint(b.maxEffectMs, 1, 600_000, `${path}.budget.maxEffectMs`) }
            : {})
        }
      }
      break
    case "agent":
    case "classifier":
    case "gate":
    case "decide": {
      withInputs(c, out, path)
      // A decide cell's questions carry its instructions, so its prompt is optional (the original
      // admits a decide cell without one); every other model cell requires a prompt.
      if (k !== "decide" || has(c, "prompt")) out.prompt = text(c.prompt, 8192, `${path}.prompt`)
      out.view = has(c, "view") ? viewOf(c.view, `${path}.view`) : { inputs: "*" }
      if (has(c, "route")) out.route = routeOf(c.route, `${path}.route`)
      if (has(c, "budget")) out.budget = cellBudget(c.budget, `${path}.budget`, k !== "decide")
      if (has(c, "retry")) out.retry = retryOf(c.retry, `${path}.retry`)
      if (k === "decide") {
        out.questions = questionsOf(c.questions, `${path}.questions`)
        break
      }
      if (!has(c, "output")) invalid(`${k} cell requires output`, path)
      const output = outputContract(c.output, `${path}.output`, false)
      if (k !== "agent" && output.kind !== "choice") invalid(`${k} output must be choice`, `${path}.output`)
      out.output = output
      if (has(c, "tools")) out.tools = toolsOf(c.tools, `${path}.tools`)
      if (has(c, "shadow")) {
        if (k !== "classifier") invalid("shadow is only valid on classifier cells", `${path}.shadow`)
        const s = object(c.shadow, `${path}.shadow`)
        closed(s, new Set(["take"]), `${path}.shadow`)
        const take = text(s.take, 64, `${path}.shadow.take`)
        if (output.kind !== "choice" || !output.labels.includes(take)) {
          invalid("shadow take must be one of the labels", `${path}.shadow.take`)
        }
        out.shadow = { take }
      }
      if (has(c, "compact")) {
        if (!has(c, "tools")) invalid("compact requires tools", `${path}.compact`)
        out.compact = compactOf(c.compact, `${path}.compact`)
      }
      break
    }
    case "recall": {
      const names = withInputs(c, out, path)
      out.query = exprEnvelope(c.query, names, `${path}.query`, "recall query")
      if (has(c, "k")) out.k = uint(c.k, 1, 32, `${path}.k`)
      if (has(c, "embedder")) {
        const e = text(c.embedder, 128, `${path}.embedder`)
        if (e !== "local" && e !== "gateway" && !/^gateway:.+$/.test(e)) {
          invalid("embedder must be local|gateway|gateway:<model>", `${path}.embedder`)
        }
        out.embedder = e
      }
      if (has(c, "route")) out.route = routeOf(c.route, `${path}.route`)
      if (has(c, "rerank")) {
        const r = object(c.rerank, `${path}.rerank`)
        closed(r, new Set(["route", "take"]), `${path}.rerank`)
        const route = routeOf(r.route, `${path}.rerank.route`)
        if (!has(route, "provider") && !has(route, "preset")) {
          invalid("rerank route must name a provider or preset", `${path}.rerank.route`)
        }
        const k = has(c, "k") ? (out.k as number) : 8
        out.rerank = has(r, "take") ? { route, take: uint(r.take, 1, k, `${path}.rerank.take`) } : { route }
      }
      if (has(c, "budget")) out.budget = cellBudget(c.budget, `${path}.budget`, false)
      if (has(c, "retry")) out.retry = retryOf(c.retry, `${path}.retry`)
      break
    }
    case "organism":
    case "repeat":
    case "each": {
      out.manifest = digestField(c.manifest, `${path}.manifest`)
      if (has(c, "via")) out.via = id(c.via, `${path}.via`)
      if (k === "repeat") {
        out.maxRounds = uint(c.maxRounds, 1, 16, `${path}.maxRounds`)
        if (has(c, "carry")) {
          const carry = object(c.carry, `${path}.carry`)
          countKeys(carry, 32, `${path}.carry`)
          const co: Record<string, string> = {}
          for (const key of Object.keys(carry)) {
            co[id(key, `${path}.carry.${key}`)] = id(carry[key], `${path}.carry.${key}`)
          }
          out.carry = co
        }
        if (has(c, "until")) {
          const u = object(c.until, `${path}.until`)
          closed(u, new Set(["output", "equals", "field"]), `${path}.until`)
          const until: Obj = {
            output: id(u.output, `${path}.until.output`),
            equals: text(u.equals, 64, `${path}.until.equals`)
          }
          if (has(u, "field")) until.field = id(u.field, `${path}.until.field`)
          out.until = until
        }
      }
      if (k === "each") {
        out.maxItems = uint(c.maxItems, 1, 64, `${path}.maxItems`)
        out.over = id(c.over, `${path}.over`)
      }
      break
    }
    case "slot": {
      out.name = id(c.name, `${path}.name`)
      if (c.mode !== "read" && c.mode !== "write") invalid("slot mode must be read or write", `${path}.mode`)
      out.mode = c.mode
      if (has(c, "default")) {
        if (c.mode !== "read") invalid("default is only valid on read slots", `${path}.default`)
        out.default = c.default
      }
      break
    }
    case "store":
    case "load":
    case "spawn":
      break
  }
  return out as unknown as M.Cell
}

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
