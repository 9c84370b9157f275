/**
 * The closure compiler: a checked node tree (`checkProgram`) becomes a tree of JavaScript closures,
 * one per node, with the op dispatch, binder resolution and constant costs settled at compile time.
 *
 * Semantics are exactly those of the tree-walking `Machine` (test/reference/exprTreeWalker.ts), which stays as the reference
 * the differential property tests compare against: the same evaluation order, the same fuel
 * charges in the same order (so exhaustion reports the same `{cost, left}`), the same bound checks
 * and the same first error. What changes is only the cost of getting there:
 *
 * - binders live in fixed slots: lexical scope is static (no functions, no recursion), so the
 *   runtime binder stack always mirrors the static nesting and a binder's slot is its static depth;
 *   a literal `get` name is resolved to its slot (or the env) once;
 * - no per-node allocation for the common arithmetic (argument lists of scalars are never built);
 * - values that are already bound-checked (a `get` result is part of a checked env or binder value;
 *   `if`/`let`/`fold` return the checked result of a child node) are not measured again.
 *
 * @internal
 */
import { ExprFault, fault, typeFault } from "./fault.js"
import type { Node } from "./node.js"
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
} from "./value.js"

/**
 * Work units an evaluation may spend beyond what its fuel meters (ADR 0320): per fuel unit spent
 * so far, plus a fixed allowance so one operation on the largest admitted values always fits.
 * The original charges some operations a constant (`reverse`, `take`, `drop`, `keys`, `values`)
 * or per comparison (`unique`, `sort`, `contains`) whatever the size of what they copy, hash or
 * compare; fuel stays exactly the original's, and this meter bounds the real work instead.
 *
 * @internal
 */
export const workPerFuel = 16
/** @internal */
export const workAllowance = 65_536

/** One evaluation's mutable state: the fuel left, the hidden work done and the binder slots. @internal */
export class State {
  left: number
  /** Hidden work units done (elements copied, items hashed, 16-unit string blocks compared). */
  work = 0
  readonly slots: Array<V>
  constructor(readonly env: VMap, readonly budget: number, slots: number) {
    this.left = budget
    this.slots = new Array<V>(slots).fill(null)
  }
}

/**
 * Charge hidden work (not fuel). Running out is `EXPR_FUEL` — the program exhausted its budget's
 * work — reported with the fuel that was left.
 */
const labor = (s: State, units: number): void => {
  s.work += units
  if (s.work > workPerFuel * (s.budget - s.left) + workAllowance) {
    throw fault({ code: "EXPR_FUEL", cost: units, left: s.left })
  }
}

/** Hidden work of hashing or comparing a string: one unit per started 16 UTF-16 units. */
const textWork = (text: string): number => 1 + (text.length >>> 4)

/** What one `sort` comparison may read: the longest string item's blocks (1 for scalars). */
const sortWeight = (items: ReadonlyArray<V>): number => {
  let weight = 1
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!
    const w = typeof item === "string"
      ? textWork(item)
      : item !== null && typeof item === "object"
      ? textWork(canonicalText(item))
      : 1
    if (w > weight) weight = w
  }
  return weight
}

/** A compiled node. @internal */
export type Code = (s: State) => V

/** A compiled program: its root code and the number of binder slots it uses. @internal */
export interface Compiled {
  readonly code: Code
  readonly slots: number
}

const spend = (s: State, cost: number): void => {
  if (cost > s.left) throw fault({ code: "EXPR_FUEL", cost, left: s.left })
  s.left -= cost
}

/** `n` charges of one unit each (so exhaustion reports `{cost: 1, left: 0}`). */
const spendUnits = (s: State, n: number): void => {
  if (n > s.left) {
    s.left = 0
    throw fault({ code: "EXPR_FUEL", cost: 1, left: 0 })
  }
  s.left -= n
}

const isIndex = (v: V): v is number => typeof v === "number" && v >= 0 && v % 1 === 0

