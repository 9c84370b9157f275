/**
 * The strict JSON reader (RFC 8259): a scanner over the text (whitespace, strings, numbers, with
 * Python-style positions for errors) and the value parser over it (objects, arrays, literals).
 * It keeps `12` apart from `12.0` (a {@link PyFloat}) so a document written by Python
 * round-trips byte for byte.
 *
 * @internal
 */
import { type Json, JsonSyntaxError, PyFloat } from "./values.js"

const MAX_DEPTH = 256

/** The single-character escapes after a backslash (`\u` is handled apart). */
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  "\"": "\"",
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t"
}

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y
const HEX4 = /^[0-9a-fA-F]{4}$/
const LOW_SURROGATE_ESCAPE = /^\\u[dD][c-fC-F][0-9a-fA-F]{2}$/

/** Where the reader is, for messages: `$`, `findings[0].state_revision`. */
const where = (path: ReadonlyArray<string | number>): string =>
  path.length === 0
    ? "$"
    : path.map((p, k) => typeof p === "number" ? `[${p}]` : k === 0 ? p : `.${p}`).join("")

/** Unwinds the recursive descent to {@link parse} with the first error. */
class Stop {
  constructor(readonly error: JsonSyntaxError) {}
}

/** The scanner: a position in the text, the path to it, and the token readers. */
class Scanner {
  i = 0
  readonly n: number
  readonly path: Array<string | number> = []
  constructor(readonly text: string) {
    this.n = text.length
  }

  /** A syntax error at `at`, with Python's 1-based line and column. */
  fail(what: string, at = this.i): JsonSyntaxError {
    const text = this.text
    let line = 1
    let col = 1
    for (let k = 0; k < at && k < this.n; k++) {
      if (text.charCodeAt(k) === 10) {
        line++
        col = 1
      } else col++
    }
    return new JsonSyntaxError(what, line, col)
  }

  stop(what: string, at = this.i): Stop {
    return new Stop(this.fail(what, at))
  }

  ws(): void {
    const text = this.text
    while (this.i < this.n) {
      const c = text.charCodeAt(this.i)
      if (c === 32 || c === 9 || c === 10 || c === 13) this.i++
      else break
    }
  }

  /** A string, from its opening quote to past its closing one. */
  string(): string {
    const text = this.text
    this.i++
    let out = ""
    let start = this.i
    while (true) {
      if (this.i >= this.n) throw this.stop("Unterminated string starting", start - 1)
      const c = text.charCodeAt(this.i)
      if (c === 34) {
        out += text.slice(start, this.i)
        this.i++
        return out
      }
      if (c === 92) {
        out += text.slice(start, this.i)
        out += this.escape(out.length > 0 ? out.charCodeAt(out.length - 1) : 0)
        start = this.i
        continue
      }
      if (c < 32) throw this.stop("Invalid control character")
      this.i++
    }
  }

  /** The escape at the backslash under the cursor; `prev` is the code unit decoded before it. */
  private escape(prev: number): string {
    const e = this.text[this.i + 1]
    if (e !== "u") {
      if (e === undefined || !Object.hasOwn(SIMPLE_ESCAPES, e)) throw this.stop("Invalid \\escape")
      this.i += 2
      return SIMPLE_ESCAPES[e]!
    }
    const hex = this.text.slice(this.i + 2, this.i + 6)
    if (!HEX4.test(hex)) throw this.stop("Invalid \\uXXXX escape")
    const unit = parseInt(hex, 16)
    // invalid UTF-16 is refused at the boundary (issue 16): a high surrogate must be followed
    // by a low one, a low one must follow a high one
    const lone = unit >= 0xd800 && unit <= 0xdbff
      ? !LOW_SURROGATE_ESCAPE.test(this.text.slice(this.i + 6, this.i + 12))
      : unit >= 0xdc00 && unit <= 0xdfff && !(prev >= 0xd800 && prev <= 0xdbff)
    if (lone) throw this.stop(`Lone surrogate \\u${hex} (invalid UTF-16) at ${where(this.path)}`)
    this.i += 6
    return String.fromCharCode(unit)
  }

