/**
 * The command-line grammar, checked before any command runs: the global options are taken from
 * any position, the verb path is resolved level by level, and every other option must be one
 * the verb declares. A misspelled option is a usage error naming it and the nearest valid one —
 * it is never folded into an argument (a shell command under judgement, a file name).
 *
 * @since 0.1.0
 */
import { cannotRun, type CommandFailure } from "./CliError.js"
import { type CommandSpec, findOption, type OptionSpec } from "./CommandSpec.js"

/**
 * What the command line asks for.
 *
 * @since 0.1.0
 * @category models
 */
export type Parsed =
  | { readonly _tag: "Help"; readonly spec: CommandSpec }
  | { readonly _tag: "Version" }
  | {
    readonly _tag: "Run"
    /** The verb's path from the root (`["steward", "algal", "check"]`). */
    readonly spec: CommandSpec
    /** Arguments for the command parser: the global options placed after the verb. */
    readonly args: ReadonlyArray<string>
  }

/**
 * The options every verb accepts, at any position before `--`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Globals {
  readonly json: boolean
  readonly stateDir: string | undefined
  /** The tokens themselves, to hand on to the verb. */
  readonly tokens: ReadonlyArray<string>
  /** Every other token, in order. */
  readonly rest: ReadonlyArray<string>
}

const helpNames: ReadonlyArray<string> = ["--help", "-h"]
const globalNames: ReadonlyArray<string> = ["--json", "--state-dir"]

const isOptionToken = (token: string): boolean => token.length > 1 && token.startsWith("-") && !/^-\d/.test(token)
const optionName = (token: string): string => token.startsWith("--") ? token.split("=")[0]! : token

/**
 * Take `--json` and `--state-dir DIR` (or `--state-dir=DIR`) out of the tokens, wherever they are
 * before `--`.
 *
 * @since 0.1.0
 * @category parsing
 */
export const splitGlobals = (tokens: ReadonlyArray<string>): Globals | CommandFailure => {
  const rest: Array<string> = []
  const taken: Array<string> = []
  let json = false
  let stateDir: string | undefined
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!
    if (token === "--") {
      rest.push(...tokens.slice(i))
      break
    }
    if (token === "--json") {
      json = true
      taken.push(token)
    } else if (token === "--state-dir" || token.startsWith("--state-dir=")) {
      const value = token === "--state-dir" ? tokens[++i] : token.slice("--state-dir=".length)
      if (value === undefined || value.length === 0) {
        return cannotRun("usage", "--state-dir needs a directory (--state-dir DIR)", { option: "--state-dir" })
      }
      stateDir = value
      taken.push("--state-dir", value)
    } else {
      rest.push(token)
    }
  }
  return { json, stateDir, tokens: taken, rest }
}

/** Edit distance, for "did you mean". */
const distance = (a: string, b: string): number => {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1))
      previous = current
    }
  }
  return row[b.length]!
}

/**
 * The nearest candidate to a misspelled name, when one is close enough to be a likely typo.
 *
 * @since 0.1.0
 * @category utils
 */
export const nearest = (name: string, candidates: ReadonlyArray<string>): string | undefined => {
  const bare = (s: string) => s.replace(/^-+/, "")
  let best: { readonly candidate: string; readonly d: number } | undefined
  for (const candidate of candidates) {
    const d = bare(candidate).startsWith(bare(name)) && bare(name).length >= 2
      ? 0.5
      : distance(bare(name), bare(candidate))
    if (best === undefined || d < best.d) best = { candidate, d }
  }
  if (best === undefined) return undefined
  return best.d <= Math.max(2, Math.floor(bare(name).length / 3)) ? best.candidate : undefined
}

const hint = (spec: CommandSpec): string => `see '${spec.path.join(" ")} --help'`

const usage = (spec: CommandSpec, message: string, details: Record<string, unknown>): CommandFailure =>
  cannotRun("usage", `${message}; ${hint(spec)}`, { command: spec.path.join(" "), ...details })

