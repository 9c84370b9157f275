/**
 * `steward session tools`: every tool a session's model can call, with its input schema, derived
 * from the library: the toolkit's own description (`Tools.describe`) and the goal tools
 * `Goal.getGoalTool` / `updateGoalTool` (their input Schema as JSON Schema through `effect/JSONSchema`): what a scripted model's `toolCalls` give (docs/guides/scripted-model.md).
 * Loaded only when the verb runs: the tools module brings the shell, file and fetch tools.
 *
 * @since 0.1.0
 */
import * as Goal from "@steward/harness-sessions/Goal"
import * as Tools from "@steward/harness-sessions/Tools"
import type * as Effect from "effect/Effect"
import * as JSONSchema from "effect/JSONSchema"
import type * as Schema from "effect/Schema"
import * as Output from "../../Output.js"

/**
 * A tool as `session tools` prints it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolDescription {
  readonly name: string
  readonly description: string
  /** Only in a run with a goal (`--goal`): the goal tools. */
  readonly goal: boolean
  /** The input's JSON Schema (an object's properties, required fields and their constraints). */
  readonly input: JSONSchema.JsonSchema7Root
}

/**
 * Every tool a session's model can call: the session toolkit in its order, then the goal tools a
 * run with a goal adds.
 *
 * @since 0.1.0
 * @category constructors
 */
export const describe = (): ReadonlyArray<ToolDescription> => [
  ...Tools.describe().map((tool) => ({ ...tool, goal: false })),
  ...[Goal.getGoalTool, Goal.updateGoalTool].map((tool) => ({
    name: tool.name,
    description: tool.description ?? "",
    goal: true,
    // each tool's own parameters struct (their types differ: one is empty)
    input: JSONSchema.make(tool.parametersSchema as Schema.Schema.Any)
  }))
]

// A field's type in words: `$ref`s resolved against the root's `$defs`, enums as their values, an
// object as its fields (a todo item: `{content: string, status: "pending" | …}`).
const typeOf = (schema: Record<string, any>, defs: Record<string, any>): string => {
  const ref = typeof schema["$ref"] === "string" ? /^#\/\$defs\/(.+)$/.exec(schema["$ref"]) : null
  if (ref !== null) return typeOf(defs[ref[1]!] ?? {}, defs)
  if (Array.isArray(schema["enum"])) return schema["enum"].map((v: unknown) => JSON.stringify(v)).join(" | ")
  if (Array.isArray(schema["anyOf"])) return schema["anyOf"].map((s) => typeOf(s, defs)).join(" | ")
  if (schema["type"] === "array") return `array of ${typeOf(schema["items"] ?? {}, defs)}`
  if (schema["type"] === "object" && schema["properties"] !== undefined) {
    const required = new Set<string>(schema["required"] ?? [])
    return `{${
      Object.entries<Record<string, any>>(schema["properties"]).map(([name, field]) =>
        `${name}${required.has(name) ? "" : "?"}: ${typeOf(field, defs)}`
      ).join(", ")
    }}`
  }
  return String(schema["type"] ?? "any")
}

/**
 * A tool as text: its name and description, then one line per input field (type, whether it is
 * required, what it is).
 *
 * @since 0.1.0
 * @category rendering
 */
export const render = (tool: ToolDescription): string => {
  const input = tool.input as Record<string, any>
  const required = new Set<string>(input["required"] ?? [])
  const fields = Object.entries<Record<string, any>>(input["properties"] ?? {})
  const width = Math.max(0, ...fields.map(([name]) => name.length))
  return [
    `${tool.name}${tool.goal ? " (runs with --goal)" : ""}: ${tool.description}`,
    ...fields.map(([name, schema]) =>
      `  ${name.padEnd(width)}  ${typeOf(schema, input["$defs"] ?? {})}${required.has(name) ? "" : " (optional)"}${
        schema["description"] === undefined ? "" : ` — ${schema["description"]}`
      }`
    )
  ].join("\n")
}

/**
 * `steward session tools [--json]`.
 *
 * @since 0.1.0
 * @category commands
 */
export const tools = (options: { readonly json: boolean }): Effect.Effect<void> =>
  Output.result(options.json, describe(), (all) => all.map(render).join("\n\n"))
