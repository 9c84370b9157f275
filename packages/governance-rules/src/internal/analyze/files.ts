/**
 * Programs that read, write and delete files: `rm` (flags normalized so every spelling of a
 * recursive delete of `/` or home reads the same), `find` (start points after `-H`/`-L`/`-P`,
 * `-delete`, `-exec`, `-fprint`), `dd`, `sed` scripts (`w FILE`, `e`), `awk` programs that
 * redirect, and every known program's operands and file options from the table in `programs.ts`.
 *
 * @internal
 */
import type { SimpleCommand, Word } from "../shellSyntax.js"
import {
  type Analyzer,
  guard,
  joinArgv,
  longOption,
  newSegment,
  operandsOf,
  parseOptions,
  type Segment,
  splitShortFlags,
  word
} from "./model.js"
import { addPath, deleteTarget, looksLikePath, SECRET_NAME } from "./paths.js"
import type { ProgramSpec } from "./programs.js"
import { isStdin, type Nested } from "./shells.js"

const RM_LONG = [
  "--recursive",
  "--force",
  "--dir",
  "--verbose",
  "--interactive",
  "--no-preserve-root",
  "--preserve-root",
  "--one-file-system"
]
const RM_SHORT: Record<string, string> = {
  "--recursive": "-r",
  "--force": "-f",
  "--dir": "-d",
  "--verbose": "-v",
  "--interactive": "-i",
  "-R": "-r",
  "-I": "-i"
}

/** `rm`: one check per target (`rm -f -r /`), and a write of each. @internal */
export const analyzeRm = (analyzer: Analyzer, segment: Segment, args: ReadonlyArray<Word>): void => {
  const { flags, operands } = operandsOf(args)
  const set = new Set<string>()
  let extra: Array<string> = []
  for (const flag of flags) {
    const text = flag.text.startsWith("--") ? longOption(flag.text, RM_LONG) : flag.text
    const short = RM_SHORT[text]
    if (short !== undefined) set.add(short)
    else if (text.startsWith("--")) extra.push(text)
    else for (const f of splitShortFlags(text)) set.add(RM_SHORT[f] ?? f)
  }
  extra = [...new Set(extra)].sort()
  const prefix = ["rm", ...[...set].sort(), ...extra].join(" ")
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
    addPath(analyzer, segment, "write", operand)
  }
}

/** `dd`: operands sorted; `of=` is written, `if=` read. @internal */
export const analyzeDd = (analyzer: Analyzer, segment: Segment, args: ReadonlyArray<Word>): void => {
  segment.canonical = ["dd", ...args.map((a) => a.text).sort()].join(" ")
  segment.checks.push({ action: "shell", resource: segment.canonical })
  for (const arg of args) {
    if (arg.text.startsWith("of=")) addPath(analyzer, segment, "write", { ...arg, text: arg.text.slice(3) })
    else if (arg.text.startsWith("if=")) addPath(analyzer, segment, "read", { ...arg, text: arg.text.slice(3) })
  }
}

const FIND_EXEC = new Set(["-exec", "-execdir", "-ok", "-okdir"])
const FIND_WRITE = new Set(["-fprint", "-fprint0", "-fls", "-fprintf"])

