/**
 * A strict JSON parser for documents people hand to the CLI: a depth bound (no stack overflow on
 * `[[[[…`), duplicate keys refused (naming the key and its path — `JSON.parse` silently keeps the
 * last one), lone surrogates refused, and every error with its line and column.
 *
 * @since 0.1.0
 */

/**
 * Why a document was refused.
 *
 * @since 0.1.0
 * @category models
 */
export type JsonIssue = "syntax" | "too-deep" | "duplicate-key" | "lone-surrogate"

/**
 * A refused document: the issue, a message, and where (1-based line and column, JSON path).
 *
 * @since 0.1.0
 * @category models
 */
export interface JsonError {
  readonly issue: JsonIssue
  readonly message: string
  readonly line: number
  readonly column: number
  readonly path: string
}

/**
 * The default nesting limit (objects and arrays).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxDepth = 64

class Failure {
  constructor(readonly error: JsonError) {}
}

const escapes: Record<string, string> = {
  "\"": "\"",
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t"
}
const number = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y

const hasLoneSurrogate = (s: string): boolean => {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) i++
      else return true
    } else if (c >= 0xdc00 && c <= 0xdfff) return true
  }
  return false
}

const pathOf = (parts: ReadonlyArray<string | number>): string =>
  parts.reduce<string>(
    (acc, part) =>
      typeof part === "number"
        ? `${acc}[${part}]`
        : /^[A-Za-z_$][\w$]*$/.test(part)
        ? `${acc}.${part}`
        : `${acc}[${JSON.stringify(part)}]`,
    "$"
  )

/**
 * Parse `text` into plain values. As with `JSON.parse`, `__proto__` is stored as an ordinary key.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (
  text: string,
  options: { readonly maxDepth?: number } = {}
): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: JsonError } => {
  const maxDepth = options.maxDepth ?? defaultMaxDepth
  let i = 0
  const path: Array<string | number> = []

  const fail = (issue: JsonIssue, message: string, at = i): never => {
    let line = 1
    let lineStart = 0
    for (let k = 0; k < at && k < text.length; k++) {
      if (text.charCodeAt(k) === 10) {
        line++
        lineStart = k + 1
      }
    }
    throw new Failure({ issue, message, line, column: at - lineStart + 1, path: pathOf(path) })
  }
  const skip = () => {
    while (i < text.length) {
      const c = text.charCodeAt(i)
      if (c === 32 || c === 9 || c === 10 || c === 13) i++
      else break
    }
  }
  const describeAt = () => i >= text.length ? "end of input" : `${JSON.stringify(text[i])}`

  const string = (): string => {
    const start = i
    i++ // opening quote
    let out = ""
    let run = i
    for (;;) {
      if (i >= text.length) fail("syntax", "unterminated string", start)
      const c = text.charCodeAt(i)
      if (c === 34) break
      if (c < 0x20) fail("syntax", "control character in string")
      if (c === 92) {
        out += text.slice(run, i)
        const e = text[i + 1]
        if (e === "u") {
          const hex = text.slice(i + 2, i + 6)
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail("syntax", "invalid \\u escape")
          out += String.fromCharCode(parseInt(hex, 16))
          i += 6
        } else if (e !== undefined && e in escapes) {
          out += escapes[e]
          i += 2
        } else {
          fail("syntax", `invalid escape \\${e ?? ""}`)
        }
        run = i
        continue
      }
      i++
    }
    out += text.slice(run, i)
    i++ // closing quote
    if (hasLoneSurrogate(out)) fail("lone-surrogate", "string holds a lone UTF-16 surrogate", start)
    return out
  }

  const value = (depth: number): unknown => {
    skip()
    const c = text[i]
    if (c === "{" || c === "[") {
      if (depth >= maxDepth) fail("too-deep", `nested deeper than ${maxDepth} levels`)
      return c === "{" ? object(depth + 1) : array(depth + 1)
    }
    if (c === "\"") return string()
    if (text.startsWith("true", i)) return (i += 4, true)
    if (text.startsWith("false", i)) return (i += 5, false)
    if (text.startsWith("null", i)) return (i += 4, null)
    number.lastIndex = i
    const m = number.exec(text)
    if (m === null) return fail("syntax", `unexpected ${describeAt()}`)
    i += m[0].length
    return Number(m[0])
  }

  const object = (depth: number): Record<string, unknown> => {
    i++
    const out: Record<string, unknown> = {}
    const seen = new Set<string>()
    skip()
    if (text[i] === "}") return (i++, out)
    for (;;) {
      skip()
      if (text[i] !== "\"") fail("syntax", `expected a key string, found ${describeAt()}`)
      const keyAt = i
      const key = string()
      if (seen.has(key)) {
        fail("duplicate-key", `duplicate key ${JSON.stringify(key)} at ${pathOf(path)}`, keyAt)
      }
      seen.add(key)
      skip()
      if (text[i] !== ":") fail("syntax", `expected ':' after key, found ${describeAt()}`)
      i++
      path.push(key)
      const v = value(depth)
      path.pop()
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true })
      skip()
      if (text[i] === ",") {
        i++
        continue
      }
      if (text[i] === "}") return (i++, out)
      fail("syntax", `expected ',' or '}', found ${describeAt()}`)
    }
  }

  const array = (depth: number): Array<unknown> => {
    i++
    const out: Array<unknown> = []
    skip()
    if (text[i] === "]") return (i++, out)
    for (;;) {
      path.push(out.length)
      out.push(value(depth))
      path.pop()
      skip()
      if (text[i] === ",") {
        i++
        continue
      }
      if (text[i] === "]") return (i++, out)
      fail("syntax", `expected ',' or ']', found ${describeAt()}`)
    }
  }

  try {
    const result = value(0)
    skip()
    if (i < text.length) fail("syntax", `unexpected ${describeAt()} after the document`)
    return { ok: true, value: result }
  } catch (error) {
    if (error instanceof Failure) return { ok: false, error: error.error }
    throw error
  }
}
