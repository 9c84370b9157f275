/**
 * A run paused at an ask (ADR 0573): an ask nobody could answer stops the run at that call
 * (`run.pause`, committed with the decision); a person's answer, given later and perhaps by
 * another process, is a step of the same run — committed at the index after the decision — and
 * the re-driven run goes on from that call: an approved call runs, a rejected one answers the
 * model with the person's reason. A re-drive that finds no answer stops at the call again.
 */
import type * as Rule from "@steward/governance-rules/Rule"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Event from "../Event.js"
import type { HarnessError } from "../HarnessError.js"
import type * as Chokepoint from "./chokepoint.js"
import type * as RunState from "./runState.js"
import * as Scope from "./scope.js"
import { type Ctx, step } from "./step.js"
import type * as Transcript from "./transcript.js"

/** The answer step's stored result. */
export interface Answered {
  readonly decision: "allow" | "reject"
  readonly name: string
  readonly at: number
  readonly reason?: string
  readonly remembered?: string
}

/** A run stopped at an ask: the call it waits on. */
export interface Paused {
  readonly _tag: "paused"
  readonly pending: Transcript.PendingCall
}

type Refused = Extract<Chokepoint.Outcome, { allowed: false }>

/** The pending call of a refused-as-pending outcome, with the scope remembering it would save. */
export const pendingOf = (
  ctx: Ctx,
  callId: string,
  tool: string,
  input: unknown,
  outcome: Refused
): Transcript.PendingCall => {
  const scope = Scope.rememberScope(Scope.approvedCall(outcome.call, outcome.citation), ctx.parser)
  return {
    run: ctx.run,
    callId,
    tool,
    input,
    citation: outcome.citation,
    scope: Either.isRight(scope) ? scope.right.pattern : null,
    alternatives: Either.isRight(scope) ? scope.right.alternatives : [],
    unscoped: Either.isLeft(scope) ? scope.left.reason : null
  }
}

/** The `run.pause` event committed with the decision of an ask nobody could answer. */
export const pauseEvent = (ctx: Ctx, pending: Transcript.PendingCall) =>
  Event.make(ctx.run, "run.pause", {
    callId: pending.callId,
    tool: pending.tool,
    input: pending.input,
    citation: pending.citation,
    scope: pending.scope,
    alternatives: pending.alternatives,
    unscoped: pending.unscoped,
    reason: "needs a person's approval and nobody could answer"
  })

/** The notice of a rule saved by approve-and-remember. */
export const savedRuleNotice = (rule: Rule.RuleInput, workspace: string) =>
  `saved rule ${rule.id}: ${rule.effect} ${rule.action} ${JSON.stringify(rule.resource)} in workspace ${workspace}`

/**
 * At a paused call: the stored answer (a replay), the answer this drive was given (committed
 * now, with its remembered rule), or none (the run stops here again, nothing written).
 */
export const answerAt = (
  ctx: Ctx,
  state: RunState.RunState,
  pending: Transcript.PendingCall,
  citation: Chokepoint.Cited
): Effect.Effect<Answered | Paused, HarnessError> => {
  const answer = ctx.answer
  if (!ctx.stored.has(state.step) && (answer === undefined || answer.callId !== pending.callId)) {
    return Effect.succeed({ _tag: "paused", pending })
  }
  return step<Answered>(
    ctx,
    state,
    Effect.gen(function*() {
      const a = answer!
      const at = yield* Clock.currentTimeMillis
      const result: Answered = {
        decision: a.decision,
        name: a.by,
        at,
        ...(a.reason === undefined ? {} : { reason: a.reason }),
        ...(a.remembered === undefined ? {} : { remembered: a.remembered.id })
      }
      const events = [
        Event.make(ctx.run, "approval", {
          callId: pending.callId,
          tool: pending.tool,
          by: "person",
          name: a.by,
          at,
          answer: a.decision,
          paused: true,
          ...(a.reason === undefined ? {} : { reason: a.reason }),
          ...(a.remembered === undefined ? {} : { remembered: a.remembered.id }),
          citation
        }),
        ...(a.remembered === undefined
          ? []
          : [Event.make(ctx.run, "notice", { cause: "rule", text: savedRuleNotice(a.remembered, ctx.workspace) })]),
        ...(a.decision === "reject"
          ? [Event.make(ctx.run, "tool.refused", {
            callId: pending.callId,
            tool: pending.tool,
            decision: "ask",
            by: "person",
            name: a.by,
            pending: false,
            reason: a.reason ?? null,
            citation
          })]
          : [])
      ]
      return { events, result, ...(a.meta === undefined ? {} : { meta: a.meta }) }
    })
  )
}
