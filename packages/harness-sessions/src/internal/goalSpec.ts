/**
 * A goal as a person sets it, apart from the goal loop (which calls a model): a session's stored
 * settings decode it, and reading a session must not load a model client (start-up; ADR 0004).
 */
import * as Schema from "effect/Schema"

/** A goal: the objective and optional limits (re-exported as `Goal.Spec`). */
export const Spec = Schema.Struct({
  objective: Schema.String,
  rounds: Schema.optional(Schema.Int.pipe(Schema.between(1, 1000))),
  hours: Schema.optional(Schema.Number.pipe(Schema.greaterThan(0), Schema.lessThanOrEqualTo(168))),
  tokens: Schema.optional(Schema.Int.pipe(Schema.positive()))
})

/** The type of a goal. */
export type Spec = typeof Spec.Type