const TRIM = /^[ \t\n\r\v\f]+|[ \t\n\r\v\f]+$/g
const upperAscii = (s: string): string => s.replace(/[a-z]+/g, (m) => m.toUpperCase())
const lowerAscii = (s: string): string => s.replace(/[A-Z]+/g, (m) => m.toLowerCase())

const finite = (op: string, n: number): number => {
  if (!Number.isFinite(n)) throw fault({ code: "EXPR_NUM", op })
  return n
}

/** Whether a value needs measuring (null, booleans and numbers are within every bound at depth 0). */
const measured = (v: V): boolean => typeof v === "string" || (v !== null && typeof v === "object")

// An upper bound of a scalar's canonical bytes that needs no printing (25 = the longest number text).
const SCALAR_UPPER = 25

/** Exact canonical size of a list of values followed by `last`: `[a,b,…,last]`. */
const listBytes = (items: ReadonlyArray<V>, count: number, last: V): number => {
  let bytes = 2 + exactBytes(last)
  for (let i = 0; i < count; i++) bytes += exactBytes(items[i]!) + 1
  return bytes
}

/**
 * Grow the running size of an argument list / list under construction (`items[0..count)` so far)
 * by `v`, as the reference `addBytes`: an upper bound first, the exact size only past the bound.
 */
const growList = (bytes: number, items: ReadonlyArray<V>, count: number, v: V, depth: number): number => {
  const next = bytes + (measured(v) ? valueBytes(v, depth) : SCALAR_UPPER) + (count === 0 ? 0 : 1)
  if (next <= BOUNDS.valueBytes) return next
  const precise = listBytes(items, count, v)
  if (precise > BOUNDS.valueBytes) throw boundsFault("value-bytes", BOUNDS.valueBytes)
  return precise
}

/** Evaluate every argument into a new list, checking the list's size cumulatively. */
const evalArgs = (s: State, codes: ReadonlyArray<Code>): Array<V> => {
  const out: Array<V> = []
  let bytes = 2
  for (let i = 0; i < codes.length; i++) {
    const v = codes[i]!(s)
    bytes = growList(bytes, out, i, v, 0)
    out.push(v)
  }
  return out
}

/** Continue `evalArgs` after a prefix of `count` scalar values held in `items`. */
const evalArgsFrom = (s: State, codes: ReadonlyArray<Code>, items: ReadonlyArray<V>, count: number, v: V): Array<V> => {
  const out: Array<V> = items.slice(0, count)
  // a prefix of scalars is far below the bound (≤ 512 arguments of ≤ 26 bytes)
  let bytes = 2 + count * (SCALAR_UPPER + 1)
  bytes = growList(bytes, out, count, v, 0)
  out.push(v)
  for (let i = count + 1; i < codes.length; i++) {
    const w = codes[i]!(s)
    bytes = growList(bytes, out, i, w, 0)
    out.push(w)
  }
  return out
}

const num = (s: State, code: Code, op: string, arg: number): number => {
  const v = code(s)
  if (typeof v !== "number") throw typeFault(op, arg, "number", kindOf(v))
  return v
}

const str = (s: State, code: Code, op: string, arg: number): string => {
  const v = code(s)
  if (typeof v !== "string") throw typeFault(op, arg, "string", kindOf(v))
  return v
}

const list = (s: State, code: Code, op: string, arg: number): ReadonlyArray<V> => {
  const v = code(s)
  if (!isList(v)) throw typeFault(op, arg, "list", kindOf(v))
  return v
}

const map = (s: State, code: Code, op: string, arg: number): VMap => {
  const v = code(s)
  if (!isMap(v)) throw typeFault(op, arg, "map", kindOf(v))
  return v
}

const bool = (op: string, v: V, arg: number): boolean => {
  if (typeof v !== "boolean") throw typeFault(op, arg, "bool", kindOf(v))
  return v
}

const index = (s: State, code: Code, op: string): number => {
  const v = code(s)
  if (!isIndex(v)) throw typeFault(op, 1, "nonneg integer", kindOf(v))
  return v
}

/** A binder in scope at compile time: its name and its slot. */
interface Binder {
  readonly name: string
  readonly slot: number
}

