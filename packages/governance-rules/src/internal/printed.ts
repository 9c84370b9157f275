/**
 * What `echo` and `printf` print for literal arguments, exactly as bash's builtins do — the text a
 * pipe feeds the next stage (`printf '%s\n' CMD | sh`, `echo -e … | ex -s`) or `printf -v` stores.
 * Anything the engine cannot reproduce exactly (`%q`, a `*` width, a non-numeric `%d` argument,
 * an ambiguous escape) is unknown (`null`): a reader of unknown text fails closed.
 *
 * @internal
 */

/** Past this many characters the output is unknown (a time and memory bound). */
const MAX_OUTPUT = 20_000

const codePoint = (hex: string): string | null => {
  const code = parseInt(hex, 16)
  return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : null
}

const SIMPLE: Record<string, string> = {
  a: "\u0007",
  b: "\b",
  e: "\u001b",
  E: "\u001b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\"
}

/** What one backslash escape reads as: its text and how many characters after the backslash it used. */
type Escape = { readonly text: string; readonly used: number } | "stop" | null

/**
 * `\xHH`, `\uHHHH`, `\UHHHHHHHH`: `undefined` when no hex digit follows, `null` past Unicode.
 */
const hexEscape = (letter: string, after: string): Escape | undefined => {
  const max = letter === "x" ? 2 : letter === "u" ? 4 : 8
  const digits = new RegExp(`^[0-9a-fA-F]{1,${max}}`).exec(after)?.[0]
  if (digits === undefined) return undefined
  const decoded = codePoint(digits)
  return decoded === null ? null : { text: decoded, used: 1 + digits.length }
}

/** `echo -e` and `printf %b`: `\0nnn` octal, `\c` ends all output; `\nnn` without the zero is not read alike. */
const echoEscape = (next: string, after: string): Escape => {
  if (next === "c") return "stop"
  if (SIMPLE[next] !== undefined) return { text: SIMPLE[next], used: 1 }
  if (next === "0") {
    const digits = /^[0-7]{0,3}/.exec(after)![0]
    return { text: String.fromCharCode(parseInt(digits || "0", 8) & 0xff), used: 1 + digits.length }
  }
  if (/[1-7]/.test(next)) return null
  if (next === "x" || next === "u" || next === "U") return hexEscape(next, after) ?? { text: `\\${next}`, used: 1 }
  return { text: `\\${next}`, used: 1 }
}

/** A `printf` format: `\nnn` octal; `\c` and a hex escape without digits are not reproduced. */
const formatEscape = (next: string, after: string): Escape => {
  if (next === "c") return null
  if (SIMPLE[next] !== undefined || next === "\"" || next === "'" || next === "?") {
    return { text: SIMPLE[next] ?? next, used: 1 }
  }
  const octal = /^[0-7]{1,3}/.exec(next + after)?.[0]
  if (octal !== undefined) return { text: String.fromCharCode(parseInt(octal, 8) & 0xff), used: octal.length }
  if (next === "x" || next === "u" || next === "U") return hexEscape(next, after) ?? null
  return { text: `\\${next}`, used: 1 }
}

/** The text with its backslash escapes read by `escape`; `stop` when an escape ends all output. */
const readEscapes = (
  text: string,
  escape: (next: string, after: string) => Escape
): { readonly text: string; readonly stop: boolean } | null => {
  let out = ""
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c !== "\\" || i + 1 >= text.length) {
      out += c
      continue
    }
    const read = escape(text[i + 1]!, text.slice(i + 2))
    if (read === null) return null
    if (read === "stop") return { text: out, stop: true }
    out += read.text
    i += read.used
  }
  return { text: out, stop: false }
}

const echoEscapes = (text: string) => readEscapes(text, echoEscape)

const formatEscapes = (text: string): string | null => readEscapes(text, formatEscape)?.text ?? null

const pad = (text: string, flags: string, width: string): string => {
  const n = width === "" ? 0 : Number(width)
  if (text.length >= n) return text
  const fill = " ".repeat(n - text.length)
  return flags.includes("-") ? text + fill : fill + text
}

