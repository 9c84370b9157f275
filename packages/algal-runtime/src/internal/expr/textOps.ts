/**
 * The compiled closures of the string, map and predicate ops, and `quote`.
 *
 * @internal
 */
import { fault, typeFault } from "./fault.js"
import { type Code, evalArgs, labor, list, lowerAscii, map, spend, str, TRIM, upperAscii } from "./machine.js"
import type { Node } from "./node.js"
import {
  BOUNDS,
  boundsFault,
  canonicalText,
  isList,
  isMap,
  keysCanonical,
  kindOf,
  utf8Length,
  type V
} from "./value.js"

/** @internal */
export const textOp = (
  op: string,
  node: Extract<Node, { k: 2 }>,
  c: ReadonlyArray<Code>,
  slot: number,
  cost: number
): Code | undefined => {
  const a = c[0]!
  const b = c[1]!
  switch (op) {
    // ------------------------------------------------------------ strings
    case "slen":
      return (s) => {
        spend(s, cost)
        return str(s, a, op, 0).length
      }
    case "sconcat":
      return (s) => {
        const items = evalArgs(s, c)
        let bytes = 0
        for (let i = 0; i < items.length; i++) {
          const v = items[i]!
          if (typeof v !== "string") throw typeFault(op, i, "string", kindOf(v))
          bytes += utf8Length(v)
        }
        if (bytes > BOUNDS.stringBytes) throw boundsFault("string-bytes", BOUNDS.stringBytes)
        spend(s, bytes)
        return (items as Array<string>).join("")
      }
    case "upper":
    case "lower":
    case "trim":
      return (s) => {
        const x = str(s, a, op, 0)
        spend(s, utf8Length(x))
        return op === "upper" ? upperAscii(x) : op === "lower" ? lowerAscii(x) : x.replace(TRIM, "")
      }
    case "split":
      return (s) => {
        const x = str(s, a, op, 0)
        const sep = str(s, b, op, 1)
        if (sep.length === 0) throw fault({ code: "EXPR_ARG", op, what: "separator must be non-empty" })
        spend(s, utf8Length(x))
        const parts = x.split(sep)
        if (parts.length > BOUNDS.listLen) throw boundsFault("list-len", BOUNDS.listLen)
        spend(s, parts.length)
        return parts
      }
    case "join":
      return (s) => {
        const items = list(s, a, op, 0)
        const sep = str(s, b, op, 1)
        let bytes = utf8Length(sep) * Math.max(0, items.length - 1)
        for (let i = 0; i < items.length; i++) {
          const v = items[i]!
          if (typeof v !== "string") throw typeFault(op, i, "string", kindOf(v))
          bytes += utf8Length(v)
        }
        if (bytes > BOUNDS.stringBytes) throw boundsFault("string-bytes", BOUNDS.stringBytes)
        spend(s, bytes)
        return (items as Array<string>).join(sep)
      }
    case "scontains":
    case "starts":
    case "ends":
      return (s) => {
        const x = str(s, a, op, 0)
        const part = str(s, b, op, 1)
        spend(s, utf8Length(x))
        return op === "scontains" ? x.includes(part) : op === "starts" ? x.startsWith(part) : x.endsWith(part)
      }
    // --------------------------------------------------------------- maps
    case "has":
      return (s) => {
        const m = map(s, a, op, 0)
        return m.has(str(s, b, op, 1))
      }
    case "keys":
    case "values": {
      const isKeys = op === "keys"
      return (s) => {
        const m = map(s, a, op, 0)
        const keys = keysCanonical(m)
        // a fresh list of every key or value, measured again by each op it reaches
        labor(s, keys.length * 8)
        return isKeys ? keys.slice() : keys.map((key) => m.get(key)!)
      }
    }
    case "merge":
      return (s) => {
        const items = evalArgs(s, c)
        const out = new Map<string, V>()
        for (let i = 0; i < items.length; i++) {
          const v = items[i]!
          if (!isMap(v)) throw typeFault(op, i, "map", kindOf(v))
          for (const [key, value] of v) out.set(key, value)
          spend(s, v.size)
          if (out.size > BOUNDS.objectKeys) throw boundsFault("object-keys", BOUNDS.objectKeys)
        }
        return out
      }
    case "toText":
      return (s) => {
        const text = canonicalText(a(s))
        const bytes = utf8Length(text)
        spend(s, bytes)
        if (bytes > BOUNDS.stringBytes) throw boundsFault("string-bytes", BOUNDS.stringBytes)
        return text
      }
    // --------------------------------------------------------- predicates
    case "isText":
      return (s) => {
        spend(s, cost)
        return typeof a(s) === "string"
      }
    case "isNum":
      return (s) => {
        spend(s, cost)
        return typeof a(s) === "number"
      }
    case "isBool":
      return (s) => {
        spend(s, cost)
        return typeof a(s) === "boolean"
      }
    case "isList":
      return (s) => {
        spend(s, cost)
        return isList(a(s))
      }
    case "isMap":
      return (s) => {
        spend(s, cost)
        return isMap(a(s))
      }
    case "isNull":
      return (s) => {
        spend(s, cost)
        return a(s) === null
      }
    case "quote": {
      const quoted = node.quoted
      return () => quoted
    }
  }
  return undefined
}
