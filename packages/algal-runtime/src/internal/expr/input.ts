/**
 * Admission of caller-supplied values (programs and env records): iterative, allocation-light walks
 * that never recurse, so a hostile input (a million levels deep, cyclic, huge) cannot blow the stack
 * or hang — each walk stops as soon as its bound is exceeded.
 *
 * @internal
 */
import { escapedLength, hasLoneSurrogate, numberLength, type V } from "./value.js"

interface Frame {
  readonly value: unknown
  readonly key: string | number | undefined
  readonly up: Frame | undefined
  readonly level: number
}

const pathOf = (frame: Frame): string => {
  const parts: Array<string> = []
  for (let f: Frame | undefined = frame; f !== undefined && f.key !== undefined; f = f.up) {
    parts.push(
      typeof f.key === "number"
        ? `[${f.key}]`
        : /^[A-Za-z_][A-Za-z0-9_]*$/.test(f.key)
        ? `.${f.key}`
        : `[${JSON.stringify(f.key)}]`
    )
  }
  return parts.reverse().join("")
}

/** @internal */
export type Measured =
  | { readonly _tag: "Ok"; readonly bytes: number; readonly nodes: number }
  | { readonly _tag: "Over" }
  | { readonly _tag: "NotJson"; readonly reason: string; readonly path: string }

const notJson = (reason: string, frame: Frame): Measured => ({ _tag: "NotJson", reason, path: pathOf(frame) })

/**
 * One pass over a string: the UTF-8 length of its JSON form, or -1 when it holds a lone surrogate.
 *
 * @internal
 */
export const stringBytes = (s: string): number => {
  let n = 2 + s.length
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0x20 && c < 0x7f) {
      if (c === 0x22 || c === 0x5c) n += 1
    } else if (c < 0x20) n += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 1 : 5
    else if (c < 0x800) n += 1
    else if (c >= 0xd800 && c <= 0xdfff) {
      if (c > 0xdbff || i + 1 >= s.length) return -1
      const d = s.charCodeAt(i + 1)
      if (d < 0xdc00 || d > 0xdfff) return -1
      n += 2
      i++
    } else n += 2
  }
  return n
}

const isPlain = (v: object): boolean => {
  const proto = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}

const hasOwn = Object.prototype.hasOwnProperty

/**
 * `isPlain`, cheaper for the common case: reading `__proto__` through Object.prototype's accessor
 * is inlined where `Object.getPrototypeOf` is a call. An own `__proto__` property (which shadows
 * the accessor and could claim anything) and every other prototype take the exact test.
 *
 * @internal
 */
export const isPlainObject = (v: object): boolean =>
  ((v as { readonly __proto__?: unknown }).__proto__ === Object.prototype && !hasOwn.call(v, "__proto__")) ||
  isPlain(v)

/**
 * Whether an arbitrary value's canonical UTF-8 size is within `limit`, stopping at the first non-JSON
 * part (`NotJson`) or as soon as the exact size exceeds `limit` (`Over`). `Ok.bytes` is an upper
 * bound of the size (exact unless the value holds non-integral numbers); `Ok.nodes` the node count. Accepts exactly what ALGAL's JSON domain holds:
 * null, booleans, finite numbers, strings without lone surrogates, dense arrays and plain objects.
 *
 * @internal
 */
export const measure = (input: unknown, limit: number): Measured => {
  let bytes = 0
  let nodes = 0
  const stack: Array<unknown> = [input]
  while (stack.length > 0) {
    const v = stack.pop()
    nodes++
    if (v === null) bytes += 4
    else {
      switch (typeof v) {
        case "boolean":
          bytes += v ? 4 : 5
          break
        case "number":
          if (!Number.isFinite(v)) return explain(input, limit)
          // non-integral numbers at their upper bound; the exact pass decides near the limit
          bytes += Number.isInteger(v) && v < 1e21 && v > -1e21 ? numberLength(v) : 25
          break
        case "string": {
          const n = stringBytes(v)
          if (n < 0) return explain(input, limit)
          bytes += n
          break
        }
        case "object": {
          if (Array.isArray(v)) {
            bytes += v.length > 1 ? v.length + 1 : 2
            if (bytes > limit) return explain(input, limit)
            for (let i = v.length - 1; i >= 0; i--) {
              const item = v[i]
              if (item === undefined) return explain(input, limit)
              stack.push(item)
            }
            break
          }
          if (!isPlain(v)) return explain(input, limit)
          const keys = Object.keys(v)
          bytes += keys.length > 1 ? keys.length + 1 : 2
          for (let i = keys.length - 1; i >= 0; i--) {
            const key = keys[i]!
            const n = stringBytes(key)
            if (n < 0) return explain(input, limit)
            bytes += n + 1
            if (bytes > limit) return explain(input, limit)
            stack.push((v as Record<string, unknown>)[key])
          }
          break
        }
        default:
          return explain(input, limit)
      }
    }
    if (bytes > limit) return explain(input, limit)
  }
  return { _tag: "Ok", bytes, nodes }
}

