/**
 * Help text rendered from the command tree: wrapped to the terminal's width (at most 100 columns;
 * 80 when stdout is not a terminal; `COLUMNS` wins), usage lines with the full path,
 * required and optional arguments marked, the examples of every verb, and no escape codes unless
 * stdout is a terminal (and `NO_COLOR` is unset).
 *
 * @since 0.1.0
 */
import type { ArgSpec, CommandSpec, OptionSpec } from "./CommandSpec.js"
import * as Examples from "./Examples.js"

/**
 * The widest line help prints at most, on the widest terminal (longer lines are hard to read).
 *
 * @since 0.1.0
 * @category constants
 */
export const maxWidth = 100

/**
 * The width help wraps to: `COLUMNS` when set, else the terminal's columns, else 80 (piped, as
 * `man` and `git` do); never above `maxWidth` nor below 40.
 *
 * @since 0.4.0
 * @category utils
 */
export const width = (
  env: Readonly<Record<string, string | undefined>> = process.env,
  terminal: number | undefined = process.stdout.isTTY === true ? process.stdout.columns : undefined
): number => {
  const columns = Number(env["COLUMNS"])
  const chosen = Number.isInteger(columns) && columns > 0 ? columns : terminal ?? 80
  return Math.max(40, Math.min(maxWidth, chosen))
}

/**
 * Whether help may use bold headings: stdout is a terminal and `NO_COLOR` is unset or empty.
 *
 * @since 0.1.0
 * @category utils
 */
export const colorAllowed = (): boolean =>
  process.stdout.isTTY === true && (process.env["NO_COLOR"] === undefined || process.env["NO_COLOR"] === "")

/** Wrap `text` to fit in `width - indent` columns, continuation lines indented by `indent`. */
let columns = 80

const wrap = (text: string, indent: number, first = "", pad = true): Array<string> => {
  const lines: Array<string> = []
  let line = pad ? first.padEnd(indent) : first
  let empty = true
  for (const word of text.split(/\s+/).filter((w) => w.length > 0)) {
    const candidate = empty ? `${line}${word}` : `${line} ${word}`
    if (!empty && candidate.length > columns) {
      lines.push(line)
      line = `${" ".repeat(indent)}${word}`
    } else {
      line = candidate
    }
    empty = false
  }
  lines.push(line.trimEnd())
  return lines
}

const argUsage = (arg: ArgSpec): string => {
  const base = `${arg.name}${arg.repeated ? "..." : ""}`
  return arg.optional ? `[${base}]` : base
}

/**
 * An option's label in the help's left column: its names, shortest first, and its placeholder.
 *
 * @since 0.1.0
 * @category rendering
 */
export const optionLabel = (option: OptionSpec): string =>
  `${[...option.names].sort((a, b) => a.length - b.length).join(", ")}${
    option.takesValue ? ` ${option.placeholder}` : ""
  }`

const optionText = (option: OptionSpec): string => {
  const notes: Array<string> = []
  const listed = option.choices?.every((choice) => option.description.includes(choice)) ?? true
  if (option.choices !== undefined && !listed) notes.push(`one of: ${option.choices.join(", ")}`)
  if (option.defaultValue !== undefined) notes.push(`default ${option.defaultValue}`)
  if (!option.optional) notes.push("required")
  if (option.repeated) notes.push("repeatable")
  return `${option.description}${notes.length === 0 ? "" : ` (${notes.join("; ")})`}`
}

const global = (option: OptionSpec): boolean => option.names.includes("--json") || option.names.includes("--state-dir")

/**
 * The usage line of a command: `steward algal check [OPTIONS] FILE`, required options spelled out.
 *
 * @since 0.1.0
 * @category rendering
 */
export const usageLine = (spec: CommandSpec): string => {
  if (spec.children.length > 0) return `${spec.path.join(" ")} COMMAND [OPTIONS]`
  const required = spec.options.filter((o) => !o.optional).map((o) => `${o.names[0]} ${o.placeholder}`)
  const repeatedArg = spec.args.find((arg) => arg.repeated)
  const args = spec.args.map((arg) => arg === repeatedArg ? `[-- ${arg.name}]` : argUsage(arg))
  return [...spec.path, "[OPTIONS]", ...required, ...args].join(" ")
}

const section = (title: string, bold: boolean): string => bold ? `\u001b[1m${title}\u001b[0m` : title

const table = (rows: ReadonlyArray<readonly [string, string]>): Array<string> => {
  // 32: `--database-url DATABASE_URL`, on every verb, keeps its text on its own line
  const column = Math.min(32, Math.max(...rows.map(([label]) => label.length)) + 4)
  return rows.flatMap(([label, text]) =>
    // at least two spaces between a label and its text; a longer label gets its own line
    label.length + 4 > column
      ? [`  ${label}`, ...wrap(text, column, " ".repeat(column))]
      : wrap(text, column, `  ${label}`)
  )
}

/**
 * Render the help of a group or a verb.
 *
 * @since 0.1.0
 * @category rendering
 */
export const render = (
  spec: CommandSpec,
  options: { readonly color?: boolean; readonly width?: number } = {}
): string => {
  const bold = options.color ?? false
  columns = options.width ?? width()
  const root = spec.path.length === 1
  const lines: Array<string> = [
    ...wrap(usageLine(spec), 7, section("Usage:", bold).padEnd(bold ? 15 : 7)),
    "",
    ...wrap(spec.description, 0)
  ]
  if (spec.children.length > 0) {
    const builtIns: Array<readonly [string, string]> = root
      ? [["help", "Show the help of a command: steward help session run"], [
        "completion",
        "Print a shell completion script: steward completion bash|zsh|fish"
      ]]
      : []
    lines.push(
      "",
      section("Commands:", bold),
      ...table([...spec.children.map((c) => [c.name, c.description] as const), ...builtIns])
    )
  }
  if (spec.args.length > 0) {
    lines.push(
      "",
      section("Arguments:", bold),
      ...table(spec.args.map((arg) => [
        argUsage(arg),
        `${arg.description}${arg.choices === undefined ? "" : ` (one of: ${arg.choices.join(", ")})`}${
          arg.optional ? "" : " (required)"
        }`
      ]))
    )
  }
  const own = spec.options.filter((o) => !global(o))
  if (own.length > 0) {
    lines.push("", section("Options:", bold), ...table(own.map((o) => [optionLabel(o), optionText(o)])))
  }
  lines.push(
    "",
    section("Global options (accepted anywhere):", bold),
    ...table([
      ["--json", "Print one JSON document on stdout; errors as JSON on stderr"],
      ["--state-dir DIR", "State directory (default: $STEWARD_STATE_DIR, else ./.steward)"],
      ["-h, --help", "Show this help"],
      ...(root ? [["-V, --version", "Print the version (node and sqlite too; an object under --json)"] as const] : [])
    ])
  )
  const examples = Examples.of(spec.path)
  if (examples.length > 0) {
    lines.push("", section("Examples:", bold), ...examples.flatMap((example) => wrap(example, 6, "  ", false)))
  }
  if (spec.children.length > 0) {
    lines.push("", `Run '${spec.path.join(" ")} COMMAND --help' for a command's options.`)
  }
  return lines.join("\n")
}
