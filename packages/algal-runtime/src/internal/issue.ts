/**
 * Internal throw-based failure used inside the pure synchronous parsers and the interpreter. It is
 * always caught at the module boundary and turned into an `AlgalError` (never escapes to users).
 *
 * @internal
 */
import type { AlgalErrorCode } from "../AlgalError.js"

/** @internal */
export class Issue {
  constructor(
    readonly code: AlgalErrorCode,
    readonly message: string,
    readonly path: string | undefined,
    readonly detail?: unknown
  ) {}
}

/** @internal */
export const fail = (code: AlgalErrorCode, message: string, path?: string, detail?: unknown): never => {
  throw new Issue(code, message, path, detail)
}

/** @internal */
export const invalid = (message: string, path?: string): never => fail("PARSE_FAILED", message, path)

/** @internal */
export type Obj = { [key: string]: unknown }

/** @internal */
export const isObj = (u: unknown): u is Obj => u !== null && typeof u === "object" && !Array.isArray(u)

/** @internal */
export const has = (o: Obj, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key)

/** @internal */
export const utf8Length = (text: string): number => {
  let n = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) n += 1
    else if (c < 0x800) n += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4
        i++
      } else n += 3
    } else n += 3
  }
  return n
}

/**
 * UTF-8 byte length of a JSON string literal (quotes and escapes included), as `JSON.stringify`
 * writes it.
 *
 * @internal
 */
const stringLiteralBytes = (text: string): number => {
  let n = 2
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x20) {
      n += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6
    } else if (c === 0x22 || c === 0x5c) n += 2
    else if (c < 0x80) n += 1
    else if (c < 0x800) n += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4
        i++
      } else n += 6
    } else if (c >= 0xd800 && c <= 0xdfff) n += 6
    else n += 3
  }
  return n
}

/**
 * Exact UTF-8 byte length of a (valid) value's canonical JSON without building the text (key order
 * does not change the length). Stops counting once `limit` is passed and returns a value > limit.
 *
 * @internal
 */
export const canonicalSize = (value: unknown, limit: number): number => {
  let total = 0
  const walk = (v: unknown): void => {
    if (total > limit) return
    if (v === null) {
      total += 4
      return
    }
    switch (typeof v) {
      case "boolean":
        total += v ? 4 : 5
        return
      case "number":
        total += Object.is(v, -0) ? 1 : String(v).length
        return
      case "string":
        total += stringLiteralBytes(v)
        return
      case "object": {
        if (Array.isArray(v)) {
          total += 2 + (v.length > 0 ? v.length - 1 : 0)
          for (let i = 0; i < v.length; i++) walk(v[i])
          return
        }
        let count = 0
        for (const key in v as Obj) {
          const item = (v as Obj)[key]
          if (item === undefined) continue
          count++
          total += stringLiteralBytes(key) + 1
          walk(item)
        }
        total += 2 + (count > 0 ? count - 1 : 0)
        return
      }
      default:
        total += limit + 1
    }
  }
  walk(value)
  return total
}

const surrogate = /[\uD800-\uDFFF]/
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * Validate that a value is ALGAL JSON (finite numbers, no lone surrogates, depth ≤ 64, only JSON
 * types) and measure its canonical UTF-8 size, without building the canonical text. Returns the
 * size, or a message saying why the value is not JSON.
 *
 * @internal
 */
export const measureJson = (value: unknown, maxDepth = 64): number | string => {
  let total = 0
  const text = (s: string): string | undefined => {
    if (surrogate.test(s) && loneSurrogate.test(s)) return "string contains a lone UTF-16 surrogate"
    total += stringLiteralBytes(s)
    return undefined
  }
  const walk = (v: unknown, depth: number): string | undefined => {
    if (v === null) {
      total += 4
      return undefined
    }
    switch (typeof v) {
      case "boolean":
        total += v ? 4 : 5
        return undefined
      case "number":
        if (!Number.isFinite(v)) return `non-finite number ${String(v)}`
        total += v === 0 ? 1 : String(v).length
        return undefined
      case "string":
        return text(v)
      case "object": {
        if (depth >= maxDepth) return `nesting deeper than ${maxDepth}`
        if (Array.isArray(v)) {
          total += 2 + (v.length > 0 ? v.length - 1 : 0)
          for (let i = 0; i < v.length; i++) {
            const bad = walk(v[i], depth + 1)
            if (bad !== undefined) return bad
          }
          return undefined
        }
        let count = 0
        for (const key of Object.keys(v as Obj)) {
          const item = (v as Obj)[key]
          if (item === undefined) continue
          count++
          const badKey = text(key)
          if (badKey !== undefined) return badKey
          total += 1
          const bad = walk(item, depth + 1)
          if (bad !== undefined) return bad
        }
        total += 2 + (count > 0 ? count - 1 : 0)
        return undefined
      }
      default:
        return `not a JSON value (${typeof v})`
    }
  }
  const bad = walk(value, 0)
  return bad === undefined ? total : bad
}
