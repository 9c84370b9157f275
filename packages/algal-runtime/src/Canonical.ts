/**
 * Canonical JSON (ALGAL v1 §3.1) and `sha256:` digests. Every digest, receipt and fingerprint in
 * ALGAL is computed over these bytes, so this module must agree byte for byte with the originals.
 *
 * Rules: compact; object keys ordered array-index keys first (canonical decimal below 2^32−1, in
 * numeric order) then the rest by UTF-16 code units; numbers as JavaScript prints them (`-0` → `0`);
 * non-finite numbers rejected; strings escaped as `JSON.stringify` does; depth ≤ 64; ≤ 64 MiB.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Crypto from "node:crypto"

/**
 * A JSON value as ALGAL sees it.
 *
 * @since 0.1.0
 * @category models
 */
export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

/**
 * Why a value has no canonical form.
 *
 * @since 0.1.0
 * @category errors
 */
export interface CanonicalIssue {
  readonly reason: "non-finite" | "depth" | "size" | "not-json" | "lone-surrogate"
  readonly message: string
}

/**
 * Maximum nesting depth of a canonical document.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxDepth = 64

/**
 * Maximum canonical size in bytes (64 MiB).
 *
 * @since 0.1.0
 * @category constants
 */
export const maxBytes = 64 * 1024 * 1024

const arrayIndex = /^(?:0|[1-9][0-9]{0,9})$/

/** An "array index" key: canonical decimal u32 below 2^32 − 1. */
const isArrayIndexKey = (key: string): boolean => arrayIndex.test(key) && Number(key) < 4294967295

/**
 * Keys in canonical order: array-index keys numerically, then the others by UTF-16 code units.
 *
 * @since 0.1.0
 * @category ordering
 */
export const compareKeys = (a: string, b: string): number => {
  const ai = isArrayIndexKey(a)
  const bi = isArrayIndexKey(b)
  if (ai && bi) return Number(a) - Number(b)
  if (ai) return -1
  if (bi) return 1
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * The keys of an object in canonical order.
 *
 * @since 0.1.0
 * @category ordering
 */
export const sortedKeys = (object: object): Array<string> => Object.keys(object).sort(compareKeys)

class Issue {
  constructor(readonly issue: CanonicalIssue) {}
}

// Lone surrogates cannot be encoded as UTF-8; the Rust original never sees them (its strings are
// valid UTF-8), so they are rejected rather than replaced.
const anySurrogate = /[\uD800-\uDFFF]/
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

const writeString = (value: string): string => {
  let plain = true
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c < 0x20 || c === 0x22 || c === 0x5c || c >= 0xd800) {
      plain = false
      break
    }
  }
  if (plain) return "\"" + value + "\""
  if (anySurrogate.test(value) && loneSurrogate.test(value)) {
    throw new Issue({ reason: "lone-surrogate", message: "string contains a lone UTF-16 surrogate" })
  }
  return JSON.stringify(value)
}

// Own keys of an ordinary object already come array-index keys first, in ascending numeric order
// (ECMA-262 OrdinaryOwnPropertyKeys), which is exactly the canonical rule for them; only the
// remaining keys need sorting, by UTF-16 code units (the default string sort).
const canonicalKeys = (keys: Array<string>): Array<string> => {
  let start = 0
  while (start < keys.length) {
    const c = keys[start]!.charCodeAt(0)
    if (c < 0x30 || c > 0x39 || !isArrayIndexKey(keys[start]!)) break
    start++
  }
  let sorted = true
  for (let i = start + 1; i < keys.length; i++) {
    if (keys[i - 1]! > keys[i]!) {
      sorted = false
      break
    }
  }
  if (sorted) return keys
  if (keys.length - start <= 16) {
    // insertion sort: faster than Array#sort for the small key sets JSON objects usually have
    for (let i = start + 1; i < keys.length; i++) {
      const key = keys[i]!
      let j = i - 1
      while (j >= start && keys[j]! > key) {
        keys[j + 1] = keys[j]!
        j--
      }
      keys[j + 1] = key
    }
    return keys
  }
  if (start === 0) return keys.sort()
  const tail = keys.slice(start).sort()
  for (let i = 0; i < tail.length; i++) keys[start + i] = tail[i]!
  return keys
}

// Objects usually repeat a few shapes (the records of a list, the cells and events of a receipt):
// the canonical order of a key list and its written `"key":` heads are remembered (a few shapes per
// first own key) and reused when an object has the very same own keys in the same order. The table is small
// and bounded (cleared when full), so hostile documents with many shapes only lose the shortcut.
interface Shape {
  /** `Object.keys` as seen (own order). */
  readonly raw: ReadonlyArray<string>
  /** The same keys in canonical order. */
  readonly keys: ReadonlyArray<string>
  /** `"key":` for each canonical key, or `undefined` for a key that has no canonical form. */
  readonly heads: ReadonlyArray<string | undefined>
  /** The heads as UTF-8 bytes, made the first time the byte writer meets the shape. */
  headBytes?: ReadonlyArray<Uint8Array | undefined>
}

