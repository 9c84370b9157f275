/**
 * Shells, interpreters and everything that runs program text: `bash -c`, every shell's script
 * option, scripts read from stdin (`| sh`, `sh /dev/stdin`, heredocs, here-strings, `batch`),
 * `source`/`.`, `eval`, `su -c`, and interpreters' inline-code options in all their spellings
 * (`-c`, `-Ic`, `-c'…'`, `-pe`, `--eval=`). Inline code the engine cannot read is given a
 * canonical form the level rules match (`python3 -c CODE`, `node -e CODE`); a script the engine
 * can read is analysed as a command.
 *
 * @internal
 */
import * as Network from "../network.js"
import type { SimpleCommand, Word } from "../shellSyntax.js"
import { type Analyzer, guard, joinArgv, parseOptions, type Segment } from "./model.js"
import { executes } from "./paths.js"
import { type InterpreterSpec, SHELLS } from "./programs.js"
import { stdinReadings } from "./stdin.js"

/** What the nested analysis needs from the dispatcher (kept as a parameter to avoid a cycle). @internal */
export interface Nested {
  /** Analyse a script (new segments). */
  readonly source: (source: string, depth: number) => void
  /** Analyse a script as one possible reading only (its segments count when denied). */
  readonly speculative: (source: string, depth: number) => void
  /** Analyse an argv as a new segment. */
  readonly argv: (argv: ReadonlyArray<Word>, depth: number) => void
  /** Analyse an argv into a given segment (`stdinArgs`: its targets come from elsewhere). */
  readonly argvIn: (
    segment: Segment,
    argv: ReadonlyArray<Word>,
    depth: number,
    command: SimpleCommand,
    stdinArgs: boolean
  ) => void
}

const STDIN_FILES = new Set(["-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"])

/** Whether a script operand means "read the program from stdin". @internal */
export const isStdin = (w: Word): boolean => w.resolved && STDIN_FILES.has(w.text)

/**
 * A program read from stdin: a heredoc, a here-string or a literal upstream (`echo … |`) is
 * analysed as a script; a pipe the engine cannot see leaves the canonical stdin form to the rules.
 */
const stdinProgram = (
  segment: Segment,
  canonical: string,
  command: SimpleCommand,
  nested: Nested,
  depth: number,
  shell: boolean
): void => {
  segment.canonical = canonical
  segment.checks.push({ action: "shell", resource: canonical })
  const text = command.heredoc ?? command.stdinText ?? null
  if (text !== null && shell) nested.source(text, depth + 1)
  else if (text === null && command.stdinPiped) guard(segment, "code-from-stdin", canonical)
  if (shell) { for (const reading of stdinReadings(command)) nested.speculative(reading, depth + 1) }
}

/** `sh -c`, `bash -xc`, `pwsh -Command`, `sh script`, `sh < x`, `| sh`. @internal */
export const analyzeShell = (
  analyzer: Analyzer,
  segment: Segment,
  name: string,
  args: ReadonlyArray<Word>,
  command: SimpleCommand,
  depth: number,
  nested: Nested
): void => {
  const spec = SHELLS.get(name)!
  let script: Word | null = null
  let wantsScript = false
  let unreadable = false
  const operands: Array<Word> = []
  let fromStdin = false
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const lower = arg.text.toLowerCase()
    if (operands.length === 0 && arg.resolved && !wantsScript && /^[-+][A-Za-z]+$/.test(arg.text)) {
      if (spec.unreadable?.includes(lower)) unreadable = true
      else if (spec.script.includes(lower) || (arg.text.startsWith("-") && /^-[a-zA-Z]*c[a-zA-Z]*$/.test(arg.text))) {
        wantsScript = true
      } else if (/^[-+][A-Za-z]*[oO]$/.test(arg.text) && spec.unreadable === undefined) i++ // `-o NAME`, `-O NAME`
      else if (/^-(?:file|f|executionpolicy|ex|workingdirectory|wd)$/i.test(arg.text)) i++
      // `-s`: the operands are positional parameters, the script comes from stdin
      if (spec.unreadable === undefined && /^-[A-Za-z]*s/.test(arg.text)) fromStdin = true
      continue
    }
    if (operands.length === 0 && arg.resolved && arg.text.startsWith("--")) {
      // long options that take a value (`--rcfile FILE`, `--init-file FILE`)
      if (/^--(?:rcfile|init-file)$/.test(arg.text)) i++
      continue
    }
    if (wantsScript && script === null) {
      // PowerShell takes the rest of the line as the command.
      script = spec.unreadable !== undefined
        ? { text: args.slice(i).map((a) => a.text).join(" "), resolved: args.slice(i).every((a) => a.resolved) }
        : arg
      if (spec.unreadable !== undefined) break
      continue
    }
    operands.push(arg)
  }
  if (unreadable) {
    segment.canonical = joinArgv(name, args)
    guard(segment, "inline-code", segment.canonical)
    return
  }
  if (wantsScript) {
    if (script === null) {
      segment.canonical = joinArgv(name, args)
      segment.checks.push({ action: "shell", resource: segment.canonical })
      return
    }
    segment.canonical = `${name} -c ${script.text}`
    if (!script.resolved) {
      guard(segment, "unresolved-command", script.text)
      // what the script says around its expansions is still decided (`sh -c "firebase deploy
      // --token $T"` publishes, whatever `$T` holds)
      nested.source(script.text, depth + 1)
      return
    }
    // Not bash's syntax: read it as a command line, but never allow it unread.
    if (spec.unreadable !== undefined || name === "tcsh" || name === "csh" || name === "fish") {
      guard(segment, "inline-code", segment.canonical)
    }
    nested.source(script.text, depth + 1)
    return
  }
  const scriptFile = operands[0]
  if (scriptFile === undefined || isStdin(scriptFile) || fromStdin) {
    stdinProgram(segment, name, command, nested, depth, true)
    return
  }
  segment.canonical = joinArgv(name, operands)
  if (!scriptFile.resolved) {
    guard(segment, "unresolved-command", scriptFile.text)
    return
  }
  segment.checks.push({ action: "shell", resource: segment.canonical })
  executes(analyzer, segment, scriptFile.text)
}

