/**
 * Lifecycle hooks. Built-ins: `audit_pretool` (every shell command recorded before execution with
 * its citation — blocked attempts too), `audit_posttool`, `tool_failure`, `guardrail_verify`
 * (claimed files checked against the workspace) and `completion_evidence` (a deterministic
 * touched-files bundle). Hooks run in order; an error in one never breaks the run — it becomes a
 * `hook_error` event naming the hook. Every hook output is appended to the evidence stream (a hook
 * that returns `undefined` records nothing). The built-ins are `sync` hooks: the dispatcher calls
 * them directly, without the timeout an effectful hook runs under.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as crypto from "node:crypto"
import * as Evidence from "./Evidence.js"
import * as Files from "./Files.js"
import * as Dispatch from "./internal/hooks/dispatch.js"
import * as Paths from "./internal/paths.js"
import type * as Policy from "./Policy.js"

/**
 * @since 0.1.0
 * @category models
 */
export type HookPoint = "pre_tool" | "post_tool" | "tool_failure" | "task_completed"

/**
 * What a hook sees.
 *
 * @since 0.1.0
 * @category models
 */
export type HookContext =
  | {
    readonly point: "pre_tool"
    readonly runId?: string
    readonly call: Policy.ToolCall
    readonly decision: Policy.Decision
  }
  | {
    readonly point: "post_tool" | "tool_failure"
    readonly runId?: string
    readonly call: Policy.ToolCall
    readonly exitCode?: number
    readonly error?: string
    /** Files the tool claims to have changed (workspace-relative or absolute). */
    readonly claimedFiles?: ReadonlyArray<string>
  }
  | {
    readonly point: "task_completed"
    readonly runId?: string
    /** Files the run touched. */
    readonly touchedFiles: ReadonlyArray<string>
    /** Files the agent claims to have produced. */
    readonly claimedFiles?: ReadonlyArray<string>
    readonly mode?: string
  }

/**
 * A hook: an id, the points it fires at, and what it does (its output becomes evidence; it may
 * return `undefined` to record nothing).
 *
 * @since 0.1.0
 * @category models
 */
export interface Hook {
  readonly id: string
  readonly points: ReadonlyArray<HookPoint>
  readonly run: (context: HookContext) => Effect.Effect<unknown, unknown>
}

/**
 * The hook dispatcher.
 *
 * @since 0.1.0
 * @category tags
 */
export class Hooks extends Context.Tag("@steward/governance-rules/Hooks")<Hooks, {
  /** Fire every hook registered for the context's point; never fails. */
  readonly fire: (context: HookContext) => Effect.Effect<ReadonlyArray<Evidence.EvidenceEvent>>
  readonly hooks: ReadonlyArray<Hook>
}>() {}

/**
 * A hook from a plain function: its return value becomes evidence (`undefined` records nothing),
 * a throw a `hook_error`. The dispatcher calls it directly, without the timeout fiber an
 * effectful hook runs under (synchronous code cannot be interrupted, so the fiber would only cost).
 *
 * @since 0.1.0
 * @category constructors
 */
export const sync = (hook: {
  readonly id: string
  readonly points: ReadonlyArray<HookPoint>
  readonly run: (context: HookContext) => unknown
}): Hook =>
  Dispatch.registerSync(
    { id: hook.id, points: hook.points, run: (context) => Effect.sync(() => hook.run(context)) },
    hook.run
  )

const describeCall = (call: Policy.ToolCall): string => {
  switch (call.tool) {
    case "shell":
      return Evidence.redact(call.command).slice(0, 2000)
    case "read":
    case "write":
      return call.paths.join(" ")
    case "fetch":
      return Evidence.redact(call.url)
    case "mcp":
    case "agent":
      return call.name
  }
}

/**
 * `audit_pretool`: every shell command, before execution, with its decision and citation
 * (blocked attempts too). Command text is redacted.
 *
 * @since 0.1.0
 * @category hooks
 */
export const auditPretool: Hook = sync({
  id: "audit_pretool",
  points: ["pre_tool"],
  run: (context) => {
    if (context.point !== "pre_tool" || context.call.tool !== "shell") return undefined
    const c = context.decision.citation
    return {
      command: describeCall(context.call),
      decision: context.decision.decision,
      blocked: context.decision.decision !== "allow",
      citation: {
        layer: c.layer,
        ruleId: c.ruleId,
        pattern: c.pattern,
        resource: Evidence.redact(c.resource),
        reason: Evidence.redact(c.reason)
      }
    }
  }
})

/**
 * `audit_posttool`: the outcome of every tool call.
 *
 * @since 0.1.0
 * @category hooks
 */
export const auditPosttool: Hook = sync({
  id: "audit_posttool",
  points: ["post_tool"],
  run: (context) =>
    context.point === "post_tool"
      ? { tool: context.call.tool, target: describeCall(context.call), exitCode: context.exitCode ?? null }
      : undefined
})

/**
 * `tool_failure`: a failed tool call with its error (first 500 characters, redacted).
 *
 * @since 0.1.0
 * @category hooks
 */
export const toolFailure: Hook = sync({
  id: "tool_failure",
  points: ["tool_failure"],
  run: (context) =>
    context.point === "tool_failure"
      ? {
        tool: context.call.tool,
        target: describeCall(context.call),
        exitCode: context.exitCode ?? null,
        error: context.error === undefined ? null : Evidence.redact(context.error).slice(0, 500)
      }
      : undefined
})

interface Workspace {
  readonly workspace: string
  readonly home: string
  readonly files: Files.FileView
}

const workspaceOf = (workspace: string, home: string, files: Files.FileView): Workspace => ({
  workspace: Paths.realDirectory(workspace, files),
  home: Paths.realDirectory(home, files),
  files
})

