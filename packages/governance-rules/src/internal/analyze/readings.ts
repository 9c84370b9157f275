/**
 * Readings of what the engine could not resolve directly, and the text checks around them:
 * invisible characters, a literal split of input the grammar cannot parse, where bash (not the
 * grammar) ends a heredoc, every known program a glob in command position could name, and what
 * an unknown program might run. The readings are speculative (ADR 0204): they can only deny.
 *
 * @internal
 */
import * as Glob from "../glob.js"
import * as Network from "../network.js"
import type { SimpleCommand, Word } from "../shellSyntax.js"
import { DEV_TOOLS } from "./devTools.js"
import { type Analyzer, guard, isFlag, MAX_SEGMENTS, newSegment, type Segment, speculate, word } from "./model.js"
import { commandName, isWorkspaceFile } from "./paths.js"
import { interpreterOf, INTERPRETERS, NETWORK, PROGRAMS, SHELLS, STDIN_SHELLS, WRAPPERS } from "./programs.js"
import type { Nested } from "./shells.js"

/** Analyse an argv into a segment (the dispatcher's entry, passed in to avoid a cycle). @internal */
export type Argv = (segment: Segment, argv: ReadonlyArray<Word>, command: SimpleCommand, depth: number) => void

const MAX_NESTING = 8

// Characters that render as nothing or reorder text: C0/C1 controls (except tab and newline),
// a carriage return not followed by a newline (it makes a terminal overwrite the line), zero-width,
// bidi controls, word joiners, BOM, soft hyphen, combining grapheme joiner, tag characters.
const NON_PRINTING =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u00AD\u034F\u061C\u115F\u1160\u180E\u200B-\u200F\u2028\u2029\u202A-\u202E\u2060-\u206F\u3164\uFEFF\uFFA0\uFFF9-\uFFFB]|\uDB40[\uDC00-\uDC7F]|\r(?!\n)/

/** @internal */
export const hasNonPrinting = (text: string): boolean => NON_PRINTING.test(text)

const NON_PRINTING_ALL = new RegExp(NON_PRINTING.source, "g")

/** The text with every non-printing character removed (what a reader of the prompt sees). @internal */
export const stripNonPrinting = (text: string): string => text.replace(NON_PRINTING_ALL, "")

// Names a glob in command position is matched against: every program the engine knows, and the
// ones the universal layer is about.
const COMMAND_NAMES: ReadonlyArray<string> = [
  ...new Set([
    ...PROGRAMS.keys(),
    ...WRAPPERS.keys(),
    ...SHELLS.keys(),
    ...INTERPRETERS.keys(),
    "python",
    "python3",
    "su",
    "runuser",
    "mkfs",
    "mkfs.ext2",
    "mkfs.ext3",
    "mkfs.ext4",
    "mkfs.xfs",
    "mkfs.btrfs",
    "mkfs.vfat",
    "mkfs.fat",
    "mke2fs"
  ])
]

/** Whether a name is a program the engine knows. @internal */
export const isKnown = (name: string): boolean =>
  PROGRAMS.has(name) || DEV_TOOLS.has(name) || WRAPPERS.has(name) || SHELLS.has(name) ||
  interpreterOf(name) !== undefined ||
  STDIN_SHELLS.has(name) || NETWORK.has(name) || name === "su" || name === "runuser" || /^mkfs/.test(name)

