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
import * as Paths from "../paths.js"
import type { SimpleCommand, Word } from "../shellSyntax.js"
import { analyzeBuiltin, bareAssignmentValue, ENVIRONMENT } from "./builtins.js"
import { DEV_TOOLS } from "./devTools.js"
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
  parseOptions,
  type Segment,
  speculate,
  word
} from "./model.js"
import { addFetch, analyzeNetwork } from "./network.js"
import { addPath, changeDirectory, commandName, executes, pathOf } from "./paths.js"
import {
  CMAKE_COMMANDS,
  interpreterOf,
  NETWORK,
  PROGRAMS,
  PROJECT_FILES,
  RUNNER_GLOBALS,
  RUNNERS,
  SHELLS,
  STDIN_SHELLS,
  WRAPPERS
} from "./programs.js"
import {
  analyzeNaive,
  type Argv,
  globCommand,
  hasNonPrinting,
  heredocTails,
  stripNonPrinting,
  unknownProgram
} from "./readings.js"
import {
  analyzeEval,
  analyzeExMode,
  analyzeInterpreter,
  analyzeShell,
  analyzeSource as analyzeSourceFile,
  analyzeSu,
  type Nested
} from "./shells.js"
import { stdinReadings } from "./stdin.js"
import { analyzeContainer, CONTAINER_ARGV, runsContainer, subcommandFirst } from "./tools.js"
import { unwrap } from "./wrappers.js"

export { type Check, type Context, type Guard, type GuardId, guardReasons, type Segment } from "./model.js"
export { hasNonPrinting, stripNonPrinting } from "./readings.js"

const MAX_NESTING = 8

const GIT_SUBCOMMANDS =
  /^git-(push|pull|fetch|clone|commit|rebase|reset|clean|merge|checkout|switch|branch|tag|remote|config|submodule|bisect|worktree|filter-branch|send-pack|http-push|archive|difftool|mergetool|stash|lfs|log|diff|show|status|add|rm|mv|apply|am|cherry-pick|revert|gc|prune|reflog|update-ref|update-index|checkout-index|hash-object|notes|format-patch|shell)$/

const argvOf = (analyzer: Analyzer): Argv => (segment, argv, command, depth) =>
  analyzeArgv(analyzer, segment, argv, command, depth, false)

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

const analyzeParsed = (analyzer: Analyzer, parsed: ParsedCommand, depth: number, origin: Segment | null): void => {
  for (const issue of parsed.issues) {
    guard(origin ?? newSegment(analyzer, issue.segment), issue.id, issue.segment)
    if (issue.id === "parse-error") analyzeNaive(analyzer, parsed.source, depth, argvOf(analyzer))
  }
  for (const command of parsed.commands) analyzeCommand(analyzer, command, depth, false)
  for (const nested of parsed.nested ?? []) analyzeSource(analyzer, nested, depth + 1, null)
  // `$((…))` read as `$( (…) )` (ADR 0204's readings: it can only deny)
  for (const inner of parsed.subshellReadings ?? []) {
    speculate(analyzer, () => analyzeSource(analyzer, `(${inner})`, depth + 1, null))
  }
  // `((…))` and `$((…))` the grammar cannot read as arithmetic: a shell without arithmetic
  // commands (dash) runs them as nested subshells (ADR 0219)
  if (parsed.source.includes("((") && parsed.issues.some((i) => i.id === "parse-error")) {
    const separated = parsed.source.replace(/\((?=\()/g, "( ").replace(/\)(?=\))/g, ") ")
    speculate(analyzer, () => analyzeSource(analyzer, separated, depth + 1, null))
  }
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
  // `${x@P}` expands x as a prompt: the `$(…)` and backticks its value spells run (any `@P}`
  // is taken for one, failing closed, in one linear scan)
  if (command.text.includes("@P}")) guard(segment, "inline-code", command.text.slice(0, 200))
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

const analyzeArgv = (
  analyzer: Analyzer,
  segment: Segment,
  initial: ReadonlyArray<Word>,
  command: SimpleCommand,
  depth: number,
  initialStdinArgs: boolean
): void => {
  // the directory to return to after a wrapper that moved it (`env -C`)
  let moved: string | null | undefined
  try {
    analyzeWrapped(analyzer, segment, initial, command, depth, initialStdinArgs, (cwd) => moved ??= cwd)
  } finally {
    if (moved !== undefined) analyzer.cwd = moved
  }
}

const analyzeWrapped = (
  analyzer: Analyzer,
  segment: Segment,
  initial: ReadonlyArray<Word>,
  command: SimpleCommand,
  depth: number,
  initialStdinArgs: boolean,
  leaving: (cwd: string | null) => void
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
    if (head.glob === true) return globCommand(analyzer, segment, argv, command, depth, argvOf(analyzer))
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
      for (const reading of stdinReadings(command)) nested.speculative(reading, depth + 1)
      return
    }
    if (name === "cmake" && args[0]?.text === "-E" && args[1] !== undefined) {
      // `cmake -E rm -rf /` is `rm -rf /`
      const as = CMAKE_COMMANDS.get(args[1].text)
      if (as !== undefined) {
        argv = [...as.map(word), ...args.slice(2)]
        continue
      }
    }
    // the runner subcommand, after the program's global options (`pnpm --filter app exec …`)
    const globals = RUNNER_GLOBALS.get(name)
    const at = globals === undefined ? 0 : parseOptions(args, { ...globals, stopAtOperand: true }).rest
    const runner = args[at] === undefined ? undefined : RUNNERS.get(`${name} ${args[at].text}`)
    const spec = runner ?? WRAPPERS.get(name)
    if (spec === undefined) break
    if (spec.program !== undefined) {
      argv = [word(spec.program), ...args.slice(at + 1)]
      continue
    }
    const unwrapped = unwrap(name, spec, runner === undefined ? args : args.slice(at + 1))
    analyzeAssignments(analyzer, segment, unwrapped.assignments, (source) => nested.source(source, depth + 1))
    if (spec.privilege) guard(segment, "privilege", head.text)
    if (unwrapped.chdir !== null) {
      // `env -C DIR CMD`: CMD runs in DIR (for this command only)
      leaving(analyzer.cwd)
      changeDirectory(analyzer, [unwrapped.chdir])
    }
    for (const file of unwrapped.reads) addPath(analyzer, segment, "read", file)
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
    if (spec.stdinArgs) {
      stdinArgs = true
      stdinFed(analyzer, unwrapped.argv, unwrapped.placeholder, command, depth, nested)
    }
    argv = unwrapped.placeholder === null ? unwrapped.argv : replaced(unwrapped.argv, unwrapped.placeholder, command)
  }
  analyzeFinal(analyzer, segment, argv, command, depth, stdinArgs)
}

