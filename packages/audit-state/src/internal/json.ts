/**
 * A strict JSON reader and Python-compatible writers. The reader keeps the distinction between
 * `12` and `12.0` (a {@link PyFloat}) so a document written by Python round-trips byte for byte.
 */

/** An integral-valued number that was written as a float (`12.0`, `1e3`). */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** Any JSON value as read by {@link parse}. */
export type Json = null | boolean | number | string | PyFloat | ReadonlyArray<Json> | { readonly [k: string]: Json }

/** A parse failure with Python-style 1-based line/column. */
export class JsonSyntaxError {
  constructor(readonly message: string, readonly line: number, readonly column: number) {}
}

const MAX_DEPTH = 256

/** Where the reader is, for messages: `$`, `findings[0].state_revision`. */
const where = (path: ReadonlyArray<string | number>): string =>
  path.length === 0
    ? "$"
    : path.map((p, k) => typeof p === "number" ? `[${p}]` : k === 0 ? p : `.${p}`).join("")

/**
 * Parse strict JSON (RFC 8259). Stricter than Python where silence would lose data: a key given
 * twice in one object, and an integer beyond ±(2^53 − 1) (which a double would round), are
 * errors naming the key or field and where it is.
 */
export const parse = (text: string): Json | JsonSyntaxError => {
  let i = 0
  const path: Array<string | number> = []
  const n = text.length
  const fail = (what: string, at = i): JsonSyntaxError => {
    let line = 1
    let col = 1
    for (let k = 0; k < at && k < n; k++) {
      if (text.charCodeAt(k) === 10) {
        line++
        col = 1
      } else col++
    }
    return new JsonSyntaxError(what, line, col)
  }
  class Stop {
    constructor(readonly error: JsonSyntaxError) {}
  }
  const ws = () => {
    while (i < n) {
      const c = text.charCodeAt(i)
      if (c === 32 || c === 9 || c === 10 || c === 13) i++
      else break
    }
  }
  const str = (): string => {
    // at opening quote
    i++
    let out = ""
    let start = i
    while (true) {
      if (i >= n) throw new Stop(fail("Unterminated string starting", start - 1))
      const c = text.charCodeAt(i)
      if (c === 34) {
        out += text.slice(start, i)
        i++
        return out
      }
      if (c === 92) {
        out += text.slice(start, i)
        const e = text[i + 1]
        switch (e) {
          case "\"":
            out += "\""
            break
          case "\\":
            out += "\\"
            break
          case "/":
            out += "/"
            break
          case "b":
            out += "\b"
            break
          case "f":
            out += "\f"
            break
          case "n":
            out += "\n"
            break
          case "r":
            out += "\r"
            break
          case "t":
            out += "\t"
            break
          case "u": {
            const hex = text.slice(i + 2, i + 6)
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new Stop(fail("Invalid \\uXXXX escape"))
            const unit = parseInt(hex, 16)
            // invalid UTF-16 is refused at the boundary (issue 16): a high surrogate must be followed
            // by a low one, a low one must follow a high one
            if (unit >= 0xd800 && unit <= 0xdbff) {
              const next = text.slice(i + 6, i + 12)
              const low = /^\\u[dD][c-fC-F][0-9a-fA-F]{2}$/.test(next)
              if (!low) throw new Stop(fail(`Lone surrogate \\u${hex} (invalid UTF-16) at ${where(path)}`))
            } else if (unit >= 0xdc00 && unit <= 0xdfff) {
              const prev = out.length > 0 ? out.charCodeAt(out.length - 1) : 0
              if (!(prev >= 0xd800 && prev <= 0xdbff)) {
                throw new Stop(fail(`Lone surrogate \\u${hex} (invalid UTF-16) at ${where(path)}`))
              }
            }
            out += String.fromCharCode(unit)
            i += 4
            break
          }
          default:
            throw new Stop(fail("Invalid \\escape"))
        }
        i += 2
        start = i
        continue
      }
      if (c < 32) throw new Stop(fail("Invalid control character"))
      i++
    }
  }
  const num = (): number | PyFloat => {
    const m = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y
    m.lastIndex = i
    const r = m.exec(text)
    if (r === null) throw new Stop(fail("Expecting value"))
    i += r[0].length
    const v = Number(r[0])
    if (!Number.isFinite(v)) throw new Stop(fail("Number out of range"))
    if (r[1] === undefined && r[2] === undefined && !Number.isSafeInteger(v)) {
      throw new Stop(
        fail(`integer ${r[0]} at ${where(path)} is beyond 2^53 and cannot be kept exactly`, i - r[0].length)
      )
    }
    if ((r[1] !== undefined || r[2] !== undefined) && Number.isInteger(v)) return new PyFloat(v)
    return v
  }
  const value = (depth: number): Json => {
    if (depth > MAX_DEPTH) throw new Stop(fail("Nesting too deep"))
    ws()
    if (i >= n) throw new Stop(fail("Expecting value"))
    const c = text[i]!
    if (c === "{") {
      i++
      const obj: Record<string, Json> = {}
      ws()
      if (text[i] === "}") {
        i++
        return obj
      }
      while (true) {
        ws()
        if (text[i] !== "\"") throw new Stop(fail("Expecting property name enclosed in double quotes"))
        const keyAt = i
        const key = str()
        if (Object.hasOwn(obj, key)) {
          path.push(key)
          const at = where(path)
          path.pop()
          throw new Stop(fail(`duplicate key '${key}' at ${at}: a key given twice has no one value`, keyAt))
        }
        ws()
        if (text[i] !== ":") throw new Stop(fail("Expecting ':' delimiter"))
        i++
        path.push(key)
        const v = value(depth + 1)
        path.pop()
        if (key === "__proto__") {
          Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true })
        } else obj[key] = v
        ws()
        if (text[i] === ",") {
          i++
          continue
        }
        if (text[i] === "}") {
          i++
          return obj
        }
        throw new Stop(fail("Expecting ',' delimiter"))
      }
    }
    if (c === "[") {
      i++
      const arr: Array<Json> = []
      ws()
      if (text[i] === "]") {
        i++
        return arr
      }
      while (true) {
        path.push(arr.length)
        arr.push(value(depth + 1))
        path.pop()
        ws()
        if (text[i] === ",") {
          i++
          continue
        }
        if (text[i] === "]") {
          i++
          return arr
        }
        throw new Stop(fail("Expecting ',' delimiter"))
      }
    }
    if (c === "\"") return str()
    if (text.startsWith("true", i)) {
      i += 4
      return true
    }
    if (text.startsWith("false", i)) {
      i += 5
      return false
    }
    if (text.startsWith("null", i)) {
      i += 4
      return null
    }
    return num()
  }
  try {
    const v = value(0)
    ws()
    if (i < n) return fail("Extra data")
    return v
  } catch (e) {
    if (e instanceof Stop) return e.error
    throw e
  }
}

