/**
 * The tools a session's model may call, and the default toolkit (`shell`, `read`, `write`,
 * `edit`, `todo_write`, `ask_user`, `fetch`).
 *
 * A tool is data plus two functions: `governance` names the call the way governance-rules
 * decides it (a `Policy.ToolCall`: action and resource), and `execute` does the work inside the
 * run's workspace. The harness always asks governance first and only then executes, so a tool
 * never checks permissions itself. Mistakes the model can correct (a missing file, an `edit`
 * whose text is not found, a path outside the workspace) come back as a `ToolResult` with
 * `ok: false` and a message the model can act on; `execute` fails only on infrastructure faults.
 *
 * @since 0.1.0
 */
import * as AiTool from "@effect/ai/Tool"
import * as AiToolkit from "@effect/ai/Toolkit"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as Path from "@effect/platform/Path"
import type * as Policy from "@steward/governance-rules/Policy"
import type * as Rule from "@steward/governance-rules/Rule"
import type * as Sandbox from "@steward/governance-rules/Sandbox"
import type * as SandboxProfile from "@steward/governance-rules/SandboxProfile"
import * as Effect from "effect/Effect"
import * as JSONSchema from "effect/JSONSchema"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as HarnessError from "./HarnessError.js"
import * as AskUserTool from "./internal/tools/askUser.js"
import * as FetchTool from "./internal/tools/fetch.js"
import * as FileTools from "./internal/tools/files.js"
import * as ShellTool from "./internal/tools/shell.js"
import * as TodoTool from "./internal/tools/todo.js"

/**
 * What a tool knows about the call it serves. `workspace` is an absolute directory: every path
 * a tool touches resolves inside it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolContext {
  readonly workspace: string
  readonly runId: string
  readonly callId: string
  /**
   * Present when the gate placed this call inside the OS sandbox (ADR 0563): the tool runs its
   * command through it, never on the host.
   */
  readonly sandbox?: Contained
}

/**
 * The sandbox a contained call runs in: the session's profile (workspace, level, the policy's
 * sandbox section) over the host's `Sandbox` service.
 *
 * @since 0.1.0
 * @category models
 */
export interface Contained {
  readonly run: (command: Sandbox.Command) => Effect.Effect<Sandbox.Completed, SandboxProfile.SandboxError>
}

/**
 * A todo item as `todo_write` keeps it: progress the person can see, never a gate on ending.
 *
 * @since 0.1.0
 * @category models
 */
export const TodoItem: Schema.Struct<typeof TodoTool.Item.fields> = TodoTool.Item

/**
 * @since 0.1.0
 * @category models
 */
export type TodoItem = typeof TodoItem.Type

/**
 * What one execution produced. `output` is what the model reads next; the optional fields are
 * evidence the harness records (for checkpoints and the progress model).
 *
 * - `truncated`: `output` was cut to its budget (head and tail kept).
 * - `timedOut`: a shell command hit its time budget; `output` is the partial output.
 * - `filesTouched`: workspace-relative paths written or edited.
 * - `check`: a command that ran to an exit code (tests, builds, linters and every other shell call).
 * - `todos`: the full todo list after a `todo_write`.
 * - `needsPerson`: `ask_user` found no one to answer.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolResult {
  readonly ok: boolean
  readonly output: string
  readonly truncated?: boolean
  readonly timedOut?: boolean
  readonly filesTouched?: ReadonlyArray<string>
  readonly check?: { readonly command: string; readonly exitCode: number }
  readonly todos?: ReadonlyArray<TodoItem>
  readonly needsPerson?: boolean
}

/**
 * One tool. `input` is a struct schema: its encoded side is the JSON the model sends, and it is
 * what the provider sees as the tool's parameters.
 *
 * @since 0.1.0
 * @category models
 */
export interface Tool<in out Fields extends Schema.Struct.Fields = any, out R = never> {
  readonly name: string
  readonly description: string
  readonly input: Schema.Struct<Fields>
  /** The call as governance decides it (action and resource). Pure; no IO. */
  readonly governance: (input: Schema.Struct.Type<Fields>, context: ToolContext) => Policy.ToolCall
  readonly execute: (
    input: Schema.Struct.Type<Fields>,
    context: ToolContext
  ) => Effect.Effect<ToolResult, HarnessError.HarnessError, R>
}