class Compiler {
  slots = 0

  node(node: Node, scope: ReadonlyArray<Binder>): Code {
    switch (node.k) {
      case 0: {
        // A literal from the program is always within every bound.
        const v = node.v
        return (s) => {
          if (s.left < 1) throw fault({ code: "EXPR_FUEL", cost: 1, left: s.left })
          s.left -= 1
          return v
        }
      }
      case 1:
        return this.object(node.keys, node.fields.map((field) => this.node(field, scope)))
      case 2:
        return this.call(node, scope)
    }
  }

  private object(keys: ReadonlyArray<string>, fields: ReadonlyArray<Code>): Code {
    return (s) => {
      spend(s, 1)
      if (keys.length > BOUNDS.objectKeys) throw boundsFault("object-keys", BOUNDS.objectKeys)
      const out = new Map<string, V>()
      let bytes = 2
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!
        const value = fields[i]!(s)
        bytes = growObject(bytes, escapedLength(key) + 1 + (i === 0 ? 0 : 1), out, key, value)
        bytes = growObject(bytes, valueBytes(value, 1), out, key, value)
        out.set(key, value)
      }
      valueBytes(out, 0)
      return out
    }
  }

  private bind(scope: ReadonlyArray<Binder>, names: ReadonlyArray<string>): [Array<Binder>, number] {
    const first = scope.length === 0 ? 0 : scope[scope.length - 1]!.slot + 1
    const inner = scope.slice()
    for (let i = 0; i < names.length; i++) inner.push({ name: names[i]!, slot: first + i })
    if (first + names.length > this.slots) this.slots = first + names.length
    return [inner, first]
  }

  private call(node: Extract<Node, { k: 2 }>, scope: ReadonlyArray<Binder>): Code {
    const { cost, op } = node
    if (op === "get") return this.get(node, scope, cost)
    const args = node.args
    const last = args.length - 1
    let inner: ReadonlyArray<Binder> = scope
    let slot = 0
    if (node.names.length > 0) [inner, slot] = this.bind(scope, node.names)
    // Binders are visible only in the last argument (the body).
    const c: Array<Code> = args.map((arg, i) => this.node(arg, i === last ? inner : scope))
    const body = this.op(op, node, c, slot, cost)
    // These ops charge their own cost first thing, and need no result check: their result is a
    // scalar, or a checked value already (a child's result, or part of a checked value).
    if (SELF_PAID.has(op)) return body
    return (s) => {
      if (cost > s.left) throw fault({ code: "EXPR_FUEL", cost, left: s.left })
      s.left -= cost
      const value = body(s)
      if (measured(value)) valueBytes(value, 0)
      return value
    }
  }

  private op(
    op: string,
    node: Extract<Node, { k: 2 }>,
    c: ReadonlyArray<Code>,
    slot: number,
    cost: number
  ): Code {
    const a = c[0]!
    const b = c[1]!
    const n = c.length
    switch (op) {
      // ------------------------------------------------------------- numbers
      case "add":
      case "mul": {
        const isAdd = op === "add"
        const prefix: Array<V> = new Array(n)
        return (s) => {
          spend(s, cost)
          let acc = isAdd ? 0 : 1
          for (let i = 0; i < n; i++) {
            const v = c[i]!(s)
            if (typeof v !== "number") return sumSlow(op, evalArgsFrom(s, c, prefix, i, v), isAdd)
            prefix[i] = v
            acc = isAdd ? acc + v : acc * v
          }
          return finite(op, acc)
        }
      }
      case "sub":
        return (s) => {
          spend(s, cost)
          const x = num(s, a, op, 0)
          return finite(op, x - num(s, b, op, 1))
        }
      case "div":
      case "mod": {
        const isDiv = op === "div"
        return (s) => {
          spend(s, cost)
          const x = num(s, a, op, 0)
          const y = num(s, b, op, 1)
          if (y === 0) throw fault({ code: "EXPR_DIV_ZERO", op })
          return finite(op, isDiv ? x / y : x % y)
        }
      }
      case "neg":
        return (s) => {
          spend(s, cost)
          return finite(op, -num(s, a, op, 0))
        }
      case "min":
      case "max": {
        const isMin = op === "min"
        return (s) => {
          const items = evalArgs(s, c)
          let best = 0
          for (let i = 0; i < items.length; i++) {
            const v = items[i]!
            if (typeof v !== "number") throw typeFault(op, i, "number", kindOf(v))
            if (i === 0 || (isMin ? v < best : v > best)) best = v
          }
          return best
        }
      }
      case "abs":
        return (s) => {
          spend(s, cost)
          return finite(op, Math.abs(num(s, a, op, 0)))
        }
      case "floor":
        return (s) => {
          spend(s, cost)
          return finite(op, Math.floor(num(s, a, op, 0)))
        }
      case "ceil":
        return (s) => {
          spend(s, cost)
          return finite(op, Math.ceil(num(s, a, op, 0)))
        }
      case "round":
        return (s) => {
          spend(s, cost)
          const x = num(s, a, op, 0)
          const f = Math.floor(x)
          return finite(op, x - f < 0.5 ? f : f + 1)
        }
      case "clamp":
        return (s) => {
          spend(s, cost)
          const x = num(s, a, op, 0)
          const lo = num(s, b, op, 1)
          const hi = num(s, c[2]!, op, 2)
          if (lo > hi) throw fault({ code: "EXPR_ARG", op, what: "clamp lo must be <= hi" })
          return Math.min(Math.max(x, lo), hi)
        }
      // --------------------------------------------------------- comparison
      case "lt":
      case "lte":
      case "gt":
      case "gte": {
        const which = op === "lt" ? 0 : op === "lte" ? 1 : op === "gt" ? 2 : 3
        return (s) => {
          spend(s, cost)
          const x = a(s)
          let bytes = 2
          if (measured(x)) bytes = growList(bytes, EMPTY, 0, x, 0)
          else bytes += SCALAR_UPPER
          const y = b(s)
          if (measured(x) || measured(y)) growList(bytes, [x], 1, y, 0)
          let r: number
          if (typeof x === "number" && typeof y === "number") r = x < y ? -1 : x > y ? 1 : 0
          else if (typeof x === "string" && typeof y === "string") r = compareUtf16(x, y)
          else throw typeFault(op, 0, "two numbers or two strings", `${kindOf(x)},${kindOf(y)}`)
          return which === 0 ? r < 0 : which === 1 ? r <= 0 : which === 2 ? r > 0 : r >= 0
        }
      }
      case "eq":
      case "neq": {
        const want = op === "eq"
        return (s) => {
          spend(s, cost)
          const x = a(s)
          let bytes = 2
          if (measured(x)) bytes = growList(bytes, EMPTY, 0, x, 0)
          else bytes += SCALAR_UPPER
          const y = b(s)
          if (measured(x) || measured(y)) growList(bytes, [x], 1, y, 0)
          spend(s, countNodes(x) + countNodes(y))
          // long strings are measured and compared in full: hidden work
          if (typeof x === "string" && x.length > 16) labor(s, textWork(x))
          if (typeof y === "string" && y.length > 16) labor(s, textWork(y))
          return equals(x, y) === want
        }
      }
      // -------------------------------------------------------------- logic
      case "and":
      case "or": {
        const want = op === "and"
        return (s) => {
          spend(s, cost)
          for (let i = 0; i < n; i++) {
            if (bool(op, c[i]!(s), i) !== want) return !want
          }
          return want
        }
      }
      case "not":
        return (s) => {
          spend(s, cost)
          return !bool(op, a(s), 0)
        }
      case "if": {
        const then = b
        const otherwise = c[2]!
        return (s) => {
          spend(s, cost)
          return bool(op, a(s), 0) ? then(s) : otherwise(s)
        }
      }
      case "let": {
        const body = c[2]!
        return (s) => {
          spend(s, cost)
          s.slots[slot] = b(s)
          return body(s)
        }
      }
      // -------------------------------------------------------------- lists
      case "list":
        return (s) => {
          const items = evalArgs(s, c)
          if (items.length > BOUNDS.listLen) throw boundsFault("list-len", BOUNDS.listLen)
          return items
        }
      case "len":
        return (s) => {
          spend(s, cost)
          return list(s, a, op, 0).length
        }
      case "nth":
        return (s) => {
          spend(s, cost)
          const items = list(s, a, op, 0)
          const i = index(s, b, op)
          if (i >= items.length) {
            throw fault({ code: "EXPR_PATH", op, what: `index ${numberText(i)} out of range ${items.length}` })
          }
          return items[i]!
        }
      case "concat":
        return (s) => {
          const items = evalArgs(s, c)
          let total = 0
          for (let i = 0; i < items.length; i++) {
            const v = items[i]!
            if (!isList(v)) throw typeFault(op, i, "list", kindOf(v))
            total += v.length
          }
          spend(s, total)
          if (total > BOUNDS.listLen) throw boundsFault("list-len", BOUNDS.listLen)
          return ([] as Array<V>).concat(...(items as Array<Array<V>>))
        }
      case "map":
      case "filter": {
        const isMapOp = op === "map"
        const body = c[2]!
        return (s) => {
          const items = list(s, a, op, 0)
          const out: Array<V> = []
          let bytes = 2
          for (let i = 0; i < items.length; i++) {
            if (s.left < 1) throw fault({ code: "EXPR_FUEL", cost: 1, left: s.left })
            s.left -= 1
            const item = items[i]!
            s.slots[slot] = item
            const v = body(s)
            if (isMapOp) {
              bytes = growMapped(bytes, out, v)
              out.push(v)
            } else if (bool(op, v, i)) {
              bytes = growMapped(bytes, out, item)
              out.push(item)
            }
            if (out.length > BOUNDS.listLen) throw boundsFault("list-len", BOUNDS.listLen)
          }
          return out
        }
      }
      case "fold": {
        const body = c[4]!
        const init = b
        const accSlot = slot
        const itemSlot = slot + 1
        return (s) => {
          spend(s, cost)
          const items = list(s, a, op, 0)
          let acc = init(s)
          const slots = s.slots
          for (let i = 0; i < items.length; i++) {
            if (s.left < 1) throw fault({ code: "EXPR_FUEL", cost: 1, left: s.left })
            s.left -= 1
            slots[accSlot] = acc
            slots[itemSlot] = items[i]!
            acc = body(s)
          }
          return acc
        }
      }
      case "contains":
        return (s) => {
          const items = list(s, a, op, 0)
          const needle = b(s)
          const long = typeof needle === "string" && needle.length > 16
          for (let i = 0; i < items.length; i++) {
            spend(s, 1)
            const item = items[i]!
            // comparing two equal-length distinct strings reads them: hidden work
            if (long && typeof item === "string" && item.length === needle.length && item !== needle) {
              labor(s, textWork(item))
            }
            if (equals(item, needle)) return true
          }
          return false
        }
      case "reverse":
        return (s) => {
          const items = list(s, a, op, 0)
          // a fresh list, copied and then measured by each op it reaches: two units per item
          labor(s, items.length * 2)
          return items.slice().reverse()
        }
      case "take":
      case "drop": {
        const isTake = op === "take"
        return (s) => {
          const items = list(s, a, op, 0)
          const k = index(s, b, op)
          const out = isTake ? items.slice(0, k) : items.slice(k)
          labor(s, out.length * 2)
          return out
        }
      }
      case "flat":
        return (s) => {
          const items = list(s, a, op, 0)
          let total = 0
          for (let i = 0; i < items.length; i++) {
            const v = items[i]!
            if (!isList(v)) throw typeFault(op, i, "list", kindOf(v))
            total += v.length
          }
          spend(s, total)
          if (total > BOUNDS.listLen) throw boundsFault("list-len", BOUNDS.listLen)
          return ([] as Array<V>).concat(...(items as Array<Array<V>>))
        }
      case "unique":
        // Each item is compared with the kept items in order until the first `eq` hit; one fuel
        // unit per comparison. Kept items are pairwise distinct, so an index by value (strings by
        // themselves, containers by canonical text: eq ⇔ equal canonical text) gives the same
        // comparison count without the quadratic work; building a key is hidden work.
        return (s) => {
          const items = list(s, a, op, 0)
          const out: Array<V> = []
          const seen = new Map<unknown, number>()
          for (let i = 0; i < items.length; i++) {
            const item = items[i]!
            let key: unknown
            if (typeof item === "string") {
              key = item
              labor(s, textWork(item))
            } else if (item !== null && typeof item === "object") {
              const text = canonicalText(item)
              key = "\u0000" + text
              labor(s, textWork(text))
            } else {
              // numbers (0 and -0 are eq), booleans and null keyed apart from every string
              key = typeof item === "number" ? (item === 0 ? 0 : item) : item
              labor(s, 1)
            }
            const at = seen.get(key)
            spendUnits(s, at === undefined ? out.length : at + 1)
            if (at === undefined) {
              seen.set(key, out.length)
              out.push(item)
            }
          }
          return out
        }
      case "sort":
        return (s) => {
          const items = list(s, a, op, 0)
          spend(s, items.length)
          // n·log2(n) comparisons of hidden work, charged up front (a stable merge sort's bound)
          labor(s, items.length * (1 + Math.ceil(Math.log2(items.length + 1))) * sortWeight(items))
          return items.slice().sort(compareValues)
        }
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
    // Unreachable for a checked program; kept as a typed failure rather than a throw.
    return () => {
      throw fault({ code: "EXPR_OP", op })
    }
  }

  /**
   * `get`: its cost, then the name (a literal name costs 1 and is resolved statically: innermost
   * binder slot, else the env; any other name is evaluated and looked up through the same static
   * scope chain at run time), then each path step in order until a miss. A `get` result is part of
   * a checked env or binder value, so it is never measured again.
   */
  private get(node: Extract<Node, { k: 2 }>, scope: ReadonlyArray<Binder>, cost: number): Code {
    const op = "get"
    const head = node.args[0]!
    const stepNodes = node.args.slice(1)
    const n = stepNodes.length
    // literal steps are constants (1 fuel each, as any literal); others are compiled
    const literals: Array<V> = stepNodes.map((step) => (step.k === 0 ? step.v : null))
    const codes: Array<Code | undefined> = stepNodes.map((step) => (step.k === 0 ? undefined : this.node(step, scope)))
    let literal: string | undefined
    let at = -1
    let nameCode: Code | undefined
    const chain = scope.slice()
    if (head.k === 0 && typeof head.v === "string") {
      literal = head.v
      for (let i = scope.length - 1; i >= 0; i--) {
        if (scope[i]!.name === literal) {
          at = scope[i]!.slot
          break
        }
      }
    } else nameCode = this.node(head, scope)
    const name = (s: State): V => {
      let key: string
      let cur: V | undefined
      if (literal !== undefined) {
        if (s.left < 1) throw fault({ code: "EXPR_FUEL", cost: 1, left: s.left })
        s.left -= 1
        key = literal
        cur = at >= 0 ? s.slots[at] : s.env.get(literal)
      } else {
        const v = nameCode!(s)
        if (typeof v !== "string") throw typeFault(op, 0, "name string", kindOf(v))
        key = v
        for (let i = chain.length - 1; i >= 0; i--) {
          if (chain[i]!.name === key) {
            cur = s.slots[chain[i]!.slot]
            break
          }
        }
        if (cur === undefined) cur = s.env.get(key)
      }
      if (cur === undefined) throw fault({ code: "EXPR_PATH", op, what: `unbound name "${key}"` })
      return cur
    }
    if (n === 0) {
      return (s) => {
        if (cost > s.left) throw fault({ code: "EXPR_FUEL", cost, left: s.left })
        s.left -= cost
        return name(s)
      }
    }
    return (s) => {
      if (cost > s.left) throw fault({ code: "EXPR_FUEL", cost, left: s.left })
      s.left -= cost
      let cur: V = name(s)
      for (let i = 0; i < n; i++) {
        let step: V
        const code = codes[i]
        if (code === undefined) {
          if (s.left < 1) throw fault({ code: "EXPR_FUEL", cost: 1, left: s.left })
          s.left -= 1
          step = literals[i]!
        } else step = code(s)
        if (typeof step === "string") {
          if (!(cur instanceof Map)) return null
          const next: V | undefined = cur.get(step)
          if (next === undefined) return null
          cur = next
        } else if (typeof step === "number") {
          if (!isIndex(step)) throw typeFault(op, i + 1, "nonneg integer index", "number")
          if (!Array.isArray(cur) || step >= cur.length) return null
          cur = (cur as ReadonlyArray<V>)[step]!
        } else throw typeFault(op, i + 1, "string key or nonneg integer index", kindOf(step))
      }
      return cur
    }
  }
}