  /** A number: exact integers within ±(2^53 − 1), integral floats kept as {@link PyFloat}. */
  number(): number | PyFloat {
    NUMBER.lastIndex = this.i
    const r = NUMBER.exec(this.text)
    if (r === null) throw this.stop("Expecting value")
    this.i += r[0].length
    const v = Number(r[0])
    if (!Number.isFinite(v)) throw this.stop("Number out of range")
    const written = r[1] !== undefined || r[2] !== undefined
    if (!written && !Number.isSafeInteger(v)) {
      throw this.stop(
        `integer ${r[0]} at ${where(this.path)} is beyond 2^53 and cannot be kept exactly`,
        this.i - r[0].length
      )
    }
    if (written && Number.isInteger(v)) return new PyFloat(v)
    return v
  }

  /** Consume `word` if the text continues with it. */
  literal(word: string): boolean {
    if (!this.text.startsWith(word, this.i)) return false
    this.i += word.length
    return true
  }
}

/** The value parser: recursive descent over the scanner's tokens. */
class Parser extends Scanner {
  value(depth: number): Json {
    if (depth > MAX_DEPTH) throw this.stop("Nesting too deep")
    this.ws()
    if (this.i >= this.n) throw this.stop("Expecting value")
    const c = this.text[this.i]!
    if (c === "{") return this.object(depth)
    if (c === "[") return this.array(depth)
    if (c === "\"") return this.string()
    if (this.literal("true")) return true
    if (this.literal("false")) return false
    if (this.literal("null")) return null
    return this.number()
  }

  private object(depth: number): Json {
    this.i++
    const obj: Record<string, Json> = {}
    this.ws()
    if (this.text[this.i] === "}") {
      this.i++
      return obj
    }
    while (true) {
      this.ws()
      if (this.text[this.i] !== "\"") throw this.stop("Expecting property name enclosed in double quotes")
      const keyAt = this.i
      const key = this.string()
      if (Object.hasOwn(obj, key)) {
        this.path.push(key)
        const at = where(this.path)
        this.path.pop()
        throw this.stop(`duplicate key '${key}' at ${at}: a key given twice has no one value`, keyAt)
      }
      this.ws()
      if (this.text[this.i] !== ":") throw this.stop("Expecting ':' delimiter")
      this.i++
      this.path.push(key)
      const v = this.value(depth + 1)
      this.path.pop()
      if (key === "__proto__") {
        Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true })
      } else obj[key] = v
      if (this.closes("}")) return obj
    }
  }

  private array(depth: number): Json {
    this.i++
    const arr: Array<Json> = []
    this.ws()
    if (this.text[this.i] === "]") {
      this.i++
      return arr
    }
    while (true) {
      this.path.push(arr.length)
      arr.push(this.value(depth + 1))
      this.path.pop()
      if (this.closes("]")) return arr
    }
  }

  /** After a member: `,` continues (false), `close` ends (true), anything else is an error. */
  private closes(close: "}" | "]"): boolean {
    this.ws()
    const c = this.text[this.i]
    if (c === ",") {
      this.i++
      return false
    }
    if (c === close) {
      this.i++
      return true
    }
    throw this.stop("Expecting ',' delimiter")
  }
}

/**
 * Parse strict JSON (RFC 8259). Stricter than Python where silence would lose data: a key given
 * twice in one object, and an integer beyond ±(2^53 − 1) (which a double would round), are
 * errors naming the key or field and where it is.
 */
export const parse = (text: string): Json | JsonSyntaxError => {
  const parser = new Parser(text)
  try {
    const v = parser.value(0)
    parser.ws()
    if (parser.i < parser.n) return parser.fail("Extra data")
    return v
  } catch (e) {
    if (e instanceof Stop) return e.error
    throw e
  }
}