// The exact pass, run only when the fast pass met a problem (not JSON, or a size over the limit
// counting non-integral numbers at their upper bound): the same walk with parent links, exact
// sizes, and what is wrong and where.
const explain = (input: unknown, limit: number): Measured => {
  let bytes = 0
  let nodes = 0
  const stack: Array<Frame> = [{ value: input, key: undefined, up: undefined, level: 0 }]
  while (stack.length > 0) {
    const frame = stack.pop()!
    nodes++
    const v = frame.value
    if (v === null) bytes += 4
    else {
      switch (typeof v) {
        case "boolean":
          bytes += v ? 4 : 5
          break
        case "number":
          if (!Number.isFinite(v)) return notJson(`non-finite number ${String(v)}`, frame)
          bytes += numberLength(v)
          break
        case "string":
          if (hasLoneSurrogate(v)) return notJson("string with a lone UTF-16 surrogate", frame)
          bytes += escapedLength(v)
          break
        case "object": {
          if (Array.isArray(v)) {
            bytes += 2 + Math.max(0, v.length - 1)
            if (bytes > limit) return { _tag: "Over" }
            for (let i = v.length - 1; i >= 0; i--) {
              if (!(i in v)) {
                return notJson("array with a hole", { value: undefined, key: i, up: frame, level: frame.level + 1 })
              }
              stack.push({ value: v[i], key: i, up: frame, level: frame.level + 1 })
            }
            break
          }
          if (!isPlain(v)) {
            return notJson(`not a plain object (${(v as object).constructor?.name ?? "unknown"})`, frame)
          }
          const keys = Object.keys(v)
          bytes += 2 + Math.max(0, keys.length - 1)
          for (let i = keys.length - 1; i >= 0; i--) {
            const key = keys[i]!
            if (hasLoneSurrogate(key)) return notJson("key with a lone UTF-16 surrogate", frame)
            bytes += escapedLength(key) + 1
            if (bytes > limit) return { _tag: "Over" }
            stack.push({ value: (v as Record<string, unknown>)[key], key, up: frame, level: frame.level + 1 })
          }
          break
        }
        default:
          return notJson(`${typeof v} is not a JSON value`, frame)
      }
    }
    if (bytes > limit) return { _tag: "Over" }
  }
  return { _tag: "Ok", bytes, nodes }
}

/**
 * Whether some container of an (admitted) value sits deeper than `limit`, counting the value itself
 * as level `start`.
 *
 * @internal
 */
export const exceedsDepth = (input: unknown, start: number, limit: number): boolean => {
  const values: Array<unknown> = [input]
  const levels: Array<number> = [start]
  while (values.length > 0) {
    const v = values.pop()
    const level = levels.pop()!
    if (v === null || typeof v !== "object") continue
    if (level > limit) return true
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const item = v[i]
        if (item !== null && typeof item === "object") {
          values.push(item)
          levels.push(level + 1)
        }
      }
    } else {
      for (const key of Object.keys(v)) {
        const item = (v as Record<string, unknown>)[key]
        if (item !== null && typeof item === "object") {
          values.push(item)
          levels.push(level + 1)
        }
      }
    }
  }
  return false
}

// ------------------------------------------------------------ fast admission ---

// Inputs nested deeper than this take the exact path (the bounds allow 32 levels; 30 keeps the
// fast path clear of every depth rule whichever way a level is counted).
/** @internal */
export const FAST_DEPTH = 30
// Strings whose canonical form fits this are within string-bytes (UTF-8 ≤ escaped bytes).
/** @internal */
export const FAST_STRING = 65_536

class Bail {}
const bail = new Bail()

