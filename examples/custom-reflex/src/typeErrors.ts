/**
 * What the typed authoring API refuses at compile time (type-checked by the example's test: each
 * `@ts-expect-error` must meet an error, or the check fails).
 */
import * as Expr from "@steward/algal-runtime/Expr"
import * as Reflex from "@steward/reflex-core/Reflex"
import * as Reflexes from "@steward/reflex-core/Reflexes"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { retry } from "./retry.js"

const { get, record } = Expr
const from = { features: "src.features", params: "src.params", evidence: "src.evidence" } as const
const options = {
  key: "organism:mistyped",
  name: "Mistyped",
  budgets: { maxSteps: 4, maxAgentCalls: 0, maxWork: 20000, maxDepth: 1 },
  valueKey: "action"
} as const

/** A decision without its `gate`. */
export const noGate = Reflex.organism(options).decide("decide", {
  from,
  // @ts-expect-error a decision must carry a gate
  program: record({ action: "retry", head: "retry", score: 0 })
})

/** A score that is text. */
export const textScore = Reflex.organism(options).decide("decide", {
  from,
  // @ts-expect-error a decision's score is a number
  program: record({ action: "retry", gate: "score", head: "retry", score: "high" })
})

/** The value under another key than the reflex's `valueKey`. */
export const wrongKey = Reflex.organism(options).decide("decide", {
  from,
  // @ts-expect-error the value goes under `action`
  program: record({ verdict: get("features", "infra"), gate: "score", head: "retry", score: 0 })
})

/** A settle input passed to the retry reflex. */
export const wrongInput = Effect.gen(function*() {
  const reflexes = yield* Reflexes.Reflexes
  const definition = Either.getOrThrow(retry)
  // @ts-expect-error `decide` is typed by the definition's input (a FailedJob)
  return yield* reflexes.decide(definition, { text: "All done.", toolCalls: 3 }, { subject: "job-1" })
})
