/**
 * Shell words: the literal value of a word-like node (quotes removed, escapes and ANSI-C strings
 * decoded, line continuations joined, `$HOME` spellings as `~`), whether it is resolved, and the
 * expansions bash applies to unquoted parts (brace alternatives, glob characters).
 *
 * @internal
 */
import type { Node } from "web-tree-sitter"
import { braceExpansion } from "./glob.js"

/** @internal */
export interface Word {
  /** The literal value (quotes removed, escapes applied) or the source text when unresolved. */
  readonly text: string
  /** False when the word contains an expansion the engine cannot resolve (`$X`, `$(…)`). */
  readonly resolved: boolean
  /** True when unquoted glob characters (`*`, `?`, `[…]`) make the word a filename pattern. */
  readonly glob?: boolean
  /** The words an unquoted brace expression expands to (`{/,/tmp/x}` → `/`, `/tmp/x`). */
  readonly braces?: ReadonlyArray<string>
}

/** @internal */
export const unescapeBare = (text: string): string => {
  if (!text.includes("\\")) return text
  let out = ""
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === "\\" && i + 1 < text.length) {
      const next = text[i + 1]!
      i++
      if (next === "\n") continue
      out += next
    } else out += c
  }
  return out
}

const unescapeDouble = (text: string): string =>
  text.includes("\\") ? text.replace(/\\([$`"\\\n])/g, (_, c: string) => c === "\n" ? "" : c) : text

/** @internal */
export const decodeAnsiC = (body: string): string =>
  body.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/g, (_, esc: string) => {
    switch (esc[0]) {
      case "n":
        return "\n"
      case "t":
        return "\t"
      case "r":
        return "\r"
      case "a":
        return "\u0007"
      case "b":
        return "\b"
      case "e":
      case "E":
        return "\u001b"
      case "f":
        return "\f"
      case "v":
        return "\v"
      case "x":
      case "u":
      case "U": {
        const code = parseInt(esc.slice(1), 16)
        return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : ""
      }
      case "c":
        return String.fromCharCode(esc.charCodeAt(1) & 0x1f)
      default:
        if (/^[0-7]+$/.test(esc)) return String.fromCharCode(parseInt(esc, 8) & 0xff)
        return esc
    }
  })

const isHomeExpansion = (node: Node): boolean => {
  const text = node.text
  return text === "$HOME" || text === "${HOME}" || /^\$\{HOME:[?-][^}]*\}$/.test(text)
}

/** A word's literal value and its glob form (quoted characters escaped with `\\`). */
interface Evaluated {
  readonly text: string
  readonly pattern: string
  readonly resolved: boolean
}

const quote = (text: string): string => text.replace(/[\\*?[\]{},~]/g, "\\$&")

const evaluate = (node: Node): Evaluated => {
  switch (node.type) {
    case "word": {
      // A line continuation inside a word joins it (`gi\<newline>t` is `git`).
      const raw = node.text.includes("\\\n") ? node.text.replace(/\\\n/g, "") : node.text
      return { text: unescapeBare(raw), pattern: raw, resolved: true }
    }
    case "number":
      return { text: node.text, pattern: node.text, resolved: true }
    case "raw_string": {
      const text = node.text.slice(1, -1)
      return { text, pattern: quote(text), resolved: true }
    }
    case "ansi_c_string": {
      const text = decodeAnsiC(node.text.slice(2, -1))
      return { text, pattern: quote(text), resolved: true }
    }
    case "translated_string": {
      const text = node.text.slice(2, -1)
      return { text, pattern: quote(text), resolved: true }
    }
    case "simple_expansion":
    case "expansion":
      return isHomeExpansion(node)
        ? { text: "~", pattern: "~", resolved: true }
        : { text: node.text, pattern: quote(node.text), resolved: false }
    case "string": {
      let text = ""
      let resolved = true
      for (const child of node.children) {
        if (child === null) continue
        if (!child.isNamed) continue
        if (child.type === "string_content") text += unescapeDouble(child.text)
        else if ((child.type === "simple_expansion" || child.type === "expansion") && isHomeExpansion(child)) {
          text += "~"
        } else {
          text += child.text
          resolved = false
        }
      }
      return { text, pattern: quote(text), resolved }
    }
    case "concatenation": {
      let text = ""
      let pattern = ""
      let resolved = true
      for (const child of node.children) {
        if (child === null) continue
        const part = evaluate(child)
        text += part.text
        pattern += part.pattern
        resolved = resolved && part.resolved
      }
      return { text, pattern, resolved }
    }
    case "command_substitution":
    case "process_substitution":
    case "arithmetic_expansion":
      return { text: node.text, pattern: quote(node.text), resolved: false }
    default:
      return { text: node.text, pattern: node.text, resolved: true }
  }
}

const GLOB = /[*?]|\[.*\]/
const UNQUOTED_BRACE = /(?:^|[^\\])(?:\\\\)*\{/

/** Evaluate a word-like node to its literal value where possible. @internal */
export const wordOf = (node: Node): Word => {
  const { pattern, resolved, text } = evaluate(node)
  let braces: Array<string> | undefined
  if (UNQUOTED_BRACE.test(pattern)) {
    try {
      const expanded = braceExpansion(pattern)
      if (expanded.length > 1) braces = expanded.map(unescapeBare)
    } catch {
      braces = undefined
    }
  }
  const glob = GLOB.test(pattern.replace(/\\./g, "")) || undefined
  return { text, resolved, ...(glob ? { glob } : {}), ...(braces ? { braces } : {}) }
}
