/**
 * Runtime values of `algal.expr.v1` and the measures every bound and fuel extra is counted in.
 *
 * Values are immutable once built: lists are arrays, maps are `Map`s (so a `"__proto__"` key is just
 * a key). Container measures are memoized per container in a `WeakMap`, which keeps the
 * "check every intermediate value" rule linear in the size of *new* structure instead of the size
 * of every value a node returns.
 *
 * @internal
 */
import { compareKeys } from "../../Canonical.js"
import { type ExprFault, fault } from "./fault.js"

/** @internal */
export type V = null | boolean | number | string | ReadonlyArray<V> | VMap

/** @internal */
export type VMap = ReadonlyMap<string, V>

/** @internal */
export const BOUNDS = {
  programBytes: 16_384,
  programNodes: 512,
  programDepth: 16,
  envBytes: 262_144,
  envKeys: 256,
  valueDepth: 32,
  listLen: 1_024,
  objectKeys: 256,
  stringBytes: 65_536,
  valueBytes: 262_144,
  outputBytes: 65_536,
  varLen: 64
} as const

/** @internal */
export const boundsFault = (what: string, max: number): ExprFault => fault({ code: "EXPR_BOUNDS", what, max })

/** @internal */
export const isList = (v: V): v is ReadonlyArray<V> => Array.isArray(v)

/** @internal */
export const isMap = (v: V): v is VMap => v instanceof Map

/** Type names used in `got` (and `want`) of `EXPR_TYPE`. @internal */
export const kindOf = (v: V): "null" | "bool" | "number" | "text" | "list" | "map" => {
  if (v === null) return "null"
  switch (typeof v) {
    case "boolean":
      return "bool"
    case "number":
      return "number"
    case "string":
      return "text"
  }
  return Array.isArray(v) ? "list" : "map"
}

// ---------------------------------------------------------------- strings ---

/** UTF-8 byte length of a well-formed string (a lone surrogate counts 3, as WTF-8 would). @internal */
export const utf8Length = (s: string): number => {
  let n = s.length
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) continue
    if (c < 0x800) n += 1
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 2 // four bytes for two code units
        i++
      } else n += 2
    } else n += 2
  }
  return n
}

/** UTF-8 byte length of `JSON.stringify(s)` (the canonical string form). @internal */
export const escapedLength = (s: string): number => {
  let n = 2 + s.length
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0x20 && c < 0x80) {
      if (c === 0x22 || c === 0x5c) n += 1
    } else if (c < 0x20) {
      n += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 1 : 5
    } else if (c < 0x800) n += 1
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 2
        i++
      } else n += 2
    } else n += 2
  }
  return n
}

// Strings are primitives (no per-value memo): long ones are measured once per evaluation through
// this small cache, so `get` of a 64 KiB string in a loop stays O(1) per node. `releaseCaches`
// empties it when an evaluation ends, so no input outlives its evaluation.
const longStrings = new Map<string, number>()

/** Forget the strings measured by the last evaluation. @internal */
export const releaseCaches = (): void => {
  if (longStrings.size > 0) longStrings.clear()
}
// Up to this many UTF-16 units a string cannot exceed the string-bytes bound (3 bytes per unit).
const SHORT = Math.floor(BOUNDS.stringBytes / 3)

/**
 * The canonical (escaped) UTF-8 length of a string, or -1 when the string itself exceeds the
 * string-bytes bound.
 *
 * @internal
 */
export const checkedStringBytes = (s: string): number => {
  // short strings are measured on the spot; longer ones once per evaluation (the engine keeps a
  // string's hash, so looking one up again costs no pass over it)
  if (s.length <= 64) return escapedLength(s)
  const cached = longStrings.get(s)
  if (cached !== undefined) return cached
  const bytes = s.length > SHORT && utf8Length(s) > BOUNDS.stringBytes ? -1 : escapedLength(s)
  if (longStrings.size >= 64) longStrings.clear()
  longStrings.set(s, bytes)
  return bytes
}