/**
 * Any tool, whatever its input and requirements.
 *
 * @since 0.1.0
 * @category models
 */
export type Any = Tool<any, any>

/**
 * The services a tool needs.
 *
 * @since 0.1.0
 * @category models
 */
export type Requirements<T extends Any> = T extends Tool<any, infer R> ? R : never

/**
 * Build a tool (an identity that fixes the type parameters).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <Fields extends Schema.Struct.Fields, R>(tool: Tool<Fields, R>): Tool<Fields, R> => tool

/**
 * Decode what the model sent as a tool's input: a typed `INVALID_INPUT` naming the tool and the
 * field, so the harness can relay it to the model.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeInput = <Fields extends Schema.Struct.Fields, R>(
  tool: Tool<Fields, R>,
  raw: unknown
): Effect.Effect<Schema.Struct.Type<Fields>, HarnessError.HarnessError> =>
  Schema.decodeUnknown(tool.input as unknown as Schema.Schema<Schema.Struct.Type<Fields>, unknown>, {
    errors: "all",
    onExcessProperty: "error"
  })(raw).pipe(
    Effect.mapError((error) =>
      new HarnessError.HarnessError({
        code: "INVALID_INPUT",
        message: `tool ${tool.name}: invalid input: ${ParseResult.TreeFormatter.formatErrorSync(error)}`
      })
    )
  )

/**
 * Who answers the model's questions (`ask_user`). A host with a person at hand provides its own
 * layer; `layerAskUserUnavailable` says nobody is there.
 *
 * @since 0.1.0
 * @category tags
 */
export { AskUser } from "./internal/tools/askUser.js"

/**
 * Nobody answers.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerAskUserUnavailable: Layer.Layer<AskUserTool.AskUser> = Layer.succeed(
  AskUserTool.AskUser,
  AskUserTool.AskUser.of({ ask: () => Effect.succeed(Option.none()) })
)

/**
 * Answers from a function (tests, scripted hosts).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerAskUser = (
  answer: (question: string, options: ReadonlyArray<string>) => string | undefined
): Layer.Layer<AskUserTool.AskUser> =>
  Layer.succeed(
    AskUserTool.AskUser,
    AskUserTool.AskUser.of({ ask: (q) => Effect.sync(() => Option.fromNullable(answer(q.question, q.options))) })
  )

/**
 * `shell`: run one command with `sh -c` in the workspace. Time budget: 120 s when the call gives
 * none, at most 300 s without a stated `reason`, never more than 900 s. A timeout kills the
 * process group and returns the partial output with an instruction to narrow the command.
 *
 * @since 0.1.0
 * @category tools
 */
export const shell: Tool<typeof ShellTool.fields, CommandExecutor.CommandExecutor> = ShellTool.tool

/**
 * The time budget a `shell` call gets for its requested `timeoutSeconds` and `reason`, with a
 * note when the request was lowered (the note is shown to the model).
 *
 * @since 0.1.0
 * @category tools
 */
export const shellBudget: (
  requested: number | undefined,
  reason: string | undefined
) => { readonly seconds: number; readonly note?: string } = ShellTool.budget

/**
 * `read`: a text file inside the workspace, optionally a line window. A file over 16 MiB is
 * never read whole: it comes back a window of whole lines at a time (at most the output budget,
 * from `offset`), marked `truncated`, with its size and the offset of the next window (ADR 0557).
 *
 * @since 0.1.0
 * @category tools
 */
export const read: Tool<typeof FileTools.readFields, FileSystem.FileSystem | Path.Path> = FileTools.read

/**
 * `write`: create or replace a file inside the workspace (parent directories created).
 *
 * @since 0.1.0
 * @category tools
 */
export const write: Tool<typeof FileTools.writeFields, FileSystem.FileSystem | Path.Path> = FileTools.write

/**
 * `edit`: exact string replacement in one file; the old text must occur exactly once unless
 * `replaceAll` is set.
 *
 * @since 0.1.0
 * @category tools
 */
export const edit: Tool<typeof FileTools.editFields, FileSystem.FileSystem | Path.Path> = FileTools.edit

/**
 * `todo_write`: replace the run's todo list (progress for the person, not a gate).
 *
 * @since 0.1.0
 * @category tools
 */