/**
 * `xargs -I {} CMD`: `{}` is each line of stdin — the literal line when a pipe's text is known;
 * otherwise unknown wherever it is run as a program or as program text (`sh -c '{}'`), and a
 * target from stdin elsewhere (`wc -l {}`, like every other xargs argument).
 */
const replaced = (argv: ReadonlyArray<Word>, token: string, command: SimpleCommand): ReadonlyArray<Word> => {
  const line = linesOf(command.heredoc ?? command.stdinText ?? null)?.[0]
  if (line !== undefined) return withLine(argv, token, line)
  const head = argv[0]?.text ?? ""
  const runsText = SHELLS.has(head) || interpreterOf(head) !== undefined || head === "eval" || WRAPPERS.has(head)
  return argv.map((w, i) => w.text.includes(token) && (i === 0 || runsText) ? { ...w, resolved: false } : w)
}

const MAX_LINES = 64

/** The non-blank lines of stdin text (`xargs -I` skips blank ones), bounded. */
const linesOf = (text: string | null): Array<string> | undefined =>
  text?.split("\n").filter((line) => /\S/.test(line)).slice(0, MAX_LINES)

const withLine = (argv: ReadonlyArray<Word>, token: string, line: string): ReadonlyArray<Word> =>
  argv.map((w) => w.text.includes(token) ? { ...w, text: w.text.replaceAll(token, () => line) } : w)

/**
 * `xargs` runs its command once per line of stdin (`-I {}`) or with stdin's words appended. Each
 * line after the first of a literal pipe is a command of its own (the first is decided in place);
 * what an unknown pipe may feed (its readings), other splits of the text and the words appended
 * are read speculatively. `replaceString` is `-I`'s replace-string (`{}` by default), `null`
 * without `-I`.
 */
