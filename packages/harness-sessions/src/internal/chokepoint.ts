/**
 * The one chokepoint every tool call passes: the governance decision, the `pre_tool` hooks, and
 * for an ask the reviewer command, then the host's `Responder` (none, or no answer: `pending`, and
 * the run pauses at the call, ADR 0573). What it decides
 * is a JSON value the run loop stores as a step, so a replay reuses the answer instead of asking
 * again. The events it returns land in the session's stream with the decision.
 */
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import type * as Evidence from "@steward/governance-rules/Evidence"
import type * as Hooks from "@steward/governance-rules/Hooks"
import * as Placement from "@steward/governance-rules/Placement"
import type * as Policy from "@steward/governance-rules/Policy"
import type * as Responder from "@steward/governance-rules/Responder"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Event from "../Event.js"
import * as Reviewer from "../Reviewer.js"

/** How a call was approved. */
export type Approval =
  | { readonly by: "rule"; readonly ruleId: string | null; readonly layer: string }
  | {
    readonly by: "person"
    readonly name: string
    readonly at: number
    /** The rule approve-and-remember saved with the answer. */
    readonly remembered?: string
    /** Answered at a pause (ADR 0573), not inline by a `Responder`. */
    readonly paused?: true
  }
  | { readonly by: "reviewer"; readonly reason: string }

/** The citation as events and the model see it. */
export interface Cited {
  readonly layer: string
  readonly ruleId: string | null
  readonly pattern: string | null
  readonly action: string
  readonly effect: string
  readonly resource: string
  readonly reason: string
}

/** What the gate decided (stored as the step's result). */
export type Outcome =
  | {
    readonly allowed: true
    readonly call: Policy.ToolCall
    readonly citation: Cited
    readonly approval: Approval
    /** Allowed to run inside the sandbox only (ADR 0563); absent: on the host. */
    readonly where?: "sandbox"
  }
  | {
    readonly allowed: false
    readonly call: Policy.ToolCall
    readonly citation: Cited
    readonly decision: "deny" | "ask"
    /** An ask nobody answered: the run pauses at the call for a person's answer (ADR 0573). */
    readonly pending: boolean
    readonly reason: string
  }

/** The gate's environment. */
export interface Env {
  readonly session: string
  readonly run: string
  readonly workspace: string
  readonly engine: Policy.Engine
  readonly hooks: Hooks.Hooks["Type"]
  readonly responder: Option.Option<Responder.Responder["Type"]>
  readonly reviewer: Reviewer.Config | undefined
  readonly executor: Option.Option<CommandExecutor.CommandExecutor>
  /** The OS boundary under the gate for this run (`off` when the host provides none). */
  readonly boundary: Placement.BoundaryState
}

/** The citation of a decision, as recorded. */
export const cite = (decision: Policy.Decision): Cited => ({
  layer: decision.citation.layer,
  ruleId: decision.citation.ruleId,
  pattern: decision.citation.pattern,
  action: decision.citation.action,
  effect: decision.citation.effect,
  resource: decision.citation.resource,
  reason: decision.citation.reason
})

/** Hook evidence as stream events. */
export const hookEvents = (run: string, callId: string | null, evidence: ReadonlyArray<Evidence.EvidenceEvent>) =>
  evidence.map((e) => Event.make(run, "hook", { callId, hook: e.hook, kind: e.kind, data: e.data }))