/** Whether a string holds a UTF-16 surrogate without its partner. @internal */
export const hasLoneSurrogate = (s: string): boolean => {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0xd800 || c > 0xdfff) continue
    if (c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++
        continue
      }
    }
    return true
  }
  return false
}

/**
 * UTF-8 byte order of two well-formed strings (= code point order), computed on UTF-16 code units:
 * surrogates (U+D800–DFFF, i.e. astral code points) sort after U+E000–FFFF.
 *
 * @internal
 */
export const compareUtf8 = (a: string, b: string): number => {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i)
    let y = b.charCodeAt(i)
    if (x === y) continue
    if (x >= 0xd800) x = x <= 0xdfff ? x + 0x2000 : x - 0x800
    if (y >= 0xd800) y = y <= 0xdfff ? y + 0x2000 : y - 0x800
    return x - y
  }
  return a.length - b.length
}

/** UTF-16 code unit order (JavaScript's own string order). @internal */
export const compareUtf16 = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** Canonical number text (JavaScript `Number#toString`, `-0` → `0`). @internal */
export const numberText = (n: number): string => (n === 0 ? "0" : String(n))

/** `numberText(n).length`, without building the text for integers. @internal */
export const numberLength = (n: number): number => {
  if (Number.isInteger(n) && n < 1e21 && n > -1e21) {
    let len = n < 0 ? 2 : 1
    let m = n < 0 ? -n : n
    while (m >= 10) {
      m = Math.floor(m / 10)
      len++
    }
    return len
  }
  return String(n).length
}

// ---------------------------------------------------------- map key order ---

const utf8Keys = new WeakMap<VMap, ReadonlyArray<string>>()
const canonicalKeyOrder = new WeakMap<VMap, ReadonlyArray<string>>()

