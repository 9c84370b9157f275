/**
 * Semantic layer of shell understanding: turn each simple command into a segment with a
 * canonical argv (wrappers unwrapped, flags normalized, refspecs folded) and the checks it
 * implies (the shell check itself, files read or written, network destinations), plus guards
 * for what the engine cannot resolve. This module dispatches; each command family has its own
 * module (`wrappers`, `shells`, `git`, `network`, `files`, `builtins`, `tools`, `paths`).
 *
 * @internal
 */
import type { ParsedCommand } from "../../ShellParser.js"
import * as Glob from "../glob.js"
import * as Network from "../network.js"
import type { SimpleCommand, Word } from "../shellSyntax.js"
import { analyzeBuiltin, bareAssignmentValue, ENVIRONMENT } from "./builtins.js"
import { analyzeAssignments } from "./environment.js"
import { analyzeAwk, analyzeDd, analyzeFind, analyzeKnown, analyzeRm, analyzeSed } from "./files.js"
import { analyzeGit } from "./git.js"
import {
  type Analyzer,
  type Context,
  guard,
  isFlag,
  joinArgv,
  MAX_SEGMENTS,
  newSegment,
  type Segment,
  speculate,
  word
} from "./model.js"
import { addFetch, analyzeNetwork } from "./network.js"
import { addPath, commandName, executes, isWorkspaceFile } from "./paths.js"
import { interpreterOf, INTERPRETERS, NETWORK, PROGRAMS, RUNNERS, SHELLS, STDIN_SHELLS, WRAPPERS } from "./programs.js"
import {
  analyzeEval,
  analyzeInterpreter,
  analyzeShell,
  analyzeSource as analyzeSourceFile,
  analyzeSu,
  type Nested
} from "./shells.js"
import { analyzeContainer, subcommandFirst } from "./tools.js"
import { unwrap } from "./wrappers.js"

export { type Check, type Context, type Guard, type GuardId, guardReasons, type Segment } from "./model.js"

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

const GIT_SUBCOMMANDS =
  /^git-(push|pull|fetch|clone|commit|rebase|reset|clean|merge|checkout|switch|branch|tag|remote|config|submodule|bisect|worktree|filter-branch|send-pack|http-push|archive|difftool|mergetool|stash|lfs|log|diff|show|status|add|rm|mv|apply|am|cherry-pick|revert|gc|prune|reflog|update-ref|update-index|checkout-index|hash-object|notes|format-patch|shell)$/

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

const isKnown = (name: string): boolean =>
  PROGRAMS.has(name) || WRAPPERS.has(name) || SHELLS.has(name) || interpreterOf(name) !== undefined ||
  STDIN_SHELLS.has(name) || NETWORK.has(name) || name === "su" || name === "runuser" || /^mkfs/.test(name)

const nestedOf = (analyzer: Analyzer, command: SimpleCommand): Nested => ({
  source: (source, depth) => analyzeSource(analyzer, source, depth, null),
  speculative: (source, depth) => speculate(analyzer, () => analyzeSource(analyzer, source, depth, null)),
  argv: (argv, depth) => {
    if (argv.length > 0) {
      analyzeArgv(
        analyzer,
        newSegment(analyzer, argv.map((w) => w.text).join(" ")),
        argv,
        command,
        depth,
        false
      )
    }
  },
  argvIn: (segment, argv, depth, cmd, stdinArgs) => analyzeArgv(analyzer, segment, argv, cmd, depth, stdinArgs)
})