// The audit area speaks xcheck's grammar (spec §3) where xcheck has a wording: `unknown arg: --x
// (see --help)`, `--x is not valid for command 'v' (only: …)`, `multiple commands: …`,
// `--x requires a DIR value`, `--x must be an integer`. Same closed code (`usage`, exit 2) and
// details as every other area; a likely typo still names the nearest valid option.
const speaksXcheck = (spec: CommandSpec): boolean => spec.path[1] === "audit"

const leavesOf = (spec: CommandSpec): ReadonlyArray<CommandSpec> =>
  spec.children.length === 0 ? [spec] : spec.children.flatMap(leavesOf)

/** The audit verbs (other than `spec`) that declare `name`. */
const declaredElsewhere = (root: CommandSpec, spec: CommandSpec, name: string): ReadonlyArray<string> => {
  const area = root.children.find((child) => child.name === spec.path[1])
  if (area === undefined) return []
  return leavesOf(area)
    .filter((leaf) => leaf !== spec && findOption(leaf.options, name) !== undefined)
    .map((leaf) => leaf.path.slice(2).join(" "))
}

const unknownOption = (root: CommandSpec, spec: CommandSpec, name: string): CommandFailure => {
  const names = [...spec.options.flatMap((option) => option.names), ...globalNames, "--help"]
  const suggestion = nearest(name, names)
  if (speaksXcheck(spec) && suggestion === undefined) {
    const elsewhere = declaredElsewhere(root, spec, name)
    const details = { command: spec.path.join(" "), option: name }
    return elsewhere.length > 0
      ? cannotRun(
        "usage",
        `${name} is not valid for command '${spec.path.slice(2).join(" ") || spec.name}' (only: ${
          elsewhere.join(", ")
        })`,
        { ...details, commands: elsewhere }
      )
      : cannotRun("usage", `unknown arg: ${name} (see --help)`, details)
  }
  return usage(
    spec,
    `unknown option ${name}${suggestion === undefined ? "" : ` (did you mean ${suggestion}?)`} for ${
      spec.path.join(" ")
    }`,
    suggestion === undefined ? { option: name } : { option: name, suggestion }
  )
}

const unknownCommand = (spec: CommandSpec, name: string): CommandFailure => {
  const names = spec.children.map((child) => child.name)
  const suggestion = nearest(name, names)
  return usage(
    spec,
    `unknown command '${name}' for ${spec.path.join(" ")}${
      suggestion === undefined ? "" : ` (did you mean '${suggestion}'?)`
    }; its commands are ${names.join(", ")}`,
    { argument: name, commands: names, ...(suggestion === undefined ? {} : { suggestion }) }
  )
}

const checkValue = (spec: CommandSpec, option: OptionSpec, name: string, value: string | undefined) => {
  if (value === undefined) {
    return usage(
      spec,
      speaksXcheck(spec)
        ? `${name} requires a ${option.placeholder} value`
        : `${name} needs a value (${name} ${option.placeholder})`,
      { option: name }
    )
  }
  if (option.choices !== undefined && !option.choices.includes(value)) {
    return usage(spec, `${name}: '${value}' is not one of ${option.choices.join(", ")}`, {
      option: name,
      value,
      choices: option.choices
    })
  }
  const numeric = option.numeric === "integer"
    ? /^[+-]?\d+$/
    : option.numeric === "float"
    ? /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/
    : undefined
  if (numeric !== undefined && !numeric.test(value)) {
    const kind = option.numeric === "integer" ? "an integer" : "a number"
    return usage(spec, `${name} must be ${kind} (got '${value}')`, { option: name, value })
  }
  return undefined
}

/**
 * Check the tokens (without the global options) against the command tree and say what to do.
 * `globals` are re-inserted right after the verb, where every verb declares them.
 *
 * @since 0.1.0
 * @category parsing
 */