/** `find [-H|-L|-P|-D x|-Ox] START… EXPR`. @internal */
export const analyzeFind = (
  analyzer: Analyzer,
  segment: Segment,
  args: ReadonlyArray<Word>,
  command: SimpleCommand,
  depth: number,
  nested: Nested
): void => {
  let i = 0
  const leading: Array<string> = []
  while (i < args.length && /^-(?:[HLP]|O\d*|D)$/.test(args[i]!.text)) {
    leading.push(args[i]!.text)
    i += args[i]!.text === "-D" ? 2 : 1
  }
  const starts: Array<Word> = []
  while (i < args.length && !(args[i]!.resolved && /^[-(!]/.test(args[i]!.text))) starts.push(args[i++]!)
  // `-files0-from FILE`: the start points are whatever FILE (or stdin) lists
  const listed = args.findIndex((a) => a.text === "-files0-from")
  if (listed >= 0) starts.push({ text: args[listed + 1]?.text ?? "-", resolved: false })
  if (starts.length === 0) starts.push(word("."))
  // name filters that select secrets: what `-exec CMD {}` or the next stage reads is those files
  const secrets = secretFilters(args, starts)
  const rest: Array<string> = []
  let deletes = false
  let runs = false
  while (i < args.length) {
    const arg = args[i]!
    if (arg.resolved && FIND_EXEC.has(arg.text)) {
      const inner: Array<Word> = []
      i++
      while (i < args.length && !(args[i]!.text === ";" || args[i]!.text === "+")) inner.push(args[i++]!)
      i++
      if (inner.length > 0) {
        const segmentText = `find … ${arg.text} ${inner.map((w) => w.text).join(" ")}`
        // `{}` is each file found under the start points: decided as the start point itself, and
        // a write command's targets still ask (they are whatever find finds).
        const start = starts[0]?.text ?? "."
        const found = inner.flatMap((w) =>
          !w.text.includes("{}")
            ? [w]
            : [
              { ...w, text: w.text.replaceAll("{}", () => start) },
              ...secrets.map((s) => ({ ...s, text: w.text.replaceAll("{}", () => s.text) }))
            ]
        )
        nested.argvIn(newSegment(analyzer, segmentText), found, depth + 1, command, true)
      }
      runs = true
      rest.push(arg.text, "…")
      continue
    }
    if (arg.resolved && arg.text === "-delete") deletes = true
    if (arg.resolved && FIND_WRITE.has(arg.text) && args[i + 1] !== undefined) {
      addPath(analyzer, segment, "write", args[i + 1]!)
    }
    rest.push(arg.text)
    i++
  }
  segment.canonical = ["find", ...leading, ...starts.map((s) => s.text), ...rest].join(" ")
  segment.checks.push({ action: "shell", resource: segment.canonical })
  for (const start of starts) {
    if (!start.resolved) {
      guard(segment, "unresolved-target", start.text)
      continue
    }
    if (deletes) {
      const target = deleteTarget(analyzer, start.text)
      segment.checks.push({ action: "shell", resource: `rm -r ${target ?? start.text}` })
      addPath(analyzer, segment, "write", start)
    } else addPath(analyzer, segment, "read", start)
  }
  // `find . -name .env -print0 | xargs -0 cat`: the names it prints are read by the next stage
  if (!runs && !deletes && command.stdoutPiped === true) {
    for (const s of secrets) {
      addPath(analyzer, segment, "read", s)
    }
  }
}

const FIND_NAMES = new Set(["-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename"])

/** The files a find's name filters select under its first start point, when they name secrets. */
const secretFilters = (args: ReadonlyArray<Word>, starts: ReadonlyArray<Word>): Array<Word> => {
  const start = starts[0]
  if (start === undefined || !start.resolved) return []
  const out: Array<Word> = []
  args.forEach((arg, i) => {
    const value = args[i + 1]
    if (!FIND_NAMES.has(arg.text) || value === undefined || !value.resolved) return
    const leaf = value.text.slice(value.text.lastIndexOf("/") + 1)
    if (!SECRET_NAME.test(leaf.replace(/\*/g, "").replace(/\?/g, "x"))) return
    const text = `${start.text.replace(/\/$/, "")}/${leaf}`
    out.push({ text, resolved: true, ...(/[*?[]/.test(leaf) ? { glob: true } : {}) })
  })
  return out
}

// sed commands that write (`w FILE`, `s/…/…/w FILE`) or run (`e`, `s/…/…/e`) — a simple reading
// of the script that may over-approximate (failing closed), never under-approximate.
const SED_WRITE = /(?:^|[;\n{}]|[0-9$/]\s*|\s)[wW]\s+([^;\n}]+)|\/[gpIiMm0-9]*w\s+([^;\n}]+)/g
const SED_EXEC = /(?:^|[;\n{}])\s*(?:[0-9$,/]+\s*)?e(?:\s|;|$)|\/[gpIiMm0-9]*e(?:[;\s}]|$)/

const sedScripts = (
  args: ReadonlyArray<Word>
): { scripts: Array<Word>; files: Array<Word>; inPlace: boolean; programFiles: Array<Word> } => {
  const { options, operands } = parseOptions(args, { short: "efl", long: ["--expression", "--file", "--line-length"] })
  const scripts = options.filter((o) => (o.name === "-e" || o.name === "--expression") && o.value !== null).map((o) =>
    o.value!
  )
  const programFiles = options.flatMap((o) =>
    (o.name === "-f" || o.name === "--file") && o.value !== null ? [o.value] : []
  )
  const fromFile = programFiles.length > 0
  const inPlace = args.some((a) => /^-[a-zA-Z]*i/.test(a.text) || a.text.startsWith("--in-place"))
  const files = scripts.length === 0 && !fromFile ? operands.slice(1) : operands
  if (scripts.length === 0 && !fromFile && operands[0] !== undefined) scripts.push(operands[0])
  return { scripts, files, inPlace, programFiles }
}

/**
 * A file of commands a tool runs (`sed -f F`, `awk -f F`, `make -f F`): read from the workspace,
 * but from stdin (`-f -`, `-f /dev/stdin`) or an unresolved name it is code the gate cannot read.
 */
