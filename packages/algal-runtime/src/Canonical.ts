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
import { digestBytes, sha256Text } from "./internal/canonical/bytes.js"
import * as shape from "./internal/canonical/shape.js"
import { isArrayIndexKey, Issue, shapeOf, writeNumber, writeString } from "./internal/canonical/shape.js"

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
export const maxDepth: typeof shape.maxDepth = shape.maxDepth

/**
 * Maximum canonical size in bytes (64 MiB).
 *
 * @since 0.1.0
 * @category constants
 */
export const maxBytes: number = shape.maxBytes

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

/**
 * `"sha256:" + lowercase hex(SHA-256(UTF-8 bytes))` of a text.
 *
 * @since 0.1.0
 * @category digests
 */
export const digestText = (text: string): string => "sha256:" + sha256Text(text)

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
