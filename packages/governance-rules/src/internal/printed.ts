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

/**
 * Backslash escapes as `echo -e` and `printf %b` read them (`\0nnn` octal, `\c` ends all output).
 * Returns the text and whether output stops there; `null` for a `\nnn` octal without the leading
 * zero, which bash's `%b` and `echo -e` do not read alike.
 */
const echoEscapes = (text: string): { readonly text: string; readonly stop: boolean } | null => {
  let out = ""
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c !== "\\" || i + 1 >= text.length) {
      out += c
      continue
    }
    const next = text[i + 1]!
    const rest = text.slice(i + 2)
    if (next === "c") return { text: out, stop: true }
    if (SIMPLE[next] !== undefined) {
      out += SIMPLE[next]
      i++
    } else if (next === "0") {
      const digits = /^[0-7]{0,3}/.exec(rest)![0]
      out += String.fromCharCode(parseInt(digits || "0", 8) & 0xff)
      i += 1 + digits.length
    } else if (/[1-7]/.test(next)) return null
    else if (next === "x" || next === "u" || next === "U") {
      const digits = new RegExp(`^[0-9a-fA-F]{1,${next === "x" ? 2 : next === "u" ? 4 : 8}}`).exec(rest)?.[0]
      if (digits === undefined) {
        out += `\\${next}`
        i++
        continue
      }
      const decoded = codePoint(digits)
      if (decoded === null) return null
      out += decoded
      i += 1 + digits.length
    } else {
      out += `\\${next}`
      i++
    }
  }
  return { text: out, stop: false }
}

/** Backslash escapes in a `printf` format (`\nnn` octal; an unknown escape keeps its backslash). */
const formatEscapes = (text: string): string | null => {
  let out = ""
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c !== "\\" || i + 1 >= text.length) {
      out += c
      continue
    }
    const next = text[i + 1]!
    const rest = text.slice(i + 1)
    const octal = /^[0-7]{1,3}/.exec(rest)?.[0]
    if (next === "c") return null
    if (SIMPLE[next] !== undefined || next === "\"" || next === "'" || next === "?") {
      out += SIMPLE[next] ?? next
      i++
    } else if (octal !== undefined) {
      out += String.fromCharCode(parseInt(octal, 8) & 0xff)
      i += octal.length
    } else if (next === "x" || next === "u" || next === "U") {
      const digits = new RegExp(`^[0-9a-fA-F]{1,${next === "x" ? 2 : next === "u" ? 4 : 8}}`).exec(rest.slice(1))?.[0]
      if (digits === undefined) return null
      const decoded = codePoint(digits)
      if (decoded === null) return null
      out += decoded
      i += 1 + digits.length
    } else {
      out += `\\${next}`
      i++
    }
  }
  return out
}

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
