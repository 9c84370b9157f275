/**
 * Semantic layer of shell understanding: turn each simple command into a segment with a
 * canonical argv (wrappers unwrapped, flags normalized, refspecs folded) and the checks it
 * implies (the shell check itself, files read or written, network destinations), plus guards
 * for what the engine cannot resolve.
 *
 * @internal
 */
import * as fs from "node:fs"
import type { Action } from "../Rule.js"
import type { ParsedCommand } from "../ShellParser.js"
import * as Network from "./network.js"
import * as Paths from "./paths.js"
import type { SimpleCommand, Word } from "./shellSyntax.js"

/** @internal */
export interface Check {
  readonly action: Action
  readonly resource: string
}

/** @internal */
export type GuardId =
  | "parse-error"
  | "function-definition"
  | "control-flow"
  | "too-deep"
  | "too-long"
  | "non-printing"
  | "unresolved-command"
  | "unresolved-target"
  | "targets-from-stdin"
  | "env-executes"
  | "config-executes"
  | "privilege"
  | "runs-written-file"

/** @internal */
export const guardReasons: Record<GuardId, string> = {
  "parse-error": "the command does not parse, so it cannot be resolved",
  "function-definition": "function definitions are opaque to the engine",
  "control-flow": "control flow (if/for/while/case) is opaque to the engine",
  "too-deep": "nesting is too deep to resolve",
  "too-long": "commands over 10,000 characters are never allowed without asking",
  "non-printing": "the command contains non-printing or invisible characters",
  "unresolved-command": "the command name comes from an expansion the engine cannot resolve",
  "unresolved-target": "a write or delete target comes from an expansion the engine cannot resolve",
  "targets-from-stdin": "the command's targets come from stdin (xargs / find -exec), which the engine cannot see",
  "env-executes": "an environment variable whose value executes or loads code",
  "config-executes": "a git configuration override that runs a program",
  "privilege": "runs as another user or root (sudo, doas, su, pkexec, chroot)",
  "runs-written-file": "runs a file that the same command writes, so its content cannot be checked"
}

/** @internal */
export interface Guard {
  readonly id: GuardId
  readonly detail: string
}

/** @internal */
export interface Segment {
  /** The source text of the segment. */
  readonly text: string
  /** Canonical argv (wrappers stripped, flags normalized); empty for redirect-only segments. */
  canonical: string
  readonly checks: Array<Check>
  readonly guards: Array<Guard>
}

/** @internal */
export interface Context extends Paths.PathContext {
  readonly parse: (source: string) => ParsedCommand
}

const MAX_NESTING = 8

// Characters that render as nothing or reorder text: C0/C1 controls (except tab and newline),
// a carriage return not followed by a newline (it makes a terminal overwrite the line), zero-width,
// bidi controls, word joiners, BOM, soft hyphen, tag characters.
const NON_PRINTING =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u00AD\u061C\u115F\u1160\u180E\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFEFF\uFFA0\uFFF9-\uFFFB]|\uDB40[\uDC00-\uDC7F]|\r(?!\n)/

/** @internal */
export const hasNonPrinting = (text: string): boolean => NON_PRINTING.test(text)

const NON_PRINTING_ALL = new RegExp(NON_PRINTING.source, "g")

/** The text with every non-printing character removed (what a reader of the prompt sees). @internal */
export const stripNonPrinting = (text: string): string => text.replace(NON_PRINTING_ALL, "")

const STANDARD_BIN = /^\/(?:usr\/(?:local\/)?)?s?bin\/([^/]+)$|^\/opt\/homebrew\/bin\/([^/]+)$|^\/bin\/([^/]+)$/

const baseName = (name: string): string => {
  const m = STANDARD_BIN.exec(name)
  return m === null ? name : (m[1] ?? m[2] ?? m[3] ?? name)
}

const EXEC_ENV = new Set([
  "PAGER",
  "GIT_PAGER",
  "MANPAGER",
  "SYSTEMD_PAGER",
  "EDITOR",
  "VISUAL",
  "GIT_EDITOR",
  "GIT_SEQUENCE_EDITOR",
  "GIT_SSH_COMMAND",
  "GIT_SSH",
  "GIT_EXTERNAL_DIFF",
  "GIT_PROXY_COMMAND",
  "SSH_ASKPASS",
  "GIT_ASKPASS",
  "SUDO_ASKPASS",
  "PROMPT_COMMAND",
  "BROWSER",
  "LESSOPEN",
  "LESSCLOSE",
  "FCEDIT",
  "RSYNC_RSH",
  "CVS_RSH"
])

const CODE_LOADING_ENV = new Set([
  "LD_PRELOAD",
  "LD_LIBRARY_PATH",
  "LD_AUDIT",
  "BASH_ENV",
  "ENV",
  "ZDOTDIR",
  "NODE_OPTIONS",
  "NODE_PATH",
  "PYTHONPATH",
  "PYTHONSTARTUP",
  "PYTHONHOME",
  "PERL5OPT",
  "PERL5LIB",
  "PERLLIB",
  "RUBYOPT",
  "RUBYLIB",
  "GIT_CONFIG",
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_SYSTEM",
  "GIT_EXEC_PATH",
  "GIT_TEMPLATE_DIR",
  "GIT_DIR",
  "PATH",
  "IFS",
  "SHELLOPTS",
  "BASHOPTS",
  "PS4"
])