export const analyze = (root: CommandSpec, globals: Globals): Parsed | CommandFailure => {
  const tokens = globals.rest
  // What the command parser gets: a boolean flag is spelled `--flag=true`, so the parser never
  // takes the next word (`expr --json 1`) as the flag's value.
  const out: Array<string> = []
  let node = root
  let verbEnd = 0
  let help = false
  const positionals: Array<string> = []
  let afterDashes = 0
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!
    if (token === "--") {
      afterDashes = tokens.length - i - 1
      out.push(...tokens.slice(i))
      break
    }
    if (isOptionToken(token)) {
      const name = optionName(token)
      if (helpNames.includes(name)) {
        help = true
        continue
      }
      if ((name === "--version" || name === "-V") && node === root) return { _tag: "Version" }
      const option = findOption(node.options, name)
      if (option === undefined) return unknownOption(root, node, name)
      if (option.takesValue) {
        const inline = token.includes("=") ? token.slice(token.indexOf("=") + 1) : undefined
        const value = inline ?? tokens[++i]
        const bad = checkValue(node, option, name, value)
        if (bad !== undefined) return bad
        out.push(name, value!)
      } else if (token.includes("=")) {
        return usage(node, `${name} takes no value`, { option: name })
      } else {
        // a short alias (`-v`) as its long name: the parser takes `=true` only after a long one
        out.push(`${name.startsWith("--") ? name : option.names.find((n) => n.startsWith("--")) ?? name}=true`)
      }
      continue
    }
    out.push(token)
    if (node.children.length > 0) {
      const child = node.children.find((c) => c.name === token)
      if (child === undefined) return help ? { _tag: "Help", spec: node } : unknownCommand(node, token)
      node = child
      verbEnd = out.length
      continue
    }
    positionals.push(token)
  }
  // A group runs on its own only when it declares the global options (`steward reflex` = status).
  const runnable = node.children.length === 0 || (node !== root && findOption(node.options, "--json") !== undefined)
  if (help || !runnable) return { _tag: "Help", spec: node }
  const repeated = node.args.find((arg) => arg.repeated)
  if (repeated !== undefined && positionals.length > 1) {
    return usage(
      node,
      `${repeated.name} must be one argument (quote it) or follow \`--\`; got ${positionals.length} words`,
      { argument: repeated.name }
    )
  }
  const extra = node.args.some((arg) => arg.repeated) ? Infinity : node.args.length
  if (positionals.length > extra) {
    const sibling = positionals.slice(extra).find((token) =>
      node.path.length > 2 && root.children.find((c) => c.name === node.path[1])?.children.some((c) => c.name === token)
    )
    if (speaksXcheck(node) && sibling !== undefined) {
      return cannotRun("usage", `multiple commands: '${node.name}' and '${sibling}' (only one allowed)`, {
        command: node.path.join(" "),
        argument: sibling
      })
    }
    const names = node.args.map((arg) => arg.name).join(" ")
    const unexpected = positionals.slice(extra)
    return usage(
      node,
      `unexpected argument${unexpected.length === 1 ? "" : "s"} ${unexpected.map((t) => `'${t}'`).join(" ")} (${
        node.path.join(" ")
      } takes ${names.length === 0 ? "no arguments" : names})`,
      { arguments: unexpected }
    )
  }
  if (afterDashes > 0 && repeated === undefined && node.args.length === 0) {
    return usage(node, "takes no arguments after `--`", {})
  }
  const declared = [
    ...(globals.json && findOption(node.options, "--json") !== undefined ? ["--json=true"] : []),
    ...(globals.stateDir !== undefined && findOption(node.options, "--state-dir") !== undefined
      ? ["--state-dir", globals.stateDir]
      : [])
  ]
  return { _tag: "Run", spec: node, args: [...out.slice(0, verbEnd), ...declared, ...out.slice(verbEnd)] }
}
