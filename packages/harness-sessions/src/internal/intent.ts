/**
 * Exactly what ran, said plainly (issue 34 item 2, ADR 0560). A governed call's decision step is
 * committed before the tool executes: it is the call's intent. A re-driven run that finds an
 * intent without a result cannot know whether the call took effect (the process died between the
 * two), so the call is not silently run again: a read-only call — one the gate allows at the
 * `read_only` level (`read`, `ls`, `git status`…) — is run again, any other is answered
 * `outcome unknown` and the model decides whether to repeat it. One rule for every executor of a
 * call (the in-process loop today, a workflow activity retried by a cluster later).
 */
import type * as Policy from "@steward/governance-rules/Policy"
import * as Effect from "effect/Effect"
import type { ToolResult } from "./toolShape.js"

/** What a call whose intent is stored without a result does now. */
export type Retry = "rerun" | "unknown"

/** Whether the gate classes a call read-only: allowed under the `read_only` level's rules. */
export const readOnly = (
  engine: Effect.Effect<Policy.Engine, unknown>,
  call: Policy.ToolCall
): Effect.Effect<boolean> =>
  engine.pipe(
    Effect.flatMap((e) => e.decide(call)),
    Effect.map((d) => d.decision === "allow"),
    // a call the read-only gate cannot decide is not read-only (fail closed: never re-run it)
    Effect.orElseSucceed(() => false)
  )

/** The retry rule: read-only calls run again, any other is answered `outcome unknown`. */
export const onRetry = (isReadOnly: boolean): Retry => isReadOnly ? "rerun" : "unknown"

/** The result the model reads for a call whose outcome is unknown. */
export const unknown = (tool: string, callId: string): ToolResult => ({
  ok: false,
  output: `outcome unknown: the process running your ${tool} call ${callId} stopped after the call was started and ` +
    `before its result was stored, so it may or may not have taken effect. It was not run again. Check its ` +
    `effects (read the files, list the state) before deciding whether to repeat it.`
})
