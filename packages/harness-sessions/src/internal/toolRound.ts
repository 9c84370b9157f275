/**
 * One tool round's calls: decode, decide at the chokepoint, execute what is allowed (each a step),
 * and the result message the model reads next.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Event from "../Event.js"
import { HarnessError } from "../HarnessError.js"
import * as Limits from "../Limits.js"
import * as CallCheck from "./callCheck.js"
import * as Chokepoint from "./chokepoint.js"
import * as Intent from "./intent.js"
import * as Messages from "./messages.js"
import * as Pause from "./pause.js"
import * as RunState from "./runState.js"
import { type Ctx, step } from "./step.js"
import type { ToolResult } from "./toolShape.js"
import * as TurnEnd from "./turnEnd.js"

/** A tool call the model made. */
export interface Call {
  readonly id: string
  readonly name: string
  readonly params: unknown
  /** The input's size when it was over the bound (the input itself was not kept). */
  readonly oversize?: number | undefined
}

/**
 * Execute one allowed call as a step: the tool's result, the `post_tool`/`tool_failure` hooks.
 * `intent`: the call's decision was committed by a process that died before its result (the
 * caller saw the decision step reused and this step not stored): a read-only call runs again,
 * any other is answered `outcome unknown` and not run (`intent.ts`).
 */
const execute = (
  ctx: Ctx,
  state: RunState.RunState,
  call: Call,
  input: unknown,
  outcome: Chokepoint.Outcome,
  intent: boolean
) =>
  step<ToolResult>(
    ctx,
    state,
    Effect.gen(function*() {
      const retry = intent ? Intent.onRetry(yield* Intent.readOnly(ctx.readOnlyEngine, outcome.call)) : undefined
      if (retry === "unknown") {
        const result = Intent.unknown(call.name, call.id)
        return {
          events: [Event.make(ctx.run, "tool.result", {
            callId: call.id,
            tool: call.name,
            ok: false,
            outcome: "unknown",
            output: result.output
          })],
          result
        }
      }
      const tool = ctx.tools.find((t) => t.name === call.name)!
      // A call placed inside the sandbox runs only there: a host without one does not run it.
      const contained = outcome.allowed && outcome.where === "sandbox"
      if (contained && Option.isNone(ctx.contained)) return yield* notContained(ctx, call)
      const result: ToolResult = yield* tool.execute(input, {
        workspace: ctx.workspace,
        runId: ctx.run,
        callId: call.id,
        ...(contained && Option.isSome(ctx.contained) ? { sandbox: ctx.contained.value } : {})
      }).pipe(
        Effect.provide(ctx.services),
        Effect.catchAll((error: HarnessError) =>
          Effect.succeed({ ok: false, output: `tool failed: ${Limits.cut(error.message, ctx.limits.maxText)}` })
        )
      ) as Effect.Effect<ToolResult>
      const failed = !result.ok || (result.check !== undefined && result.check.exitCode !== 0)
      const post = yield* ctx.hooks.fire({
        point: failed ? "tool_failure" : "post_tool",
        call: outcome.call,
        runId: ctx.run,
        ...(result.check === undefined ? {} : { exitCode: result.check.exitCode }),
        ...(result.ok ? {} : { error: result.output.slice(0, 500) }),
        ...(result.filesTouched === undefined ? {} : { claimedFiles: result.filesTouched })
      })
      return {
        events: [
          Event.make(ctx.run, "tool.result", {
            callId: call.id,
            tool: call.name,
            ok: result.ok,
            output: Limits.cut(result.output, ctx.limits.maxText),
            truncated: result.truncated ?? false,
            timedOut: result.timedOut ?? false,
            filesTouched: result.filesTouched ?? [],
            check: result.check ?? null,
            ...(retry === "rerun" ? { outcome: "rerun" } : {})
          }),
          ...Chokepoint.hookEvents(ctx.run, call.id, post)
        ],
        result
      }
    })
  )

const toolMessage = Messages.toolResult

// Decided to run inside the sandbox (a stored decision reused by a host without one): not run.
const notContained = (ctx: Ctx, call: Call) => {
  const output = `not run: ${call.name} was allowed to run inside the sandbox only, and no sandbox is available now`
  return Effect.succeed({
    events: [Event.make(ctx.run, "tool.result", { callId: call.id, tool: call.name, ok: false, output })],
    result: { ok: false, output } satisfies ToolResult
  })
}

