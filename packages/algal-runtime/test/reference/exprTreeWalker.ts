/**
 * The reference `algal.expr.v1` evaluator: the checked node tree (`checkProgram`) walked under the
 * exact fuel meter. Every node's result is bound-checked; collection builders check cumulatively
 * before appending. Evaluation itself runs the closure-compiled form (compile.ts), which must agree
 * with this walker on every value, fuel figure and error — the differential tests hold them together.
 *
 * Kept in the tests only: the shipped runtime evaluates through compile.ts.
 */
import { ExprFault, fault, typeFault } from "../../src/internal/expr/fault.js"
import {
  BOUNDS,
  boundsFault,
  canonicalText,
  compareUtf16,
  compareValues,
  countNodes,
  equals,
  escapedLength,
  exactBytes,
  isList,
  isMap,
  keysCanonical,
  kindOf,
  numberText,
  utf8Length,
  type V,
  valueBytes,
  type VMap
} from "../../src/internal/expr/value.js"

import type { Call, Node } from "../../src/internal/expr/node.js"

const isIndex = (v: V): v is number => typeof v === "number" && v >= 0 && v % 1 === 0

const TRIM = /^[ \t\n\r\v\f]+|[ \t\n\r\v\f]+$/g
const upperAscii = (s: string): string => s.replace(/[a-z]+/g, (m) => m.toUpperCase())
const lowerAscii = (s: string): string => s.replace(/[A-Z]+/g, (m) => m.toLowerCase())

/**
 * Grow the running canonical size of a collection under construction by `extra` (an upper bound from
 * `valueBytes`). Near the bound the size is recomputed exactly by `exact`, which must count every
 * element so far; only an exact size over the bound fails.
 */
const addBytes = (total: number, extra: number, exact: () => number): number => {
  const next = total + extra
  if (next <= BOUNDS.valueBytes) return next
  const precise = exact()
  if (precise > BOUNDS.valueBytes) throw boundsFault("value-bytes", BOUNDS.valueBytes)
  return precise
}

/** Exact canonical size of a list of values: `[a,b,…]`. */
const listBytes = (items: ReadonlyArray<V>, last: V): number => {
  let bytes = 2 + exactBytes(last)
  for (let i = 0; i < items.length; i++) bytes += exactBytes(items[i]!) + 1
  return bytes
}

/** One evaluation: the fuel meter, the lexical scope and the env. @internal */
export class Machine {
  left: number
  private readonly scopeNames: Array<string> = []
  private readonly scopeValues: Array<V> = []

  constructor(readonly env: VMap, readonly budget: number) {
    this.left = budget
  }

  /** Fuel spent so far. */
  get spent(): number {
    return this.budget - this.left
  }

  private spend(cost: number): void {
    if (cost > this.left) throw fault({ code: "EXPR_FUEL", cost, left: this.left })
    this.left -= cost
  }

  /** `n` charges of one unit each (so exhaustion reports `{cost: 1, left: 0}`). */
  private spendUnits(n: number): void {
    if (n > this.left) {
      this.left = 0
      throw fault({ code: "EXPR_FUEL", cost: 1, left: 0 })
    }
    this.left -= n
  }

  private lookup(name: string): V | undefined {
    for (let i = this.scopeNames.length - 1; i >= 0; i--) {
      if (this.scopeNames[i] === name) return this.scopeValues[i]!
    }
    return this.env.get(name)
  }

  private bind(name: string, value: V): void {
    this.scopeNames.push(name)
    this.scopeValues.push(value)
  }

  private unbind(n: number): void {
    for (let i = 0; i < n; i++) {
      this.scopeNames.pop()
      this.scopeValues.pop()
    }
  }

