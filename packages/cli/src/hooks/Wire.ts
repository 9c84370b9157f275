/**
 * The three agent CLIs' hook wire: which of their events Steward handles as what, and how an
 * answer is written in each client's own form. Plain TypeScript with no Effect import: the lean
 * hook entry (`hookClient`) loads this module alone to fail closed before anything else loads.
 *
 * Forms (observed, `docs/guides/agent-*.md`): Claude Code and Codex take
 * `hookSpecificOutput.permissionDecision` on PreToolUse and `{"decision":"block"}` on Stop;
 * Gemini CLI takes `{"decision":"deny"}` on BeforeTool and AfterAgent and silently ignores
 * Claude's `permissionDecision` (the command would run), so it never gets that form.
 *
 * @since 0.3.0
 */

/**
 * @since 0.3.0
 * @category models
 */
export const clients = ["claude-code", "codex", "gemini"] as const

/**
 * @since 0.3.0
 * @category models
 */
export type Client = (typeof clients)[number]

/**
 * What Steward does at an event: decide a tool call, observe its outcome, settle a stopped
 * turn, read the person's prompt, or record the session's start or end.
 *
 * @since 0.3.0
 * @category models
 */
export type Kind = "pre_tool" | "post_tool" | "stop" | "prompt" | "session_start" | "session_end"

const claudeEvents: Readonly<Record<string, Kind>> = {
  PreToolUse: "pre_tool",
  PostToolUse: "post_tool",
  PostToolUseFailure: "post_tool",
  Stop: "stop",
  UserPromptSubmit: "prompt",
  SessionStart: "session_start",
  SessionEnd: "session_end"
}

const geminiEvents: Readonly<Record<string, Kind>> = {
  BeforeTool: "pre_tool",
  AfterTool: "post_tool",
  AfterAgent: "stop",
  BeforeAgent: "prompt",
  SessionStart: "session_start",
  SessionEnd: "session_end"
}

/**
 * The events Steward handles, per client, with their kind (Codex uses Claude Code's names).
 *
 * @since 0.3.0
 * @category models
 */
export const events: Readonly<Record<Client, Readonly<Record<string, Kind>>>> = {
  "claude-code": claudeEvents,
  codex: {
    PreToolUse: "pre_tool",
    PostToolUse: "post_tool",
    Stop: "stop",
    UserPromptSubmit: "prompt",
    SessionStart: "session_start",
    SessionEnd: "session_end"
  },
  gemini: geminiEvents
}

/**
 * @since 0.3.0
 * @category guards
 */
export const isClient = (value: string): value is Client => (clients as ReadonlyArray<string>).includes(value)

/**
 * The kind of a client's event, `undefined` when Steward does not handle it.
 *
 * @since 0.3.0
 * @category models
 */
export const kindOf = (client: Client, event: string): Kind | undefined =>
  Object.hasOwn(events[client], event) ? events[client][event] : undefined

/**
 * A client-neutral answer.
 *
 * - `none`: no opinion (the client goes on as it would without the hook).
 * - `deny`: the tool call does not run; `reason` reaches the model.
 * - `ask`: the person must approve: the client's own prompt where it has one, else a deny.
 * - `allow`: runs; with `toolInput`, the rewritten input runs instead.
 * - `context`: extra context for the model after a tool ran (a nudge).
 * - `continue`: the stopped turn goes on with `reason` as the next user message.
 *
 * @since 0.3.0
 * @category models
 */
export type Answer =
  | { readonly _tag: "none" }
  | { readonly _tag: "deny"; readonly reason: string }
  | { readonly _tag: "ask"; readonly reason: string }
  | { readonly _tag: "allow"; readonly reason: string; readonly toolInput?: Readonly<Record<string, unknown>> }
  | { readonly _tag: "context"; readonly text: string }
  | { readonly _tag: "continue"; readonly reason: string }

const claudeEventName: Readonly<Record<Kind, string>> = {
  pre_tool: "PreToolUse",
  post_tool: "PostToolUse",
  stop: "Stop",
  prompt: "UserPromptSubmit",
  session_start: "SessionStart",
  session_end: "SessionEnd"
}

