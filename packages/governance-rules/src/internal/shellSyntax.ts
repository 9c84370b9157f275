/**
 * Syntax layer of shell understanding: walk a tree-sitter-bash tree and collect every simple
 * command wherever it appears (lists, pipelines, `&`, subshells, groups, command and process
 * substitution, heredocs, conditions) with its words evaluated to literal text where that is
 * possible. Pure and context-free, so the result can be cached per command string.
 *
 * @internal
 */
import type { Node } from "web-tree-sitter"

/** @internal */
export interface Word {
  /** The literal value (quotes removed, escapes applied) or the source text when unresolved. */
  readonly text: string
  /** False when the word contains an expansion the engine cannot resolve (`$X`, `$(…)`). */
  readonly resolved: boolean
}

/** @internal */
export interface Redirect {
  /** `>`, `>>`, `<`, `&>`, `&>>`, `>|`, `<>`, `>&`, `<&`. */
  readonly op: string
  readonly target: Word | null
}

/** @internal */
export interface SimpleCommand {
  readonly text: string
  readonly assignments: ReadonlyArray<{ readonly name: string; readonly value: Word }>
  readonly words: ReadonlyArray<Word>
  readonly redirects: ReadonlyArray<Redirect>
  /** Heredoc body (raw) feeding this command's stdin, if any. */
  readonly heredoc: string | null
  /** True when stdin comes from a pipe. */
  readonly stdinPiped: boolean
  /** True for a bare `NAME=value` statement (or `export NAME=value`). */
  readonly bareAssignment: boolean
}

/** @internal */
export type SyntaxIssueId = "parse-error" | "function-definition" | "control-flow" | "too-deep"

/** @internal */
export interface SyntaxIssue {
  readonly id: SyntaxIssueId
  readonly segment: string
}

/** @internal */
export interface Script {
  readonly commands: ReadonlyArray<SimpleCommand>
  readonly issues: ReadonlyArray<SyntaxIssue>
}

const CONTROL_FLOW = new Set([
  "if_statement",
  "while_statement",
  "for_statement",
  "c_style_for_statement",
  "case_statement"
])

const MAX_DEPTH = 200

const unescapeBare = (text: string): string => {
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

const decodeAnsiC = (body: string): string =>
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
  return text === "$HOME" || text === "${HOME}"
}

/** Evaluate a word-like node to its literal value where possible. @internal */
export const wordOf = (node: Node): Word => {
  switch (node.type) {
    case "word":
      return { text: unescapeBare(node.text), resolved: true }
    case "number":
      return { text: node.text, resolved: true }
    case "raw_string":
      return { text: node.text.slice(1, -1), resolved: true }
    case "ansi_c_string":
      return { text: decodeAnsiC(node.text.slice(2, -1)), resolved: true }
    case "translated_string":
      return { text: node.text.slice(2, -1), resolved: true }
    case "simple_expansion":
    case "expansion":
      return isHomeExpansion(node) ? { text: "~", resolved: true } : { text: node.text, resolved: false }
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
      return { text, resolved }
    }
    case "concatenation": {
      let text = ""
      let resolved = true
      for (const child of node.children) {
        if (child === null) continue
        const part = wordOf(child)
        text += part.text
        resolved = resolved && part.resolved
      }
      return { text, resolved }
    }
    case "command_substitution":
    case "process_substitution":
    case "arithmetic_expansion":
      return { text: node.text, resolved: false }
    default:
      return { text: node.text, resolved: true }
  }
}

const isPiped = (node: Node): boolean => {
  let current: Node | null = node
  // A redirected_statement wraps the command inside the pipeline.
  if (current.parent !== null && current.parent.type === "redirected_statement") current = current.parent
  const previous = current.previousSibling
  return previous !== null && (previous.type === "|" || previous.type === "|&")
}

const redirectOf = (node: Node): Redirect | null => {
  if (node.type === "file_redirect") {
    let op = ""
    let target: Word | null = null
    for (let i = 0; i < node.childCount; i++) {
      const child = node.child(i)
      if (child === null) continue
      const field = node.fieldNameForChild(i)
      if (field === "destination") target = target === null ? wordOf(child) : target
      else if (!child.isNamed) op += child.type
    }
    return { op: op.length > 0 ? op : ">", target }
  }
  return null
}

const heredocBody = (node: Node): string | null => {
  for (const child of node.children) {
    if (child !== null && child.type === "heredoc_body") return child.text
  }
  return null
}