export const todoWrite: Tool<typeof TodoTool.fields> = TodoTool.tool

/**
 * `ask_user`: ask the person a question through the `AskUser` service.
 *
 * @since 0.1.0
 * @category tools
 */
export const askUser: Tool<typeof AskUserTool.fields, AskUserTool.AskUser> = AskUserTool.tool

/**
 * `fetch`: GET one URL through the platform `HttpClient` (text body, bounded).
 *
 * @since 0.1.0
 * @category tools
 */
export const fetch: Tool<typeof FetchTool.fields, HttpClient.HttpClient> = FetchTool.tool

/**
 * The default toolkit, in the order the model sees it. Govern it with `baselineRules` first among
 * the session's rules, or `todo_write` and `ask_user` wait for an approval below `autonomous`.
 *
 * @since 0.1.0
 * @category tools
 */
export const defaults = [shell, read, write, edit, todoWrite, askUser, fetch] as const

/**
 * A tool as a person or a script author reads it: its name, what it does and its input's JSON
 * Schema (what `steward session tools` prints).
 *
 * @since 0.1.0
 * @category models
 */
export interface Described {
  readonly name: string
  readonly description: string
  readonly input: JSONSchema.JsonSchema7Root
}

/**
 * Every tool's name, description and input JSON Schema, in the toolkit's order (default: the
 * default toolkit) — the schema the harness checks a call's input against, so a script written
 * from it passes.
 *
 * @since 0.1.0
 * @category tools
 */
export const describe = (tools: ReadonlyArray<Any> = defaults): ReadonlyArray<Described> =>
  tools.map((t) => ({ name: t.name, description: t.description, input: JSONSchema.make(t.input) }))

/**
 * Allow rules for the default toolkit's session-internal tools (`todo_write`, `ask_user`). They
 * are governed as named tools (`mcp`), and governance asks for an unknown named tool at every
 * level below `autonomous`, which would put an approval in front of a todo update or a question.
 * A harness puts these first among a session's rules, so a later user rule (last match wins)
 * can still deny or ask for them.
 *
 * @since 0.1.0
 * @category tools
 */
export const baselineRules: ReadonlyArray<Rule.RuleInput> = [
  {
    id: "harness.todo_write",
    action: "mcp",
    resource: "todo_write",
    effect: "allow",
    note: "the session's own progress list: nothing outside the session changes"
  },
  {
    id: "harness.ask_user",
    action: "mcp",
    resource: "ask_user",
    effect: "allow",
    note: "a question to the person: nothing outside the session changes"
  }
]

/**
 * Everything the default toolkit needs from the platform and the host.
 *
 * @since 0.1.0
 * @category models
 */
export type DefaultRequirements = Requirements<typeof defaults[number]>

/**
 * Find a tool by name.
 *
 * @since 0.1.0
 * @category utils
 */
export const byName = <T extends Any>(tools: ReadonlyArray<T>, name: string): Option.Option<T> =>
  Option.fromNullable(tools.find((tool) => tool.name === name))

/**
 * A tool as `@effect/ai` sees it: struct parameters, a text result (the `ToolResult` output).
 *
 * @since 0.1.0
 * @category interop
 */
export type AiToolOf = AiTool.Tool<string, {
  readonly parameters: Schema.Struct<{ readonly [field: string]: Schema.Schema<any, any, never> }>
  readonly success: typeof Schema.String
  readonly failure: typeof Schema.Never
  readonly failureMode: "error"
}>

/**
 * The tools as an `@effect/ai` toolkit, for `LanguageModel.generateText({ toolkit, ... })`. The
 * harness resolves calls itself (governance first), so it passes `disableToolCallResolution` and
 * never registers handlers; the toolkit only tells the provider each tool's name, description
 * and parameters.
 *
 * @since 0.1.0
 * @category interop
 */
export const toAiToolkit = (tools: ReadonlyArray<Any>): AiToolkit.Toolkit<Record<string, AiToolOf>> =>
  AiToolkit.make(
    ...tools.map((tool) =>
      AiTool.make(tool.name, {
        description: tool.description,
        parameters: tool.input.fields,
        success: Schema.String
      })
    )
  ) as unknown as AiToolkit.Toolkit<Record<string, AiToolOf>>
