/**
 * What the text writer and the byte writer of canonical JSON share (ALGAL v1 §3.1): the key
 * order, the string and number forms, and the remembered shapes of objects (their keys in
 * canonical order and their written `"key":` heads).
 *
 * @internal
 */
import type { CanonicalIssue } from "../../Canonical.js"

/** Maximum nesting depth of a canonical value. @internal */
export const maxDepth = 64

/** Maximum canonical size in bytes (64 MiB). @internal */
export const maxBytes = 64 * 1024 * 1024

const arrayIndex = /^(?:0|[1-9][0-9]{0,9})$/

/** An "array index" key: canonical decimal u32 below 2^32 − 1. */
/** @internal */
export const isArrayIndexKey = (key: string): boolean => arrayIndex.test(key) && Number(key) < 4294967295

/** @internal */
export class Issue {
  constructor(readonly issue: CanonicalIssue) {}
}

// Lone surrogates cannot be encoded as UTF-8; the Rust original never sees them (its strings are
// valid UTF-8), so they are rejected rather than replaced.
/** @internal */
export const anySurrogate = /[\uD800-\uDFFF]/
/** @internal */
export const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** @internal */
export const writeString = (value: string): string => {
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
/** @internal */
export interface Shape {
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

/** @internal */
export const shapeOf = (object: object): Shape => {
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

/** @internal */
export const writeNumber = (value: number): string => {
  if (!Number.isFinite(value)) {
    throw new Issue({ reason: "non-finite", message: `non-finite number ${String(value)}` })
  }
  return value === 0 ? "0" : String(value)
}