const commandOf = (node: Node, extraRedirects: ReadonlyArray<Node>): SimpleCommand => {
  const assignments: Array<{ name: string; value: Word }> = []
  const words: Array<Word> = []
  const redirects: Array<Redirect> = []
  let heredoc: string | null = null
  const collectRedirect = (child: Node) => {
    const redirect = redirectOf(child)
    if (redirect !== null) redirects.push(redirect)
    else if (child.type === "heredoc_redirect") heredoc = heredocBody(child)
  }
  for (const child of node.children) {
    if (child === null || !child.isNamed) continue
    switch (child.type) {
      case "variable_assignment": {
        const name = child.childForFieldName("name")
        const value = child.childForFieldName("value")
        assignments.push({
          name: name === null ? "" : name.text,
          value: value === null ? { text: "", resolved: true } : wordOf(value)
        })
        break
      }
      case "command_name": {
        const inner = child.namedChild(0)
        words.push(inner === null ? { text: child.text, resolved: true } : wordOf(inner))
        break
      }
      case "file_redirect":
      case "heredoc_redirect":
      case "herestring_redirect":
        collectRedirect(child)
        break
      case "comment":
        break
      default:
        words.push(wordOf(child))
    }
  }
  for (const redirect of extraRedirects) collectRedirect(redirect)
  return {
    text: node.parent !== null && node.parent.type === "redirected_statement" ? node.parent.text : node.text,
    assignments,
    words,
    redirects,
    heredoc,
    stdinPiped: isPiped(node),
    bareAssignment: false
  }
}

const redirectsOf = (statement: Node): Array<Node> => {
  const out: Array<Node> = []
  for (let i = 0; i < statement.childCount; i++) {
    if (statement.fieldNameForChild(i) === "redirect") {
      const child = statement.child(i)
      if (child !== null) out.push(child)
    }
  }
  return out
}

/** Collect every simple command and every syntax issue in a parsed tree. @internal */
export const collect = (root: Node): Script => {
  const commands: Array<SimpleCommand> = []
  const issues: Array<SyntaxIssue> = []
  const seen = new Set<SyntaxIssueId>()
  const issue = (id: SyntaxIssueId, segment: string) => {
    if (seen.has(id)) return
    seen.add(id)
    issues.push({ id, segment: segment.length > 200 ? `${segment.slice(0, 200)}…` : segment })
  }
  if (root.hasError) issue("parse-error", root.text)
  const stack: Array<readonly [Node, number]> = [[root, 0]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!
    if (depth > MAX_DEPTH) {
      issue("too-deep", node.text)
      continue
    }
    const type = node.type
    if (type === "ERROR" || node.isMissing) issue("parse-error", node.text)
    else if (type === "function_definition") issue("function-definition", node.text)
    else if (CONTROL_FLOW.has(type)) issue("control-flow", node.text)
    if (type === "command") {
      const parent = node.parent
      const extra = parent !== null && parent.type === "redirected_statement" &&
          parent.childForFieldName("body")?.id === node.id
        ? redirectsOf(parent)
        : []
      commands.push(commandOf(node, extra))
    } else if (type === "redirected_statement") {
      const body = node.childForFieldName("body")
      if (body === null || body.type !== "command") {
        const redirects: Array<Redirect> = []
        let heredoc: string | null = null
        for (const child of redirectsOf(node)) {
          const redirect = redirectOf(child)
          if (redirect !== null) redirects.push(redirect)
          else if (child.type === "heredoc_redirect") heredoc = heredocBody(child)
        }
        commands.push({
          text: node.text,
          assignments: [],
          words: [],
          redirects,
          heredoc,
          stdinPiped: false,
          bareAssignment: false
        })
      }
    } else if (type === "variable_assignment" && node.parent?.type !== "command") {
      const name = node.childForFieldName("name")
      const value = node.childForFieldName("value")
      commands.push({
        text: node.text,
        assignments: [{
          name: name === null ? "" : name.text,
          value: value === null ? { text: "", resolved: true } : wordOf(value)
        }],
        words: [],
        redirects: [],
        heredoc: null,
        stdinPiped: false,
        bareAssignment: true
      })
    }
    for (let i = node.childCount - 1; i >= 0; i--) {
      const child = node.child(i)
      if (child !== null && child.childCount > 0) stack.push([child, depth + 1])
      else if (child !== null && (child.type === "ERROR" || child.isMissing)) issue("parse-error", child.text)
    }
  }
  return { commands, issues }
}

/**
 * A literal fallback for input the parser must not see (over the size limit): split on shell
 * operators and whitespace, strip quotes. Used only to find universal denies literally.
 *
 * @internal
 */
export const naive = (source: string): ReadonlyArray<SimpleCommand> => {
  const out: Array<SimpleCommand> = []
  for (const chunk of source.split(/[;&|()\n{}`]|\$\(|<\(|>\(/)) {
    const words = chunk.split(/\s+/).filter((w) => w.length > 0).map((w): Word => ({
      text: w.replace(/^['"]|['"]$/g, ""),
      resolved: !w.includes("$")
    }))
    if (words.length === 0) continue
    const assignments: Array<{ name: string; value: Word }> = []
    while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!.text)) {
      const [name, ...rest] = words.shift()!.text.split("=")
      assignments.push({ name: name!, value: { text: rest.join("="), resolved: true } })
    }
    out.push({
      text: chunk.trim().slice(0, 200),
      assignments,
      words,
      redirects: [],
      heredoc: null,
      stdinPiped: false,
      bareAssignment: words.length === 0
    })
  }
  return out
}
