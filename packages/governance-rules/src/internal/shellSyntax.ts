/**
 * Syntax layer of shell understanding: walk a tree-sitter-bash tree and collect every simple
 * command wherever it appears (lists, pipelines, `&`, subshells, groups, command and process
 * substitution, heredocs, conditions) with its words evaluated to literal text where that is
 * possible. Pure and context-free, so the result can be cached per command string.
 *
 * @internal
 */
import type { Node } from "web-tree-sitter"
import { printedBy } from "./printed.js"
import { type Word, wordOf } from "./shellWords.js"

export { type Word, wordOf } from "./shellWords.js"

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
  /** True when stdin comes from a pipe (or a here-string the engine cannot resolve). */
  readonly stdinPiped: boolean
  /** True when stdout feeds a pipe (what it prints is the next stage's input). */
  readonly stdoutPiped?: boolean
  /** What a pipe feeds this command when the engine can tell: a literal `echo`, `printf` or heredoc. */
  readonly stdinText?: string | null
  /**
   * The argv of each command of the pipe's previous stage (`sudo echo …`, `(printf …)`): what
   * they may print is read speculatively when `stdinText` is unknown.
   */
  readonly stdinWriters?: ReadonlyArray<ReadonlyArray<Word>>
  /** True for a bare `NAME=value` statement (or `export NAME=value`). */
  readonly bareAssignment: boolean
}

/** @internal */
export type SyntaxIssueId = "parse-error" | "function-definition" | "too-deep"

/** @internal */
export interface SyntaxIssue {
  readonly id: SyntaxIssueId
  readonly segment: string
}

/** @internal */
export interface Script {
  readonly commands: ReadonlyArray<SimpleCommand>
  readonly issues: ReadonlyArray<SyntaxIssue>
  /** Sources bash parses again that the grammar keeps as text (escaped backticks inside backticks). */
  readonly nested: ReadonlyArray<string>
  /**
   * The insides of `$((…))`, which a shell may read as `$( (…) )`, a subshell's output, when they
   * are not arithmetic (POSIX leaves the two readings to the shell). Decided speculatively.
   */
  readonly subshellReadings: ReadonlyArray<string>
}

const MAX_DEPTH = 200

const isPiped = (node: Node): boolean => {
  let current: Node | null = node
  // A redirected_statement wraps the command inside the pipeline.
  if (current.parent !== null && current.parent.type === "redirected_statement") current = current.parent
  const previous = current.previousSibling
  return previous !== null && (previous.type === "|" || previous.type === "|&")
}

const feedsPipe = (node: Node): boolean => {
  const current = node.parent !== null && node.parent.type === "redirected_statement" ? node.parent : node
  const next = current.nextSibling
  return next !== null && (next.type === "|" || next.type === "|&")
}

/** The words of a `command` node (its name and arguments; assignments before it left out). */
const argvOf = (command: Node): Array<Word> => {
  const words: Array<Word> = []
  for (const child of command.namedChildren) {
    if (child === null) continue
    if (child.type === "command_name") {
      const inner = child.namedChild(0)
      if (inner !== null) words.push(wordOf(inner))
    } else if (
      child.type !== "variable_assignment" && child.type !== "file_redirect" && child.type !== "heredoc_redirect" &&
      child.type !== "herestring_redirect"
    ) words.push(wordOf(child))
  }
  return words
}

const MAX_WRITERS = 16

/**
 * What feeds a pipeline stage: the text, when the previous stage is a literal `echo`/`printf`
 * (exactly as bash prints it) or `cat` of a heredoc; and the argv of every command in the
 * previous stage (`sudo echo …`, `(printf …)`), from which the analyser reads what they may print.
 */