const INTEGER = /^[-+]?\d+$/
const CONVERSION = /%([-+ #0]*)(\d*)(?:\.(\d*))?([a-zA-Z%])/g

/** One conversion filled with its argument (`null`: not reproduced exactly). */
const convert = (
  spec: string,
  flags: string,
  width: string,
  precision: string | undefined,
  arg: string | undefined
): { readonly text: string; readonly stop: boolean } | null => {
  switch (spec) {
    case "s": {
      const value = arg ?? ""
      return {
        text: pad(precision === undefined ? value : value.slice(0, Number(precision)), flags, width),
        stop: false
      }
    }
    case "b": {
      const decoded = echoEscapes(arg ?? "")
      return decoded === null ? null : { text: pad(decoded.text, flags, width), stop: decoded.stop }
    }
    case "c":
      return { text: pad((arg ?? "").slice(0, 1), flags, width), stop: false }
    case "d":
    case "i":
    case "u":
    case "x":
    case "X":
    case "o": {
      if (precision !== undefined || /[+ #0]/.test(flags)) return null
      const value = arg ?? "0"
      if (!INTEGER.test(value)) return null
      const n = BigInt(value)
      if ((spec !== "d" && spec !== "i") && n < 0n) return null
      const text = spec === "x" ? n.toString(16) : spec === "X" ? n.toString(16).toUpperCase() : spec === "o"
        ? n.toString(8)
        : n.toString()
      return { text: pad(text, flags, width), stop: false }
    }
    default:
      return null
  }
}

/**
 * What `printf FORMAT ARGS…` prints: the format is reused while arguments remain (bash), missing
 * arguments are empty (or zero). `null` when any part cannot be reproduced exactly.
 */
export const printfOutput = (format: string, args: ReadonlyArray<string>): string | null => {
  let out = ""
  let next = 0
  do {
    const start = next
    let last = 0
    for (const m of format.matchAll(CONVERSION)) {
      // a `%` the pattern did not take (`%*d`) is a conversion the engine does not reproduce
      if (format.slice(last, m.index).includes("%")) return null
      const literal = formatEscapes(format.slice(last, m.index))
      if (literal === null) return null
      out += literal
      last = m.index + m[0].length
      if (m[4] === "%") {
        if (m[0] !== "%%") return null
        out += "%"
        continue
      }
      const filled = convert(m[4]!, m[1]!, m[2]!, m[3], args[next++])
      if (filled === null) return null
      out += filled.text
      if (filled.stop) return out
    }
    if (format.slice(last).includes("%")) return null
    const tail = formatEscapes(format.slice(last))
    if (tail === null) return null
    out += tail
    if (out.length > MAX_OUTPUT) return null
    if (next === start) break
  } while (next < args.length)
  return out
}

/** What `echo ARGS…` prints (`-n`, `-e`, `-E` as leading options, as bash's builtin reads them). */
export const echoOutput = (args: ReadonlyArray<string>): string | null => {
  let newline = true
  let escapes = false
  let i = 0
  for (; i < args.length && /^-[neE]+$/.test(args[i]!); i++) {
    for (const flag of args[i]!.slice(1)) {
      if (flag === "n") newline = false
      else escapes = flag === "e"
    }
  }
  const text = args.slice(i).join(" ")
  if (!escapes) return `${text}${newline ? "\n" : ""}`
  const decoded = echoEscapes(text)
  if (decoded === null) return null
  return decoded.stop ? decoded.text : `${decoded.text}${newline ? "\n" : ""}`
}

/**
 * What a literal `echo …` or `printf …` argv prints (the program named by its base name, so
 * `/bin/echo` too); `null` for any other program or output that cannot be reproduced exactly.
 */
export const printedBy = (argv: ReadonlyArray<string>): string | null => {
  const name = argv[0]?.replace(/^.*\//, "")
  const args = argv.slice(1)
  if (name === "echo") return echoOutput(args)
  if (name !== "printf") return null
  const operands = args[0] === "--" ? args.slice(1) : args
  const format = operands[0]
  if (format === undefined || (format.startsWith("-") && format !== "-")) return null
  return printfOutput(format, operands.slice(1))
}
