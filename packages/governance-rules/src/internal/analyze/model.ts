/**
 * The analyser's vocabulary: a segment (one simple command as the engine understood it), the
 * checks it implies, the guards that say what could not be resolved, and the small option-parsing
 * helpers every command family shares.
 *
 * Fail closed (ADR 0204): a segment is allowed only when every check on it is allowed and it
 * carries no guard. A *speculative* segment is one possible reading of something the engine could
 * not resolve (an unknown program's arguments, a glob-named command, a host behind an expansion);
 * it can only make the decision stricter — it counts when it is denied and is ignored otherwise.
 *
 * @internal
 */
import type { Action } from "../../Rule.js"
import type { ParsedCommand } from "../../ShellParser.js"
import type * as Paths from "../paths.js"
import type { Word } from "../shellSyntax.js"

/** @internal */
export interface Check {
  readonly action: Action
  readonly resource: string
}

/** @internal */
export type GuardId =
  | "parse-error"
  | "function-definition"
  | "too-deep"
  | "too-long"
  | "too-complex"
  | "non-printing"
  | "unknown-program"
  | "unresolved-command"
  | "unresolved-target"
  | "unresolved-host"
  | "glob-command"
  | "targets-from-stdin"
  | "code-from-stdin"
  | "inline-code"
  | "env-executes"
  | "config-executes"
  | "rebinds-command"
  | "privilege"
  | "runs-written-file"

/** Why each guard asks, in words (the citation's note). @internal */
export const guardReasons: Record<GuardId, string> = {
  "parse-error": "the command does not parse, so it cannot be resolved",
  "function-definition": "function definitions are opaque to the engine",
  "too-deep": "nesting is too deep to resolve",
  "too-long": "commands over 10,000 characters are never allowed without asking",
  "too-complex": "the command has more parts than the engine resolves within its time bound",
  "non-printing": "the command contains non-printing or invisible characters",
  "unknown-program": "the program is not one the engine knows, so what it does cannot be resolved",
  "unresolved-command": "the command name comes from an expansion the engine cannot resolve",
  "unresolved-target": "a file the command reads or writes comes from an expansion or glob the engine cannot resolve",
  "unresolved-host": "where the command connects comes from an expansion, a file or an ambiguous URL",
  "glob-command": "the command name is a glob pattern, so the program it runs cannot be resolved",
  "targets-from-stdin": "the command's targets come from stdin (xargs / find -exec), which the engine cannot see",
  "code-from-stdin": "the command runs code it reads from stdin or a stream the engine cannot see",
  "inline-code": "the command runs program text (inline code or an editor/tool command) the engine cannot read",
  "env-executes": "an environment variable whose value executes or loads code",
  "config-executes": "a configuration override that runs a program",
  "rebinds-command": "the command rebinds what a command name runs (hash -p, aliases, exported functions)",
  "privilege": "runs as another user or root, or with host privileges",
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
  /** One possible reading of something unresolved: it counts only when it is denied. */
  readonly speculative?: boolean
}

/** @internal */
export interface Context extends Paths.PathContext {
  readonly parse: (source: string) => ParsedCommand
}

/** The analyser's state for one top-level command. @internal */
export interface Analyzer {
  readonly context: Context
  readonly out: Array<Segment>
  /** Current directory after `cd`s seen so far (`null`: unknown). */
  cwd: string | null
  /** Files executed by segments (`bash x.sh`, `./x`, `python3 x.py`), with their segment. */
  readonly executed: Array<readonly [string, Segment]>
  /** Project tools run (`npm test`, `make`): the directory, its build files and the segment (resolved at the end). */
  readonly projectRuns: Array<readonly [string | null, ReadonlyArray<string>, Segment]>
  /** Depth of speculative analysis (segments created inside are speculative). */
  speculative: number
  /** Whether `CDPATH` was set (a relative `cd` can then go anywhere). */
  cdpath: boolean
  /** Symlinks the command creates (`ln -s`, a git index entry): writes through them ask. */
  readonly links: Array<string>
  /** Whether aliases are expanded (`shopt -s expand_aliases`) or names rebound (`hash -p`). */
  rebound: boolean
  /** Whether globs match dotfiles (`shopt -s dotglob`): a workspace glob may then name secrets. */
  dotglob: boolean
}

/** Past this many segments a command asks instead of being analysed further (a time bound). @internal */
export const MAX_SEGMENTS = 2_000

/** @internal */
export const newSegment = (analyzer: Analyzer, text: string): Segment => {
  const segment: Segment = analyzer.speculative > 0
    ? { text, canonical: "", checks: [], guards: [], speculative: true }
    : { text, canonical: "", checks: [], guards: [] }
  analyzer.out.push(segment)
  return segment
}