const isCodeLoadingEnv = (name: string): boolean =>
  CODE_LOADING_ENV.has(name) || name.startsWith("DYLD_") || name.startsWith("GIT_CONFIG_")

const GIT_EXEC_CONFIG =
  /pager|command|editor|program|helper|hook|external|textconv|driver|fsmonitor|^alias\.|^filter\.|askpass|proxy|sshcommand|^include|^core\.worktree|^core\.gitproxy|^uploadpack|^receivepack/i

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"])

// Interpreters whose first operand is a program file they run.
const INTERPRETER = /^(?:python[0-9.]*|node|nodejs|perl|ruby|php|tsx|ts-node|lua|Rscript|source|\.)$/

const NETWORK_COMMANDS = new Set([
  "curl",
  "wget",
  "http",
  "https",
  "xh",
  "xhs",
  "aria2c",
  "lynx",
  "w3m",
  "git",
  "ssh",
  "scp",
  "sftp",
  "rsync",
  "nc",
  "ncat",
  "netcat",
  "telnet",
  "ftp",
  "socat"
])

const HOST_OPERAND_COMMANDS = new Set(["curl", "wget", "http", "https", "xh", "xhs", "aria2c", "lynx", "w3m"])

// All operands are written (or removed).
const WRITE_ALL = new Set(["rm", "rmdir", "unlink", "shred", "touch", "mkdir", "truncate", "tee", "mv"])
// The first operand is a mode/owner; the rest are written.
const WRITE_AFTER_FIRST = new Set(["chmod", "chown", "chgrp"])
// The last operand is written; the others are read.
const WRITE_LAST = new Set(["cp", "ln", "install"])

const SECRET_NAME =
  /^\.env(\.|$)|\.env$|\.pem$|\.key$|^id_(rsa|dsa|ecdsa|ed25519)|^\.netrc$|^\.npmrc$|^\.pypirc$|credentials|\.p12$|\.pfx$|^\.git-credentials$|^\.htpasswd$|\.kdbx$/

const isFlag = (text: string): boolean => text.length > 1 && text.startsWith("-")

const word = (text: string): Word => ({ text, resolved: true })

interface WrapperSpec {
  /** Options that take a separate value. */
  readonly valued: ReadonlySet<string>
  /** Operands to skip before the command (timeout's duration). */
  readonly skip: number
}

const WRAPPERS: Record<string, WrapperSpec> = {
  sudo: {
    valued: new Set([
      "-u",
      "-g",
      "-h",
      "-p",
      "-C",
      "-D",
      "-r",
      "-t",
      "-T",
      "-U",
      "--user",
      "--group",
      "--host",
      "--prompt",
      "--chdir",
      "--role",
      "--type",
      "--other-user",
      "--close-from",
      "--command-timeout"
    ]),
    skip: 0
  },
  doas: { valued: new Set(["-u", "-C"]), skip: 0 },
  env: { valued: new Set(["-u", "--unset", "-C", "--chdir", "-S", "--split-string", "-a", "--argv0"]), skip: 0 },
  timeout: { valued: new Set(["-s", "--signal", "-k", "--kill-after"]), skip: 1 },
  nice: { valued: new Set(["-n", "--adjustment"]), skip: 0 },
  ionice: {
    valued: new Set(["-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid", "-u", "--uid"]),
    skip: 0
  },
  nohup: { valued: new Set(), skip: 0 },
  setsid: { valued: new Set(), skip: 0 },
  time: { valued: new Set(["-o", "--output", "-f", "--format"]), skip: 0 },
  command: { valued: new Set(), skip: 0 },
  builtin: { valued: new Set(), skip: 0 },
  exec: { valued: new Set(["-a"]), skip: 0 },
  stdbuf: { valued: new Set(["-i", "-o", "-e", "--input", "--output", "--error"]), skip: 0 },
  chronic: { valued: new Set(), skip: 0 },
  busybox: { valued: new Set(), skip: 0 },
  pkexec: { valued: new Set(["--user"]), skip: 0 },
  chroot: { valued: new Set(["--userspec", "--groups"]), skip: 1 },
  unbuffer: { valued: new Set(), skip: 0 },
  xargs: {
    valued: new Set([
      "-a",
      "--arg-file",
      "-d",
      "--delimiter",
      "-E",
      "-I",
      "-L",
      "--max-lines",
      "-n",
      "--max-args",
      "-P",
      "--max-procs",
      "-s",
      "--max-chars",
      "--process-slot-var"
    ]),
    skip: 0
  },
  watch: { valued: new Set(["-n", "--interval", "-q", "--equexit"]), skip: 0 }
}

