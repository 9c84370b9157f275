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
}

const shapes = new Map<string, Array<Shape>>()
const maxFirstKeys = 512
const maxPerFirstKey = 8

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

/**
 * The digest of a value's canonical JSON.
 *
 * @since 0.1.0
 * @category digests
 */
export const digest = (value: unknown): Either.Either<string, CanonicalIssue> => Either.map(encode(value), digestText)

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