/**
 * The common case of env admission in one walk: when every part of the input is plain JSON well
 * inside every bound (upper-bound size within `limit`, depth ≤ 30, lists ≤ `listLen`, objects ≤
 * `objectKeys` keys, strings within string-bytes), return its runtime values (the same values
 * `fromJson` builds), keyed in the order of `keys`. Returns `undefined` whenever anything is
 * unusual or near a bound, leaving the exact, ordered checks to decide (and report) — so this
 * walk can only ever agree with them.
 *
 * @internal
 */
export const admitFast = (
  record: Record<string, unknown>,
  keys: ReadonlyArray<string>,
  limit: number,
  listLen: number,
  objectKeys: number
): Map<string, V> | undefined => {
  if (!isPlain(record)) return undefined
  let bytes = keys.length > 1 ? keys.length + 1 : 2
  const convert = (u: unknown, depth: number): V => {
    if (u === null) {
      bytes += 4
      return null
    }
    switch (typeof u) {
      case "boolean":
        bytes += u ? 4 : 5
        return u
      case "number":
        if (!Number.isFinite(u)) throw bail
        bytes += Number.isInteger(u) && u < 1e21 && u > -1e21 ? numberLength(u) : 25
        return u
      case "string": {
        const n = stringBytes(u)
        if (n < 0 || n > FAST_STRING) throw bail
        bytes += n
        return u
      }
      case "object": {
        if (depth > FAST_DEPTH) throw bail
        if (Array.isArray(u)) {
          const length = u.length
          if (length > listLen) throw bail
          bytes += length > 1 ? length + 1 : 2
          const out: Array<V> = new Array(length)
          for (let i = 0; i < length; i++) {
            const item: unknown = u[i]
            if (item === undefined) throw bail
            out[i] = convert(item, depth + 1)
          }
          if (bytes > limit) throw bail
          return out
        }
        if (!isPlain(u)) throw bail
        const names = Object.keys(u)
        if (names.length > objectKeys) throw bail
        bytes += names.length > 1 ? names.length + 1 : 2
        const out = new Map<string, V>()
        for (let i = 0; i < names.length; i++) {
          const key = names[i]!
          const n = stringBytes(key)
          if (n < 0 || n > FAST_STRING) throw bail
          bytes += n + 1
          out.set(key, convert((u as Record<string, unknown>)[key], depth + 1))
        }
        if (bytes > limit) throw bail
        return out
      }
    }
    throw bail
  }
  try {
    const out = new Map<string, V>()
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!
      const n = stringBytes(key)
      if (n < 0 || n > FAST_STRING) return undefined
      bytes += n + 1
      out.set(key, convert(record[key], 1))
    }
    return bytes > limit ? undefined : out
  } catch {
    // not the common case (or an input whose reading throws): the exact path decides
    return undefined
  }
}

// Bytes `admitsAsIs` may still count before the limit is passed: checked at every container, so
// a hostile value (say, one list referenced a million times) is given up on as early as
// `admitFast` gives up on it. Module state, not a closure: the walk is synchronous and a closure
// would be allocated on every call of a hot path.
let allowance = 0

// An inline cache of string sizes by walk position. Successive envs of one caller mostly have the
// same shape, so the n-th key (or short string) of this walk is usually the very string the n-th
// of the last walk was, and `===` on the same string is a pointer test — cheaper than scanning it
// again. A different string at a position is scanned and replaces the entry; equal contents give
// equal sizes, so a hit is always right. Only short strings are kept (bounded memory, cheap misses).
const CACHE_SLOTS = 256
const CACHE_MAX_LENGTH = 64
let cursor = 0
const cachedStrings: Array<string> = new Array(CACHE_SLOTS).fill("")
const cachedSizes = new Int32Array(CACHE_SLOTS).fill(2)

// `stringBytes`, through the positional cache.
const stringBytesAt = (s: string): number => {
  if (s.length > CACHE_MAX_LENGTH) return stringBytes(s)
  const slot = cursor++ & (CACHE_SLOTS - 1)
  if (cachedStrings[slot] === s) return cachedSizes[slot]!
  const n = stringBytes(s)
  cachedStrings[slot] = s
  cachedSizes[slot] = n
  return n
}

// The canonical size (upper bound) of a scalar for `admitsAsIs`, or -1 when it does not qualify
// (numbers at their 25-byte upper bound: printing one is not worth it on this path).
const scalarAsIs = (u: unknown): number => {
  if (u === null) return 4
  switch (typeof u) {
    case "boolean":
      return u ? 4 : 5
    case "number":
      return Number.isFinite(u) ? 25 : -1
    case "string": {
      const n = stringBytesAt(u)
      if (n < 0 || n > FAST_STRING) return -1
      allowance -= n
      return n
    }
  }
  return -1
}