interface Unwrapped {
  readonly argv: ReadonlyArray<Word>
  readonly flags: ReadonlyArray<string>
  readonly assignments: ReadonlyArray<{ readonly name: string; readonly value: Word }>
}

/** Strip a wrapper's own options; returns the wrapped argv (possibly empty). */
const unwrapOne = (name: string, spec: WrapperSpec, args: ReadonlyArray<Word>): Unwrapped => {
  const flags: Array<string> = []
  const assignments: Array<{ name: string; value: Word }> = []
  let i = 0
  let skip = spec.skip
  const split: Array<Word> = []
  while (i < args.length) {
    const arg = args[i]!
    const text = arg.text
    if (text === "--") {
      i++
      break
    }
    if (isFlag(text) && arg.resolved) {
      const eq = text.indexOf("=")
      const key = eq > 0 ? text.slice(0, eq) : text
      flags.push(key)
      if (name === "env" && (key === "-S" || key === "--split-string")) {
        const value = eq > 0 ? text.slice(eq + 1) : args[i + 1]?.text ?? ""
        for (const part of value.split(/\s+/)) if (part.length > 0) split.push(word(part))
        i += eq > 0 ? 1 : 2
        continue
      }
      if (eq < 0 && spec.valued.has(key)) i += 2
      else i += 1
      continue
    }
    if (name === "env" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(text)) {
      const eq = text.indexOf("=")
      assignments.push({ name: text.slice(0, eq), value: { text: text.slice(eq + 1), resolved: arg.resolved } })
      i++
      continue
    }
    if (skip > 0) {
      skip--
      i++
      continue
    }
    break
  }
  return { argv: [...split, ...args.slice(i)], flags, assignments }
}

const splitShortFlags = (flag: string): Array<string> =>
  flag.startsWith("--") || flag.length <= 2 ? [flag] : [...flag.slice(1)].map((c) => `-${c}`)

const RM_LONG: Record<string, string> = {
  "--recursive": "-r",
  "--force": "-f",
  "--dir": "-d",
  "--verbose": "-v",
  "--interactive": "-i"
}

const RM_SHORT: Record<string, string> = { "-R": "-r", "-I": "-i" }

interface Analyzer {
  readonly context: Context
  readonly out: Array<Segment>
  /** Current directory after `cd`s seen so far (`null`: unknown). */
  cwd: string | null
  /** Files executed by segments (`bash x.sh`, `./x`, `python3 x.py`), with their segment. */
  readonly executed: Array<readonly [string, Segment]>
}

const pathContext = (analyzer: Analyzer): Paths.PathContext => ({
  workspace: analyzer.context.workspace,
  home: analyzer.context.home,
  cwd: analyzer.cwd ?? analyzer.context.cwd
})

const pathOf = (
  analyzer: Analyzer,
  text: string
): { readonly real: string; readonly shown: string } | null => {
  if (text.length === 0) return null
  if (text.startsWith("~") && text !== "~" && !text.startsWith("~/")) return null
  // After a `cd` the engine could not follow, relative paths cannot be resolved.
  if (analyzer.cwd === null && !text.startsWith("/") && !text.startsWith("~")) return null
  const context = pathContext(analyzer)
  const real = Paths.realPath(text, context)
  return { real, shown: Paths.display(real, context) }
}

/** A catastrophic-delete target: root or home, or a glob directly under them. */
const deleteTarget = (analyzer: Analyzer, text: string): string | null => {
  const p = pathOf(analyzer, text)
  if (p === null) return null
  const real = p.real
  const slash = real.lastIndexOf("/")
  const parent = slash <= 0 ? "/" : real.slice(0, slash)
  const leaf = real.slice(slash + 1)
  if (/^[*?.[\]{}]+$/.test(leaf) && leaf !== "..") {
    if (parent === "/") return "/"
    if (parent === analyzer.context.home) return "~"
    return Paths.display(real, pathContext(analyzer))
  }
  return p.shown
}

const looksLikePath = (analyzer: Analyzer, text: string): boolean => {
  if (text.length === 0 || text.length > 4096 || Network.isUrl(text)) return false
  if (text.includes("/") || text.startsWith(".") || text.startsWith("~")) return true
  if (SECRET_NAME.test(text)) return true
  try {
    return fs.lstatSync(`${analyzer.cwd ?? analyzer.context.cwd}/${text}`, { throwIfNoEntry: false }) !== undefined
  } catch {
    return false
  }
}

const addPath = (analyzer: Analyzer, segment: Segment, action: "read" | "write", text: string): void => {
  const p = pathOf(analyzer, text)
  if (p === null) {
    if (action === "write") guard(segment, "unresolved-target", text)
    return
  }
  if (Paths.isPseudoDevice(p.real)) return
  segment.checks.push({ action, resource: p.shown })
}

