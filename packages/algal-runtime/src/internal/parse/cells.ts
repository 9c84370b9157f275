/**
 * Manifest parsing, part 3: one cell, by kind.
 *
 * @internal
 */
import * as Canonical from "../../Canonical.js"
import type * as M from "../../Manifest.js"
import { has, invalid, type Obj } from "../issue.js"
import { cellBudget, compactOf, outputContract, questionsOf, retryOf, routeOf, toolsOf, viewOf } from "./agent.js"
import { cellKeys, closed, countKeys, exprEnvelope, id, kindSet, object, portMap, text, uint } from "./primitives.js"

// ---------------------------------------------------------------------------------------------
// cells

/** @internal */
export const withInputs = (c: Obj, out: Obj, path: string): Array<string> => {
  if (!has(c, "inputs")) return []
  const inputs = portMap(c.inputs, "inputs", `${path}.inputs`)
  const names = Object.keys(inputs)
  if (names.length > 0) out.inputs = inputs
  return names
}

/** @internal */
export const digestField = (v: unknown, path: string): string =>
  Canonical.isDigest(v) ? v : invalid("expected sha256 digest", path)

/** @internal */
export const cell = (v: unknown, path: string): M.Cell => {
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