  eval(node: Node): V {
    switch (node.k) {
      case 0:
        // A literal from the program is always within every bound.
        this.spend(1)
        return node.v
      case 1: {
        this.spend(1)
        if (node.keys.length > BOUNDS.objectKeys) throw boundsFault("object-keys", BOUNDS.objectKeys)
        const out = new Map<string, V>()
        let bytes = 2
        for (let i = 0; i < node.keys.length; i++) {
          const key = node.keys[i]!
          const value = this.eval(node.fields[i]!)
          const exact = () => {
            let total = 2 + escapedLength(key) + 1 + exactBytes(value)
            for (const [k, v] of out) total += escapedLength(k) + 1 + exactBytes(v) + 1
            return total
          }
          bytes = addBytes(bytes, escapedLength(key) + 1 + (i === 0 ? 0 : 1), exact)
          bytes = addBytes(bytes, valueBytes(value, 1), exact)
          out.set(key, value)
        }
        valueBytes(out, 0)
        return out
      }
      case 2: {
        this.spend(node.cost)
        const value = this.call(node)
        // null, booleans and numbers are within every bound at depth 0
        if (typeof value === "string" || (value !== null && typeof value === "object")) valueBytes(value, 0)
        return value
      }
    }
  }

  private evalArgs(args: ReadonlyArray<Node>): Array<V> {
    const out: Array<V> = []
    let bytes = 2
    for (let i = 0; i < args.length; i++) {
      const v = this.eval(args[i]!)
      bytes = addBytes(bytes, valueBytes(v, 0) + (i === 0 ? 0 : 1), () => listBytes(out, v))
      out.push(v)
    }
    return out
  }

  private num(op: string, node: Node, arg: number): number {
    const v = this.eval(node)
    if (typeof v !== "number") throw typeFault(op, arg, "number", kindOf(v))
    return v
  }

  private str(op: string, node: Node, arg: number): string {
    const v = this.eval(node)
    if (typeof v !== "string") throw typeFault(op, arg, "string", kindOf(v))
    return v
  }

  private list(op: string, node: Node, arg: number): ReadonlyArray<V> {
    const v = this.eval(node)
    if (!isList(v)) throw typeFault(op, arg, "list", kindOf(v))
    return v
  }

  private map(op: string, node: Node, arg: number): VMap {
    const v = this.eval(node)
    if (!isMap(v)) throw typeFault(op, arg, "map", kindOf(v))
    return v
  }

  private bool(op: string, v: V, arg: number): boolean {
    if (typeof v !== "boolean") throw typeFault(op, arg, "bool", kindOf(v))
    return v
  }

  private finite(op: string, n: number): number {
    if (!Number.isFinite(n)) throw fault({ code: "EXPR_NUM", op })
    return n
  }

  private index(op: string, node: Node): number {
    const v = this.eval(node)
    if (!isIndex(v)) throw typeFault(op, 1, "nonneg integer", kindOf(v))
    return v
  }