const shapes = new Map<string, Array<Shape>>()
const maxFirstKeys = 512
const maxPerFirstKey = 32

const sameKeys = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean => {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

const headOf = (key: string): string | undefined => {
  try {
    return writeString(key) + ":"
  } catch {
    // reported when the key is reached, so that earlier errors keep their precedence
    return undefined
  }
}

const noKeys: Shape = { raw: [], keys: [], heads: [] }

const shapeOf = (object: object): Shape => {
  const raw = Object.keys(object)
  if (raw.length === 0) return noKeys
  const first = raw[0]!
  let bucket = shapes.get(first)
  if (bucket !== undefined) {
    for (let i = 0; i < bucket.length; i++) if (sameKeys(bucket[i]!.raw, raw)) return bucket[i]!
  }
  const keys = canonicalKeys(raw.slice())
  const heads = new Array<string | undefined>(keys.length)
  for (let i = 0; i < keys.length; i++) heads[i] = headOf(keys[i]!)
  const shape: Shape = { raw, keys, heads }
  if (bucket === undefined) {
    if (shapes.size >= maxFirstKeys) shapes.clear()
    bucket = []
    shapes.set(first, bucket)
  }
  if (bucket.length >= maxPerFirstKey) bucket.shift()
  bucket.push(shape)
  return shape
}

const writeNumber = (value: number): string => {
  if (!Number.isFinite(value)) {
    throw new Issue({ reason: "non-finite", message: `non-finite number ${String(value)}` })
  }
  return value === 0 ? "0" : String(value)
}

const write = (value: unknown, depth: number): string => {
  if (value === null) return "null"
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false"
    case "number":
      return writeNumber(value)
    case "string":
      return writeString(value)
    case "object": {
      if (depth >= maxDepth) {
        throw new Issue({ reason: "depth", message: `nesting deeper than ${maxDepth}` })
      }
      if (Array.isArray(value)) {
        if (value.length === 0) return "[]"
        let out = "[" + write(value[0], depth + 1)
        for (let i = 1; i < value.length; i++) out += "," + write(value[i], depth + 1)
        return out + "]"
      }
      const shape = shapeOf(value)
      const { heads, keys } = shape
      let out = "{"
      let first = true
      for (let i = 0; i < keys.length; i++) {
        const item = (value as Record<string, unknown>)[keys[i]!]
        if (item === undefined) continue
        const head = heads[i] ?? writeString(keys[i]!) + ":"
        if (first) {
          first = false
          out += head + write(item, depth + 1)
        } else out += "," + head + write(item, depth + 1)
      }
      return out + "}"
    }
    default:
      throw new Issue({ reason: "not-json", message: `not a JSON value (${typeof value})` })
  }
}

/**
 * Canonical JSON text, or the reason there is none.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encode = (value: unknown): Either.Either<string, CanonicalIssue> => {
  try {
    const text = write(value, 0)
    // UTF-8 needs at most 3 bytes per UTF-16 unit: only long texts need the exact count.
    if (text.length > maxBytes || (text.length * 3 > maxBytes && Buffer.byteLength(text, "utf8") > maxBytes)) {
      return Either.left({ reason: "size", message: `canonical JSON exceeds ${maxBytes} bytes` })
    }
    return Either.right(text)
  } catch (error) {
    if (error instanceof Issue) return Either.left(error.issue)
    if (error instanceof RangeError) {
      return Either.left({ reason: "depth", message: "value too deeply nested" })
    }
    throw error
  }
}

/**
 * Canonical JSON text of a value already known to be valid (e.g. produced by this runtime).
 * Throws on an invalid value: use `encode` for anything external.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeUnsafe = (value: unknown): string => {
  const result = encode(value)
  if (Either.isLeft(result)) throw new Error(`canonical: ${result.left.message}`)
  return result.right
}

/**
 * UTF-8 byte length of a value's canonical JSON (the unit every ALGAL byte bound is counted in).
 *
 * @since 0.1.0
 * @category encoding
 */
export const byteLength = (value: unknown): Either.Either<number, CanonicalIssue> =>
  Either.map(encode(value), (text) => Buffer.byteLength(text, "utf8"))

const createHash = Crypto.createHash
// `crypto.hash` (Node ≥ 20.12): the one-shot digest, without a Hash object per call.
const oneShot: ((algorithm: string, data: string, encoding: "hex") => string) | undefined =
  typeof (Crypto as { hash?: unknown }).hash === "function"
    ? (Crypto as unknown as { hash: (algorithm: string, data: string, encoding: "hex") => string }).hash
    : undefined