// A literal reading of input the grammar could not parse: operators split, quotes stripped,
// braces expanded. Decided speculatively (it can only deny).
const NAIVE_SPLIT = /[;&|()\n`]|\$\(|<\(|>\(/

/** @internal */
export const analyzeNaive = (analyzer: Analyzer, source: string, depth: number, argv: Argv): void => {
  speculate(analyzer, () => {
    for (const chunk of source.split(NAIVE_SPLIT)) {
      const words: Array<Word> = []
      for (const token of chunk.split(/\s+/)) {
        if (token.length === 0 || token === "{" || token === "}") continue
        let expanded: Array<string>
        try {
          expanded = Glob.braceExpansion(token)
        } catch {
          expanded = [token]
        }
        for (const e of expanded) words.push({ text: e.replace(/['"\\]/g, ""), resolved: !e.includes("$") })
      }
      while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!.text)) words.shift()
      if (words.length === 0 || analyzer.out.length > MAX_SEGMENTS) continue
      const command: SimpleCommand = {
        text: chunk.trim().slice(0, 200),
        assignments: [],
        words,
        redirects: [],
        heredoc: null,
        stdinPiped: false,
        bareAssignment: false
      }
      argv(newSegment(analyzer, command.text), words, command, depth + 1)
    }
  })
}

/** Where bash ends each heredoc (`<<-` strips leading tabs): what follows is commands again. */
/** @internal */
export const heredocTails = (source: string): Array<string> => {
  const out: Array<string> = []
  for (const m of source.matchAll(/<<(-?)\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\2/g)) {
    const lineEnd = source.indexOf("\n", m.index)
    if (lineEnd < 0) continue
    const lines = source.slice(lineEnd + 1).split("\n")
    const end = lines.findIndex((line) => (m[1] === "-" ? line.replace(/^\t+/, "") : line) === m[3])
    if (end >= 0 && end + 1 < lines.length) out.push(lines.slice(end + 1).join("\n"))
  }
  return out
}

/** A glob in command position: ask, and decide every known program it could name. @internal */
export const globCommand = (
  analyzer: Analyzer,
  segment: Segment,
  argv: ReadonlyArray<Word>,
  command: SimpleCommand,
  depth: number,
  run: Argv
): void => {
  const head = argv[0]!.text
  segment.canonical = argv.map((w) => w.text).join(" ")
  guard(segment, "glob-command", head)
  let glob: Glob.Glob
  try {
    glob = Glob.compile(head.slice(head.lastIndexOf("/") + 1))
  } catch {
    return
  }
  speculate(analyzer, () => {
    for (const name of COMMAND_NAMES) {
      if (glob.test(name)) {
        run(newSegment(analyzer, `${name} …`), [word(name), ...argv.slice(1)], command, depth + 1)
      }
    }
  })
}

/**
 * An unknown program asks (a project file runs as routine work). What it might run is also read,
 * speculatively: an argv suffix that starts with a known program, a string argument that parses
 * as a command, and the metadata address in any argument — so an unknown wrapper around a
 * universal deny still denies.
 */
export const unknownProgram = (
  analyzer: Analyzer,
  segment: Segment,
  name: string,
  argv: ReadonlyArray<Word>,
  command: SimpleCommand,
  depth: number,
  nested: Nested
): void => {
  if (isWorkspaceFile(analyzer, argv[0]!.text)) return
  const known = isKnown(name)
  if (!known) guard(segment, "unknown-program", name)
  const args = argv.slice(1)
  if (known) {
    // A known tool handed a command line (`coverage run 'ssh …'`, `just --shell 'bash -c'`) may
    // run it: that asks, whatever the speculative reading below finds.
    for (const arg of args) {
      const line = arg.text.trim()
      if (arg.resolved && /\s/.test(line) && isKnown(commandName(analyzer, line.split(/\s+/)[0]!))) {
        guard(segment, "inline-code", `${name} ${line.slice(0, 200)}`)
      }
    }
  }
  speculate(analyzer, () => {
    const spec = newSegment(analyzer, segment.text)
    for (let i = 0; i < args.length && i < 32; i++) {
      const arg = args[i]!
      if (!arg.resolved) continue
      for (const host of Network.metadataIn(arg.text)) {
        spec.checks.push({ action: "fetch", resource: Network.hostUrl(host) })
      }
      if (!isFlag(arg.text) && isKnown(commandName(analyzer, arg.text))) nested.argv(args.slice(i), depth + 1)
      const eq = arg.text.indexOf("=")
      const value = (eq > 0 ? arg.text.slice(eq + 1) : arg.text).replace(/^(?:exec=|[\s:]*!)/, "")
      if (/\s/.test(value.trim()) && depth < MAX_NESTING) nested.source(value, depth + 1)
      // the whole argument too: `'dd if=/dev/zero of=/dev/sda'` is a command, not `if=…`
      if (eq > 0 && /\s/.test(arg.text.slice(0, eq)) && depth < MAX_NESTING) nested.source(arg.text, depth + 1)
    }
  })
}