const upstreamOf = (node: Node): { readonly text: string | null; readonly writers: Array<ReadonlyArray<Word>> } => {
  const none = { text: null, writers: [] }
  let current: Node = node
  if (current.parent !== null && current.parent.type === "redirected_statement") current = current.parent
  const bar = current.previousSibling
  if (bar === null || (bar.type !== "|" && bar.type !== "|&")) return none
  let upstream = bar.previousSibling
  if (upstream === null) {
    // `cat <<EOF | sh`: the grammar nests the rest of the pipeline inside the heredoc redirect.
    const redirect = current.parent?.parent
    const statement = redirect?.parent
    if (redirect?.type !== "heredoc_redirect" || statement?.type !== "redirected_statement") return none
    const text = statement.childForFieldName("body")?.text.trim() === "cat" ? heredocBody(redirect) : null
    return { text, writers: [] }
  }
  if (upstream.type === "redirected_statement") {
    const body = upstream.childForFieldName("body")
    for (const child of redirectsOf(upstream)) {
      if (child.type === "heredoc_redirect" && body?.type === "command" && body.text.trim() === "cat") {
        return { text: heredocBody(child), writers: [] }
      }
    }
    if (body === null) return none
    upstream = body
  }
  const commands = upstream.type === "command" ? [upstream] : upstream.descendantsOfType("command")
  const writers = commands.slice(0, MAX_WRITERS).flatMap((c) => c === null ? [] : [argvOf(c)])
  if (upstream.type !== "command") return { text: null, writers }
  const words = writers[0]!
  const text = words.every((w) => w.resolved) ? printedBy(words.map((w) => w.text)) : null
  return { text, writers }
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
    // `1<>FILE` opens for reading and writing (the grammar leaves the `>` in an error node).
    if (/^\d*<>/.test(node.text)) op = "<>"
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
  let herestringUnresolved = false
  const collectRedirect = (child: Node) => {
    const redirect = redirectOf(child)
    if (redirect !== null) redirects.push(redirect)
    else if (child.type === "heredoc_redirect") heredoc = heredocBody(child)
    else if (child.type === "herestring_redirect") {
      // `<<< WORD` feeds WORD and a newline to stdin.
      const value = child.namedChild(child.namedChildCount - 1)
      if (value !== null) {
        const word = wordOf(value)
        heredoc = word.resolved ? `${word.text}\n` : null
        if (!word.resolved) herestringUnresolved = true
      }
    }
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
  const upstream = upstreamOf(node)
  return {
    text: node.parent !== null && node.parent.type === "redirected_statement" ? node.parent.text : node.text,
    assignments,
    words,
    redirects,
    heredoc,
    stdinPiped: isPiped(node) || herestringUnresolved,
    stdinText: upstream.text,
    ...(upstream.writers.length > 0 ? { stdinWriters: upstream.writers } : {}),
    stdoutPiped: feedsPipe(node),
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

// Statements the grammar does not parse as commands but bash runs as builtins.
const BUILTIN_STATEMENTS = new Set(["declaration_command", "unset_command", "test_command"])
const OPERAND_TYPES = new Set([
  "word",
  "raw_string",
  "string",
  "concatenation",
  "number",
  "test_operator",
  "simple_expansion",
  "expansion",
  "command_substitution",
  "ansi_c_string",
  "variable_name"
])

/** `declare -n r=PS4`, `unset 'a[…]'`, `[[ -v x ]]` as a command: the keyword, then its operands. */
const builtinStatement = (node: Node): SimpleCommand => {
  const words: Array<Word> = [{ text: node.type === "test_command" ? "[[" : node.child(0)?.text ?? "", resolved: true }]
  const walk = (n: Node): void => {
    for (const child of n.namedChildren) {
      if (child === null) continue
      if (child.type === "variable_assignment") {
        const name = child.childForFieldName("name")?.text ?? ""
        const value = child.childForFieldName("value")
        const v = value === null ? { text: "", resolved: true } : wordOf(value)
        words.push({ text: `${name}=${v.text}`, resolved: v.resolved })
      } else if (OPERAND_TYPES.has(child.type)) words.push(wordOf(child))
      else walk(child)
    }
  }
  walk(node)
  return {
    text: node.text,
    assignments: [],
    words,
    redirects: [],
    heredoc: null,
    stdinPiped: false,
    bareAssignment: false
  }
}

/** Collect every simple command and every syntax issue in a parsed tree. @internal */
export const collect = (root: Node): Script => {
  const commands: Array<SimpleCommand> = []
  const issues: Array<SyntaxIssue> = []
  const nested: Array<string> = []
  const subshellReadings: Array<string> = []
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
    if (type === "command_substitution" && node.text.startsWith("`") && node.text.includes("\\`")) {
      // Inside backticks, `\`…\`` is a nested command substitution.
      nested.push(node.text.slice(1, -1).replace(/\\([`$\\])/g, "$1"))
    }
    if (type === "arithmetic_expansion" && node.text.startsWith("$((") && node.text.endsWith("))")) {
      subshellReadings.push(node.text.slice(3, -2))
    }
    if (BUILTIN_STATEMENTS.has(type)) {
      commands.push(builtinStatement(node))
    } else if (type === "command") {
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
  return { commands, issues, nested, subshellReadings }
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