/** @internal */
export const guard = (segment: Segment, id: GuardId, detail: string): void => {
  if (!segment.guards.some((g) => g.id === id && g.detail === detail)) segment.guards.push({ id, detail })
}

/** Run `f` with every segment it creates marked speculative. @internal */
export const speculate = (analyzer: Analyzer, f: () => void): void => {
  analyzer.speculative++
  try {
    f()
  } finally {
    analyzer.speculative--
  }
}

/** @internal */
export const isFlag = (text: string): boolean => text.length > 1 && text.startsWith("-")

/** @internal */
export const word = (text: string): Word => ({ text, resolved: true })

/** @internal */
export const joinArgv = (name: string, args: ReadonlyArray<Word>): string =>
  [name, ...args.map((a) => a.text)].join(" ")

/** Options and operands (`--` ends the options). @internal */
export const operandsOf = (args: ReadonlyArray<Word>): { flags: Array<Word>; operands: Array<Word> } => {
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

/** `-abc` → `-a -b -c`. @internal */
export const splitShortFlags = (flag: string): Array<string> =>
  flag.startsWith("--") || flag.length <= 2 ? [flag] : [...flag.slice(1)].map((c) => `-${c}`)

/**
 * The long option a possibly abbreviated spelling stands for (GNU getopt and git accept any
 * unambiguous prefix: `--har` is `--hard`). Fails closed: a prefix of several known options
 * resolves to the first of them that is listed (callers list the dangerous ones first).
 *
 * @internal
 */
export const longOption = (text: string, known: ReadonlyArray<string>): string => {
  if (!text.startsWith("--") || text.length < 4) return text
  if (known.includes(text)) return text
  for (const option of known) if (option.startsWith(text)) return option
  return text
}

/** One parsed option: its name (`-o`, `--output`) and value (attached or the next word). @internal */
export interface Option {
  readonly name: string
  readonly value: Word | null
}

/** What a program's options look like, for `parseOptions`. @internal */
export interface OptionSpec {
  /** Short options that take a value (`"o"` for `-o FILE`, `-oFILE`, `-xo FILE`). */
  readonly short?: string
  /** Long options that take a value. */
  readonly long?: ReadonlyArray<string>
  /** Long options that take two values, a name and the value the option is about (`jq --rawfile NAME FILE`). */
  readonly pairs?: ReadonlyArray<string>
  /** Long options without a value (only used to resolve abbreviations). */
  readonly flags?: ReadonlyArray<string>
  /** Stop at the first operand (the rest is another command's argv). */
  readonly stopAtOperand?: boolean
}

/**
 * getopt-style parsing: short clusters (`-qc CMD`, `-c'CMD'`), `--long=value`, `--long value`,
 * abbreviated long options. Returns the options and the operands (and where parsing stopped).
 *
 * @internal
 */
export const parseOptions = (
  args: ReadonlyArray<Word>,
  spec: OptionSpec
): { options: Array<Option>; operands: Array<Word>; rest: number } => {
  const options: Array<Option> = []
  const operands: Array<Word> = []
  const long = spec.long ?? []
  const pairs = spec.pairs ?? []
  const known = [...long, ...pairs, ...(spec.flags ?? [])]
  let i = 0
  for (; i < args.length; i++) {
    const arg = args[i]!
    const text = arg.text
    if (text === "--") {
      i++
      break
    }
    if (!arg.resolved || !isFlag(text)) {
      if (spec.stopAtOperand) break
      operands.push(arg)
      continue
    }
    if (text.startsWith("--")) {
      const eq = text.indexOf("=")
      const name = longOption(eq > 0 ? text.slice(0, eq) : text, known)
      if (eq > 0) options.push({ name, value: { text: text.slice(eq + 1), resolved: arg.resolved } })
      else if (pairs.includes(name)) {
        options.push({ name, value: args[i + 2] ?? null })
        i += 2
      } else if (long.includes(name)) options.push({ name, value: args[++i] ?? null })
      else options.push({ name, value: null })
      continue
    }
    const short = spec.short ?? ""
    for (let k = 1; k < text.length; k++) {
      const c = text[k]!
      if (short.includes(c)) {
        const attached = text.slice(k + 1)
        options.push({ name: `-${c}`, value: attached.length > 0 ? word(attached) : args[++i] ?? null })
        break
      }
      options.push({ name: `-${c}`, value: null })
    }
  }
  if (!spec.stopAtOperand) { for (; i < args.length; i++) operands.push(args[i]!) }
  return { options, operands, rest: i }
}