const addFetch = (segment: Segment, raw: string, analyzer?: Analyzer): void => {
  const url = Network.normalizeUrl(raw)
  if (url === null) return
  segment.checks.push({ action: "fetch", resource: url })
  // `file:` URLs read local files: decide them as reads of the real path too.
  const local = Network.fileUrlPath(url)
  if (local !== null && analyzer !== undefined) addPath(analyzer, segment, "read", local)
}

const operandsOf = (args: ReadonlyArray<Word>): { flags: Array<Word>; operands: Array<Word> } => {
  const flags: Array<Word> = []
  const operands: Array<Word> = []
  let done = false
  for (const arg of args) {
    if (!done && arg.text === "--") {
      done = true
      continue
    }
    if (!done && arg.resolved && isFlag(arg.text)) flags.push(arg)
    else operands.push(arg)
  }
  return { flags, operands }
}

const newSegment = (analyzer: Analyzer, text: string): Segment => {
  const segment: Segment = { text, canonical: "", checks: [], guards: [] }
  analyzer.out.push(segment)
  return segment
}

const guard = (segment: Segment, id: GuardId, detail: string): void => {
  if (!segment.guards.some((g) => g.id === id && g.detail === detail)) segment.guards.push({ id, detail })
}

/** Analyze a whole source string (top level or nested: `bash -c`, env values, eval, watch). */
const analyzeSource = (analyzer: Analyzer, source: string, depth: number, origin: Segment | null): void => {
  if (depth > MAX_NESTING) {
    guard(origin ?? newSegment(analyzer, source), "too-deep", source.slice(0, 200))
    return
  }
  const parsed = analyzer.context.parse(source)
  if (hasNonPrinting(source)) {
    guard(origin ?? newSegment(analyzer, source), "non-printing", source.slice(0, 200))
    // Also decide what the text says once the invisible characters are gone: a universal deny
    // hidden behind them still denies (the guard keeps the floor at ask).
    for (const command of analyzer.context.parse(stripNonPrinting(source)).commands) {
      analyzeCommand(analyzer, command, depth + 1, false)
    }
  }
  for (const issue of parsed.issues) {
    guard(origin ?? newSegment(analyzer, issue.segment), issue.id, issue.segment)
  }
  for (const command of parsed.commands) analyzeCommand(analyzer, command, depth, false)
}

const scanMetadata = (segment: Segment, text: string): void => {
  for (const host of Network.metadataIn(text)) segment.checks.push({ action: "fetch", resource: Network.hostUrl(host) })
}

const analyzeAssignments = (
  analyzer: Analyzer,
  segment: Segment,
  assignments: ReadonlyArray<{ readonly name: string; readonly value: Word }>,
  depth: number
): void => {
  for (const { name, value } of assignments) {
    scanMetadata(segment, value.text)
    if (isCodeLoadingEnv(name)) guard(segment, "env-executes", `${name}=${value.text}`)
    else if (EXEC_ENV.has(name)) {
      if (!value.resolved) guard(segment, "env-executes", `${name}=${value.text}`)
      else if (value.text.trim().length > 0) analyzeSource(analyzer, value.text, depth + 1, null)
    }
  }
}