const programFile = (analyzer: Analyzer, segment: Segment, tool: string, file: Word): void => {
  if (!file.resolved || isStdin(file)) guard(segment, "inline-code", `${tool} -f ${file.text}`)
  else addPath(analyzer, segment, "read", file)
}

/** `sed`: in-place edits write their files; `w FILE` writes; `e` runs commands. @internal */
export const analyzeSed = (analyzer: Analyzer, segment: Segment, args: ReadonlyArray<Word>): void => {
  const { files, inPlace, programFiles, scripts } = sedScripts(args)
  for (const file of programFiles) programFile(analyzer, segment, "sed", file)
  for (const script of scripts) {
    if (!script.resolved) {
      guard(segment, "inline-code", script.text)
      continue
    }
    for (const m of script.text.matchAll(SED_WRITE)) {
      const target = (m[1] ?? m[2] ?? "").trim()
      if (target.length > 0 && target !== "/dev/stdout") addPath(analyzer, segment, "write", target)
    }
    if (SED_EXEC.test(script.text)) guard(segment, "inline-code", script.text)
  }
  for (const file of files) addPath(analyzer, segment, inPlace ? "write" : "read", file)
}

// awk statements that redirect output to a file or read one (`print … > f`, `getline < f`).
const AWK_IO = /\bprintf?\b[^;}]*?>{1,2}|\bgetline\b[^;}]*</

/** `awk`: the program's file redirections cannot be resolved (ask); its operands are read. @internal */
export const analyzeAwk = (analyzer: Analyzer, segment: Segment, args: ReadonlyArray<Word>): void => {
  const { options, operands } = parseOptions(args, { short: "fvF", long: ["--file", "--assign", "--field-separator"] })
  const fromFile = options.find((o) => o.name === "-f" || o.name === "--file")
  const program = fromFile === undefined ? operands[0] : undefined
  if (program !== undefined && (!program.resolved || AWK_IO.test(program.text))) {
    guard(segment, "inline-code", program.text)
  }
  if (fromFile?.value) programFile(analyzer, segment, "awk", fromFile.value)
  for (const operand of operands.slice(program === undefined ? 0 : 1)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(operand.text)) addPath(analyzer, segment, "read", operand)
  }
}

// Build variables that name where files are installed or written (`DESTDIR`, `PREFIX`, `BINDIR`,
// `INSTALL_ROOT`, `CMAKE_INSTALL_PREFIX`), given as a `NAME=VALUE` operand.
const DESTINATION = /^(?:[A-Za-z_]*(?:DESTDIR|PREFIX|prefix|DIR|dir|_ROOT))=(.+)$/s