/**
 * `"sha256:" + lowercase hex(SHA-256(UTF-8 bytes))` of a text.
 *
 * @since 0.1.0
 * @category digests
 */
export const digestText = (text: string): string =>
  "sha256:" +
  (oneShot !== undefined ? oneShot("sha256", text, "hex") : createHash("sha256").update(text, "utf8").digest("hex"))

// ------------------------------------------------------------------ digest bytes ---
//
// A digest needs the canonical UTF-8 bytes, not the text: building a text out of many small
// pieces, flattening it and transcoding it to UTF-8 cost about as much as writing it. So
// `digest` writes the bytes straight into one reused buffer and hashes them. The writer only
// handles the valid case, with the text writer's exact rules (shapes, heads, number and string
// forms). On anything else (a value with no canonical form, a key without a head, a document
// near the size bound, a getter that digests re-entrantly) it gives up and `digest` takes the
// text path, which reports exactly what it always did. The property tests compare the bytes with
// the text writer's on arbitrary values.

let bytes = new Uint8Array(1 << 16)
let at = 0
let writing = false
// Documents this large take the text path (which also enforces the size bound).
const maxByteDigest = 8 * 1024 * 1024

class GiveUp {}
const giveUp = new GiveUp()

const room = (n: number): void => {
  if (at + n <= bytes.length) return
  if (at + n > maxByteDigest) throw giveUp
  const next = new Uint8Array(Math.max(bytes.length * 2, at + n))
  next.set(bytes.subarray(0, at))
  bytes = next
}

const HEX = "0123456789abcdef"

const putAscii = (text: string): void => {
  const n = text.length
  room(n)
  const b = bytes
  let p = at
  for (let i = 0; i < n; i++) b[p++] = text.charCodeAt(i)
  at = p
}

// A string as `JSON.stringify` writes it, in UTF-8; a lone surrogate gives up (no canonical form).
const putString = (value: string): void => {
  const n = value.length
  room(n * 3 + 2)
  const b = bytes
  let p = at
  b[p++] = 0x22
  let i = 0
  // the common case: printable ASCII with nothing to escape
  for (; i < n; i++) {
    const c = value.charCodeAt(i)
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) break
    b[p++] = c
  }
  for (; i < n; i++) {
    const c = value.charCodeAt(i)
    if (c < 0x80) {
      if (c >= 0x20 && c !== 0x22 && c !== 0x5c) {
        b[p++] = c
        continue
      }
      // escapes take up to 6 bytes for 1 unit: make room for the rest at that rate
      at = p
      room((n - i) * 6 + 1)
      p = at
      const e = bytes
      e[p++] = 0x5c
      switch (c) {
        case 0x22:
        case 0x5c:
          e[p++] = c
          break
        case 0x08:
          e[p++] = 0x62
          break
        case 0x0c:
          e[p++] = 0x66
          break
        case 0x0a:
          e[p++] = 0x6e
          break
        case 0x0d:
          e[p++] = 0x72
          break
        case 0x09:
          e[p++] = 0x74
          break
        default:
          e[p++] = 0x75
          e[p++] = 0x30
          e[p++] = 0x30
          e[p++] = HEX.charCodeAt(c >> 4)
          e[p++] = HEX.charCodeAt(c & 15)
      }
      at = p
      // the buffer may have grown: continue in the new one
      return putRest(value, i + 1)
    } else if (c < 0x800) {
      b[p++] = 0xc0 | (c >> 6)
      b[p++] = 0x80 | (c & 63)
    } else if (c < 0xd800 || c > 0xdfff) {
      b[p++] = 0xe0 | (c >> 12)
      b[p++] = 0x80 | ((c >> 6) & 63)
      b[p++] = 0x80 | (c & 63)
    } else {
      const d = i + 1 < n ? value.charCodeAt(i + 1) : 0
      if (c > 0xdbff || d < 0xdc00 || d > 0xdfff) throw giveUp
      const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00)
      i++
      b[p++] = 0xf0 | (cp >> 18)
      b[p++] = 0x80 | ((cp >> 12) & 63)
      b[p++] = 0x80 | ((cp >> 6) & 63)
      b[p++] = 0x80 | (cp & 63)
    }
  }
  b[p++] = 0x22
  at = p
}

// The rest of a string after an escape (rare: control characters, quotes and backslashes), as
// `JSON.stringify` escapes it, then the closing quote.
const putRest = (value: string, from: number): void => {
  const tail = value.slice(from)
  // JSON.stringify would escape a lone surrogate; the canonical form does not exist
  if (anySurrogate.test(tail) && loneSurrogate.test(tail)) throw giveUp
  // JSON.stringify's form of the tail, without its opening quote (ours is written already)
  const utf8 = Buffer.from(JSON.stringify(tail).slice(1), "utf8")
  room(utf8.length)
  bytes.set(utf8, at)
  at += utf8.length
}