const analyzeCommand = (analyzer: Analyzer, command: SimpleCommand, depth: number, stdinArgs: boolean): void => {
  const segment = newSegment(analyzer, command.text)
  for (const w of command.words) scanMetadata(segment, w.text)
  if (command.heredoc !== null) scanMetadata(segment, command.heredoc)
  analyzeAssignments(analyzer, segment, command.assignments, depth)
  for (const redirect of command.redirects) {
    const target = redirect.target
    if (target === null) continue
    scanMetadata(segment, target.text)
    const dup = redirect.op.endsWith("&") || redirect.op === "<&" || redirect.op === ">&"
    if (dup && /^(?:\d+|-)$/.test(target.text)) continue
    const writes = redirect.op.includes(">")
    if (!target.resolved) {
      if (writes) guard(segment, "unresolved-target", redirect.op + target.text)
      continue
    }
    addPath(analyzer, segment, writes ? "write" : "read", target.text)
  }
  if (command.bareAssignment) {
    // `FOO=1` / `export FOO=1`: decided as a (harmless unless guarded) shell statement.
    segment.canonical = command.text
    segment.checks.push({ action: "shell", resource: command.text })
    return
  }
  if (command.words.length === 0) return
  analyzeArgv(analyzer, segment, command.words, command, depth, stdinArgs)
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
    const name = commandName(analyzer, head.text)
    const args = argv.slice(1)
    if (SHELLS.has(name)) {
      if (analyzeShell(analyzer, segment, name, args, command, depth)) return
      break
    }
    if (name === "su" || name === "runuser") {
      // `su [-] [user] -c CMD`: CMD runs as another user through a shell.
      guard(segment, "privilege", head.text)
      let script: Word | null = null
      for (let i = 0; i < args.length; i++) {
        const text = args[i]!.text
        if (text === "-c" || text === "--command") script = args[i + 1] ?? null
        else if (text.startsWith("--command=")) script = { text: text.slice(10), resolved: args[i]!.resolved }
        else if (/^-[A-Za-z]*c$/.test(text) && text !== "-c") script = args[i + 1] ?? null
      }
      segment.canonical = argv.map((w) => w.text).join(" ")
      if (script === null) {
        segment.checks.push({ action: "shell", resource: segment.canonical })
      } else if (!script.resolved) guard(segment, "unresolved-command", script.text)
      else analyzeSource(analyzer, script.text, depth + 1, null)
      return
    }
    if (name === "eval") {
      if (args.some((a) => !a.resolved)) {
        guard(segment, "unresolved-command", argv.map((w) => w.text).join(" "))
        return
      }
      segment.canonical = ["eval", ...args.map((a) => a.text)].join(" ")
      analyzeSource(analyzer, args.map((a) => a.text).join(" "), depth + 1, null)
      return
    }
    const spec = WRAPPERS[name]
    if (spec === undefined) break
    const unwrapped = unwrapOne(name, spec, args)
    analyzeAssignments(analyzer, segment, unwrapped.assignments, depth)
    if (name === "sudo" || name === "doas" || name === "pkexec" || name === "chroot") {
      guard(segment, "privilege", head.text)
    }
    if (name === "command" && unwrapped.flags.some((f) => f === "-v" || f === "-V")) {
      segment.canonical = argv.map((w) => w.text).join(" ")
      segment.checks.push({ action: "shell", resource: segment.canonical })
      return
    }
    if (unwrapped.argv.length === 0) {
      // A wrapper with nothing to run: `env` prints the environment, `sudo -s` opens a shell.
      segment.canonical = [name, ...unwrapped.flags].join(" ")
      segment.checks.push({ action: "shell", resource: segment.canonical })
      return
    }
    if (name === "watch" && !unwrapped.flags.includes("-x") && !unwrapped.flags.includes("--exec")) {
      if (unwrapped.argv.some((a) => !a.resolved)) {
        guard(segment, "unresolved-command", unwrapped.argv.map((a) => a.text).join(" "))
        return
      }
      segment.canonical = ["watch", ...unwrapped.argv.map((a) => a.text)].join(" ")
      analyzeSource(analyzer, unwrapped.argv.map((a) => a.text).join(" "), depth + 1, null)
      return
    }
    if (name === "xargs") stdinArgs = true
    argv = unwrapped.argv
  }
  analyzeFinal(analyzer, segment, argv, command, depth, stdinArgs)
}

/** Returns true when the shell invocation was fully handled (unwrapped or decided). */
const analyzeShell = (
  analyzer: Analyzer,
  segment: Segment,
  name: string,
  args: ReadonlyArray<Word>,
  command: SimpleCommand,
  depth: number
): boolean => {
  let script: Word | null = null
  let wantsScript = false
  const operands: Array<Word> = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (operands.length === 0 && arg.resolved && /^[-+][A-Za-z]+$/.test(arg.text)) {
      if (arg.text.startsWith("-") && arg.text.includes("c")) wantsScript = true
      if (/^[-+]o$/.test(arg.text)) i++
      continue
    }
    if (operands.length === 0 && arg.resolved && arg.text.startsWith("--")) continue
    if (wantsScript && script === null) {
      script = arg
      continue
    }
    operands.push(arg)
  }
  if (wantsScript) {
    if (script === null) {
      segment.canonical = [name, ...args.map((a) => a.text)].join(" ")
      segment.checks.push({ action: "shell", resource: segment.canonical })
      return true
    }
    if (!script.resolved) {
      segment.canonical = [name, "-c", script.text].join(" ")
      guard(segment, "unresolved-command", script.text)
      return true
    }
    segment.canonical = `${name} -c ${script.text}`
    analyzeSource(analyzer, script.text, depth + 1, null)
    return true
  }
  const scriptFile = operands[0]
  if (scriptFile !== undefined) {
    if (!scriptFile.resolved) {
      segment.canonical = [name, ...args.map((a) => a.text)].join(" ")
      guard(segment, "unresolved-command", scriptFile.text)
      return true
    }
    executes(analyzer, segment, scriptFile.text)
  }
  if (operands.length === 0) {
    // Reads its script from stdin: a heredoc we can read, or a pipe we cannot.
    segment.canonical = name
    segment.checks.push({ action: "shell", resource: name })
    if (command.heredoc !== null) analyzeSource(analyzer, command.heredoc, depth + 1, null)
    return true
  }
  return false
}

const executes = (analyzer: Analyzer, segment: Segment, text: string): void => {
  const p = pathOf(analyzer, text)
  if (p !== null) analyzer.executed.push([p.shown, segment])
}

const CD_FLAGS = new Set(["-L", "-P", "-e", "-@"])