const locate = (ws: Workspace, file: string) => {
  const context = { workspace: ws.workspace, home: ws.home, cwd: ws.workspace, files: ws.files }
  const real = Paths.realPath(file, context)
  const shown = Paths.display(real, context)
  return { real, shown, inside: Paths.isInside(shown) }
}

/**
 * `guardrail_verify`: claimed files are checked against the workspace (each must exist and be
 * inside it), looked up through `files` (the real filesystem by default).
 *
 * @since 0.1.0
 * @category hooks
 */
export const guardrailVerify = (workspace: string, home: string, files: Files.FileView = Files.node): Hook => {
  const ws = workspaceOf(workspace, home, files)
  return sync({
    id: "guardrail_verify",
    points: ["post_tool", "task_completed"],
    run: (context) => {
      if (context.point === "pre_tool") return undefined
      const claimed = context.claimedFiles ?? []
      if (claimed.length === 0) return undefined
      const verified: Array<string> = []
      const missing: Array<string> = []
      const outside: Array<string> = []
      for (const file of claimed) {
        const where = locate(ws, file)
        if (!where.inside) outside.push(where.shown)
        else if (files.lstat(where.real) !== undefined) verified.push(where.shown)
        else missing.push(where.shown)
      }
      return {
        ok: missing.length === 0 && outside.length === 0,
        verified: verified.sort(),
        missing: missing.sort(),
        outside: outside.sort()
      }
    }
  })
}

const sha256 = (data: string | Uint8Array): string => crypto.createHash("sha256").update(data).digest("hex")

/**
 * The deterministic touched-files bundle: sorted unique workspace paths, each with the SHA-256
 * of its content (`null` when it no longer exists or is not a file), and the digest of the whole
 * bundle. Files are read through `view` (the real filesystem by default), bounded: a FIFO or
 * device is never opened for a blocking read, and a file over `Files.MAX_READ_BYTES` is not
 * read; such files digest as `null` and are listed under `refused` with the reason.
 *
 * @since 0.1.0
 * @category hooks
 */
export const touchedBundle = (
  workspace: string,
  home: string,
  files: ReadonlyArray<string>,
  view: Files.FileView = Files.node
): {
  readonly files: ReadonlyArray<{ readonly path: string; readonly sha256: string | null }>
  readonly digest: string
  readonly refused?: ReadonlyArray<{ readonly path: string; readonly reason: string; readonly message: string }>
} => {
  const ws = workspaceOf(workspace, home, view)
  const byPath = new Map<string, string>()
  for (const file of files) {
    const where = locate(ws, file)
    byPath.set(where.shown, where.real)
  }
  const refused: Array<{ readonly path: string; readonly reason: string; readonly message: string }> = []
  const entries = [...byPath.entries()].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0).map(([shown, real]) => {
    const content = view.read(real, Files.MAX_READ_BYTES)
    // a directory is not content (as before); every other refusal is reported, not dropped
    if (content._tag === "refused" && view.lstat(real)?.kind !== "directory") {
      refused.push({ path: shown, reason: content.reason, message: content.message })
    }
    return { path: shown, sha256: content._tag === "bytes" ? sha256(content.bytes) : null }
  })
  return { files: entries, digest: sha256(JSON.stringify(entries)), ...(refused.length === 0 ? {} : { refused }) }
}

/**
 * `completion_evidence`: at task completion, the deterministic touched-files bundle.
 *
 * @since 0.1.0
 * @category hooks
 */
export const completionEvidence = (workspace: string, home: string, files: Files.FileView = Files.node): Hook =>
  sync({
    id: "completion_evidence",
    points: ["task_completed"],
    run: (context) =>
      context.point === "task_completed"
        ? { mode: context.mode ?? null, ...touchedBundle(workspace, home, context.touchedFiles, files) }
        : undefined
  })

/**
 * The built-in hooks for a workspace, in firing order.
 *
 * @since 0.1.0
 * @category hooks
 */
export const builtins = (workspace: string, home: string, files: Files.FileView = Files.node): ReadonlyArray<Hook> => [
  auditPretool,
  auditPosttool,
  toolFailure,
  guardrailVerify(workspace, home, files),
  completionEvidence(workspace, home, files)
]

/**
 * Dispatcher options.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** How long one hook may run before it is abandoned as a `hook_error`. Default 10 seconds. */
  readonly timeout?: Duration.DurationInput
}

/**
 * Build the dispatcher over the given hooks.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (hooks: ReadonlyArray<Hook>, options: Options = {}) =>
  Effect.map(
    Evidence.EvidenceLog,
    (log) => Hooks.of({ hooks, fire: Dispatch.fire(hooks, log, options.timeout ?? "10 seconds") })
  )

/**
 * The dispatcher with the built-in hooks plus `extra` hooks (run after the built-ins). The
 * built-ins resolve paths against the explicit `workspace` and `home` (the host says where they
 * are) and look files up through `files`, else the `Files` service when one is provided, else
 * the real filesystem.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: {
    readonly workspace: string
    readonly home: string
    readonly extra?: ReadonlyArray<Hook>
    readonly timeout?: Duration.DurationInput
    readonly files?: Files.FileView
  }
): Layer.Layer<Hooks, never, Evidence.EvidenceLog> =>
  Layer.effect(
    Hooks,
    Effect.flatMap(Effect.serviceOption(Files.Files), (provided) =>
      make(
        [
          ...builtins(
            options.workspace,
            options.home,
            options.files ?? (provided._tag === "Some" ? provided.value : Files.node)
          ),
          ...(options.extra ?? [])
        ],
        options.timeout === undefined ? {} : { timeout: options.timeout }
      ))
  )
