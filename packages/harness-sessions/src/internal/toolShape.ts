/**
 * The structural shape of a tool the run loop drives (what `Tools.Tool` provides).
 */
import type * as Policy from "@steward/governance-rules/Policy"
import type * as Effect from "effect/Effect"
import type * as Schema from "effect/Schema"
import type { HarnessError } from "../HarnessError.js"

/** What a tool execution returns. */
export interface ToolResult {
  readonly ok: boolean
  readonly output: string
  readonly truncated?: boolean
  readonly timedOut?: boolean
  readonly filesTouched?: ReadonlyArray<string>
  readonly check?: { readonly command: string; readonly exitCode: number }
  readonly todos?: ReadonlyArray<{ readonly content: string; readonly status: string }>
  readonly needsPerson?: boolean
}

/** What a tool knows about its call. */
export interface ToolContext {
  readonly workspace: string
  readonly runId: string
  readonly callId: string
}

/** A tool. */
export interface ToolLike {
  readonly name: string
  readonly description: string
  readonly input: Schema.Struct<any>
  readonly governance: (input: any, context: ToolContext) => Policy.ToolCall
  readonly execute: (input: any, context: ToolContext) => Effect.Effect<ToolResult, HarnessError, any>
}
