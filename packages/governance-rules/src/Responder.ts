/**
 * Ask resolution. When a decision is `ask`, the `Responder` is asked; with no one to answer
 * (`layerNone`, the default for unattended runs) the ask fails closed with the citation.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as GovernanceError from "./GovernanceError.js"
import type * as Policy from "./Policy.js"

/**
 * What is asked: the call and the decision (with its citation and reasons).
 *
 * @since 0.1.0
 * @category models
 */
export interface AskRequest {
  readonly call: Policy.ToolCall
  readonly decision: Policy.Decision
  readonly runId?: string
}

/**
 * An answer: `allow` (once) or `deny`, and who gave it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Answer {
  readonly answer: "allow" | "deny"
  readonly by: string
}

/**
 * The responder service. `respond` fails with `ask-unanswered` when nobody can answer.
 *
 * @since 0.1.0
 * @category tags
 */
export class Responder extends Context.Tag("@steward/governance-rules/Responder")<Responder, {
  readonly respond: (request: AskRequest) => Effect.Effect<Answer, GovernanceError.GovernanceError>
}>() {}

/**
 * The `ask-unanswered` error for a request, carrying the citation.
 *
 * @since 0.1.0
 * @category constructors
 */
export const unanswered = (request: AskRequest): GovernanceError.GovernanceError =>
  GovernanceError.make(
    "ask-unanswered",
    `needs approval and nobody can answer (failing closed): ${request.decision.citation.reason}`,
    { detail: { citation: request.decision.citation, reasons: request.decision.reasons } }
  )

/**
 * Nobody answers: every ask fails closed with its citation.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerNone: Layer.Layer<Responder> = Layer.succeed(
  Responder,
  Responder.of({ respond: (request) => Effect.fail(unanswered(request)) })
)

/**
 * Answer with a function (a UI prompt, a chat message, a policy bot).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWith = (
  respond: (request: AskRequest) => Effect.Effect<Answer, GovernanceError.GovernanceError>
): Layer.Layer<Responder> => Layer.succeed(Responder, Responder.of({ respond }))

/**
 * Always give the same answer (tests and scripted hosts).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConstant = (answer: "allow" | "deny", by = "constant"): Layer.Layer<Responder> =>
  layerWith(() => Effect.succeed({ answer, by }))