/** `source FILE`, `. FILE`, `. <(…)`, `source /dev/stdin`. @internal */
export const analyzeSource = (
  analyzer: Analyzer,
  segment: Segment,
  name: string,
  args: ReadonlyArray<Word>,
  command: SimpleCommand,
  depth: number,
  nested: Nested
): void => {
  const file = args[0]
  if (file === undefined || isStdin(file)) {
    stdinProgram(segment, name, command, nested, depth, true)
    if (command.heredoc === null && (command.stdinText ?? null) === null) guard(segment, "code-from-stdin", name)
    return
  }
  segment.canonical = joinArgv(name, args)
  if (!file.resolved) {
    guard(segment, "unresolved-command", file.text)
    return
  }
  segment.checks.push({ action: "shell", resource: segment.canonical })
  executes(analyzer, segment, file.text)
}

/** `python3 -Ic CODE`, `node -pe CODE`, `php -d x=1 -r CODE`, `python3 -m twine …`, `node x.js`. */
export const analyzeInterpreter = (
  analyzer: Analyzer,
  segment: Segment,
  name: string,
  spec: InterpreterSpec,
  args: ReadonlyArray<Word>,
  command: SimpleCommand,
  depth: number,
  nested: Nested
): void => {
  const { options, rest } = parseOptions(args, spec.options)
  const others = options.filter((o) => !spec.code.includes(o.name) && o.name !== spec.module)
  const shown = others.map((o) => (o.value === null ? o.name : `${o.name} ${o.value.text}`))
  const code = options.find((o) => spec.code.includes(o.name))
  // Code can reach the network: the metadata service named anywhere in it is decided as a fetch.
  for (const arg of args) {
    for (const host of Network.metadataIn(arg.text)) {
      segment.checks.push({ action: "fetch", resource: Network.hostUrl(host) })
    }
  }
  // a module loaded from a `data:` URL (`node --import data:…`, `php -d auto_prepend_file=data:…`) is inline code
  const loaded = others.find((o) => o.value !== null && /(?:^|=)['"]?data:/i.test(o.value.text))
  if (code !== undefined || loaded !== undefined) {
    // `-pe CODE`: the value the option parser saw may be the rest of the cluster.
    const value = code?.value ?? loaded?.value ?? null
    const text = code !== undefined && value !== null && /^[a-z]$/.test(value.text)
      ? args[rest]?.text ?? ""
      : value?.text ?? ""
    inlineCode(segment, name, spec, text, shown, depth, nested)
    if (value !== null && !value.resolved) guard(segment, "unresolved-command", value.text)
    return
  }
  const module = spec.module === undefined ? undefined : options.find((o) => o.name === spec.module)
  // the interpreter's options end at `-m MODULE`: the rest is the module's argv
  const moduleArgs = module?.value == null
    ? []
    : args.slice(args.findIndex((a) => a === module.value || a.text.endsWith(`m${module.value!.text}`)) + 1)
  if (module?.value?.text === "timeit") {
    // `python3 -m timeit STMT…` runs its statements (and its `-s SETUP`)
    inlineCode(segment, name, spec, moduleArgs.map((a) => a.text).join("\n"), shown, depth, nested)
    return
  }
  if (module !== undefined && module.value !== null) {
    if (!module.value.resolved) {
      segment.canonical = joinArgv(name, args)
      guard(segment, "unresolved-command", module.value.text)
      return
    }
    nested.argv([module.value, ...moduleArgs], depth)
    return
  }
  const file = args[rest]
  const discovers = options.some((o) => spec.discovers?.includes(o.name))
  if (file === undefined && (discovers || options.some((o) => spec.exits?.includes(o.name)))) {
    // `python3 --version`, `node -v`: prints and exits, reads no program; `node --test` runs the
    // test files it finds (each decided like any file it runs would be: the workspace's own)
    segment.canonical = joinArgv(name, args)
    segment.checks.push({ action: "shell", resource: segment.canonical })
    return
  }
  if (file === undefined || isStdin(file)) {
    stdinProgram(segment, `${name} -`, command, nested, depth, false)
    return
  }
  segment.canonical = joinArgv(name, args)
  if (!file.resolved) {
    guard(segment, "unresolved-command", file.text)
    return
  }
  segment.checks.push({ action: "shell", resource: segment.canonical })
  executes(analyzer, segment, file.text)
}

/**
 * Inline program text: the canonical form the level rules match (`python3 -c CODE`), and every
 * string literal in it read as a command, speculatively (`os.system("git push -f …")` still
 * denies at a level that lets inline code run).
 */
const inlineCode = (
  segment: Segment,
  name: string,
  spec: InterpreterSpec,
  text: string,
  shown: ReadonlyArray<string>,
  depth: number,
  nested: Nested
): void => {
  segment.canonical = [name, spec.canonical, text, ...shown].join(" ")
  segment.checks.push({ action: "shell", resource: segment.canonical })
  for (const literal of stringLiterals(text)) nested.speculative(literal, depth + 1)
}

const MAX_LITERALS = 64

/** The contents of the quoted strings in program text (`'…'`, `"…"`, `` `…` ``), bounded. @internal */
export const stringLiterals = (text: string): Array<string> => {
  const out: Array<string> = []
  const literal = /'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`/g
  for (const m of text.matchAll(literal)) {
    // the language's own escapes of quotes and backslashes undone (`"rm \"x\""`)
    const body = (m[1] ?? m[2] ?? m[3] ?? "").replace(/\\(["'`\\])/g, "$1").trim()
    if (body.length > 1 && /\s/.test(body)) out.push(body)
    if (out.length >= MAX_LITERALS) break
  }
  return out
}

const EDITORS = new Set(["vim", "vi", "nvim", "view", "ex", "gvim", "vimdiff"])

/**
 * An editor in Ex mode (`ex`, `vim -e`, `vim -es`) reads its commands from stdin when stdin is
 * not a terminal: a pipe or heredoc is program text (`!cmd` lines run shell commands, read as
 * commands speculatively when the text is literal).
 *
 * @internal
 */
export const analyzeExMode = (
  segment: Segment,
  name: string,
  args: ReadonlyArray<Word>,
  command: SimpleCommand,
  depth: number,
  nested: Nested
): void => {
  if (!EDITORS.has(name)) return
  const exMode = name === "ex" ||
    args.some((a) => a.resolved && /^-[a-zA-Z]*[eE]/.test(a.text) && !a.text.startsWith("--"))
  const text = command.heredoc ?? command.stdinText ?? null
  if (!exMode || (text === null && !command.stdinPiped)) return
  guard(segment, "code-from-stdin", segment.canonical)
  for (const script of text === null ? stdinReadings(command) : [text]) {
    for (const line of script.split("\n")) {
      const bang = /^\s*:?\s*(?:[0-9,.$%]*)!(.+)$/.exec(line)
      if (bang !== null) nested.speculative(bang[1]!, depth + 1)
    }
  }
}

/** `su [-] [user] -c CMD`, `runuser -u user -- CMD`. @internal */
export const analyzeSu = (
  segment: Segment,
  head: string,
  args: ReadonlyArray<Word>,
  depth: number,
  nested: Nested
): void => {
  guard(segment, "privilege", head)
  let script: Word | null = null
  let argvStart = -1
  for (let i = 0; i < args.length; i++) {
    const text = args[i]!.text
    if (text === "-c" || text === "--command") script = args[i + 1] ?? null
    else if (text.startsWith("--command=")) script = { text: text.slice(10), resolved: args[i]!.resolved }
    else if (/^-[A-Za-z]*c$/.test(text) && text !== "-c") script = args[i + 1] ?? null
    else if (text === "--" && head === "runuser") argvStart = i + 1
  }
  segment.canonical = joinArgv(head, args)
  if (script !== null) {
    if (!script.resolved) guard(segment, "unresolved-command", script.text)
    else nested.source(script.text, depth + 1)
  } else if (argvStart > 0 && argvStart < args.length) nested.argv(args.slice(argvStart), depth + 1)
  else segment.checks.push({ action: "shell", resource: segment.canonical })
}

/** `eval WORDS`: the words joined are a script. @internal */
export const analyzeEval = (segment: Segment, args: ReadonlyArray<Word>, depth: number, nested: Nested): void => {
  if (args.some((a) => !a.resolved)) {
    segment.canonical = joinArgv("eval", args)
    guard(segment, "unresolved-command", segment.canonical)
    return
  }
  segment.canonical = joinArgv("eval", args)
  nested.source(args.map((a) => a.text).join(" "), depth + 1)
}
