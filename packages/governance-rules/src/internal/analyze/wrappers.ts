/**
 * Wrappers: programs that run another command (`sudo`, `env`, `timeout`, `taskset`, `flock`,
 * `strace`, `script -c`, `sg`, `npx`, `npm exec`, `uv run`, …). Their own options are parsed from
 * the table in `programs.ts` (clusters, attached values, abbreviations), then the wrapped argv —
 * or the wrapped shell string — is analysed in their place.
 *
 * @internal
 */
import type { Word } from "../shellSyntax.js"
import type { Assignment } from "./environment.js"
import { parseOptions } from "./model.js"
import type { WrapperSpec } from "./programs.js"

/** What unwrapping one wrapper yields. @internal */
export interface Unwrapped {
  /** The wrapped argv (empty: nothing to run). */
  readonly argv: ReadonlyArray<Word>
  /** Shell strings the wrapper runs (`-c CMD`). */
  readonly scripts: ReadonlyArray<Word>
  readonly flags: ReadonlyArray<string>
  readonly assignments: ReadonlyArray<Assignment>
  /** The wrapper was told to act on something else (`taskset -p PID`): no command runs. */
  readonly noCommand: boolean
  /** Files the wrapper itself reads (`xargs -a FILE`). */
  readonly reads: ReadonlyArray<Word>
  /** The string replaced by each line of stdin (`xargs -I {}`), if any. */
  readonly placeholder: string | null
  /** The directory the command runs in (`env -C DIR`), if the wrapper moves it. */
  readonly chdir: Word | null
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=|^BASH_FUNC_[^=]*=/

/** Strip one wrapper's options; returns what it runs. @internal */
export const unwrap = (name: string, spec: WrapperSpec, args: ReadonlyArray<Word>): Unwrapped => {
  const assignments: Array<Assignment> = []
  const scripts: Array<Word> = []
  const split: Array<Word> = []
  let remaining = args
  if (name === "env") {
    // `env [OPTION]… [NAME=VALUE]… [COMMAND]`: options and assignments may interleave.
    const kept: Array<Word> = []
    let i = 0
    for (; i < args.length; i++) {
      const arg = args[i]!
      if (ASSIGNMENT.test(arg.text)) {
        const eq = arg.text.indexOf("=")
        assignments.push({
          name: arg.text.slice(0, eq),
          value: { text: arg.text.slice(eq + 1), resolved: arg.resolved }
        })
      } else if (arg.text.startsWith("-") && arg.text !== "-") kept.push(arg)
      else break
    }
    remaining = [...kept, ...args.slice(i)]
  }
  const first = parseOptions(remaining, spec.options)
  let argv = remaining.slice(first.rest)
  const options = [...first.options]
  if (name === "env") {
    // Assignments may also follow the options.
    while (argv.length > 0 && ASSIGNMENT.test(argv[0]!.text)) {
      const text = argv[0]!.text
      const eq = text.indexOf("=")
      assignments.push({ name: text.slice(0, eq), value: { text: text.slice(eq + 1), resolved: argv[0]!.resolved } })
      argv = argv.slice(1)
    }
  }
  if ((spec.skip ?? 0) > 0) {
    // `flock FILE -c CMD`, `sg GROUP -c CMD`: options may follow the skipped operand too.
    argv = argv.slice(Math.min(spec.skip!, argv.length))
    const second = parseOptions(argv, spec.options)
    options.push(...second.options)
    argv = argv.slice(second.rest)
  }
  const flags = options.map((o) => o.name)
  for (const option of options) {
    if (name === "env" && (option.name === "-S" || option.name === "--split-string") && option.value !== null) {
      // `env -S 'a "b c"' d` splits with quotes, as a command line: `a "b c" d`.
      split.push(option.value)
    } else if (spec.script?.includes(option.name) && option.value !== null) scripts.push(option.value)
  }
  const noCommand = options.some((o) => spec.noCommand?.includes(o.name) === true)
  const reads = options.flatMap((o) => spec.reads?.includes(o.name) === true && o.value !== null ? [o.value] : [])
  const chdir = options.filter((o) => spec.chdir?.includes(o.name) === true).pop()?.value ?? null
  const replace = options.filter((o) => spec.replace?.includes(o.name) === true).pop()
  const placeholder = replace === undefined ? null : replace.value?.text || "{}"
  if (spec.scriptOnly) argv = []
  const joins = spec.joinsRest === true && !(name === "watch" && flags.some((f) => f === "-x" || f === "--exec"))
  if (joins && argv.length > 0 && scripts.length === 0) {
    scripts.push({ text: argv.map((w) => w.text).join(" "), resolved: argv.every((w) => w.resolved) })
    argv = []
  } else if (joins && scripts.length > 0) argv = []
  if (split.length > 0) {
    const line = [...split.map((w) => w.text), ...argv.map((w) => w.text)].join(" ")
    scripts.push({ text: line, resolved: split.every((w) => w.resolved) && argv.every((w) => w.resolved) })
    argv = []
  }
  return { argv, scripts, flags, assignments, noCommand, reads, chdir, placeholder }
}