// The canonical size (upper bound) of a container for `admitsAsIs`, or -1 when it does not
// qualify. Scalars are handled in the loops (numbers inline): a call per scalar is most of the
// cost of a walk otherwise.
const containerAsIs = (u: object, depth: number, listLen: number, objectKeys: number): number => {
  if (depth > FAST_DEPTH || allowance < 0) return -1
  if (Array.isArray(u)) {
    const length = u.length
    if (length > listLen) return -1
    let bytes = length > 1 ? length + 1 : 2
    allowance -= bytes
    for (let i = 0; i < length; i++) {
      const item: unknown = u[i]
      let n: number
      if (typeof item === "number") n = Number.isFinite(item) ? 25 : -1
      else if (item !== null && typeof item === "object") n = containerAsIs(item, depth + 1, listLen, objectKeys)
      else n = item === undefined ? -1 : scalarAsIs(item)
      if (n < 0) return -1
      bytes += n
    }
    return allowance < 0 ? -1 : bytes
  }
  if (!isPlainObject(u)) return -1
  // `for…in` is V8's fastest walk of an object's fields. It also lists enumerable inherited keys
  // (none, unless Object.prototype was polluted): counting those only makes the answer more
  // cautious, never wrong.
  let count = 0
  let bytes = 1
  for (const key in u) {
    count++
    const k = stringBytesAt(key)
    if (k < 0 || k > FAST_STRING || count > objectKeys) return -1
    allowance -= k + 2
    const item: unknown = (u as Record<string, unknown>)[key]
    let n: number
    if (typeof item === "number") n = Number.isFinite(item) ? 25 : -1
    else if (item !== null && typeof item === "object") n = containerAsIs(item, depth + 1, listLen, objectKeys)
    else n = scalarAsIs(item)
    if (n < 0) return -1
    // a field is its key, a colon and its value, and a comma or (for the first) the closing brace
    bytes += k + 2 + n
  }
  if (count === 0) bytes = 2
  return allowance < 0 ? -1 : bytes
}

/**
 * `admitFast`'s conditions without building runtime values: whether every part of `record` is
 * plain JSON well inside every bound, for the fast tier, which reads the caller's values as they
 * are. The size is the same upper bound `admitFast` counts, compared with `limit` once at the end
 * (within `limit` at the end means within it all along: sizes only grow). Recursion is bounded by
 * the depth rule.
 *
 * @internal
 */
export const admitsAsIs = (
  record: Record<string, unknown>,
  keys: ReadonlyArray<string>,
  limit: number,
  listLen: number,
  objectKeys: number
): boolean => {
  try {
    if (!isPlainObject(record)) return false
    allowance = limit
    cursor = 0
    let bytes = keys.length > 1 ? keys.length + 1 : 2
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!
      const k = stringBytesAt(key)
      if (k < 0 || k > FAST_STRING) return false
      const item: unknown = record[key]
      const n = item !== null && typeof item === "object"
        ? containerAsIs(item, 1, listLen, objectKeys)
        : scalarAsIs(item)
      if (n < 0) return false
      bytes += k + 1 + n
      if (bytes > limit) return false
    }
    return true
  } catch {
    // an input whose reading throws: the exact path decides
    return false
  }
}

/**
 * Start a series of `valueAsIs` walks (one caller's inputs): the positional string cache counts
 * from here.
 *
 * @internal
 */
export const beginAsIs = (): void => {
  cursor = 0
}

/**
 * One value under `admitsAsIs`'s conditions, as if it were an env entry (level 1): its canonical
 * size (the same upper bound), or -1 when it does not qualify or passes `limit`. Never throws.
 *
 * @internal
 */
export const valueAsIs = (value: unknown, limit: number, listLen: number, objectKeys: number): number =>
  valueAsIsAt(value, 1, limit, listLen, objectKeys)

/**
 * `valueAsIs` of a value found at `depth` (an env entry is at 1).
 *
 * @internal
 */
export const valueAsIsAt = (
  value: unknown,
  depth: number,
  limit: number,
  listLen: number,
  objectKeys: number
): number => {
  try {
    allowance = limit
    const n = value !== null && typeof value === "object"
      ? containerAsIs(value, depth, listLen, objectKeys)
      : scalarAsIs(value)
    return n > limit ? -1 : n
  } catch {
    // a value whose reading throws: the exact path decides
    return -1
  }
}