// A literal reading of input the grammar could not parse: operators split, quotes stripped,
// braces expanded. Decided speculatively (it can only deny).
const NAIVE_SPLIT = /[;&|()\n`]|\$\(|<\(|>\(/

const analyzeNaive = (analyzer: Analyzer, source: string, depth: number): void => {
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
      analyzeArgv(analyzer, newSegment(analyzer, command.text), words, command, depth + 1, false)
    }
  })
}

/** Where bash ends each heredoc (`<<-` strips leading tabs): what follows is commands again. */
const heredocTails = (source: string): Array<string> => {
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

const analyzeParsed = (analyzer: Analyzer, parsed: ParsedCommand, depth: number, origin: Segment | null): void => {
  for (const issue of parsed.issues) {
    guard(origin ?? newSegment(analyzer, issue.segment), issue.id, issue.segment)
    if (issue.id === "parse-error") analyzeNaive(analyzer, parsed.source, depth)
  }
  for (const command of parsed.commands) analyzeCommand(analyzer, command, depth, false)
  for (const nested of parsed.nested ?? []) analyzeSource(analyzer, nested, depth + 1, null)
}

/** Analyze a whole source string (top level or nested: `bash -c`, env values, eval, watch). */
const analyzeSource = (analyzer: Analyzer, source: string, depth: number, origin: Segment | null): void => {
  if (depth > MAX_NESTING) {
    guard(origin ?? newSegment(analyzer, source), "too-deep", source.slice(0, 200))
    return
  }
  if (hasNonPrinting(source)) {
    guard(origin ?? newSegment(analyzer, source), "non-printing", source.slice(0, 200))
    // Also decide what the text says once the invisible characters are gone: a universal deny
    // hidden behind them still denies (the guard keeps the floor at ask).
    analyzeParsed(analyzer, analyzer.context.parse(stripNonPrinting(source)), depth + 1, origin)
  }
  analyzeParsed(analyzer, analyzer.context.parse(source), depth, origin)
}

const expandBraces = (words: ReadonlyArray<Word>): ReadonlyArray<Word> =>
  words.some((w) => w.braces !== undefined)
    ? words.flatMap((w) =>
      w.braces === undefined
        ? [w]
        : w.braces.map((text) => ({ text, resolved: true, ...(/[*?[]/.test(text) ? { glob: true } : {}) }))
    )
    : words

const analyzeCommand = (analyzer: Analyzer, command: SimpleCommand, depth: number, stdinArgs: boolean): void => {
  if (analyzer.out.length > MAX_SEGMENTS) {
    guard(analyzer.out[0] ?? newSegment(analyzer, command.text), "too-complex", command.text.slice(0, 200))
    return
  }
  const segment = newSegment(analyzer, command.text)
  const nested = nestedOf(analyzer, command)
  analyzeAssignments(analyzer, segment, command.assignments, (source) => nested.source(source, depth + 1))
  for (const redirect of command.redirects) {
    const target = redirect.target
    if (target === null) continue
    const dup = redirect.op.endsWith("&") || redirect.op === "<&" || redirect.op === ">&"
    if (dup && /^(?:\d+|-)$/.test(target.text)) continue
    addPath(analyzer, segment, redirect.op.includes(">") ? "write" : "read", target)
    if (redirect.op === "<>") addPath(analyzer, segment, "read", target)
  }
  if (command.bareAssignment) {
    // `FOO=1` / `export FOO=1`: decided as a (harmless unless guarded) shell statement.
    segment.canonical = command.text
    segment.checks.push({ action: "shell", resource: command.text })
    for (const { value } of command.assignments) bareAssignmentValue(value, depth, nested)
    return
  }
  if (command.words.length === 0) return
  analyzeArgv(analyzer, segment, expandBraces(command.words), command, depth, stdinArgs)
}

/** A glob in command position: ask, and decide every known program it could name. */
const globCommand = (
  analyzer: Analyzer,
  segment: Segment,
  argv: ReadonlyArray<Word>,
  command: SimpleCommand,
  depth: number
) => {
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
        analyzeArgv(
          analyzer,
          newSegment(analyzer, `${name} …`),
          [word(name), ...argv.slice(1)],
          command,
          depth + 1,
          false
        )
      }
    }
  })
}

const analyzeArgv = (
  analyzer: Analyzer,
  segment: Segment,
  initial: ReadonlyArray<Word>,
  command: SimpleCommand,
  depth: number,
  initialStdinArgs: boolean
): void => {
  let argv = initial
  let stdinArgs = initialStdinArgs
  const nested = nestedOf(analyzer, command)
  for (let round = 0; round < 16; round++) {
    const head = argv[0]
    if (head === undefined) {
      segment.canonical = ""
      return
    }
    if (!head.resolved) {
      segment.canonical = argv.map((w) => w.text).join(" ")
      guard(segment, "unresolved-command", head.text)
      return
    }
    if (head.glob === true) return globCommand(analyzer, segment, argv, command, depth)
    let name = commandName(analyzer, head.text)
    let args = argv.slice(1)
    const dashed = GIT_SUBCOMMANDS.exec(name)
    if (dashed !== null) {
      args = [word(dashed[1]!), ...args]
      name = "git"
      argv = [word("git"), ...args]
    }
    if (analyzer.rebound && round === 0 && analyzer.speculative === 0) {
      // After `hash -p` or `shopt -s expand_aliases` a name may run another program.
      guard(segment, "rebinds-command", head.text)
      speculate(analyzer, () => {
        for (const other of ["git", "rm", "dd"]) nested.argv([word(other), ...args], depth + 1)
      })
    }
    if (SHELLS.has(name)) return analyzeShell(analyzer, segment, name, args, command, depth, nested)
    if (name === "source" || name === ".") {
      return analyzeSourceFile(analyzer, segment, name, args, command, depth, nested)
    }
    const interpreter = interpreterOf(name)
    if (interpreter !== undefined && !(name === "bun" && args[0] !== undefined && !isFlag(args[0].text))) {
      return analyzeInterpreter(analyzer, segment, name, interpreter, args, command, depth, nested)
    }
    if (name === "su" || name === "runuser") return analyzeSu(segment, head.text, args, depth, nested)
    if (name === "eval") return analyzeEval(segment, args, depth, nested)
    if (STDIN_SHELLS.has(name)) {
      segment.canonical = joinArgv(name, args)
      segment.checks.push({ action: "shell", resource: segment.canonical })
      const text = command.heredoc ?? command.stdinText ?? null
      if (text !== null) nested.source(text, depth + 1)
      else guard(segment, "code-from-stdin", segment.canonical)
      return
    }
    const runner = args[0] === undefined ? undefined : RUNNERS.get(`${name} ${args[0].text}`)
    const spec = runner ?? WRAPPERS.get(name)
    if (spec === undefined) break
    const unwrapped = unwrap(name, spec, runner === undefined ? args : args.slice(1))
    analyzeAssignments(analyzer, segment, unwrapped.assignments, (source) => nested.source(source, depth + 1))
    if (spec.privilege) guard(segment, "privilege", head.text)
    for (const script of unwrapped.scripts) {
      if (!script.resolved) guard(segment, "unresolved-command", script.text)
      else nested.source(script.text, depth + 1)
    }
    if (name === "command" && unwrapped.flags.some((f) => f === "-v" || f === "-V")) {
      segment.canonical = joinArgv(name, args)
      segment.checks.push({ action: "shell", resource: segment.canonical })
      return
    }
    if (unwrapped.argv.length === 0 && unwrapped.scripts.length > 0 && !unwrapped.noCommand) {
      // It runs only the scripts analysed above (`script -c`, `sg -c`, `env -S`).
      segment.canonical = joinArgv(name, args)
      segment.checks.push({ action: "shell", resource: segment.canonical })
      return
    }
    if (unwrapped.argv.length === 0 || unwrapped.noCommand) {
      // A wrapper with nothing to run: `env` prints the environment, `sudo -s` opens a shell.
      segment.canonical = [name, ...unwrapped.flags].join(" ")
      segment.checks.push({ action: "shell", resource: segment.canonical })
      if (name === "env") segment.checks.push({ action: "read", resource: ENVIRONMENT })
      return
    }
    if (spec.stdinArgs) stdinArgs = true
    argv = unwrapped.argv
  }
  analyzeFinal(analyzer, segment, argv, command, depth, stdinArgs)
}

const WRITE_ROLES = new Set(["write", "write-after-first", "write-last", "second-written"])

const analyzeFinal = (
  analyzer: Analyzer,
  segment: Segment,
  argv: ReadonlyArray<Word>,
  command: SimpleCommand,
  depth: number,
  stdinArgs: boolean
): void => {
  const name = commandName(analyzer, argv[0]!.text)
  const rawArgs = argv.slice(1)
  const args = subcommandFirst(name, rawArgs)
  const nested = nestedOf(analyzer, command)
  const spec = PROGRAMS.get(name)
  if (stdinArgs && (name === "rm" || name === "dd" || (spec !== undefined && WRITE_ROLES.has(spec.operands ?? "")))) {
    guard(segment, "targets-from-stdin", joinArgv(name, args))
  }
  if (argv[0]!.text.includes("/") && name === argv[0]!.text) executes(analyzer, segment, argv[0]!.text)
  if (analyzeBuiltin(analyzer, segment, name, args, depth, nested)) return
  switch (name) {
    case "rm":
      return analyzeRm(analyzer, segment, args)
    case "find":
      return analyzeFind(analyzer, segment, args, command, depth, nested)
    case "git":
      return analyzeGit(analyzer, segment, args, depth, nested)
    case "dd":
      return analyzeDd(analyzer, segment, args)
  }
  segment.canonical = joinArgv(name, args)
  segment.checks.push({ action: "shell", resource: segment.canonical })
  if (name === "sed") analyzeSed(analyzer, segment, args)
  else if (/^[gmn]?awk$/.test(name)) analyzeAwk(analyzer, segment, args)
  else if (spec !== undefined) analyzeKnown(analyzer, segment, name, spec, args, depth, nested)
  if (name === "docker" || name === "podman") analyzeContainer(analyzer, segment, name, args)
  if (NETWORK.has(name)) {
    analyzeNetwork(analyzer, segment, name, args, (source) => nested.source(source, depth + 1))
  } else if (spec?.textOnly !== true) {
    // A URL argument of any other program (`pip install --index-url URL`, `deno run URL`).
    for (const arg of args) {
      if (!arg.resolved) continue
      const eq = isFlag(arg.text) ? arg.text.indexOf("=") : -1
      addFetch(segment, eq > 0 ? arg.text.slice(eq + 1) : arg.text, analyzer)
    }
  }
  if (spec === undefined && !NETWORK.has(name)) unknownProgram(analyzer, segment, name, argv, command, depth)
}

/**
 * An unknown program asks (a project file runs as routine work). What it might run is also read,
 * speculatively: an argv suffix that starts with a known program, a string argument that parses
 * as a command, and the metadata address in any argument — so an unknown wrapper around a
 * universal deny still denies.
 */
const unknownProgram = (
  analyzer: Analyzer,
  segment: Segment,
  name: string,
  argv: ReadonlyArray<Word>,
  command: SimpleCommand,
  depth: number
): void => {
  if (isWorkspaceFile(analyzer, argv[0]!.text)) return
  if (!isKnown(name)) guard(segment, "unknown-program", name)
  const args = argv.slice(1)
  const nested = nestedOf(analyzer, command)
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
    }
  })
}

/**
 * Analyze a parsed command into segments.
 *
 * @internal
 */
export const analyze = (parsed: ParsedCommand, context: Context): Array<Segment> => {
  const analyzer: Analyzer = {
    context,
    out: [],
    cwd: context.cwd,
    executed: [],
    speculative: 0,
    cdpath: false,
    links: [],
    rebound: false
  }
  const top = parsed.source
  if (hasNonPrinting(top)) {
    guard(newSegment(analyzer, top.slice(0, 200)), "non-printing", top.slice(0, 200))
    analyzeParsed(analyzer, context.parse(stripNonPrinting(top)), 1, null)
  }
  analyzeParsed(analyzer, parsed, 0, null)
  const readings: Array<string> = []
  // A line continuation inside a word joins it; bash's reading is decided too.
  if (/\\\r?\n/.test(top)) readings.push(top.replace(/\\\r?\n/g, ""))
  if (top.includes("<<")) readings.push(...heredocTails(top))
  for (const reading of readings) {
    analyzer.cwd = context.cwd
    speculate(analyzer, () => analyzeSource(analyzer, reading, 1, null))
  }
  if (analyzer.out.length === 0) newSegment(analyzer, top)
  afterwards(analyzer)
  return analyzer.out
}

/** Checks across segments: a file written then run, a write through a symlink created earlier. */
const afterwards = (analyzer: Analyzer): void => {
  if (analyzer.executed.length === 0 && analyzer.links.length === 0) return
  const written = new Set<string>()
  for (const segment of analyzer.out) {
    for (const check of segment.checks) if (check.action === "write") written.add(check.resource)
  }
  for (const [file, segment] of analyzer.executed) if (written.has(file)) guard(segment, "runs-written-file", file)
  if (analyzer.links.length === 0) return
  for (const segment of analyzer.out) {
    for (const check of segment.checks) {
      if (check.action !== "write") continue
      for (const link of analyzer.links) {
        const l = link.replace(/^\.\//, "")
        if (check.resource.startsWith(`${l}/`)) {
          guard(segment, "unresolved-target", `${check.resource} (through the symlink ${link})`)
        }
      }
    }
  }
}