const changeDirectory = (analyzer: Analyzer, args: ReadonlyArray<Word>): void => {
  const target = args.find((a) => !(a.resolved && CD_FLAGS.has(a.text)))
  if (target === undefined) {
    analyzer.cwd = analyzer.context.home
    return
  }
  if (
    !target.resolved || target.text === "-" ||
    (target.text.startsWith("~") && target.text !== "~" && !target.text.startsWith("~/"))
  ) {
    analyzer.cwd = null
    return
  }
  if (analyzer.cwd === null && !target.text.startsWith("/") && !target.text.startsWith("~")) return
  analyzer.cwd = Paths.realPath(target.text, pathContext(analyzer))
}

/**
 * The command's name for matching: standard bin directories are stripped, and a path-like name
 * that resolves (through symlinks) to a standard bin is that binary (`./x` → `/usr/bin/rm` → `rm`).
 */
const commandName = (analyzer: Analyzer, text: string): string => {
  const base = baseName(text)
  if (base !== text || !text.includes("/")) return base
  const p = pathOf(analyzer, text)
  if (p === null) return text
  const resolved = baseName(p.real)
  return resolved !== p.real ? resolved : text
}

const analyzeFinal = (
  analyzer: Analyzer,
  segment: Segment,
  argv: ReadonlyArray<Word>,
  command: SimpleCommand,
  depth: number,
  stdinArgs: boolean
): void => {
  const name = commandName(analyzer, argv[0]!.text)
  const args = argv.slice(1)
  const plain = [name, ...args.map((a) => a.text)].join(" ")
  const { flags, operands } = operandsOf(args)
  const unresolvedOperand = operands.find((o) => !o.resolved || o.text === "{}")
  const writeCommand = WRITE_ALL.has(name) || WRITE_AFTER_FIRST.has(name) || WRITE_LAST.has(name) || name === "dd"

  if (writeCommand && stdinArgs) guard(segment, "targets-from-stdin", plain)

  if (name === "cd" || name === "pushd") {
    segment.canonical = plain
    segment.checks.push({ action: "shell", resource: plain })
    changeDirectory(analyzer, args)
    return
  }
  if (name === "alias") {
    // `alias x='rm -rf /'` defines code that runs later.
    for (const arg of args) {
      const eq = arg.text.indexOf("=")
      if (eq <= 0) continue
      if (!arg.resolved) guard(segment, "unresolved-command", arg.text)
      else analyzeSource(analyzer, arg.text.slice(eq + 1), depth + 1, null)
    }
  }
  if (name === "trap" && operands[0] !== undefined) {
    // `trap 'CMD' EXIT` runs CMD later.
    if (!operands[0].resolved) guard(segment, "unresolved-command", operands[0].text)
    else analyzeSource(analyzer, operands[0].text, depth + 1, null)
  }
  if (argv[0]!.text.includes("/") && name === argv[0]!.text) executes(analyzer, segment, argv[0]!.text)
  if (INTERPRETER.test(name) && operands[0] !== undefined && operands[0].resolved) {
    executes(analyzer, segment, operands[0].text)
  }

  if (name === "rm") {
    const set = new Set<string>()
    let extra: Array<string> = []
    for (const flag of flags) {
      const long = RM_LONG[flag.text]
      if (long !== undefined) set.add(long)
      else if (flag.text.startsWith("--")) extra.push(flag.text)
      else for (const f of splitShortFlags(flag.text)) set.add(RM_SHORT[f] ?? f)
    }
    extra = [...new Set(extra)].sort()
    const normalizedFlags = [...[...set].sort(), ...extra]
    const prefix = ["rm", ...normalizedFlags].join(" ")
    segment.canonical = [prefix, ...operands.map((o) => o.text)].join(" ")
    if (operands.length === 0) segment.checks.push({ action: "shell", resource: prefix })
    for (const operand of operands) {
      if (!operand.resolved || operand.text === "{}") {
        guard(segment, "unresolved-target", operand.text)
        segment.checks.push({ action: "shell", resource: `${prefix} ${operand.text}` })
        continue
      }
      const target = deleteTarget(analyzer, operand.text)
      segment.checks.push({ action: "shell", resource: `${prefix} ${target ?? operand.text}` })
      addPath(analyzer, segment, "write", operand.text)
    }
    return
  }

  if (name === "find") {
    analyzeFind(analyzer, segment, args, command, depth)
    return
  }

  if (name === "git") {
    analyzeGit(analyzer, segment, args)
    return
  }

  if (name === "dd") {
    const sorted = [...args.map((a) => a.text)].sort()
    segment.canonical = ["dd", ...sorted].join(" ")
    segment.checks.push({ action: "shell", resource: segment.canonical })
    for (const arg of args) {
      if (arg.text.startsWith("of=")) {
        if (!arg.resolved) guard(segment, "unresolved-target", arg.text)
        else addPath(analyzer, segment, "write", arg.text.slice(3))
      } else if (arg.text.startsWith("if=") && arg.resolved) addPath(analyzer, segment, "read", arg.text.slice(3))
    }
    return
  }

  segment.canonical = plain
  segment.checks.push({ action: "shell", resource: plain })

  if (writeCommand) {
    if (unresolvedOperand !== undefined) guard(segment, "unresolved-target", unresolvedOperand.text)
    operands.forEach((operand, index) => {
      if (!operand.resolved || operand.text === "{}") return
      let action: "read" | "write" = "write"
      if (WRITE_AFTER_FIRST.has(name) && index === 0) return
      if (WRITE_LAST.has(name) && index < operands.length - 1) action = "read"
      addPath(analyzer, segment, action, operand.text)
    })
  } else if (
    (name === "sed" || name === "perl") &&
    flags.some((f) => /^-[a-zA-Z]*i/.test(f.text) || f.text.startsWith("--in-place"))
  ) {
    for (
      const operand of operands.slice(name === "sed" && !flags.some((f) => f.text === "-e" || f.text === "-f") ? 1 : 0)
    ) {
      if (operand.resolved) addPath(analyzer, segment, "write", operand.text)
      else guard(segment, "unresolved-target", operand.text)
    }
  } else {
    for (const operand of operands) {
      if (operand.resolved && looksLikePath(analyzer, operand.text)) addPath(analyzer, segment, "read", operand.text)
    }
    for (const flag of flags) {
      const eq = flag.text.indexOf("=")
      if (eq > 0) {
        const value = flag.text.slice(eq + 1)
        if (looksLikePath(analyzer, value)) addPath(analyzer, segment, "read", value)
      }
    }
  }

  if (NETWORK_COMMANDS.has(name)) {
    for (const arg of args) {
      if (!arg.resolved) continue
      const text = arg.text
      const eq = isFlag(text) ? text.indexOf("=") : -1
      const value = eq > 0 ? text.slice(eq + 1) : text
      if (Network.isUrl(value)) addFetch(segment, value, analyzer)
      else if (HOST_OPERAND_COMMANDS.has(name) && !isFlag(text) && operands.includes(arg)) {
        addFetch(segment, value, analyzer)
      }
    }
  }
}

