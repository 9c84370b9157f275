/**
 * A plain description of the command tree — every verb's path, options and arguments — read
 * once from the `@effect/cli` definitions. Option checking (`Grammar`) and help (`Help`) both
 * work from it, so one place knows every verb's options.
 *
 * @since 0.1.0
 */
import type * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"

/**
 * One option of a command.
 *
 * @since 0.1.0
 * @category models
 */
export interface OptionSpec {
  /** Every spelling, with dashes: `["--level"]`, `["--force", "-f"]`. */
  readonly names: ReadonlyArray<string>
  /** Whether the option takes a value (`--level L`); booleans do not. */
  readonly takesValue: boolean
  /** What the value is called in usage lines (`LEVEL`, `FILE`). */
  readonly placeholder: string
  /** Every valid value of a choice option. */
  readonly choices: ReadonlyArray<string> | undefined
  readonly description: string
  readonly optional: boolean
  readonly repeated: boolean
  /** The default shown in help, when it is a plain value. */
  readonly defaultValue: string | undefined
  /** A numeric option's kind (its value is checked by the grammar). */
  readonly numeric?: "integer" | "float" | undefined
}

/**
 * One positional argument of a command.
 *
 * @since 0.1.0
 * @category models
 */
export interface ArgSpec {
  readonly name: string
  readonly description: string
  readonly optional: boolean
  readonly repeated: boolean
  readonly choices: ReadonlyArray<string> | undefined
}

/**
 * A command: a group (with children) or a verb (a leaf).
 *
 * @since 0.1.0
 * @category models
 */
export interface CommandSpec {
  readonly name: string
  /** From the root: `["steward", "algal", "check"]`. */
  readonly path: ReadonlyArray<string>
  readonly description: string
  readonly options: ReadonlyArray<OptionSpec>
  readonly args: ReadonlyArray<ArgSpec>
  readonly children: ReadonlyArray<CommandSpec>
}

// The shapes below mirror @effect/cli's internal instruction trees (stable across 0.7x); only the
// fields read here are typed.
type Node = { readonly _tag: string; readonly [key: string]: any }

