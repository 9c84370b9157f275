/**
 * Shell builtins whose effect the engine must model: `cd` (tracked), `alias`/`trap` (their bodies
 * run later), `hash -p`/`shopt -s expand_aliases` (rebind what a name runs), the name- and
 * arithmetic-taking builtins (`declare`, `printf -v`, `read`, `let`, `unset`, `[[ -v ]]`, `[[ -eq ]]`)
 * that evaluate `$(…)` inside array subscripts, namerefs to the prompt variables, and the builtins
 * and programs that print the environment (`set`, `declare -p`, `env -0`, `ps e`).
 *
 * @internal
 */
import { printfOutput } from "../printed.js"
import type { Word } from "../shellSyntax.js"
import { analyzeAssignments, EVALUATED_VARIABLES, substitutionsIn } from "./environment.js"
import { type Analyzer, guard, joinArgv, parseOptions, type Segment } from "./model.js"
import { changeDirectory } from "./paths.js"
import type { Nested } from "./shells.js"

/** Every environment dump is decided as a read of the process environment (a secret). @internal */
export const ENVIRONMENT = "/proc/self/environ"

const NAME_TAKING = new Set([
  "declare",
  "typeset",
  "local",
  "readonly",
  "export",
  "printf",
  "read",
  "unset",
  "let",
  "[[",
  "test",
  "[",
  "mapfile",
  "readarray",
  "getopts",
  "wait"
])

/** Literal `$(…)` inside words bash evaluates as names or arithmetic: analysed as commands. */
const latent = (args: ReadonlyArray<Word>, depth: number, nested: Nested): void => {
  for (const arg of args) {
    if (!arg.resolved) continue
    for (const inner of substitutionsIn(arg.text)) nested.source(inner, depth + 1)
  }
}