const stdinFed = (
  analyzer: Analyzer,
  argv: ReadonlyArray<Word>,
  replaceString: string | null,
  command: SimpleCommand,
  depth: number,
  nested: Nested
): void => {
  if (argv.length === 0) return
  const known = command.heredoc ?? command.stdinText ?? null
  const run = (words: ReadonlyArray<Word>) =>
    nested.argvIn(newSegment(analyzer, command.text), words, depth + 1, command, false)
  if (replaceString !== null) {
    for (const line of linesOf(known)?.slice(1) ?? []) run(withLine(argv, replaceString, line))
  }
  speculate(analyzer, () => {
    for (const text of known === null ? stdinReadings(command) : [known]) {
      if (replaceString === null) {
        run([...argv, ...text.split(/\s+/).filter((t) => t.length > 0).map((t) => word(t.replace(/['"\\]/g, "")))])
      } else {
        // per line as xargs splits by default; per NUL item (`-0`) and the whole text as other
        // delimiters (`-d`) or a reader of the unsplit text would see it
        const items = new Set([...(known === null ? linesOf(text) ?? [] : []), ...text.split("\0"), text])
        for (const item of [...items].slice(0, MAX_LINES)) if (/\S/.test(item)) run(withLine(argv, replaceString, item))
      }
    }
  })
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
  if (analyzeBuiltin(analyzer, segment, name, args, depth, nested, command.heredoc ?? command.stdinText ?? null)) return
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
  else if (spec !== undefined) {
    // a container's argv names paths inside the container, not here (bind mounts are decided below)
    const known = runsContainer(name, args) ? CONTAINER_ARGV : spec
    analyzeKnown(analyzer, segment, name, known, args, depth, nested)
  } else if (DEV_TOOLS.has(name)) analyzeKnown(analyzer, segment, name, {}, args, depth, nested)
  if (name === "docker" || name === "podman") analyzeContainer(analyzer, segment, name, args)
  runsProjectFiles(analyzer, segment, name, args)
  analyzeExMode(segment, name, args, command, depth, nested)
  if (NETWORK.has(name)) {
    analyzeNetwork(analyzer, segment, name, args, (source) => nested.source(source, depth + 1))
  } else if (spec?.textOnly !== true) {
    // A URL argument of any other program (`pip install --index-url URL`, `deno run URL`).
    for (const arg of args) {
      if (!arg.resolved) continue
      const eq = isFlag(arg.text) ? arg.text.indexOf("=") : -1
      addFetch(segment, eq > 0 ? arg.text.slice(eq + 1) : arg.text, analyzer)
      // a URL as the value of a `KEY=VALUE` inside an argument (`--build-arg URL=http://…`,
      // `-backend-config=address=http://…`)
      const inner = /=([a-z][a-z0-9+.-]*:\/\/\S+)$/i.exec(arg.text)
      if (inner !== null) addFetch(segment, inner[1]!, analyzer)
    }
  }
  // an unknown program asks; a known tool's arguments are still read (they can only deny)
  if (spec === undefined && !NETWORK.has(name)) unknownProgram(analyzer, segment, name, argv, command, depth, nested)
}

const PACKAGE_MANAGERS = new Set(["npm", "pnpm", "yarn", "bun"])

/**
 * A project tool runs its directory's build files: recorded as executed (a file the same command
 * writes then asks), and read where they are outside the workspace (`cd /elsewhere && make`).
 * `npm pkg set|delete` writes `package.json`.
 */
const runsProjectFiles = (analyzer: Analyzer, segment: Segment, name: string, args: ReadonlyArray<Word>): void => {
  const row = PROJECT_FILES.get(name)
  if (row === undefined) return
  const operands = args.filter((a) => !(a.resolved && isFlag(a.text)))
  const sub = operands[0]?.text
  if (PACKAGE_MANAGERS.has(name) && sub === "pkg" && /^(?:set|delete)$/.test(operands[1]?.text ?? "")) {
    addPath(analyzer, segment, "write", "package.json")
  }
  const [subcommands, files] = row
  if (subcommands !== null && !(sub === undefined ? name === "yarn" : subcommands.has(sub))) return
  analyzer.projectRuns.push([analyzer.cwd, files, segment])
}

/**
 * The build files of the project tools run, resolved only where it matters (paths cost file
 * system calls): in a directory moved from the start, where they may be outside the workspace,
 * or when the command writes something, which may be one of them.
 */
const projectFilesRun = (analyzer: Analyzer, writes: boolean): void => {
  const start = analyzer.cwd
  for (const [cwd, files, segment] of analyzer.projectRuns) {
    if (cwd === analyzer.context.cwd && !writes) continue
    analyzer.cwd = cwd
    if (writes) { for (const file of files) executes(analyzer, segment, file) }
    const first = pathOf(analyzer, files[0]!)
    if (first !== null && !Paths.isInside(first.shown)) addPath(analyzer, segment, "read", files[0]!)
  }
  analyzer.cwd = start
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
    projectRuns: [],
    speculative: 0,
    cdpath: false,
    links: [],
    rebound: false,
    dotglob: false
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
  if (analyzer.projectRuns.length > 0) {
    projectFilesRun(analyzer, analyzer.out.some((s) => s.checks.some((check) => check.action === "write")))
  }
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
