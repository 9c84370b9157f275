/**
 * A client's tool call as a governance tool call: the shell tools (`Bash`, `run_shell_command`)
 * are shell commands; the file tools are reads or writes of their paths; `WebFetch`/`web_fetch`
 * are fetches; MCP tools are tool calls by name with their input; anything else is decided by
 * its name alone (no rule names it, so the default layer asks). The inputs are external values:
 * each is decoded by Schema, and a known tool whose input does not decode is an error, never a
 * guess.
 *
 * @since 0.3.0
 */
import type * as Policy from "@steward/governance-rules/Policy"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

const NonEmpty = Schema.String.pipe(Schema.minLength(1))
const decode = <A, I>(schema: Schema.Schema<A, I>, input: unknown, tool: string): Either.Either<A, string> =>
  Either.mapLeft(
    Schema.decodeUnknownEither(schema)(input),
    (error) => `tool ${tool}: ${ParseResult.TreeFormatter.formatErrorSync(error)}`
  )

const Shell = Schema.Struct({ command: NonEmpty })
const FilePath = Schema.Struct({ file_path: NonEmpty })
const Notebook = Schema.Struct({ notebook_path: NonEmpty })
const Search = Schema.Struct({ path: Schema.optional(Schema.String), dir_path: Schema.optional(Schema.String) })
const ManyFiles = Schema.Struct({
  paths: Schema.optional(Schema.Array(NonEmpty)),
  include: Schema.optional(Schema.Array(NonEmpty))
})
const Url = Schema.Struct({ url: NonEmpty })
const GeminiFetch = Schema.Struct({ prompt: NonEmpty })
const Patch = Schema.Struct({ command: Schema.optional(Schema.String), input: Schema.optional(Schema.String) })

/** Tools that only touch the agent's own bookkeeping: decided as `agent` calls by name. */
const agentTools = new Set([
  "Task",
  "Agent",
  "TodoWrite",
  "ExitPlanMode",
  "write_todos",
  "save_memory",
  "update_plan",
  "activate_skill"
])

const reads = new Set(["Read", "read_file"])
const writes = new Set(["Write", "Edit", "MultiEdit", "write_file", "replace"])
const searches = new Set(["Glob", "Grep", "LS", "glob", "grep", "search_file_content", "list_directory", "ls"])

const one = (p: string): readonly [string, ...Array<string>] => [p]

// Codex's `apply_patch` names each file it touches on a `*** Add/Update/Delete File:` line.
const patchPaths = (patch: string): Array<string> =>
  [...patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm), ...patch.matchAll(/^\*\*\* Move to: (.+)$/gm)]
    .map((m) => m[1]!.trim())
    .filter((p) => p.length > 0)

const urlsIn = (text: string): Array<string> => [...text.matchAll(/https?:\/\/[^\s"'<>)]+/g)].map((m) => m[0])

/**
 * The governance call(s) of one client tool call: one call, or a batch decided together (the
 * strictest outcome wins). `Left` names what did not decode.
 *
 * @since 0.3.0
 * @category mapping
 */
export const toCalls = (
  tool: string,
  input: unknown,
  cwd: string
): Either.Either<ReadonlyArray<Policy.ToolCall>, string> => {
  if (tool === "Bash" || tool === "run_shell_command" || tool === "shell" || tool === "exec_command") {
    return Either.map(decode(Shell, input, tool), (i) => [{ tool: "shell", command: i.command }])
  }
  if (reads.has(tool)) {
    return Either.map(decode(FilePath, input, tool), (i) => [{ tool: "read", paths: one(i.file_path) }])
  }
  if (writes.has(tool)) {
    return Either.map(decode(FilePath, input, tool), (i) => [{ tool: "write", paths: one(i.file_path) }])
  }
  if (tool === "NotebookEdit") {
    return Either.map(decode(Notebook, input, tool), (i) => [{ tool: "write", paths: one(i.notebook_path) }])
  }
  if (searches.has(tool)) {
    return Either.map(decode(Search, input, tool), (i) => [{ tool: "read", paths: one(i.path ?? i.dir_path ?? cwd) }])
  }
  if (tool === "read_many_files") {
    return Either.flatMap(decode(ManyFiles, input, tool), (i) => {
      const all = [...(i.paths ?? []), ...(i.include ?? [])]
      return all.length === 0
        ? Either.left(`tool ${tool}: no paths`)
        : Either.right([{ tool: "read" as const, paths: [all[0]!, ...all.slice(1)] as const }])
    })
  }
  if (tool === "WebFetch") return Either.map(decode(Url, input, tool), (i) => [{ tool: "fetch", url: i.url }])
  if (tool === "web_fetch") {
    return Either.flatMap(decode(GeminiFetch, input, tool), (i) => {
      const urls = urlsIn(i.prompt)
      return urls.length === 0
        ? Either.left(`tool ${tool}: the prompt names no http(s) URL`)
        : Either.right(urls.map((url) => ({ tool: "fetch" as const, url })))
    })
  }
  if (tool === "apply_patch") {
    return Either.flatMap(decode(Patch, input, tool), (i) => {
      const files = patchPaths(i.command ?? i.input ?? "")
      return files.length === 0
        ? Either.left(`tool ${tool}: the patch names no file`)
        : Either.right([{ tool: "write" as const, paths: [files[0]!, ...files.slice(1)] as const }])
    })
  }
  if (agentTools.has(tool)) return Either.right([{ tool: "agent", name: tool }])
  if (tool.startsWith("mcp__") || tool.includes("__")) return Either.right([{ tool: "mcp", name: tool, input }])
  return Either.right([{ tool: "mcp", name: tool }])
}

/**
 * The shell command of a call, when it is one (the input the sandbox rewrite wraps).
 *
 * @since 0.3.0
 * @category mapping
 */
export const shellCommand = (calls: ReadonlyArray<Policy.ToolCall>): string | undefined =>
  calls.length === 1 && calls[0]!.tool === "shell" ? calls[0]!.command : undefined
