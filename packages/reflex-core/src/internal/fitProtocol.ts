/**
 * The messages between an import and its fit workers (ADR 0411): the example sets once per
 * worker (`InitialMessage`), then one `FitWindow` request per window, answered with its head.
 * Numbers cross as they are (structured clone keeps every double), so a head fitted on a worker
 * is the head the calling thread would fit.
 * @internal
 */
import * as Schema from "effect/Schema"
import type * as FitCore from "./fitCore.js"

const isFitRow = (u: unknown): u is FitCore.FitRow => {
  if (typeof u !== "object" || u === null) return false
  const row = u as Record<string, unknown>
  return typeof row["features"] === "object" && row["features"] !== null && typeof row["label"] === "boolean" &&
    typeof row["weight"] === "number"
}

/**
 * One example as the fit reads it, checked by its shape only: a set holds thousands of rows and
 * is sent once per worker, so its feature values are not walked one by one (`fitCore` skips
 * anything that is not a finite number).
 * @internal
 */
export const FitRow = Schema.declare(isFitRow, { identifier: "FitRow" })

/** A head as a worker returns it (no range checks: the worker computed it). @internal */
export const FittedHead = Schema.Struct({
  bias: Schema.Number,
  weights: Schema.Record({ key: Schema.String, value: Schema.Number }),
  threshold: Schema.Number
})

/** The example sets of one import, sent to each worker when it starts. @internal */
export class InitialMessage extends Schema.TaggedRequest<InitialMessage>()("InitialMessage", {
  failure: Schema.Never,
  success: Schema.Void,
  payload: { sets: Schema.Array(Schema.Array(FitRow)) }
}) {}

/** Fit `prior` on `sets[set].slice(from, to)`. @internal */
export class FitWindow extends Schema.TaggedRequest<FitWindow>()("FitWindow", {
  failure: Schema.Never,
  success: FittedHead,
  payload: {
    set: Schema.Int,
    from: Schema.Int,
    to: Schema.Int,
    prior: FittedHead,
    options: Schema.Struct({ iterations: Schema.Number, learningRate: Schema.Number, priorStrength: Schema.Number })
  }
}) {}

/** Every request a fit worker answers. @internal */
export const FitRequest = Schema.Union(InitialMessage, FitWindow)

/** @internal */
export type FitRequest = typeof FitRequest.Type
