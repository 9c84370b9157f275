/**
 * The scope approve-and-remember saves for a call (issue 35 item 3): the one place the harness
 * asks for it, shown on the pause (`run.pause`) and saved by `approve --remember`. The scope is
 * governance-rules' (`ApprovalScope`, ADR 0218): the narrowest rule the engine honours, wider
 * honoured alternatives, or a refusal saying why nothing can be remembered.
 */
import * as ApprovalScope from "@steward/governance-rules/ApprovalScope"
import type * as Policy from "@steward/governance-rules/Policy"
import type * as ShellParser from "@steward/governance-rules/ShellParser"

/** The call as its citation names it: the action and the resource the decision read. */
export interface Cited {
  readonly action: string
  readonly resource: string
}

/**
 * The call as governance's scope reads it: a shell command as the model wrote it (the citation's
 * resource is the engine's canonical text, whose quoting is gone), anything else as the decision
 * named it (a workspace-relative path, a URL, a tool name).
 */
export const approvedCall = (call: Policy.ToolCall, citation: Cited): Cited =>
  call.tool === "shell" ? { action: "shell", resource: call.command } : citation

/** The narrowest honoured scope of an approved call and its alternatives, or why there is none. */
export const rememberScope = (call: Cited, parser: ShellParser.ShellParser["Type"]): ApprovalScope.Result =>
  ApprovalScope.scope(call, parser)

/** A scope the person edited, checked against the call (the same refusals, else the pattern). */
export const checkScope = (
  call: Cited,
  pattern: string,
  parser: ShellParser.ShellParser["Type"]
): ApprovalScope.Result => ApprovalScope.check(call, pattern, parser)
