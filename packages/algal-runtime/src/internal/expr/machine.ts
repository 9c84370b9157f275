/**
 * What the compiled closures of `compile.ts` and its op families share: the evaluation state, the fuel and hidden-work meters (ADR 0320), argument readers with their type faults, and the bound checks of growing results.
 *
 * @internal
 */
import { fault, typeFault } from "./fault.js"
import {
  BOUNDS,
  boundsFault,
  canonicalText,
  escapedLength,
  exactBytes,
  isList,
  isMap,
  kindOf,
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
 *
 * @internal
 */
export const labor = (s: State, units: number): void => {
  s.work += units
  if (s.work > workPerFuel * (s.budget - s.left) + workAllowance) {
    throw fault({ code: "EXPR_FUEL", cost: units, left: s.left })
  }
}

/** Hidden work of hashing or comparing a string: one unit per started 16 UTF-16 units. @internal */
export const textWork = (text: string): number => 1 + (text.length >>> 4)

/** What one `sort` comparison may read: the longest string item's blocks (1 for scalars). @internal */
export const sortWeight = (items: ReadonlyArray<V>): number => {
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

/** @internal */
export const spend = (s: State, cost: number): void => {
  if (cost > s.left) throw fault({ code: "EXPR_FUEL", cost, left: s.left })
  s.left -= cost
}

/** `n` charges of one unit each (so exhaustion reports `{cost: 1, left: 0}`). @internal */
export const spendUnits = (s: State, n: number): void => {
  if (n > s.left) {
    s.left = 0
    throw fault({ code: "EXPR_FUEL", cost: 1, left: 0 })
  }
  s.left -= n
}

/** @internal */
export const isIndex = (v: V): v is number => typeof v === "number" && v >= 0 && v % 1 === 0

/** @internal */
export const TRIM = /^[ \t\n\r\v\f]+|[ \t\n\r\v\f]+$/g
/** @internal */
export const upperAscii = (s: string): string => s.replace(/[a-z]+/g, (m) => m.toUpperCase())
/** @internal */
export const lowerAscii = (s: string): string => s.replace(/[A-Z]+/g, (m) => m.toLowerCase())

/** @internal */
export const finite = (op: string, n: number): number => {
  if (!Number.isFinite(n)) throw fault({ code: "EXPR_NUM", op })
  return n
}

/** Whether a value needs measuring (null, booleans and numbers are within every bound at depth 0). @internal */
export const measured = (v: V): boolean => typeof v === "string" || (v !== null && typeof v === "object")

// An upper bound of a scalar's canonical bytes that needs no printing (25 = the longest number text).
/** @internal */
export const SCALAR_UPPER = 25

/** Exact canonical size of a list of values followed by `last`: `[a,b,…,last]`. @internal */
export const listBytes = (items: ReadonlyArray<V>, count: number, last: V): number => {
  let bytes = 2 + exactBytes(last)
  for (let i = 0; i < count; i++) bytes += exactBytes(items[i]!) + 1
  return bytes
}

/**
 * Grow the running size of an argument list / list under construction (`items[0..count)` so far)
 * by `v`, as the reference `addBytes`: an upper bound first, the exact size only past the bound.
 *
 * @internal
 */
export const growList = (bytes: number, items: ReadonlyArray<V>, count: number, v: V, depth: number): number => {
  const next = bytes + (measured(v) ? valueBytes(v, depth) : SCALAR_UPPER) + (count === 0 ? 0 : 1)
  if (next <= BOUNDS.valueBytes) return next
  const precise = listBytes(items, count, v)
  if (precise > BOUNDS.valueBytes) throw boundsFault("value-bytes", BOUNDS.valueBytes)
  return precise
}

/** Evaluate every argument into a new list, checking the list's size cumulatively. @internal */
export const evalArgs = (s: State, codes: ReadonlyArray<Code>): Array<V> => {
  const out: Array<V> = []
  let bytes = 2
  for (let i = 0; i < codes.length; i++) {
    const v = codes[i]!(s)
    bytes = growList(bytes, out, i, v, 0)
    out.push(v)
  }
  return out
}

/** Continue `evalArgs` after a prefix of `count` scalar values held in `items`. @internal */
export const evalArgsFrom = (
  s: State,
  codes: ReadonlyArray<Code>,
  items: ReadonlyArray<V>,
  count: number,
  v: V
): Array<V> => {
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

/** @internal */
export const num = (s: State, code: Code, op: string, arg: number): number => {
  const v = code(s)
  if (typeof v !== "number") throw typeFault(op, arg, "number", kindOf(v))
  return v
}

/** @internal */
export const str = (s: State, code: Code, op: string, arg: number): string => {
  const v = code(s)
  if (typeof v !== "string") throw typeFault(op, arg, "string", kindOf(v))
  return v
}

/** @internal */
export const list = (s: State, code: Code, op: string, arg: number): ReadonlyArray<V> => {
  const v = code(s)
  if (!isList(v)) throw typeFault(op, arg, "list", kindOf(v))
  return v
}

/** @internal */
export const map = (s: State, code: Code, op: string, arg: number): VMap => {
  const v = code(s)
  if (!isMap(v)) throw typeFault(op, arg, "map", kindOf(v))
  return v
}

/** @internal */
export const bool = (op: string, v: V, arg: number): boolean => {
  if (typeof v !== "boolean") throw typeFault(op, arg, "bool", kindOf(v))
  return v
}

/** @internal */
export const index = (s: State, code: Code, op: string): number => {
  const v = code(s)
  if (!isIndex(v)) throw typeFault(op, 1, "nonneg integer", kindOf(v))
  return v
}

/** @internal */
export const EMPTY: ReadonlyArray<V> = []

/** `add`/`mul` once an argument is not a number: the reference's list check, then the type faults. @internal */
export const sumSlow = (op: string, items: ReadonlyArray<V>, isAdd: boolean): number => {
  let acc = isAdd ? 0 : 1
  for (let i = 0; i < items.length; i++) {
    const v = items[i]!
    if (typeof v !== "number") throw typeFault(op, i, "number", kindOf(v))
    acc = isAdd ? acc + v : acc * v
  }
  return finite(op, acc)
}

/** A `map`/`filter` result growing by `v` (checked at depth 1, as an element). @internal */
export const growMapped = (bytes: number, out: ReadonlyArray<V>, v: V): number => {
  const next = bytes + valueBytes(v, 1) + (out.length === 0 ? 0 : 1)
  if (next <= BOUNDS.valueBytes) return next
  const precise = listBytes(out, out.length, v)
  if (precise > BOUNDS.valueBytes) throw boundsFault("value-bytes", BOUNDS.valueBytes)
  return precise
}

/** An object literal growing by `extra` bytes (its fields so far are in `out`, `key: value` next). @internal */
export const growObject = (
  bytes: number,
  extra: number,
  out: ReadonlyMap<string, V>,
  key: string,
  value: V
): number => {
  const next = bytes + extra
  if (next <= BOUNDS.valueBytes) return next
  let total = 2 + escapedLength(key) + 1 + exactBytes(value)
  for (const [k, v] of out) total += escapedLength(k) + 1 + exactBytes(v) + 1
  if (total > BOUNDS.valueBytes) throw boundsFault("value-bytes", BOUNDS.valueBytes)
  return total
}