/** Keys in UTF-8 byte order (Rust `BTreeMap` order): the object-literal evaluation order. @internal */
export const keysUtf8 = (m: VMap): ReadonlyArray<string> => {
  let keys = utf8Keys.get(m)
  if (keys === undefined) {
    keys = Array.from(m.keys()).sort(compareUtf8)
    utf8Keys.set(m, keys)
  }
  return keys
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39

/** Whether keys are in canonical order already (most maps: object literals, converted inputs). */
const inCanonicalOrder = (keys: ReadonlyArray<string>): boolean => {
  for (let i = 1; i < keys.length; i++) {
    const a = keys[i - 1]!
    const b = keys[i]!
    // only keys starting with a digit can be array-index keys
    if (isDigit(a.charCodeAt(0)) || isDigit(b.charCodeAt(0)) ? compareKeys(a, b) > 0 : a > b) return false
  }
  return true
}

/** Keys in canonical order (array-index keys numerically, then UTF-16). @internal */
export const keysCanonical = (m: VMap): ReadonlyArray<string> => {
  const known = canonicalKeyOrder.get(m)
  if (known !== undefined) return known
  const keys = Array.from(m.keys())
  if (!inCanonicalOrder(keys)) keys.sort(compareKeys)
  // remembered either way: `keys`/`values` in a loop over one map then cost what they copy
  canonicalKeyOrder.set(m, keys)
  return keys
}

// ---------------------------------------------------------------- measures ---

// Printing a non-integral double is costly; most checks only need to know that a value is within a
// bound, so sizes are first counted with an upper bound for such numbers (25 characters is the
// longest JavaScript number text, e.g. -0.0000012345678901234567) and made exact only near a bound.
const NUMBER_UPPER = 25

const numberUpper = (n: number): number => Number.isInteger(n) && n < 1e21 && n > -1e21 ? numberLength(n) : NUMBER_UPPER

interface Summary {
  /** No bound is violated anywhere inside (string-bytes, list-len, object-keys, value-bytes): exact. */
  ok: boolean
  /** An upper bound of the canonical UTF-8 bytes, exact unless the value holds non-integral numbers. */
  upper: number
  /** The exact canonical UTF-8 bytes, once computed (-1 before). */
  exact: number
  /** Deepest nesting below this container: 0 for an empty container, else 1 + the deepest child. */
  height: number
  /** JSON node count (1 + children). */
  nodes: number
  /** `value_depth`: containers count 1 (an empty one too), scalars 0. */
  depth: number
}

// The summary of a container is stored on the container itself under a private symbol: every
// container here is built by this runtime (inputs are copied by `fromJson`, outputs by `toJson`),
// and a property lookup is much cheaper than a `WeakMap` on freshly built values.
const SUMMARY: unique symbol = Symbol("algal.expr.summary")

interface Summarized {
  [SUMMARY]?: Summary
}

const scalarBytes = (v: null | boolean | number): number =>
  v === null ? 4 : v === true ? 4 : v === false ? 5 : numberLength(v)

const scalarUpper = (v: null | boolean | number): number =>
  v === null ? 4 : v === true ? 4 : v === false ? 5 : numberUpper(v)

const addChild = (acc: Summary, child: V): void => {
  if (child === null || typeof child !== "object") {
    if (typeof child === "string") {
      const bytes = checkedStringBytes(child)
      if (bytes < 0) acc.ok = false
      else acc.upper += bytes
    } else acc.upper += scalarUpper(child)
    acc.nodes += 1
    if (acc.height < 1) acc.height = 1
    return
  }
  const s = summarize(child)
  if (!s.ok) acc.ok = false
  acc.upper += s.upper
  acc.nodes += s.nodes
  if (acc.height < s.height + 1) acc.height = s.height + 1
  if (acc.depth < s.depth + 1) acc.depth = s.depth + 1
}

const summarize = (v: ReadonlyArray<V> | VMap): Summary => {
  const cached = (v as Summarized)[SUMMARY]
  if (cached !== undefined) return cached
  const acc: Summary = { ok: true, upper: 2, exact: -1, height: 0, nodes: 1, depth: 1 }
  if (Array.isArray(v)) {
    const list = v as ReadonlyArray<V>
    if (list.length > BOUNDS.listLen) acc.ok = false
    if (list.length > 1) acc.upper += list.length - 1
    for (let i = 0; i < list.length; i++) addChild(acc, list[i]!)
  } else {
    const map = v as VMap
    if (map.size > BOUNDS.objectKeys) acc.ok = false
    if (map.size > 1) acc.upper += map.size - 1
    for (const [key, child] of map) {
      const bytes = checkedStringBytes(key)
      if (bytes < 0) acc.ok = false
      else acc.upper += bytes + 1
      addChild(acc, child)
    }
  }
  ;(v as Summarized)[SUMMARY] = acc
  if (acc.ok && acc.upper > BOUNDS.valueBytes) acc.ok = exactOf(v, acc) <= BOUNDS.valueBytes
  return acc
}

// Exact canonical bytes of a container, memoized in its summary.
const exactOf = (v: ReadonlyArray<V> | VMap, s: Summary): number => {
  if (s.exact >= 0) return s.exact
  let bytes = 2
  if (Array.isArray(v)) {
    const list = v as ReadonlyArray<V>
    if (list.length > 1) bytes += list.length - 1
    for (let i = 0; i < list.length; i++) bytes += exactBytes(list[i]!)
  } else {
    const map = v as VMap
    if (map.size > 1) bytes += map.size - 1
    for (const [key, child] of map) bytes += escapedLength(key) + 1 + exactBytes(child)
  }
  s.exact = bytes
  return bytes
}

/** The exact canonical UTF-8 bytes of a value. @internal */
export const exactBytes = (v: V): number => {
  if (v === null || typeof v !== "object") return typeof v === "string" ? escapedLength(v) : scalarBytes(v)
  return exactOf(v, summarize(v))
}

/** Whether a value's canonical form is longer than `limit` bytes. @internal */
export const exceedsBytes = (v: V, limit: number): boolean => {
  if (v === null || typeof v !== "object") return exactBytes(v) > limit
  const s = summarize(v)
  return s.upper > limit && exactOf(v, s) > limit
}

/** JSON node count of a value (`eq`/`neq` fuel extra). @internal */
export const countNodes = (v: V): number => (v !== null && typeof v === "object" ? summarize(v).nodes : 1)

/** Nesting depth as `value-depth` counts it for outputs and env: containers count 1, scalars 0. @internal */
export const valueDepth = (v: V): number => {
  if (v === null || typeof v !== "object") return 0
  return summarize(v).depth
}

// The exact, ordered walk: run only when a bound is known to fail, to report the first violation
// in document order exactly as the original walker does.
const walk = (v: V, depth: number): number => {
  if (depth > BOUNDS.valueDepth) throw boundsFault("value-depth", BOUNDS.valueDepth)
  if (v === null || typeof v !== "object") {
    if (typeof v !== "string") return scalarBytes(v)
    const bytes = checkedStringBytes(v)
    if (bytes < 0) throw boundsFault("string-bytes", BOUNDS.stringBytes)
    return bytes
  }
  let acc = 2
  const grow = (extra: number) => {
    acc += extra
    if (acc > BOUNDS.valueBytes) throw boundsFault("value-bytes", BOUNDS.valueBytes)
  }
  if (Array.isArray(v)) {
    const list = v as ReadonlyArray<V>
    if (list.length > BOUNDS.listLen) throw boundsFault("list-len", BOUNDS.listLen)
    if (list.length > 1) acc += list.length - 1
    for (let i = 0; i < list.length; i++) grow(walk(list[i]!, depth + 1))
  } else {
    const map = v as VMap
    if (map.size > BOUNDS.objectKeys) throw boundsFault("object-keys", BOUNDS.objectKeys)
    if (map.size > 1) acc += map.size - 1
    for (const key of keysUtf8(map)) {
      const bytes = checkedStringBytes(key)
      if (bytes < 0) throw boundsFault("string-bytes", BOUNDS.stringBytes)
      grow(bytes + 1)
      grow(walk(map.get(key)!, depth + 1))
    }
  }
  if (acc > BOUNDS.valueBytes) throw boundsFault("value-bytes", BOUNDS.valueBytes)
  return acc
}

/**
 * The per-value bound check (`value_bytes(v, depth)`): fails with the first violated bound, else
 * returns an upper bound of the canonical byte count that is exact unless the value holds
 * non-integral numbers (callers summing sizes confirm with `exactBytes` near a bound). Memoized.
 *
 * @internal
 */
export const valueBytes = (v: V, depth: number): number => {
  if (v === null || typeof v !== "object") {
    if (depth > BOUNDS.valueDepth) throw boundsFault("value-depth", BOUNDS.valueDepth)
    if (typeof v !== "string") return scalarUpper(v)
    const bytes = checkedStringBytes(v)
    if (bytes < 0) throw boundsFault("string-bytes", BOUNDS.stringBytes)
    return bytes
  }
  const s = summarize(v)
  if (s.ok && depth + s.height <= BOUNDS.valueDepth) return s.upper
  return walk(v, depth)
}

// --------------------------------------------------------------- equality ---

/** Deep structural equality: numbers as f64 (`-0 ≡ 0`), maps key-order-insensitive, cross-type false. @internal */
export const equals = (a: V, b: V): boolean => {
  if (a === b) return true
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false
  const aList = Array.isArray(a)
  if (aList !== Array.isArray(b)) return false
  if (aList) {
    const x = a as ReadonlyArray<V>
    const y = b as ReadonlyArray<V>
    if (x.length !== y.length) return false
    for (let i = 0; i < x.length; i++) if (!equals(x[i]!, y[i]!)) return false
    return true
  }
  const x = a as VMap
  const y = b as VMap
  if (x.size !== y.size) return false
  for (const [key, value] of x) {
    if (!y.has(key)) return false
    if (!equals(value, y.get(key)!)) return false
  }
  return true
}

// -------------------------------------------------------------- canonical ---

const texts = new WeakMap<object, string>()

/** Canonical JSON text of a value (within bounds, so recursion is at most 33 deep). @internal */
export const canonicalText = (v: V): string => {
  if (v === null) return "null"
  switch (typeof v) {
    case "boolean":
      return v ? "true" : "false"
    case "number":
      return numberText(v)
    case "string":
      return JSON.stringify(v)
  }
  const container = v as ReadonlyArray<V> | VMap
  const cached = texts.get(container)
  if (cached !== undefined) return cached
  let out: string
  if (Array.isArray(container)) {
    const list = container as ReadonlyArray<V>
    out = "["
    for (let i = 0; i < list.length; i++) {
      if (i > 0) out += ","
      out += canonicalText(list[i]!)
    }
    out += "]"
  } else {
    const map = container as VMap
    out = "{"
    let first = true
    for (const key of keysCanonical(map)) {
      if (!first) out += ","
      first = false
      out += JSON.stringify(key) + ":" + canonicalText(map.get(key)!)
    }
    out += "}"
  }
  texts.set(container, out)
  return out
}

// ------------------------------------------------------------------- sort ---

const rank = (v: V): number => {
  if (v === null) return 0
  switch (typeof v) {
    case "boolean":
      return 1
    case "number":
      return 2
    case "string":
      return 3
  }
  return Array.isArray(v) ? 4 : 5
}

/**
 * The `sort` total order: null < bool < number < text (UTF-16) < list (elementwise, then length)
 * < map (canonical text, UTF-8 byte order).
 *
 * @internal
 */
export const compareValues = (a: V, b: V): number => {
  const ra = rank(a)
  const rb = rank(b)
  if (ra !== rb) return ra - rb
  switch (ra) {
    case 0:
      return 0
    case 1:
      return (a === true ? 1 : 0) - (b === true ? 1 : 0)
    case 2:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0
    case 3:
      return compareUtf16(a as string, b as string)
    case 4: {
      const x = a as ReadonlyArray<V>
      const y = b as ReadonlyArray<V>
      const n = Math.min(x.length, y.length)
      for (let i = 0; i < n; i++) {
        const c = compareValues(x[i]!, y[i]!)
        if (c !== 0) return c
      }
      return x.length - y.length
    }
    default:
      return compareUtf8(canonicalText(a), canonicalText(b))
  }
}

// ------------------------------------------------------------- conversion ---

/** A runtime value as plain JSON (objects built in canonical key order). @internal */
export const toJson = (v: V): unknown => {
  if (v === null || typeof v !== "object") return v === 0 ? 0 : v
  if (Array.isArray(v)) return (v as ReadonlyArray<V>).map(toJson)
  const map = v as VMap
  const out: Record<string, unknown> = {}
  const keys = keysCanonical(map)
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    const value = toJson(map.get(key)!)
    // an assignment to "__proto__" would set the prototype: that key is defined instead
    if (key !== "__proto__") out[key] = value
    else Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true })
  }
  return out
}

/**
 * A validated plain-JSON value as a runtime value (lists and maps are new containers). Only called
 * on values whose depth is already bounded.
 *
 * @internal
 */
export const fromJson = (u: unknown): V => {
  if (u === null || typeof u !== "object") return u as V
  if (Array.isArray(u)) {
    const out: Array<V> = new Array(u.length)
    for (let i = 0; i < u.length; i++) out[i] = fromJson(u[i])
    return out
  }
  const out = new Map<string, V>()
  const record = u as Record<string, unknown>
  for (const key of Object.keys(record)) out.set(key, fromJson(record[key]))
  return out
}