const EMPTY: ReadonlyArray<V> = []

/** Ops whose compiled code charges its own cost and returns a scalar or an already checked value. */
const SELF_PAID: ReadonlySet<string> = new Set([
  "add",
  "mul",
  "sub",
  "div",
  "mod",
  "neg",
  "abs",
  "floor",
  "ceil",
  "round",
  "clamp",
  "lt",
  "lte",
  "gt",
  "gte",
  "eq",
  "neq",
  "and",
  "or",
  "not",
  "if",
  "let",
  "len",
  "nth",
  "fold",
  "slen",
  "isText",
  "isNum",
  "isBool",
  "isList",
  "isMap",
  "isNull"
])

/** `add`/`mul` once an argument is not a number: the reference's list check, then the type faults. */
const sumSlow = (op: string, items: ReadonlyArray<V>, isAdd: boolean): number => {
  let acc = isAdd ? 0 : 1
  for (let i = 0; i < items.length; i++) {
    const v = items[i]!
    if (typeof v !== "number") throw typeFault(op, i, "number", kindOf(v))
    acc = isAdd ? acc + v : acc * v
  }
  return finite(op, acc)
}

/** A `map`/`filter` result growing by `v` (checked at depth 1, as an element). */
const growMapped = (bytes: number, out: ReadonlyArray<V>, v: V): number => {
  const next = bytes + valueBytes(v, 1) + (out.length === 0 ? 0 : 1)
  if (next <= BOUNDS.valueBytes) return next
  const precise = listBytes(out, out.length, v)
  if (precise > BOUNDS.valueBytes) throw boundsFault("value-bytes", BOUNDS.valueBytes)
  return precise
}