/** A glob that selects the files a search reads (`rg -g .env`): one naming a secret reads it. */
const selected = (analyzer: Analyzer, segment: Segment, value: Word): void => {
  const glob = value.text.replace(/^(?:\*\*\/)+/, "")
  // `!GLOB` excludes
  if (!value.resolved || glob.startsWith("!") || !SECRET_NAME.test(glob.replace(/\*/g, "").replace(/\?/g, "x"))) return
  addPath(analyzer, segment, "read", { text: glob, resolved: true, ...(/[*?[]/.test(glob) ? { glob: true } : {}) })
}

/** `KEY=VALUE` configuration whose key runs a program (`cargo --config 'target.x.runner="sh -c id"'`). */
const configured = (
  segment: Segment,
  name: string,
  keys: RegExp,
  value: Word,
  depth: number,
  nested: Nested
): void => {
  if (!value.resolved || !keys.test(value.text)) return
  guard(segment, "config-executes", `${name} ${value.text}`)
  const eq = value.text.indexOf("=")
  nested.speculative(configValue(value.text.slice(eq + 1)), depth + 1)
}

// A configured value as the program reads it: one level of TOML quoting removed, not every quote at
// its ends (`"sh -c 'rm -rf /'"` keeps its inner quotes, or the command would not parse); an array
// of strings becomes its words, each quoted again for the shell.
const configValue = (text: string): string => {
  const v = text.trim()
  if (v.startsWith("[") && v.endsWith("]")) {
    const items = v.slice(1, -1).match(/"(?:[^"\\]|\\.)*"|'[^']*'/g)
    if (items !== null) return items.map((item) => `'${unquote(item).replace(/'/g, `'\\''`)}'`).join(" ")
    return unquote(v.slice(1, -1).trim())
  }
  return unquote(v)
}

const unquote = (v: string): string =>
  v.length < 2 || (v[0] !== "\"" && v[0] !== "'") || !v.endsWith(v[0])
    ? v
    : v[0] === "\""
    ? v.slice(1, -1).replace(/\\(["\\])/g, "$1")
    : v.slice(1, -1)

/** A known program: its file options and operands, by its row in the table. @internal */
export const analyzeKnown = (
  analyzer: Analyzer,
  segment: Segment,
  name: string,
  spec: ProgramSpec,
  args: ReadonlyArray<Word>,
  depth: number,
  nested: Nested
): void => {
  const { operands, options } = parseOptions(args, spec.options ?? {})
  // Go- and GCC-style single-dash long options whose value is a program run (`-toolexec CMD`).
  args.forEach((arg, index) => {
    const [option, ...attached] = arg.text.replace(/^--/, "-").split("=")
    if (!arg.resolved || spec.runsArgs?.includes(option!) !== true) return
    guard(segment, "inline-code", `${name} ${arg.text}`)
    const value = attached.length > 0 ? { text: attached.join("="), resolved: true } : args[index + 1]
    if (value?.resolved === true) nested.source(value.text, depth + 1)
  })
  for (const { name: option, value } of options) {
    if (spec.runs?.includes(option)) {
      guard(segment, "inline-code", `${name} ${option}`)
      if (value !== null && value.resolved) nested.source(value.text, depth + 1)
    } else if (spec.code?.includes(option)) {
      guard(segment, "inline-code", `${name} ${option} ${value?.text ?? ""}`)
      // An editor or tool command may shell out (`vim -c '!cmd'`): read it as a command too.
      if (value !== null && value.resolved) nested.speculative(value.text.replace(/^[\s:]*!?/, ""), depth + 1)
    } else if (spec.writes?.includes(option) && value !== null) addPath(analyzer, segment, "write", value)
    else if (spec.reads?.includes(option) && value !== null) addPath(analyzer, segment, "read", value)
    else if (spec.programFiles?.includes(option) && value !== null) programFile(analyzer, segment, name, value)
    else if (spec.selects?.includes(option) && value !== null) selected(analyzer, segment, value)
    else if (spec.configs?.[0].includes(option) && value !== null) {
      configured(segment, name, spec.configs[1], value, depth, nested)
    } else if (option === "--checkpoint-action" && value !== null) {
      // tar: `exec=CMD` runs CMD at each checkpoint.
      const exec = /^exec=(.*)$/s.exec(value.text)
      if (exec !== null) {
        guard(segment, "inline-code", `${name} ${option}=${value.text}`)
        if (value.resolved) nested.source(exec[1]!, depth + 1)
      }
    }
  }
  const role = spec.operands ?? "maybe-paths"
  operands.forEach((operand, index) => {
    switch (role) {
      case "text":
        return
      case "read":
        return spec.opaque === true && !operand.resolved ? undefined : addPath(analyzer, segment, "read", operand)
      case "pattern-read":
        if (index === 0 && !options.some((o) => o.name === "-e" || o.name === "--regexp" || o.name === "-f")) return
        return addPath(analyzer, segment, "read", operand)
      case "write":
        return addPath(analyzer, segment, "write", operand)
      case "write-after-first":
        return index === 0 ? undefined : addPath(analyzer, segment, "write", operand)
      case "write-last":
        return addPath(
          analyzer,
          segment,
          index === operands.length - 1 && !options.some((o) => o.name === "-t" || o.name === "--target-directory")
            ? "write"
            : "read",
          operand
        )
      case "second-written":
        return addPath(analyzer, segment, index === 1 ? "write" : "read", operand)
      case "maybe-paths": {
        // `make DESTDIR=$HOME/x install`, `PREFIX=/usr/local`: where a build installs is written
        const destination = operand.resolved ? DESTINATION.exec(operand.text) : null
        if (destination !== null) return addPath(analyzer, segment, "write", word(destination[1]!))
        if (operand.resolved && (operand.glob === true || looksLikePath(analyzer, operand.text))) {
          addPath(analyzer, segment, "read", operand)
        }
      }
    }
  })
  // `-r`/`-R` with no file operand reads the current directory.
  if (
    role === "pattern-read" && operands.length <= 1 &&
    options.some((o) => /^-[a-zA-Z]*[rR]/.test(o.name) || o.name === "--recursive")
  ) {
    addPath(analyzer, segment, "read", ".")
  }
  if (role === "maybe-paths") {
    for (const { value } of options) {
      if (value !== null && value.resolved && looksLikePath(analyzer, value.text)) {
        addPath(analyzer, segment, "read", value)
      }
    }
  }
  if (name === "ln" && options.some((o) => o.name === "-s" || o.name === "--symbolic") && operands.length > 0) {
    const link = operands[operands.length - 1]!
    if (link.resolved) analyzer.links.push(link.text)
  }
  segment.canonical ||= joinArgv(name, args)
}
