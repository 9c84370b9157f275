/**
 * Python-compatible JSON writers: `json.dumps` with `sort_keys=True`, pretty (`indent=2`,
 * `ensure_ascii=False`) and compact, byte for byte.
 *
 * @internal
 */
import { isObj, PyFloat } from "./values.js"

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
