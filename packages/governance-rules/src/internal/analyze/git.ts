/**
 * git: global options (`-C`, `-c key=value`, `--config-env`, `--exec-path`, `--git-dir`),
 * configuration that runs programs or forces pushes, subcommands that run commands
 * (`rebase -x`, `bisect run`, `submodule foreach`, `difftool -x`, `filter-branch`, `archive
 * --exec`, `ext::` transports), force-push in every spelling (abbreviated options and refspecs
 * included), `reset --hard` anywhere on the line, files written through options (`--output`,
 * `format-patch -o`, `worktree add`), and a canonical form that puts what mutates first so a
 * read-only rule (`git branch --list *`) cannot be stretched over a mutation.
 *
 * @internal
 */
import type { Word } from "../shellSyntax.js"
import { type Analyzer, guard, isFlag, longOption, operandsOf, type Segment, splitShortFlags } from "./model.js"
import { addFetch } from "./network.js"
import { addPath } from "./paths.js"
import type { Nested } from "./shells.js"

/** Configuration keys whose value runs a program. @internal */
export const GIT_EXEC_CONFIG =
  /pager|command|editor|program|helper|hook|external|textconv|driver|fsmonitor|^alias\.|^filter\.|askpass|proxy|sshcommand|^include|^core\.worktree|^core\.gitproxy|uploadpack|receivepack|^protocol\..*allow|^sequence\.editor|^diff\..*\.command|^merge\..*\.driver/i