// The decision step was committed by an earlier process and the execution step was not.
const intentOnly = (ctx: Ctx, decision: number, execution: number): boolean =>
  ctx.stored.has(decision) && !ctx.stored.has(execution)

// The goal tools answer inside the loop; they are named in the tool list an unknown name gets.
const GOAL_TOOLS = ["get_goal", "update_goal"]

/**
 * One tool call: decode, decide, execute or refuse; the result message for the model. An ask
 * nobody could answer pauses the run at the call (`Pause.Paused`, ADR 0573) until a person's
 * answer is given to a re-drive.
 */
export const toolCall = (ctx: Ctx, state: RunState.RunState, call: Call) =>
  Effect.gen(function*() {
    if (call.name === "get_goal" || call.name === "update_goal") {
      const output = yield* TurnEnd.goalTool(ctx, state, call)
      RunState.say(state, toolMessage(call, output, false))
      return undefined
    }
    const checked = CallCheck.check(ctx.tools, GOAL_TOOLS, call, ctx.limits)
    if (Either.isLeft(checked)) {
      const invalid = checked.left
      yield* step(
        ctx,
        state,
        Effect.succeed({
          events: [Event.make(ctx.run, "tool.error", {
            callId: call.id,
            tool: Limits.cut(call.name, 64),
            field: invalid.field,
            expected: invalid.expected,
            message: invalid.message
          })],
          result: null
        })
      )
      state.invalidInRow++
      state.lastInvalid = invalid.message
      RunState.say(state, toolMessage(call, invalid.message, true))
      return undefined
    }
    state.invalidInRow = 0
    const { tool } = checked.right
    const input = checked.right.input
    const governed = tool.governance(input, { workspace: ctx.workspace, runId: ctx.run, callId: call.id })
    const decided = state.step
    const outcome = yield* step<Chokepoint.Outcome>(
      ctx,
      state,
      Effect.gen(function*() {
        const { events, outcome } = yield* Chokepoint.decide(
          { ...ctx.gate, run: ctx.run, engine: ctx.engine },
          { tool: call.name, callId: call.id, call: governed }
        ).pipe(Effect.mapError((e) => new HarnessError({ code: "TOOL_FAILED", message: e.message })))
        const head = Event.make(ctx.run, "tool.call", {
          callId: call.id,
          tool: call.name,
          input,
          call: governed,
          decision: outcome.allowed ? "allow" : outcome.decision,
          citation: outcome.citation,
          approval: outcome.allowed ? outcome.approval : null
        })
        const refused = outcome.allowed ? [] : outcome.pending
          ? [Pause.pauseEvent(ctx, Pause.pendingOf(ctx, call.id, call.name, input, outcome))]
          : [Event.make(ctx.run, "tool.refused", {
            callId: call.id,
            tool: call.name,
            decision: outcome.decision,
            pending: false,
            reason: outcome.reason,
            citation: outcome.citation
          })]
        return { events: [head, ...events, ...refused], result: outcome }
      })
    )
    let allowed: Chokepoint.Outcome = outcome
    let started = decided
    if (!outcome.allowed && outcome.pending) {
      started = state.step
      const answered = yield* Pause.answerAt(
        ctx,
        state,
        Pause.pendingOf(ctx, call.id, call.name, input, outcome),
        outcome.citation
      )
      if ("_tag" in answered) return answered
      if (answered.decision === "reject") {
        RunState.say(state, toolMessage(call, Chokepoint.rejectionText(answered.name, answered.reason), true))
        return undefined
      }
      // An ask a person granted runs on the host (ADR 0563), cited as the person's answer.
      allowed = {
        allowed: true,
        call: outcome.call,
        citation: outcome.citation,
        approval: {
          by: "person",
          name: answered.name,
          at: answered.at,
          paused: true,
          ...(answered.remembered === undefined ? {} : { remembered: answered.remembered })
        }
      }
    }
    if (!allowed.allowed) {
      RunState.say(state, toolMessage(call, Chokepoint.refusalText(allowed), true))
      return undefined
    }
    const result = yield* execute(ctx, state, call, input, allowed, intentOnly(ctx, started, state.step))
    RunState.recordTool(state, call.name, input, result)
    RunState.say(state, toolMessage(call, result.output, !result.ok))
    return undefined
  })
