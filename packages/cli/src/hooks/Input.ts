/**
 * What each client writes on a hook's stdin, as Schema (every field Steward reads; the rest is
 * ignored). Claude Code and Codex share a shape (Codex adds `turn_id` and `model`, and gives a
 * PostToolUse `tool_response` as a string); Gemini CLI names the final text `prompt_response`.
 *
 * @since 0.3.0
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type * as Wire from "./Wire.js"

const Common = {
  session_id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)),
  cwd: Schema.String.pipe(Schema.minLength(1)),
  hook_event_name: Schema.String,
  transcript_path: Schema.optional(Schema.String),
  tool_name: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  tool_input: Schema.optional(Schema.Unknown),
  tool_response: Schema.optional(Schema.Unknown),
  prompt: Schema.optional(Schema.String),
  stop_hook_active: Schema.optional(Schema.Boolean),
  source: Schema.optional(Schema.String),
  reason: Schema.optional(Schema.String)
}

/**
 * Claude Code's (and Codex's) hook input.
 *
 * @since 0.3.0
 * @category models
 */
export const ClaudeInput = Schema.Struct({
  ...Common,
  permission_mode: Schema.optional(Schema.String),
  turn_id: Schema.optional(Schema.String),
  model: Schema.optional(Schema.String),
  tool_use_id: Schema.optional(Schema.String),
  last_assistant_message: Schema.optional(Schema.String)
})

/**
 * Gemini CLI's hook input.
 *
 * @since 0.3.0
 * @category models
 */
export const GeminiInput = Schema.Struct({
  ...Common,
  timestamp: Schema.optional(Schema.String),
  prompt_response: Schema.optional(Schema.String)
})

/**
 * One event, client-neutral.
 *
 * @since 0.3.0
 * @category models
 */
export interface HookInput {
  readonly session: string
  readonly cwd: string
  readonly event: string
  readonly tool: string | undefined
  readonly toolInput: unknown
  readonly toolResponse: unknown
  readonly prompt: string | undefined
  /** The agent's final text of the turn (Stop / AfterAgent). */
  readonly lastMessage: string | undefined
  readonly stopHookActive: boolean
  readonly detail: string | undefined
  /** The client's transcript file (Codex's names its sandbox for the turn). */
  readonly transcript: string | undefined
  /** Codex's turn id. */
  readonly turn: string | undefined
}

/**
 * Decode a client's stdin (already parsed JSON). `Left` says what is wrong, by path.
 *
 * @since 0.3.0
 * @category decoding
 */
export const decode = (client: Wire.Client, raw: unknown): Either.Either<HookInput, string> => {
  const format = (e: ParseResult.ParseError) => ParseResult.TreeFormatter.formatErrorSync(e)
  if (client === "gemini") {
    return Either.map(Either.mapLeft(Schema.decodeUnknownEither(GeminiInput)(raw), format), (i) => ({
      session: i.session_id,
      cwd: i.cwd,
      event: i.hook_event_name,
      tool: i.tool_name,
      toolInput: i.tool_input,
      toolResponse: i.tool_response,
      prompt: i.prompt,
      lastMessage: i.prompt_response,
      stopHookActive: i.stop_hook_active ?? false,
      detail: i.source ?? i.reason,
      transcript: i.transcript_path,
      turn: undefined
    }))
  }
  return Either.map(Either.mapLeft(Schema.decodeUnknownEither(ClaudeInput)(raw), format), (i) => ({
    session: i.session_id,
    cwd: i.cwd,
    event: i.hook_event_name,
    tool: i.tool_name,
    toolInput: i.tool_input,
    toolResponse: i.tool_response,
    prompt: i.prompt,
    lastMessage: i.last_assistant_message,
    stopHookActive: i.stop_hook_active ?? false,
    detail: i.source ?? i.reason,
    transcript: i.transcript_path,
    turn: i.turn_id
  }))
}