/** An object literal growing by `extra` bytes (its fields so far are in `out`, `key: value` next). */
const growObject = (bytes: number, extra: number, out: ReadonlyMap<string, V>, key: string, value: V): number => {
  const next = bytes + extra
  if (next <= BOUNDS.valueBytes) return next
  let total = 2 + escapedLength(key) + 1 + exactBytes(value)
  for (const [k, v] of out) total += escapedLength(k) + 1 + exactBytes(v) + 1
  if (total > BOUNDS.valueBytes) throw boundsFault("value-bytes", BOUNDS.valueBytes)
  return total
}

/** Compile a checked program. @internal */
export const compile = (node: Node): Compiled => {
  const compiler = new Compiler()
  const code = compiler.node(node, [])
  return { code, slots: compiler.slots }
}

/** @internal */
export type Outcome =
  | { readonly ok: true; readonly value: V; readonly fuel: number }
  | { readonly ok: false; readonly fault: ExprFault; readonly fuel: number }

/** Run a compiled program. @internal */
export const execute = (compiled: Compiled, env: VMap, budget: number): Outcome => {
  const state = new State(env, budget, compiled.slots)
  try {
    const value = compiled.code(state)
    return { ok: true, value, fuel: budget - state.left }
  } catch (error) {
    if (error instanceof ExprFault) return { ok: false, fault: error, fuel: budget - state.left }
    throw error
  }
}