const claudeForm = (kind: Kind, answer: Answer): Record<string, unknown> => {
  switch (answer._tag) {
    case "none":
      return {}
    case "deny":
    case "ask":
      // Claude Code's `ask` prompts the person (in `-p` it is not run and the model gets the reason).
      return kind === "pre_tool"
        ? {
          hookSpecificOutput: {
            hookEventName: "PreToolUse",
            permissionDecision: answer._tag,
            permissionDecisionReason: answer.reason
          }
        }
        : { decision: "block", reason: answer.reason }
    case "allow":
      return {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "allow",
          permissionDecisionReason: answer.reason,
          ...(answer.toolInput === undefined ? {} : { updatedInput: answer.toolInput })
        }
      }
    case "context":
      return { hookSpecificOutput: { hookEventName: claudeEventName[kind], additionalContext: answer.text } }
    case "continue":
      return { decision: "block", reason: answer.reason }
  }
}

// Codex takes Claude Code's form, but `codex exec` supports no approval request: an ask is a deny.
const codexForm = (kind: Kind, answer: Answer): Record<string, unknown> =>
  claudeForm(kind, answer._tag === "ask" ? { _tag: "deny", reason: answer.reason } : answer)

const geminiEventName: Readonly<Record<Kind, string>> = {
  pre_tool: "BeforeTool",
  post_tool: "AfterTool",
  stop: "AfterAgent",
  prompt: "BeforeAgent",
  session_start: "SessionStart",
  session_end: "SessionEnd"
}

const geminiForm = (kind: Kind, answer: Answer): Record<string, unknown> => {
  switch (answer._tag) {
    case "none":
      return {}
    case "deny":
    case "ask":
      return { decision: "deny", reason: answer.reason }
    case "allow":
      return answer.toolInput === undefined
        ? { decision: "allow", reason: answer.reason }
        : {
          decision: "allow",
          reason: answer.reason,
          hookSpecificOutput: { hookEventName: "BeforeTool", tool_input: answer.toolInput }
        }
    case "context":
      return { hookSpecificOutput: { hookEventName: geminiEventName[kind], additionalContext: answer.text } }
    case "continue":
      return { decision: "deny", reason: answer.reason }
  }
}

/**
 * The answer as the client's stdout (one JSON line).
 *
 * @since 0.3.0
 * @category rendering
 */
export const render = (client: Client, kind: Kind, answer: Answer): string =>
  `${
    JSON.stringify(
      client === "gemini"
        ? geminiForm(kind, answer)
        : client === "codex"
        ? codexForm(kind, answer)
        : claudeForm(kind, answer)
    )
  }\n`

/**
 * What Steward answers when it cannot decide (its own error or deadline): a deny for a tool
 * call, no opinion for anything else. Never the client's fail-open paths (crash, timeout, bad JSON).
 *
 * @since 0.3.0
 * @category rendering
 */
export const failClosed = (client: Client, kind: Kind | undefined, why: string): string =>
  kind === "pre_tool"
    ? render(client, kind, { _tag: "deny", reason: `Steward could not decide this tool call, so it is denied: ${why}` })
    : render(client, kind ?? "session_end", { _tag: "none" })

/**
 * What a hook call prints and how it exits: 0, or 2 when the client is unknown and the event may
 * be a tool call (exit 2 blocks in every client).
 *
 * @since 0.3.0
 * @category models
 */
export interface Outcome {
  readonly stdout: string
  readonly stderr: string
  readonly exitCode: 0 | 2
}

/**
 * The fail-closed outcome of a call that could not be handled.
 *
 * @since 0.3.0
 * @category rendering
 */
export const failed = (client: string, event: string, why: string): Outcome => {
  if (!isClient(client)) {
    const tool = event === "PreToolUse" || event === "BeforeTool"
    return {
      stdout: "",
      stderr: `steward hook: unknown client ${JSON.stringify(client)} (one of ${clients.join(", ")}): ${why}\n`,
      exitCode: tool ? 2 : 0
    }
  }
  return { stdout: failClosed(client, kindOf(client, event), why), stderr: `steward hook: ${why}\n`, exitCode: 0 }
}