  private call(node: Call): V {
    const { args, op } = node
    switch (op) {
      // ------------------------------------------------------------- numbers
      case "add":
      case "mul": {
        const items = this.evalArgs(args)
        let acc = op === "add" ? 0 : 1
        for (let i = 0; i < items.length; i++) {
          const v = items[i]!
          if (typeof v !== "number") throw typeFault(op, i, "number", kindOf(v))
          acc = op === "add" ? acc + v : acc * v
        }
        return this.finite(op, acc)
      }
      case "sub":
      case "div":
      case "mod": {
        const a = this.num(op, args[0]!, 0)
        const b = this.num(op, args[1]!, 1)
        if (op !== "sub" && b === 0) throw fault({ code: "EXPR_DIV_ZERO", op })
        return this.finite(op, op === "sub" ? a - b : op === "div" ? a / b : a % b)
      }
      case "neg":
        return this.finite(op, -this.num(op, args[0]!, 0))
      case "min":
      case "max": {
        const items = this.evalArgs(args)
        let best = 0
        for (let i = 0; i < items.length; i++) {
          const v = items[i]!
          if (typeof v !== "number") throw typeFault(op, i, "number", kindOf(v))
          if (i === 0 || (op === "min" ? v < best : v > best)) best = v
        }
        return best
      }
      case "abs":
        return this.finite(op, Math.abs(this.num(op, args[0]!, 0)))
      case "floor":
        return this.finite(op, Math.floor(this.num(op, args[0]!, 0)))
      case "ceil":
        return this.finite(op, Math.ceil(this.num(op, args[0]!, 0)))
      case "round": {
        const n = this.num(op, args[0]!, 0)
        const f = Math.floor(n)
        return this.finite(op, n - f < 0.5 ? f : f + 1)
      }
      case "clamp": {
        const x = this.num(op, args[0]!, 0)
        const lo = this.num(op, args[1]!, 1)
        const hi = this.num(op, args[2]!, 2)
        if (lo > hi) throw fault({ code: "EXPR_ARG", op, what: "clamp lo must be <= hi" })
        return Math.min(Math.max(x, lo), hi)
      }
      // --------------------------------------------------------- comparison
      case "lt":
      case "lte":
      case "gt":
      case "gte": {
        const [a, b] = this.evalArgs(args) as [V, V]
        let c: number
        if (typeof a === "number" && typeof b === "number") c = a < b ? -1 : a > b ? 1 : 0
        else if (typeof a === "string" && typeof b === "string") c = compareUtf16(a, b)
        else throw typeFault(op, 0, "two numbers or two strings", `${kindOf(a)},${kindOf(b)}`)
        return op === "lt" ? c < 0 : op === "lte" ? c <= 0 : op === "gt" ? c > 0 : c >= 0
      }
      case "eq":
      case "neq": {
        const [a, b] = this.evalArgs(args) as [V, V]
        this.spend(countNodes(a) + countNodes(b))
        return equals(a, b) === (op === "eq")
      }
      // -------------------------------------------------------------- logic
      case "and":
      case "or": {
        const want = op === "and"
        for (let i = 0; i < args.length; i++) {
          if (this.bool(op, this.eval(args[i]!), i) !== want) return !want
        }
        return want
      }
      case "not":
        return !this.bool(op, this.eval(args[0]!), 0)
      case "if":
        return this.bool(op, this.eval(args[0]!), 0) ? this.eval(args[1]!) : this.eval(args[2]!)
      case "let": {
        const value = this.eval(args[1]!)
        this.bind(node.names[0]!, value)
        const result = this.eval(args[2]!)
        this.unbind(1)
        return result
      }
      // ------------------------------------------------------------- access
      case "get": {
        const name = this.eval(args[0]!)
        if (typeof name !== "string") throw typeFault(op, 0, "name string", kindOf(name))
        let cur = this.lookup(name)
        if (cur === undefined) throw fault({ code: "EXPR_PATH", op, what: `unbound name "${name}"` })
        for (let i = 1; i < args.length; i++) {
          const step = this.eval(args[i]!)
          if (typeof step === "string") {
            if (!isMap(cur)) return null
            const next: V | undefined = cur.get(step)
            if (next === undefined) return null
            cur = next
          } else if (typeof step === "number") {
            if (!isIndex(step)) throw typeFault(op, i, "nonneg integer index", "number")
            if (!isList(cur) || step >= cur.length) return null
            cur = cur[step]!
          } else throw typeFault(op, i, "string key or nonneg integer index", kindOf(step))
        }
        return cur
      }
      // -------------------------------------------------------------- lists
      case "list": {
        const items = this.evalArgs(args)
        if (items.length > BOUNDS.listLen) throw boundsFault("list-len", BOUNDS.listLen)
        return items
      }
      case "len":
        return this.list(op, args[0]!, 0).length
      case "nth": {
        const items = this.list(op, args[0]!, 0)
        const i = this.index(op, args[1]!)
        if (i >= items.length) {
          throw fault({ code: "EXPR_PATH", op, what: `index ${numberText(i)} out of range ${items.length}` })
        }
        return items[i]!
      }
      case "concat": {
        const items = this.evalArgs(args)
        let total = 0
        for (let i = 0; i < items.length; i++) {
          const v = items[i]!
          if (!isList(v)) throw typeFault(op, i, "list", kindOf(v))
          total += v.length
        }
        this.spend(total)
        if (total > BOUNDS.listLen) throw boundsFault("list-len", BOUNDS.listLen)
        return ([] as Array<V>).concat(...(items as Array<Array<V>>))
      }
      case "map":
      case "filter": {
        const items = this.list(op, args[0]!, 0)
        const name = node.names[0]!
        const body = args[2]!
        const out: Array<V> = []
        let bytes = 2
        for (let i = 0; i < items.length; i++) {
          this.spend(1)
          const item = items[i]!
          this.bind(name, item)
          const v = this.eval(body)
          this.unbind(1)
          if (op === "map") {
            bytes = addBytes(bytes, valueBytes(v, 1) + (out.length === 0 ? 0 : 1), () => listBytes(out, v))
            out.push(v)
          } else if (this.bool(op, v, i)) {
            bytes = addBytes(bytes, valueBytes(item, 1) + (out.length === 0 ? 0 : 1), () => listBytes(out, item))
            out.push(item)
          }
          if (out.length > BOUNDS.listLen) throw boundsFault("list-len", BOUNDS.listLen)
        }
        return out
      }
      case "fold": {
        const items = this.list(op, args[0]!, 0)
        let acc = this.eval(args[1]!)
        const [accName, itemName] = node.names as [string, string]
        const body = args[4]!
        for (let i = 0; i < items.length; i++) {
          this.spend(1)
          this.bind(accName, acc)
          this.bind(itemName, items[i]!)
          acc = this.eval(body)
          this.unbind(2)
        }
        return acc
      }
      case "contains": {
        const items = this.list(op, args[0]!, 0)
        const needle = this.eval(args[1]!)
        for (let i = 0; i < items.length; i++) {
          this.spend(1)
          if (equals(items[i]!, needle)) return true
        }
        return false
      }
      case "reverse":
        return this.list(op, args[0]!, 0).slice().reverse()
      case "take":
      case "drop": {
        const items = this.list(op, args[0]!, 0)
        const n = this.index(op, args[1]!)
        return op === "take" ? items.slice(0, n) : items.slice(n)
      }
      case "flat": {
        const items = this.list(op, args[0]!, 0)
        let total = 0
        for (let i = 0; i < items.length; i++) {
          const v = items[i]!
          if (!isList(v)) throw typeFault(op, i, "list", kindOf(v))
          total += v.length
        }
        this.spend(total)
        if (total > BOUNDS.listLen) throw boundsFault("list-len", BOUNDS.listLen)
        return ([] as Array<V>).concat(...(items as Array<Array<V>>))
      }
      case "unique": {
        // Each item is compared with the kept items in order until the first `eq` hit; one fuel
        // unit per comparison. Kept items are pairwise distinct, so an index by canonical text
        // (eq ⇔ equal canonical text) gives the same comparison count without the quadratic work.
        const items = this.list(op, args[0]!, 0)
        const out: Array<V> = []
        const seen = new Map<string, number>()
        for (let i = 0; i < items.length; i++) {
          const item = items[i]!
          const text = canonicalText(item)
          const at = seen.get(text)
          this.spendUnits(at === undefined ? out.length : at + 1)
          if (at === undefined) {
            seen.set(text, out.length)
            out.push(item)
          }
        }
        return out
      }
      case "sort": {
        const items = this.list(op, args[0]!, 0)
        this.spend(items.length)
        return items.slice().sort(compareValues)
      }
      // ------------------------------------------------------------ strings
      case "slen":
        return this.str(op, args[0]!, 0).length
      case "sconcat": {
        const items = this.evalArgs(args)
        let bytes = 0
        for (let i = 0; i < items.length; i++) {
          const v = items[i]!
          if (typeof v !== "string") throw typeFault(op, i, "string", kindOf(v))
          bytes += utf8Length(v)
        }
        if (bytes > BOUNDS.stringBytes) throw boundsFault("string-bytes", BOUNDS.stringBytes)
        this.spend(bytes)
        return (items as Array<string>).join("")
      }
      case "upper":
      case "lower":
      case "trim": {
        const s = this.str(op, args[0]!, 0)
        this.spend(utf8Length(s))
        return op === "upper" ? upperAscii(s) : op === "lower" ? lowerAscii(s) : s.replace(TRIM, "")
      }
      case "split": {
        const s = this.str(op, args[0]!, 0)
        const sep = this.str(op, args[1]!, 1)
        if (sep.length === 0) throw fault({ code: "EXPR_ARG", op, what: "separator must be non-empty" })
        this.spend(utf8Length(s))
        const parts = s.split(sep)
        if (parts.length > BOUNDS.listLen) throw boundsFault("list-len", BOUNDS.listLen)
        this.spend(parts.length)
        return parts
      }
      case "join": {
        const items = this.list(op, args[0]!, 0)
        const sep = this.str(op, args[1]!, 1)
        let bytes = utf8Length(sep) * Math.max(0, items.length - 1)
        for (let i = 0; i < items.length; i++) {
          const v = items[i]!
          if (typeof v !== "string") throw typeFault(op, i, "string", kindOf(v))
          bytes += utf8Length(v)
        }
        if (bytes > BOUNDS.stringBytes) throw boundsFault("string-bytes", BOUNDS.stringBytes)
        this.spend(bytes)
        return (items as Array<string>).join(sep)
      }
      case "scontains":
      case "starts":
      case "ends": {
        const s = this.str(op, args[0]!, 0)
        const part = this.str(op, args[1]!, 1)
        this.spend(utf8Length(s))
        return op === "scontains" ? s.includes(part) : op === "starts" ? s.startsWith(part) : s.endsWith(part)
      }
      // --------------------------------------------------------------- maps
      case "has": {
        const m = this.map(op, args[0]!, 0)
        return m.has(this.str(op, args[1]!, 1))
      }
      case "keys":
      case "values": {
        const m = this.map(op, args[0]!, 0)
        const keys = keysCanonical(m)
        return op === "keys" ? keys.slice() : keys.map((key) => m.get(key)!)
      }
      case "merge": {
        const items = this.evalArgs(args)
        const out = new Map<string, V>()
        for (let i = 0; i < items.length; i++) {
          const v = items[i]!
          if (!isMap(v)) throw typeFault(op, i, "map", kindOf(v))
          for (const [key, value] of v) out.set(key, value)
          this.spend(v.size)
          if (out.size > BOUNDS.objectKeys) throw boundsFault("object-keys", BOUNDS.objectKeys)
        }
        return out
      }
      case "toText": {
        const text = canonicalText(this.eval(args[0]!))
        const bytes = utf8Length(text)
        this.spend(bytes)
        if (bytes > BOUNDS.stringBytes) throw boundsFault("string-bytes", BOUNDS.stringBytes)
        return text
      }
      // --------------------------------------------------------- predicates
      case "isText":
        return typeof this.eval(args[0]!) === "string"
      case "isNum":
        return typeof this.eval(args[0]!) === "number"
      case "isBool":
        return typeof this.eval(args[0]!) === "boolean"
      case "isList":
        return isList(this.eval(args[0]!))
      case "isMap":
        return isMap(this.eval(args[0]!))
      case "isNull":
        return this.eval(args[0]!) === null
      case "quote":
        return node.quoted
    }
    // Unreachable for a checked program; kept as a typed failure rather than a throw.
    throw fault({ code: "EXPR_OP", op })
  }
}

/** @internal */
export type Outcome =
  | { readonly ok: true; readonly value: V; readonly fuel: number }
  | { readonly ok: false; readonly fault: ExprFault; readonly fuel: number }

/** Run a compiled program. @internal */
export const run = (node: Node, env: VMap, budget: number): Outcome => {
  const machine = new Machine(env, budget)
  try {
    const value = machine.eval(node)
    return { ok: true, value, fuel: machine.spent }
  } catch (error) {
    if (error instanceof ExprFault) {
      return { ok: false, fault: error, fuel: machine.spent }
    }
    throw error
  }
}