const FIND_EXEC = new Set(["-exec", "-execdir", "-ok", "-okdir"])
const FIND_WRITE = new Set(["-fprint", "-fprint0", "-fls", "-fprintf"])

const analyzeFind = (
  analyzer: Analyzer,
  segment: Segment,
  args: ReadonlyArray<Word>,
  command: SimpleCommand,
  depth: number
): void => {
  const starts: Array<Word> = []
  let i = 0
  while (i < args.length && !(args[i]!.resolved && /^[-(!]/.test(args[i]!.text))) {
    starts.push(args[i]!)
    i++
  }
  if (starts.length === 0) starts.push(word("."))
  const rest: Array<string> = []
  let deletes = false
  while (i < args.length) {
    const arg = args[i]!
    if (arg.resolved && FIND_EXEC.has(arg.text)) {
      const inner: Array<Word> = []
      i++
      while (i < args.length && !(args[i]!.text === ";" || args[i]!.text === "+")) {
        inner.push(args[i]!)
        i++
      }
      i++
      if (inner.length > 0) {
        const nested = newSegment(analyzer, `find … ${arg.text} ${inner.map((w) => w.text).join(" ")}`)
        analyzeArgv(
          analyzer,
          nested,
          inner.map((w) => w.text.includes("{}") ? { text: w.text, resolved: false } : w),
          command,
          depth + 1,
          false
        )
      }
      rest.push(arg.text, "…")
      continue
    }
    if (arg.resolved && arg.text === "-delete") deletes = true
    if (arg.resolved && FIND_WRITE.has(arg.text) && args[i + 1] !== undefined) {
      addPath(analyzer, segment, "write", args[i + 1]!.text)
    }
    rest.push(arg.text)
    i++
  }
  segment.canonical = ["find", ...starts.map((s) => s.text), ...rest].join(" ")
  segment.checks.push({ action: "shell", resource: segment.canonical })
  for (const start of starts) {
    if (!start.resolved) {
      if (deletes) guard(segment, "unresolved-target", start.text)
      continue
    }
    if (deletes) {
      const target = deleteTarget(analyzer, start.text)
      segment.checks.push({ action: "shell", resource: `rm -r ${target ?? start.text}` })
      addPath(analyzer, segment, "write", start.text)
    } else addPath(analyzer, segment, "read", start.text)
  }
}

const GIT_GLOBAL_VALUED = new Set([
  "-C",
  "-c",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--super-prefix",
  "--config-env",
  "--exec-path",
  "--list-cmds",
  "--attr-source"
])

const analyzeGit = (analyzer: Analyzer, segment: Segment, args: ReadonlyArray<Word>): void => {
  let i = 0
  while (i < args.length && args[i]!.resolved && isFlag(args[i]!.text)) {
    const text = args[i]!.text
    const eq = text.indexOf("=")
    const key = eq > 0 ? text.slice(0, eq) : text
    const value = eq > 0 ? text.slice(eq + 1) : args[i + 1]?.text
    const valued = GIT_GLOBAL_VALUED.has(key)
    if (key === "-c" || key === "--config-env") {
      const configKey = (value ?? "").split("=")[0] ?? ""
      if (GIT_EXEC_CONFIG.test(configKey)) guard(segment, "config-executes", `${key} ${value ?? ""}`)
    } else if (key === "--exec-path" && value !== undefined) {
      guard(segment, "config-executes", `${key} ${value}`)
    } else if ((key === "-C" || key === "--git-dir" || key === "--work-tree") && value !== undefined) {
      addPath(analyzer, segment, "read", value)
    }
    i += valued && eq < 0 ? 2 : 1
  }
  const sub = args[i]
  if (sub === undefined) {
    segment.canonical = "git"
    segment.checks.push({ action: "shell", resource: "git" })
    return
  }
  const rest = args.slice(i + 1)
  let canonicalRest: Array<string>
  if (sub.text === "config") {
    const operands = rest.filter((w) => !(w.resolved && isFlag(w.text)))
    if (operands.length >= 2 && GIT_EXEC_CONFIG.test(operands[0]!.text)) {
      guard(
        segment,
        "config-executes",
        operands.map((w) => w.text).join(" ")
      )
    }
  }
  if (sub.text === "push") canonicalRest = gitPush(segment, rest)
  else if (sub.text === "clean") {
    const { flags, operands } = operandsOf(rest)
    const set = new Set<string>()
    for (const flag of flags) {
      if (flag.text === "--force") set.add("-f")
      else for (const f of splitShortFlags(flag.text)) set.add(f)
    }
    canonicalRest = [...[...set].sort(), ...operands.map((o) => o.text)]
  } else canonicalRest = rest.map((w) => w.text)
  segment.canonical = ["git", sub.text, ...canonicalRest].join(" ")
  segment.checks.push({ action: "shell", resource: segment.canonical })
  for (const arg of rest) {
    if (!arg.resolved) continue
    const eq = isFlag(arg.text) ? arg.text.indexOf("=") : -1
    const value = eq > 0 ? arg.text.slice(eq + 1) : arg.text
    if (Network.isUrl(value)) addFetch(segment, value, analyzer)
    if (
      (arg.text.startsWith("--upload-pack") || arg.text.startsWith("--receive-pack") ||
        arg.text.startsWith("--exec=") || arg.text === "-u" && sub.text !== "push")
    ) {
      guard(segment, "config-executes", arg.text)
    }
  }
}

const GIT_PUSH_VALUED = new Set(["-o", "--push-option", "--repo", "--receive-pack", "--exec"])

const gitPush = (segment: Segment, rest: ReadonlyArray<Word>): Array<string> => {
  let force = false
  let del = false
  const flags = new Set<string>()
  const operands: Array<string> = []
  let done = false
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!
    const text = arg.text
    if (!done && text === "--") {
      done = true
      continue
    }
    if (!done && arg.resolved && isFlag(text)) {
      const eq = text.indexOf("=")
      const key = eq > 0 ? text.slice(0, eq) : text
      if (key === "--receive-pack" || key === "--exec") guard(segment, "config-executes", text)
      if (GIT_PUSH_VALUED.has(key) && eq < 0) i++
      const parts = key.startsWith("--") ? [key] : splitShortFlags(key)
      for (const part of parts) {
        if (
          part === "-f" || part === "--force" || part === "--force-with-lease" || part === "--force-if-includes" ||
          part === "--mirror"
        ) {
          force = true
        } else if (part === "-d" || part === "--delete" || part === "--prune") del = true
        else flags.add(part)
      }
      continue
    }
    let ref = text
    if (operands.length > 0) {
      if (ref.startsWith("+")) {
        force = true
        ref = ref.slice(1)
      }
      if (ref.startsWith(":")) del = true
    }
    operands.push(ref)
  }
  return [...(force ? ["--force"] : []), ...(del ? ["--delete"] : []), ...[...flags].sort(), ...operands]
}

/**
 * Analyze a parsed command into segments.
 *
 * @internal
 */
export const analyze = (parsed: ParsedCommand, context: Context): Array<Segment> => {
  const analyzer: Analyzer = { context, out: [], cwd: context.cwd, executed: [] }
  const top = parsed.source
  if (hasNonPrinting(top)) {
    guard(newSegment(analyzer, top.slice(0, 200)), "non-printing", top.slice(0, 200))
    for (const command of context.parse(stripNonPrinting(top)).commands) analyzeCommand(analyzer, command, 1, false)
  }
  for (const issue of parsed.issues) guard(newSegment(analyzer, issue.segment), issue.id, issue.segment)
  for (const command of parsed.commands) analyzeCommand(analyzer, command, 0, false)
  if (analyzer.out.length === 0) newSegment(analyzer, top)
  if (analyzer.executed.length > 0) {
    const written = new Set<string>()
    for (const segment of analyzer.out) {
      for (const check of segment.checks) if (check.action === "write") written.add(check.resource)
    }
    for (const [file, segment] of analyzer.executed) {
      if (written.has(file)) guard(segment, "runs-written-file", file)
    }
  }
  return analyzer.out
}