const putNumber = (value: number): void => {
  if (!Number.isFinite(value)) throw giveUp
  if (value === 0) {
    room(1)
    bytes[at++] = 0x30
    return
  }
  if (Number.isInteger(value) && value > -1e15 && value < 1e15) {
    // a safe integer prints as its decimal digits: written without making a string
    room(17)
    const b = bytes
    let p = at
    let n = value
    if (n < 0) {
      b[p++] = 0x2d
      n = -n
    }
    const start = p
    while (n > 0) {
      const digit = n % 10
      b[p++] = 0x30 + digit
      n = (n - digit) / 10
    }
    for (let lo = start, hi = p - 1; lo < hi; lo++, hi--) {
      const t = b[lo]!
      b[lo] = b[hi]!
      b[hi] = t
    }
    at = p
    return
  }
  putAscii(String(value))
}

const headBytesOf = (shape: Shape): ReadonlyArray<Uint8Array | undefined> => {
  let heads = shape.headBytes
  if (heads === undefined) {
    heads = shape.heads.map((head) => (head === undefined ? undefined : new Uint8Array(Buffer.from(head, "utf8"))))
    shape.headBytes = heads
  }
  return heads
}

const put = (value: unknown, depth: number): void => {
  if (value === null) return putAscii("null")
  switch (typeof value) {
    case "boolean":
      return putAscii(value ? "true" : "false")
    case "number":
      return putNumber(value)
    case "string":
      return putString(value)
    case "object": {
      if (depth >= maxDepth) throw giveUp
      if (Array.isArray(value)) {
        room(2)
        bytes[at++] = 0x5b
        for (let i = 0; i < value.length; i++) {
          if (i > 0) {
            room(1)
            bytes[at++] = 0x2c
          }
          put(value[i], depth + 1)
        }
        room(1)
        bytes[at++] = 0x5d
        return
      }
      const shape = shapeOf(value)
      const keys = shape.keys
      const heads = headBytesOf(shape)
      room(1)
      bytes[at++] = 0x7b
      let first = true
      for (let i = 0; i < keys.length; i++) {
        const item = (value as Record<string, unknown>)[keys[i]!]
        if (item === undefined) continue
        const head = heads[i]
        if (head === undefined) throw giveUp
        room(head.length + 1)
        const b = bytes
        let p = at
        if (!first) b[p++] = 0x2c
        first = false
        for (let j = 0; j < head.length; j++) b[p++] = head[j]!
        at = p
        put(item, depth + 1)
      }
      room(1)
      bytes[at++] = 0x7d
      return
    }
  }
  throw giveUp
}

const hashBytes: (data: Uint8Array) => string = oneShot !== undefined
  ? (data) =>
    (oneShot as unknown as (algorithm: string, data: Uint8Array, encoding: "hex") => string)("sha256", data, "hex")
  : (data) => createHash("sha256").update(data).digest("hex")

// The digest through the byte writer, or `undefined` to take the text path.
const digestBytes = (value: unknown): string | undefined => {
  if (writing) return undefined
  writing = true
  at = 0
  try {
    put(value, 0)
    return "sha256:" + hashBytes(bytes.subarray(0, at))
  } catch (error) {
    if (error instanceof GiveUp || error instanceof RangeError) return undefined
    throw error
  } finally {
    writing = false
    // a large document's buffer is not kept
    if (bytes.length > 1 << 20) bytes = new Uint8Array(1 << 16)
  }
}

/**
 * The digest of a value's canonical JSON.
 *
 * @since 0.1.0
 * @category digests
 */
export const digest = (value: unknown): Either.Either<string, CanonicalIssue> => {
  const fast = digestBytes(value)
  return fast !== undefined ? Either.right(fast) : Either.map(encode(value), digestText)
}

const digestPattern = /^sha256:[0-9a-f]{64}$/

/**
 * Whether a string is a well-formed digest: exactly 71 chars, `sha256:` + 64 lowercase hex digits.
 *
 * @since 0.1.0
 * @category digests
 */
export const isDigest = (value: unknown): value is string => typeof value === "string" && digestPattern.test(value)

/**
 * Parse JSON text into a value, rejecting what ALGAL cannot represent: non-finite numbers
 * (e.g. `1e999`), nesting beyond `maxDepth`, and lone surrogates in strings or keys.
 *
 * @since 0.1.0
 * @category decoding
 */
export const parse = (text: string): Either.Either<Json, CanonicalIssue> => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return Either.left({ reason: "not-json", message: (error as Error).message })
  }
  return Either.map(encode(value), () => value as Json)
}