const URL_IN_CONFIG = /[a-z][a-z0-9+.-]*:\/\/[^\s'"=]+/gi

const GLOBAL_VALUED = new Set([
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

/** What `-c` overrides change about later subcommands. */
interface Overrides {
  forcePush: boolean
  forceClean: boolean
}

const globalOption = (analyzer: Analyzer, segment: Segment, key: string, value: string | undefined, o: Overrides) => {
  if (key === "-c" || key === "--config-env") {
    const text = value ?? ""
    const eq = text.indexOf("=")
    const configKey = eq < 0 ? text : text.slice(0, eq)
    const configValue = eq < 0 ? "true" : text.slice(eq + 1)
    if (GIT_EXEC_CONFIG.test(configKey)) guard(segment, "config-executes", `${key} ${text}`)
    // a URL in the key or value is where git connects (`http.proxy=…`, `url.<base>.insteadOf=…`)
    for (const url of text.match(URL_IN_CONFIG) ?? []) addFetch(segment, url, analyzer)
    if (/^remote\..*\.mirror$/i.test(configKey) && !/^(?:false|no|off|0)$/i.test(configValue)) o.forcePush = true
    if (/^remote\..*\.push$/i.test(configKey) && configValue.startsWith("+")) o.forcePush = true
    if (/^clean\.requireforce$/i.test(configKey) && /^(?:false|no|off|0)$/i.test(configValue)) o.forceClean = true
  } else if (key === "--exec-path" && value !== undefined) {
    guard(segment, "config-executes", `${key} ${value}`)
  } else if ((key === "-C" || key === "--git-dir" || key === "--work-tree") && value !== undefined) {
    addPath(analyzer, segment, "read", value)
    // another repository's directory: its config (fsmonitor, hooks, aliases) runs programs
    if (key === "--git-dir" && !/(?:^|\/)\.git\/?$/.test(value)) guard(segment, "config-executes", `${key}=${value}`)
  }
}

// Options whose value is a shell command, by subcommand.
const RUNS: Record<string, ReadonlyArray<string>> = {
  rebase: ["-x", "--exec"],
  difftool: ["-x", "--extcmd"],
  mergetool: ["--tool-help"],
  archive: ["--exec"],
  "filter-branch": [
    "--tree-filter",
    "--index-filter",
    "--msg-filter",
    "--env-filter",
    "--commit-filter",
    "--parent-filter",
    "--tag-name-filter"
  ],
  "filter-repo": ["--filename-callback", "--message-callback", "--commit-callback", "--blob-callback"]
}

// Options whose value is a file or directory written, by subcommand (`*`: every subcommand).
const WRITES: Record<string, ReadonlyArray<string>> = {
  "*": ["--output"],
  "format-patch": ["-o", "--output-directory"],
  bundle: [],
  archive: ["-o", "--output"]
}

const valueOf = (rest: ReadonlyArray<Word>, i: number): { text: string; resolved: boolean; next: number } | null => {
  const arg = rest[i]!
  const eq = arg.text.indexOf("=")
  if (arg.text.startsWith("--") && eq > 0) return { text: arg.text.slice(eq + 1), resolved: arg.resolved, next: i }
  if (!arg.text.startsWith("--") && arg.text.length > 2) {
    return { text: arg.text.slice(2), resolved: arg.resolved, next: i }
  }
  const next = rest[i + 1]
  return next === undefined ? null : { text: next.text, resolved: next.resolved, next: i + 1 }
}

const commandOptions = (
  analyzer: Analyzer,
  segment: Segment,
  sub: string,
  rest: ReadonlyArray<Word>,
  depth: number,
  nested: Nested
): void => {
  const runs = RUNS[sub] ?? []
  const writes = [...(WRITES["*"] ?? []), ...(WRITES[sub] ?? [])]
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!
    if (!arg.resolved || !isFlag(arg.text)) continue
    const key = arg.text.startsWith("--")
      ? longOption(arg.text.split("=")[0]!, [...runs, ...writes])
      : arg.text.slice(0, 2)
    if (runs.includes(key)) {
      const value = valueOf(rest, i)
      guard(segment, "config-executes", `git ${sub} ${arg.text}`)
      if (value !== null && value.resolved) nested.source(value.text, depth + 1)
      if (value !== null) i = value.next
    } else if (writes.includes(key)) {
      const value = valueOf(rest, i)
      if (value !== null) addPath(analyzer, segment, "write", { text: value.text, resolved: value.resolved })
      if (value !== null) i = value.next
    } else if (/^--(?:upload-pack|receive-pack)|^--exec=/.test(arg.text) || (arg.text === "-u" && sub !== "push")) {
      guard(segment, "config-executes", arg.text)
    }
  }
}

const PUSH_VALUED = new Set(["-o", "--push-option", "--repo", "--receive-pack", "--exec"])
const PUSH_LONG = [
  "--force",
  "--force-with-lease",
  "--force-if-includes",
  "--mirror",
  "--delete",
  "--dry-run",
  "--prune",
  "--atomic",
  "--all",
  "--tags",
  "--follow-tags",
  "--set-upstream",
  "--verbose",
  "--quiet",
  "--no-verify",
  "--porcelain",
  "--progress",
  "--signed",
  "--thin",
  "--no-thin"
]

const gitPush = (segment: Segment, rest: ReadonlyArray<Word>, configForce: boolean): Array<string> => {
  let force = configForce
  let del = false
  let dry = false
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
      const key = longOption(eq > 0 ? text.slice(0, eq) : text, PUSH_LONG)
      if (key === "--receive-pack" || key === "--exec") guard(segment, "config-executes", text)
      if (PUSH_VALUED.has(key) && eq < 0) i++
      for (const part of key.startsWith("--") ? [key] : splitShortFlags(key)) {
        if (["-f", "--force", "--force-with-lease", "--force-if-includes", "--mirror"].includes(part)) force = true
        else if (part === "-d" || part === "--delete" || part === "--prune") del = true
        else if (part === "-n" || part === "--dry-run") dry = true
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
  // A dry run changes nothing: it leads, so neither the force-push deny nor publishing matches.
  return [
    ...(dry ? ["--dry-run"] : []),
    ...(force ? ["--force"] : []),
    ...(del ? ["--delete"] : []),
    ...[...flags].sort(),
    ...operands
  ]
}

// Subcommands whose first operand is a verb (`git remote add`, `git stash drop`): it leads.
const VERB_FIRST = new Set([
  "remote",
  "stash",
  "worktree",
  "submodule",
  "lfs",
  "bisect",
  "notes",
  "reflog",
  "sparse-checkout"
])
// `git branch`/`git tag` options that mutate: they lead.
const MUTATING = /^-(?:[dDmMcCfu]|-delete|-move|-copy|-force|-set-upstream-to|-unset-upstream|-edit-description|-track)/

const canonicalRest = (sub: string, rest: ReadonlyArray<Word>, o: Overrides): Array<string> => {
  const texts = rest.map((w) => w.text)
  if (sub === "reset") {
    const hard = texts.some((t) => t.startsWith("--h") && "--hard".startsWith(t) && t.length >= 3)
    return hard ? ["--hard", ...texts.filter((t) => !(t.startsWith("--h") && "--hard".startsWith(t)))] : texts
  }
  if (sub === "clean") {
    const { flags, operands } = operandsOf(rest)
    const set = new Set<string>(o.forceClean ? ["-f"] : [])
    for (const flag of flags) {
      if (flag.text.startsWith("--") && "--force".startsWith(flag.text) && flag.text.length >= 4) set.add("-f")
      else for (const f of splitShortFlags(flag.text)) set.add(f)
    }
    return [...[...set].sort(), ...operands.map((w) => w.text)]
  }
  if (VERB_FIRST.has(sub)) {
    const verb = texts.findIndex((t) => !t.startsWith("-"))
    return verb <= 0 ? texts : [texts[verb]!, ...texts.filter((_, i) => i !== verb)]
  }
  if (sub === "branch" || sub === "tag") {
    return [...texts.filter((t) => MUTATING.test(t)), ...texts.filter((t) => !MUTATING.test(t))]
  }
  return texts
}

/** Analyse `git ARGS` (after any wrapper). @internal */
export const analyzeGit = (
  analyzer: Analyzer,
  segment: Segment,
  args: ReadonlyArray<Word>,
  depth: number,
  nested: Nested
): void => {
  const overrides: Overrides = { forcePush: false, forceClean: false }
  let i = 0
  while (i < args.length && args[i]!.resolved && isFlag(args[i]!.text)) {
    const text = args[i]!.text
    const eq = text.indexOf("=")
    const key = eq > 0 ? text.slice(0, eq) : text
    const value = eq > 0 ? text.slice(eq + 1) : args[i + 1]?.text
    globalOption(analyzer, segment, key, value, overrides)
    i += GLOBAL_VALUED.has(key) && eq < 0 ? 2 : 1
  }
  const sub = args[i]
  if (sub === undefined) {
    segment.canonical = "git"
    segment.checks.push({ action: "shell", resource: "git" })
    return
  }
  const rest = args.slice(i + 1)
  if (!sub.resolved) {
    segment.canonical = ["git", sub.text, ...rest.map((w) => w.text)].join(" ")
    guard(segment, "unresolved-command", sub.text)
    return
  }
  const name = sub.text
  if (name === "config") gitConfig(analyzer, segment, rest, depth, nested)
  commandOptions(analyzer, segment, name, rest, depth, nested)
  // `send-pack`/`http-push` push refs like `push` does (`--force` included).
  const push = name === "push" || name === "send-pack" || name === "http-push"
  const canonical = push ? gitPush(segment, rest, overrides.forcePush) : canonicalRest(name, rest, overrides)
  segment.canonical = ["git", push ? "push" : name, ...canonical].join(" ")
  segment.checks.push({ action: "shell", resource: segment.canonical })
  subcommand(analyzer, segment, name, rest, depth, nested)
  for (const arg of rest) {
    if (!arg.resolved) continue
    const eq = isFlag(arg.text) ? arg.text.indexOf("=") : -1
    const value = eq > 0 ? arg.text.slice(eq + 1) : arg.text
    addFetch(segment, value, analyzer)
    // `ext::CMD` transports run CMD.
    if (/^ext::/i.test(value)) guard(segment, "config-executes", value)
  }
}

// `git config` options that take a value, and the verbs of its subcommand syntax (git 2.46+).
const CONFIG_VALUED = new Set(["-f", "--file", "--blob", "--type", "--default", "--comment", "--value", "--url"])
const CONFIG_VERBS = new Set(["set", "get", "unset", "list", "edit", "rename-section", "remove-section"])
const CONFIG_READS = /^--(?:get|get-all|get-regexp|get-urlmatch|list|show-origin|show-scope)$|^-l$/

const gitConfig = (
  analyzer: Analyzer,
  segment: Segment,
  rest: ReadonlyArray<Word>,
  depth: number,
  nested: Nested
): void => {
  const operands: Array<Word> = []
  let file: Word | null = null
  let reads = false
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!
    if (!arg.resolved || !isFlag(arg.text)) {
      operands.push(arg)
      continue
    }
    const [key, attached] = arg.text.startsWith("--") ? arg.text.split(/=(.*)/s) : [arg.text, undefined]
    if (CONFIG_READS.test(key!)) reads = true
    if (!CONFIG_VALUED.has(key!)) continue
    const value = attached !== undefined ? { text: attached, resolved: true } : rest[++i] ?? null
    if ((key === "-f" || key === "--file") && value !== null) file = value
  }
  if (operands[0] !== undefined && CONFIG_VERBS.has(operands[0].text)) {
    if (operands[0].text === "get" || operands[0].text === "list") reads = true
    operands.shift()
  }
  // `-f FILE` written: the file is where the key lands (`.git/config` is protected)
  if (file !== null && !reads && operands.length > 0) addPath(analyzer, segment, "write", file)
  if (reads || operands.length < 2 || !GIT_EXEC_CONFIG.test(operands[0]!.text)) return
  guard(segment, "config-executes", operands.map((w) => w.text).join(" "))
  const value = operands[1]!
  if (value.resolved && /^alias\./i.test(operands[0]!.text) && value.text.startsWith("!")) {
    nested.source(value.text.slice(1), depth + 1)
  }
}

const subcommand = (
  analyzer: Analyzer,
  segment: Segment,
  name: string,
  rest: ReadonlyArray<Word>,
  depth: number,
  nested: Nested
): void => {
  const { operands } = operandsOf(rest)
  const verb = operands[0]?.text
  if (name === "bisect" && verb === "run") {
    guard(segment, "config-executes", "git bisect run")
    const at = rest.findIndex((w) => w.text === "run")
    nested.argv(rest.slice(at + 1), depth + 1)
  } else if (name === "submodule" && verb === "foreach") {
    guard(segment, "config-executes", "git submodule foreach")
    const script = operands.slice(1)
    if (script.every((w) => w.resolved)) nested.source(script.map((w) => w.text).join(" "), depth + 1)
  } else if (name === "bundle" && verb === "create" && operands[1] !== undefined) {
    addPath(analyzer, segment, "write", operands[1])
  } else if (name === "worktree" && verb === "add" && operands[1] !== undefined) {
    addPath(analyzer, segment, "write", operands[1])
  } else if ((name === "clone" || name === "init") && operands.length > 0) {
    const dir = operands[name === "clone" ? 1 : 0]
    if (dir !== undefined) addPath(analyzer, segment, "write", dir)
  } else if (name === "diff" && rest.some((w) => w.text === "--no-index")) {
    for (const operand of operands) addPath(analyzer, segment, "read", operand)
  } else if (name === "update-index") {
    // `--cacheinfo 120000,SHA,PATH` puts a symlink into the index (checked out later).
    for (let k = 0; k < rest.length; k++) {
      const m = /^(?:--cacheinfo=)?120000,[^,]*,(.+)$/.exec(rest[k]!.text)
      if (m !== null && (k === 0 || rest[k - 1]!.text === "--cacheinfo" || rest[k]!.text.startsWith("--cacheinfo="))) {
        analyzer.links.push(m[1]!)
      }
    }
  }
}
