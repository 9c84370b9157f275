/**
 * The built-in reflex definitions, route and settle: extractors, heads and priors, the shipped
 * organisms, gates, certification and label mappings. Exported from `Reflex`.
 * @internal
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Features from "../Features.js"
import * as Gates from "../Gates.js"
import * as Params from "../Params.js"
import type { ReflexDefinition, RouteInput, SettleInput } from "../Reflex.js"
import * as Shipped from "./organisms.js"

const routeEvidence = (task: string, judge: Features.Judge | undefined) => ({
  substantial: Features.substantial(task),
  judged: judge !== undefined,
  kind: judge?.kind ?? null
})

const routeFeaturesOf = (task: string, judge: Features.Judge | undefined): Record<string, number> => {
  const base = Features.routeFeatures(task)
  return judge === undefined ? base : Features.withJudgeEvidence(base, judge)
}

/** @internal */
export const route: ReflexDefinition<RouteInput, "route"> = {
  name: "route",
  description: "Frontier or standard model tier for a new task",
  heads: ["judged", "plain"],
  prior: Params.routePrior,
  organism: Shipped.route,
  valueKey: "route",
  values: ["frontier", "standard"],
  extract: (input) => {
    const evidence = routeEvidence(input.task, input.judge)
    return Either.right({
      _tag: "Extracted",
      extracted: {
        features: routeFeaturesOf(input.task, input.judge),
        evidence,
        facts: { substantial: evidence.substantial }
      }
    })
  },
  gate: (decision, extracted) => ({
    value: Gates.routeFloor(decision.value as "frontier" | "standard", extracted.facts["substantial"] === true),
    vetoed: false,
    actionable: true
  }),
  // ADR 0413: a task always runs on some tier, so there is no "leave it to the person" to fall back
  // on while evidence gathers; the floor sends every substantial task to frontier.
  uncertified:
    "every task must run on some tier, so route picks one from the first task; the gate sends every substantial task to frontier, so a wrong pick costs tokens, not quality",
  certification: {},
  explicitLabels: (value, decidedHead) =>
    value === "frontier" || value === "standard" ? [{ head: decidedHead, label: value === "frontier" }] : undefined,
  importExample: (line) => {
    if (line.head !== undefined) return Either.left("route lines take no head")
    if (line.toolCalls !== undefined) return Either.left("route lines take no tool_calls")
    return Either.right({
      head: line.judge === undefined ? "plain" : "judged",
      features: routeFeaturesOf(line.text, line.judge),
      evidence: routeEvidence(line.text, line.judge)
    })
  }
}

/** @internal */
export const settle: ReflexDefinition<SettleInput, "category"> = {
  name: "settle",
  description: "Whether a finished turn stopped short or asks to confirm a safe next step",
  heads: ["stopped_short", "confirm"],
  // ADR 0414: one name for the head and the category it decides; xcb's `unfinished` is still read
  formerHeads: Params.formerHeads["settle"],
  prior: Params.settlePrior,
  organism: Shipped.settle,
  valueKey: "category",
  values: [
    "done",
    "stopped_short",
    "confirm",
    "interrupted",
    "question",
    "needs_action",
    "needs_approval",
    "blocked",
    "limited",
    "failed",
    "cancelled",
    "uncertain"
  ],
  extract: (input) => {
    const facts = input.facts ?? Features.completedTurn
    const features = Features.settleFeatures(input.text, facts, input.toolCalls)
    if (Option.isNone(features)) {
      return Either.right({ _tag: "Skipped", reason: "tool-call count unknown: the turn is not scored" })
    }
    const f = features.value
    const veto = Gates.vetoReason(f, input.text)
    const owner = Gates.ownerOnlyReason(f, input.text)
    return Either.right({
      _tag: "Extracted",
      extracted: {
        features: f,
        evidence: {
          state: input.state ?? "idle",
          limit: f["limit"]!,
          blocked: f["blocked"]!,
          done_claim: f["done_claim"]!
        },
        facts: { vetoed: veto !== undefined },
        reasons: { ...(veto === undefined ? {} : { veto }), ...(owner === undefined ? {} : { owner }) }
      }
    })
  },
  gate: (decision, extracted) => {
    const vetoed = extracted.facts["vetoed"] === true
    const f = extracted.features
    if (decision.value === "confirm") {
      return vetoed
        ? { value: decision.value, vetoed, actionable: false, reason: extracted.reasons?.["veto"] ?? "vetoed" }
        : { value: decision.value, vetoed, actionable: true }
    }
    if (decision.value === "stopped_short") {
      return (f["owner_only"] ?? 0) === 0
        ? { value: decision.value, vetoed, actionable: true }
        : { value: decision.value, vetoed, actionable: false, reason: extracted.reasons?.["owner"] ?? "owner-only" }
    }
    return {
      value: decision.value,
      vetoed,
      actionable: false,
      reason: `a ${decision.value} turn is left to the person (only stopped_short and confirm are answered)`
    }
  },
  certification: {
    stopped_short: { floor: 0.75 },
    confirm: { floor: 0.85, actionable: (f) => (f["risk"] ?? 0) === 0 && (f["user_act"] ?? 0) === 0 }
  },
  explicitLabels: (value) => {
    switch (value) {
      case "unfinished": // the former head name, accepted for one minor version (ADR 0414)
      case "stopped_short":
        return [{ head: "stopped_short", label: true }, { head: "confirm", label: false }]
      case "confirm":
        return [{ head: "confirm", label: true }, { head: "stopped_short", label: false }]
      case "done":
        return [{ head: "stopped_short", label: false }, { head: "confirm", label: false }]
      default:
        return undefined
    }
  },
  importExample: (line) => {
    if (line.judge !== undefined) return Either.left("settle lines take no judge")
    // `unfinished` is the former name of `stopped_short`, accepted for one minor version (ADR 0414)
    const head = line.head === undefined || line.head === "unfinished" ? "stopped_short" : line.head
    if (head !== "stopped_short" && head !== "confirm") {
      return Either.left(`unknown settle head ${JSON.stringify(line.head)} (stopped_short or confirm)`)
    }
    const f = Features.settleFeaturesKnown(line.text, Features.completedTurn, line.toolCalls ?? 0)
    return Either.right({
      head,
      features: f,
      evidence: { state: "idle", limit: f["limit"]!, blocked: f["blocked"]!, done_claim: f["done_claim"]! }
    })
  }
}
