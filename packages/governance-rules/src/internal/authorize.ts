/**
 * The body of `Governance.authorize`, shared with `Gate.authorize`: decide once, record the
 * decision and fire `pre_tool`, resolve an ask through the `Responder`. A refusal keeps the
 * decision beside the error so the gate builds its verdict without deciding the call again
 * (issue 38: the gate used to decide every call twice).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Evidence from "../Evidence.js"
import * as GovernanceError from "../GovernanceError.js"
import * as Hooks from "../Hooks.js"
import * as Policy from "../Policy.js"
import * as Responder from "../Responder.js"

/**
 * How a decided call ended: granted (by `policy` or whoever answered), or refused with the
 * `denied` / `ask-unanswered` error — both with the decision that led there. Failing to decide
 * at all (bad input, no grammar) is the effect's error, not a resolution. @internal
 */
export type Resolution =
  | { readonly _tag: "Granted"; readonly decision: Policy.Decision; readonly grantedBy: string }
  | { readonly _tag: "Refused"; readonly decision: Policy.Decision; readonly error: GovernanceError.GovernanceError }

const citationData = (decision: Policy.Decision) => ({
  decision: decision.decision,
  level: decision.level,
  citation: {
    layer: decision.citation.layer,
    ruleId: decision.citation.ruleId,
    pattern: decision.citation.pattern,
    action: decision.citation.action,
    resource: Evidence.redact(decision.citation.resource),
    reason: Evidence.redact(decision.citation.reason)
  },
  segments: decision.segments.map((s) => ({ canonical: Evidence.redact(s.canonical), decision: s.decision }))
})

/** Build the resolver from the stack's services. @internal */
export const make = Effect.gen(function*() {
  const engine = yield* Policy.PolicyEngine
  const responder = yield* Responder.Responder
  const hooks = yield* Hooks.Hooks
  const log = yield* Evidence.EvidenceLog
  const record = (input: Evidence.EvidenceInput) =>
    log.append(input).pipe(
      Effect.asVoid,
      Effect.catchAllCause((cause) => Effect.logWarning("evidence append failed", cause))
    )
  const refused = (decision: Policy.Decision, error: GovernanceError.GovernanceError): Resolution => ({
    _tag: "Refused",
    decision,
    error
  })
  return Effect.fnUntraced(function*(
    call: Policy.ToolCall,
    options: { readonly runId?: string } = {}
  ): Effect.fn.Return<Resolution, GovernanceError.GovernanceError> {
    const runId = options.runId ?? null
    const decision = yield* engine.decide(call)
    yield* record({ kind: "decision", runId, data: { tool: call.tool, ...citationData(decision) } })
    yield* hooks.fire({
      point: "pre_tool",
      call,
      decision,
      ...(options.runId === undefined ? {} : { runId: options.runId })
    })
    if (decision.decision === "allow") return { _tag: "Granted", decision, grantedBy: "policy" }
    if (decision.decision === "deny") {
      return refused(
        decision,
        GovernanceError.make("denied", `denied: ${decision.citation.reason}`, {
          detail: { citation: decision.citation, reasons: decision.reasons }
        })
      )
    }
    const request: Responder.AskRequest = {
      call,
      decision,
      ...(options.runId === undefined ? {} : { runId: options.runId })
    }
    const answered = yield* Effect.either(responder.respond(request))
    if (answered._tag === "Left") {
      yield* record({
        kind: "answer",
        runId,
        data: { answer: "unanswered", code: answered.left.code, ruleId: decision.citation.ruleId }
      })
      return refused(decision, answered.left)
    }
    const answer = answered.right
    yield* record({
      kind: "answer",
      runId,
      data: { answer: answer.answer, by: answer.by, ruleId: decision.citation.ruleId }
    })
    if (answer.answer === "deny") {
      return refused(
        decision,
        GovernanceError.make("denied", `denied by ${answer.by}: ${decision.citation.reason}`, {
          detail: { citation: decision.citation, reasons: decision.reasons, answeredBy: answer.by }
        })
      )
    }
    return { _tag: "Granted", decision, grantedBy: answer.by }
  })
})