/** Decide one call. */
export const decide = (
  env: Env,
  input: { readonly tool: string; readonly callId: string; readonly call: Policy.ToolCall }
) =>
  Effect.gen(function*() {
    const { call, callId, tool } = input
    // The gate and the boundary as one decision: with the sandbox on, an allow runs inside it and
    // what only the analyser could not resolve is allowed there (`sandbox.contained`).
    const placed = Placement.place(yield* env.engine.decide(call), call, env.boundary)
    const decision: Policy.Decision = placed.citation === placed.gate.citation
      ? placed.gate
      : { ...placed.gate, decision: placed.decision, citation: placed.citation, reasons: placed.reasons }
    const citation = cite(decision)
    const events: Array<Event.EventInput> = []
    const pre = yield* env.hooks.fire({ point: "pre_tool", call, decision, runId: env.run })
    events.push(...hookEvents(env.run, callId, pre))
    const refuse = (reason: string, pending: boolean): Outcome => ({
      allowed: false,
      call,
      citation,
      decision: decision.decision === "deny" ? "deny" : "ask",
      pending,
      reason
    })
    if (decision.decision === "allow") {
      const where = placed.where === "sandbox" ? { where: "sandbox" as const } : {}
      return { outcome: { allowed: true, call, citation, approval: rule(decision), ...where } as Outcome, events }
    }
    if (decision.decision === "deny") return { outcome: refuse(citation.reason, false), events }
    if (env.reviewer !== undefined && Option.isSome(env.executor)) {
      const answer = yield* Reviewer.review(env.reviewer, {
        session: env.session,
        run: env.run,
        workspace: env.workspace,
        tool,
        call,
        decision
      }).pipe(Effect.provideService(CommandExecutor.CommandExecutor, env.executor.value))
      events.push(Event.make(env.run, "approval", {
        callId,
        tool,
        by: "reviewer",
        answer: answer.decision,
        reason: answer.reason,
        failedClosed: answer.failedClosed,
        citation
      }))
      if (answer.decision === "allow") {
        return {
          outcome: { allowed: true, call, citation, approval: { by: "reviewer", reason: answer.reason } } as Outcome,
          events
        }
      }
      if (answer.decision === "deny") {
        return { outcome: refuse(`denied by the reviewer: ${answer.reason}`, false), events }
      }
    }
    if (Option.isNone(env.responder)) {
      events.push(Event.make(env.run, "approval", { callId, tool, by: null, answer: "unanswered", citation }))
      return { outcome: refuse(`needs approval and nobody can answer: ${citation.reason}`, true), events }
    }
    const request: Responder.AskRequest = { call, decision, runId: env.run }
    const answer = yield* env.responder.value.respond(request).pipe(Effect.either)
    const at = yield* Clock.currentTimeMillis
    if (answer._tag === "Left") {
      events.push(Event.make(env.run, "approval", { callId, tool, by: null, answer: "unanswered", citation }))
      return { outcome: refuse(`needs approval and nobody answered: ${citation.reason}`, true), events }
    }
    events.push(Event.make(env.run, "approval", {
      callId,
      tool,
      by: "person",
      name: answer.right.by,
      at,
      answer: answer.right.answer,
      citation
    }))
    if (answer.right.answer === "deny") {
      return { outcome: refuse(`denied by ${answer.right.by}: ${citation.reason}`, false), events }
    }
    return {
      outcome: { allowed: true, call, citation, approval: { by: "person", name: answer.right.by, at } } as Outcome,
      events
    }
  })

const rule = (decision: Policy.Decision): Approval => ({
  by: "rule",
  ruleId: decision.citation.ruleId,
  layer: decision.citation.layer
})

/** The text the model reads for a refused call. */
export const refusalText = (outcome: Extract<Outcome, { allowed: false }>): string =>
  [
    `REFUSED by governance (${outcome.citation.layer} rule ${outcome.citation.ruleId ?? "(none matched)"}${
      outcome.citation.pattern === null
        ? ""
        : `, ${outcome.citation.action} ${JSON.stringify(outcome.citation.pattern)}`
    }): ${outcome.reason}`,
    "The call was not run. Do not retry it in another form; choose another way or report the blocker."
  ].join("\n")

/** The text the model reads for a call a person rejected at a pause. */
export const rejectionText = (by: string, reason: string | undefined): string =>
  [
    `REJECTED by ${by}${reason === undefined || reason.trim() === "" ? "" : `: ${reason}`}`,
    "The person was asked and said no; the call was not run. Do not retry it in another form; choose another way or report the blocker."
  ].join("\n")