const ansi = /\u001b\[[0-9;]*m/g

/**
 * Plain text of a HelpDoc: no escapes, whitespace collapsed.
 *
 * @since 0.1.0
 * @category utils
 */
export const docText = (doc: HelpDoc.HelpDoc): string =>
  HelpDoc.toAnsiText(doc).replace(ansi, "").replace(/\s+/g, " ").trim()

const dashed = (name: string): string => name.startsWith("-") ? name : name.length === 1 ? `-${name}` : `--${name}`

const choicesOf = (primitive: Node): ReadonlyArray<string> | undefined =>
  primitive._tag === "Choice"
    ? (primitive.alternatives as ReadonlyArray<readonly [string, unknown]>).map(([choice]) => choice)
    : undefined

const placeholderOf = (single: Node): string => {
  const primitive = single.primitiveType as Node
  if (single.pseudoName?._tag === "Some") return String(single.pseudoName.value).toUpperCase()
  if (primitive._tag === "Path") return primitive.pathType === "directory" ? "DIR" : "FILE"
  if (primitive._tag === "Integer" || primitive._tag === "Float") return "N"
  if (primitive._tag === "Choice") return single.name.toUpperCase().replace(/-/g, "_")
  return single.name.toUpperCase().replace(/-/g, "_")
}

const numericOf = (primitive: Node): "integer" | "float" | undefined =>
  primitive._tag === "Integer" ? "integer" : primitive._tag === "Float" ? "float" : undefined

const plainDefault = (fallback: unknown): string | undefined =>
  typeof fallback === "string" || typeof fallback === "number" ? String(fallback) : undefined

interface Modifiers {
  readonly optional: boolean
  readonly repeated: boolean
  readonly defaultValue: string | undefined
}

const collectOptions = (node: Node, mods: Modifiers, out: Array<OptionSpec>): void => {
  switch (node._tag) {
    case "Single": {
      const isBool = (node.primitiveType as Node)._tag === "Bool"
      out.push({
        names: [dashed(node.name), ...(node.aliases as ReadonlyArray<string>).map(dashed)],
        takesValue: !isBool,
        placeholder: placeholderOf(node),
        choices: choicesOf(node.primitiveType),
        description: docText(node.description),
        optional: mods.optional || isBool,
        repeated: mods.repeated,
        defaultValue: isBool ? undefined : mods.defaultValue,
        numeric: numericOf(node.primitiveType)
      })
      return
    }
    case "Map":
      return collectOptions(node.options, mods, out)
    case "KeyValueMap":
      return collectOptions(node.argumentOption, { ...mods, repeated: true }, out)
    case "Both":
    case "OrElse":
      collectOptions(node.left, mods, out)
      return collectOptions(node.right, mods, out)
    case "Variadic": {
      const min = node.min?._tag === "Some" ? Number(node.min.value) : 0
      return collectOptions(node.argumentOption, { ...mods, repeated: true, optional: mods.optional || min === 0 }, out)
    }
    case "WithDefault":
      return collectOptions(node.options, {
        ...mods,
        optional: true,
        defaultValue: mods.defaultValue ?? plainDefault(node.fallback)
      }, out)
    case "WithFallback":
      return collectOptions(node.options, { ...mods, optional: true }, out)
    default:
      return
  }
}

const collectArgs = (node: Node, mods: Modifiers, out: Array<ArgSpec>): void => {
  switch (node._tag) {
    case "Single":
      out.push({
        name: String(node.pseudoName?._tag === "Some" ? node.pseudoName.value : node.name),
        description: docText(node.description),
        optional: mods.optional,
        repeated: mods.repeated,
        choices: choicesOf(node.primitiveType)
      })
      return
    case "Map":
      return collectArgs(node.args, mods, out)
    case "Both":
      collectArgs(node.left, mods, out)
      return collectArgs(node.right, mods, out)
    case "Variadic": {
      const min = node.min?._tag === "Some" ? Number(node.min.value) : 0
      return collectArgs(node.args, { ...mods, repeated: true, optional: mods.optional || min === 0 }, out)
    }
    case "WithDefault":
    case "WithFallbackConfig":
      return collectArgs(node.args, { ...mods, optional: true }, out)
    default:
      return
  }
}

const none: Modifiers = { optional: false, repeated: false, defaultValue: undefined }

const fromDescriptor = (descriptor: Node, parentPath: ReadonlyArray<string>): CommandSpec => {
  switch (descriptor._tag) {
    case "Map":
      return fromDescriptor(descriptor.command, parentPath)
    case "Subcommands": {
      const parent = fromDescriptor(descriptor.parent, parentPath)
      const children = (descriptor.children as ReadonlyArray<Node>).map((child) => fromDescriptor(child, parent.path))
      return { ...parent, children: [...parent.children, ...children] }
    }
    case "Standard":
    case "GetUserInput": {
      const options: Array<OptionSpec> = []
      const args: Array<ArgSpec> = []
      if (descriptor.options !== undefined) collectOptions(descriptor.options, none, options)
      if (descriptor.args !== undefined) collectArgs(descriptor.args, none, args)
      return {
        name: descriptor.name,
        path: [...parentPath, descriptor.name],
        description: docText(descriptor.description),
        options,
        args,
        children: []
      }
    }
    default:
      throw new Error(`unexpected command descriptor ${descriptor._tag}`)
  }
}

/**
 * Describe a command (and everything under it). `parentPath` is the path of the command it is
 * registered under (`["steward"]` for an area).
 *
 * @since 0.1.0
 * @category constructors
 */
export const describe = (
  command: Command.Command<string, any, any, any>,
  parentPath: ReadonlyArray<string> = []
): CommandSpec => {
  // a command is an immutable value and describing one renders every help text in it: remember
  // the result per command and parent path (a host that runs many commands in one process pays once)
  const key = parentPath.join("\0")
  let byPath = described.get(command)
  if (byPath === undefined) described.set(command, byPath = new Map())
  let spec = byPath.get(key)
  if (spec === undefined) {
    spec = fromDescriptor((command as unknown as { readonly descriptor: Node }).descriptor, parentPath)
    byPath.set(key, spec)
  }
  return spec
}

const described = new WeakMap<object, Map<string, CommandSpec>>()

/**
 * Every verb (leaf) under a command, depth first.
 *
 * @since 0.1.0
 * @category utils
 */
export const leaves = (spec: CommandSpec): ReadonlyArray<CommandSpec> =>
  spec.children.length === 0 ? [spec] : spec.children.flatMap(leaves)

/**
 * The option a token names (`--level`, `--level=x`, `-f`), if any.
 *
 * @since 0.1.0
 * @category utils
 */
export const findOption = (options: ReadonlyArray<OptionSpec>, name: string): OptionSpec | undefined =>
  options.find((option) => option.names.includes(name))