/** Python's `repr(float)`. */
export const pyFloat = (x: number): string => {
  if (Number.isNaN(x)) return "NaN"
  if (!Number.isFinite(x)) return x > 0 ? "Infinity" : "-Infinity"
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0"
  const sign = x < 0 ? "-" : ""
  const [mant, expText] = Math.abs(x).toExponential().split("e") as [string, string]
  const exp = Number(expText)
  const digits = mant.replace(".", "")
  if (exp >= -4 && exp <= 15) {
    const point = exp + 1
    if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`
    if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}.0`
    return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`
  }
  const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits
  const e = Math.abs(exp) < 10 ? `0${Math.abs(exp)}` : `${Math.abs(exp)}`
  return `${sign}${m}e${exp < 0 ? "-" : "+"}${e}`
}

const encodeNumber = (x: number): string => Number.isInteger(x) ? (Object.is(x, -0) ? "0" : String(x)) : pyFloat(x)

const NEEDS_ESCAPE = /["\\\u0000-\u001f]/
const NEEDS_ESCAPE_ASCII = /["\\\u0000-\u001f\u0080-\uffff]/

const quote = (s: string, ascii: boolean): string => {
  if (!(ascii ? NEEDS_ESCAPE_ASCII : NEEDS_ESCAPE).test(s)) return "\"" + s + "\""
  let out = "\""
  let start = 0
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k)
    let rep: string | undefined
    if (c === 34) rep = "\\\""
    else if (c === 92) rep = "\\\\"
    else if (c === 10) rep = "\\n"
    else if (c === 13) rep = "\\r"
    else if (c === 9) rep = "\\t"
    else if (c === 8) rep = "\\b"
    else if (c === 12) rep = "\\f"
    else if (c < 32 || (ascii && c > 127)) rep = "\\u" + c.toString(16).padStart(4, "0")
    if (rep !== undefined) {
      out += s.slice(start, k) + rep
      start = k + 1
    }
  }
  return out + s.slice(start) + "\""
}

/** Compare strings by Unicode code point (Python's `sorted` on `str`). */
export const codePointCompare = (a: string, b: string): number => {
  const n = Math.min(a.length, b.length)
  for (let k = 0; k < n; k++) {
    const x = a.codePointAt(k)!
    const y = b.codePointAt(k)!
    if (x !== y) return x - y
    if (x > 0xffff) k++
  }
  return a.length - b.length
}

const isAsciiKey = (k: string): boolean => {
  for (let i = 0; i < k.length; i++) if (k.charCodeAt(i) > 0x7f) return false
  return true
}

const sortedKeys = (o: object): Array<string> => {
  const keys = Object.keys(o)
  for (let i = 0; i < keys.length; i++) if (!isAsciiKey(keys[i]!)) return keys.sort(codePointCompare)
  return keys.sort()
}

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof PyFloat)

const INTEGER_LIKE = /^(?:0|[1-9][0-9]*)$/
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/**
 * The fast path of {@link dumpsPretty}: V8's `JSON.stringify(…, null, 2)` already formats like
 * Python's `indent=2` (same separators, same escapes with `ensure_ascii=False`), so a key-sorted
 * copy is handed to it and the numbers whose text differs (integral floats, exponent forms) are
 * substituted afterwards through NUL-delimited markers. Returns `undefined` (use the slow path)
 * for inputs where that equivalence does not hold: a string or key containing NUL, a lone
 * surrogate, an integer-like key (JS would reorder it), or an integer too large for plain digits.
 */
const dumpsPrettyFast = (root: unknown): string | undefined => {
  const subs: Array<string> = []
  class Fallback {}
  const marker = (text: string): string => {
    subs.push(text)
    return "\u0000" + (subs.length - 1) + "\u0000"
  }
  const str = (x: string): string => {
    if (x.includes("\u0000") || LONE_SURROGATE.test(x)) throw new Fallback()
    return x
  }
  const copy = (v: unknown): unknown => {
    if (typeof v === "string") return str(v)
    if (typeof v === "number") {
      if (Number.isInteger(v)) {
        if (Math.abs(v) >= 1e21) throw new Fallback()
        return v
      }
      const py = pyFloat(v)
      return String(v) === py ? v : marker(py)
    }
    if (v === null || v === undefined || v === true || v === false) return v ?? null
    if (v instanceof PyFloat) return marker(pyFloat(v.value))
    if (Array.isArray(v)) {
      const out = new Array(v.length)
      for (let i = 0; i < v.length; i++) out[i] = copy(v[i])
      return out
    }
    if (isObj(v)) {
      const keys = sortedKeys(v)
      const out: Record<string, unknown> = {}
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i]!
        if (INTEGER_LIKE.test(k) || k === "__proto__") throw new Fallback()
        out[str(k)] = copy(v[k])
      }
      return out
    }
    return null
  }
  let sorted: unknown
  try {
    sorted = copy(root)
  } catch (e) {
    if (e instanceof Fallback) return undefined
    throw e
  }
  const text = JSON.stringify(sorted, null, 2)
  return subs.length === 0 ? text : text.replace(/"\\u0000(\d+)\\u0000"/g, (_, k: string) => subs[Number(k)]!)
}

/** `json.dumps(v, sort_keys=True, indent=2, ensure_ascii=False)` */
export const dumpsPretty = (v: unknown): string => dumpsPrettyFast(v) ?? dumpsPrettySlow(v)

/** The reference implementation of {@link dumpsPretty} (always exact). */
export const dumpsPrettySlow = (v: unknown): string => {
  let out = ""
  const go = (v: unknown, pad: string): void => {
    if (typeof v === "string") out += quote(v, false)
    else if (typeof v === "number") out += encodeNumber(v)
    else if (v === null || v === undefined) out += "null"
    else if (v === true) out += "true"
    else if (v === false) out += "false"
    else if (v instanceof PyFloat) out += pyFloat(v.value)
    else if (Array.isArray(v)) {
      if (v.length === 0) {
        out += "[]"
        return
      }
      const inner = pad + "  "
      out += "[\n" + inner
      for (let i = 0; i < v.length; i++) {
        if (i > 0) out += ",\n" + inner
        go(v[i], inner)
      }
      out += "\n" + pad + "]"
    } else if (isObj(v)) {
      const keys = sortedKeys(v)
      if (keys.length === 0) {
        out += "{}"
        return
      }
      const inner = pad + "  "
      out += "{\n" + inner
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i]!
        if (i > 0) out += ",\n" + inner
        out += quote(k, false) + ": "
        go(v[k], inner)
      }
      out += "\n" + pad + "}"
    } else out += "null"
  }
  go(v, "")
  return out
}

/** `json.dumps(v, sort_keys=True, separators=(",", ":"))` (ASCII-escaped). */
export const dumpsCompact = (v: unknown, ascii = true): string => {
  const go = (v: unknown): string => {
    if (v === null || v === undefined) return "null"
    if (v === true) return "true"
    if (v === false) return "false"
    if (typeof v === "number") return encodeNumber(v)
    if (v instanceof PyFloat) return pyFloat(v.value)
    if (typeof v === "string") return quote(v, ascii)
    if (Array.isArray(v)) return "[" + v.map(go).join(",") + "]"
    if (isObj(v)) return "{" + sortedKeys(v).map((k) => quote(k, ascii) + ":" + go(v[k])).join(",") + "}"
    return "null"
  }
  return go(v)
}

/** A number read by {@link parse}, whichever way it was written. */
export const numeric = (v: unknown): number | undefined =>
  typeof v === "number" ? v : v instanceof PyFloat ? v.value : undefined