/** Handle a builtin; returns false when `name` is not one of these. @internal */
export const analyzeBuiltin = (
  analyzer: Analyzer,
  segment: Segment,
  name: string,
  args: ReadonlyArray<Word>,
  depth: number,
  nested: Nested,
  stdin: string | null
): boolean => {
  const plain = joinArgv(name, args)
  const decided = () => {
    segment.canonical = plain
    segment.checks.push({ action: "shell", resource: plain })
  }
  if (NAME_TAKING.has(name)) latent(args, depth, nested)
  switch (name) {
    case "cd":
    case "pushd":
      decided()
      changeDirectory(analyzer, args)
      return true
    case "alias":
      decided()
      // `alias x='rm -rf /'` defines code that runs later.
      for (const arg of args) {
        const eq = arg.text.indexOf("=")
        if (eq <= 0) continue
        if (!arg.resolved) guard(segment, "unresolved-command", arg.text)
        else nested.source(arg.text.slice(eq + 1), depth + 1)
      }
      return true
    case "trap": {
      decided()
      const body = args.find((a) => !a.text.startsWith("-"))
      if (body !== undefined) {
        if (!body.resolved) guard(segment, "unresolved-command", body.text)
        else nested.source(body.text, depth + 1)
      }
      return true
    }
    case "hash":
      decided()
      if (args.some((a) => /^-[a-z]*p/.test(a.text))) {
        analyzer.rebound = true
        guard(segment, "rebinds-command", plain)
      }
      return true
    case "shopt":
      decided()
      if (args.some((a) => a.text === "-s") && args.some((a) => a.text === "expand_aliases")) {
        analyzer.rebound = true
        guard(segment, "rebinds-command", plain)
      }
      if (args.some((a) => a.text === "-s") && args.some((a) => a.text === "dotglob" || !a.resolved)) {
        analyzer.dotglob = true
      }
      return true
    case "enable":
      decided()
      if (args.some((a) => a.text.startsWith("-f") || a.text === "-n")) guard(segment, "rebinds-command", plain)
      return true
    case "declare":
    case "typeset":
    case "local":
    case "readonly":
    case "export": {
      decided()
      const flags = args.filter((a) => a.text.startsWith("-")).map((a) => a.text).join("")
      const assigns = args.filter((a) => !a.text.startsWith("-"))
      if (assigns.length === 0 && !/[fF]/.test(flags)) segment.checks.push({ action: "read", resource: ENVIRONMENT })
      if (flags.includes("p")) segment.checks.push({ action: "read", resource: ENVIRONMENT })
      for (const a of assigns) {
        const eq = a.text.indexOf("=")
        const target = eq < 0 ? a.text : a.text.slice(0, eq)
        const value = eq < 0 ? "" : a.text.slice(eq + 1)
        // `declare -n r=PS4`: assigning `r` later sets the prompt, which bash evaluates.
        if (flags.includes("n") && EVALUATED_VARIABLES.has(value)) guard(segment, "env-executes", a.text)
        if (EVALUATED_VARIABLES.has(target) || flags.includes("i")) {
          for (const inner of substitutionsIn(value)) nested.source(inner, depth + 1)
        }
      }
      return true
    }
    case "printf": {
      decided()
      const v = args.findIndex((a) => a.text === "-v")
      const target = args[v + 1]
      if (v >= 0 && target !== undefined && EVALUATED_VARIABLES.has(target.text)) {
        guard(segment, "env-executes", plain)
        latent(args.slice(v + 2), depth, nested)
      }
      // `printf -v GIT_EDITOR %s CMD`: the variable holds what printf would print
      if (v >= 0 && target !== undefined) {
        assign(analyzer, segment, target.text, printed(args.slice(v + 2)), depth, nested)
      }
      return true
    }
    case "read": {
      decided()
      // `read -r GIT_EDITOR <<< CMD`: the variables hold the first line of stdin (unknown unless literal)
      const { operands } = parseOptions(args, { short: "adinNptu" })
      const line = stdin === null ? null : stdin.split("\n")[0]!
      const value: Word = line === null ? { text: "", resolved: false } : { text: line, resolved: true }
      for (const name of operands) if (name.resolved) assign(analyzer, segment, name.text, value, depth, nested)
      return true
    }
    case "set":
      decided()
      // `set` alone prints every variable.
      if (args.length === 0) segment.checks.push({ action: "read", resource: ENVIRONMENT })
      return true
    case "ps":
      decided()
      // BSD-style `e` (no dash) shows each process's environment.
      if (args.some((a) => !a.text.startsWith("-") && /^[a-zA-Z]*e[a-zA-Z]*$/.test(a.text))) {
        segment.checks.push({ action: "read", resource: ENVIRONMENT })
      }
      return true
    default:
      return false
  }
}

/** A variable set by a builtin (`printf -v`, `read`): decided as the assignment `NAME=value`. */
const assign = (
  analyzer: Analyzer,
  segment: Segment,
  name: string,
  value: Word,
  depth: number,
  nested: Nested
): void => analyzeAssignments(analyzer, segment, [{ name, value }], (source) => nested.source(source, depth + 1))

/**
 * What `printf FORMAT ARGS…` prints, exactly (`internal/printed.ts`); when that cannot be
 * reproduced, the `%s`-filled approximation, unresolved (its latent code is still read).
 */
const printed = (args: ReadonlyArray<Word>): Word => {
  const [format, ...rest] = args
  if (format === undefined) return { text: "", resolved: true }
  const exact = args.every((a) => a.resolved) ? printfOutput(format.text, rest.map((a) => a.text)) : null
  if (exact !== null) return { text: exact, resolved: true }
  let next = 0
  let text = ""
  do {
    text += format.text.replace(/%%|%[-+ #0-9.]*[a-zA-Z]/g, (spec) => spec === "%%" ? "%" : rest[next++]?.text ?? "")
  } while (next > 0 && next < rest.length)
  return { text: text.replace(/\\n/g, "\n"), resolved: false }
}

/** A bare `NAME=value`: literal `$(…)` in the value may run later (arithmetic, prompts). @internal */
export const bareAssignmentValue = (value: Word, depth: number, nested: Nested): void => {
  if (value.resolved) { for (const inner of substitutionsIn(value.text)) nested.source(inner, depth + 1) }
}
