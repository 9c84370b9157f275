/**
 * The SQL ledger's row schemas (Schema at the database boundary) and its error wording.
 * @internal
 */
import * as Schema from "effect/Schema"
import { FeaturesSchema } from "../../../Features.js"
import * as ReflexError from "../../../ReflexError.js"
import type { Observation } from "../../../ReflexLedger.js"

/** @internal */
export const ObservationRow = Schema.Struct({
  id: Schema.String,
  reflex: Schema.String,
  subject: Schema.String,
  head: Schema.String,
  value: Schema.String,
  gate: Schema.String,
  score: Schema.Number,
  features: Schema.parseJson(FeaturesSchema),
  evidence: Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  params_version: Schema.Number,
  program: Schema.String,
  receipt: Schema.String,
  at_ms: Schema.Number
})

/** @internal */
export const decodeObservation = Schema.decodeUnknown(ObservationRow)

/** @internal */
export const ExampleRow = Schema.Struct({
  observation: Schema.String,
  label: Schema.Number,
  weight: Schema.Number,
  source: Schema.String,
  seq: Schema.Number,
  features: Schema.parseJson(FeaturesSchema)
})

/** @internal */
export const decodeExamples = Schema.decodeUnknown(Schema.Array(ExampleRow))

/** @internal */
export const GenerationRow = Schema.Struct({
  version: Schema.Number,
  active: Schema.Number,
  created_at: Schema.Number,
  payload: Schema.String
})

/** @internal */
export const decodeGenerations = Schema.decodeUnknown(Schema.Array(GenerationRow))

/** A ledger failure naming what could not be done. @internal */
export const ledgerError = (what: string) => (cause: unknown) =>
  ReflexError.make(
    "ledger",
    `reflex ledger: cannot ${what}: ${cause instanceof Error ? cause.message : String(cause)}`,
    undefined,
    cause
  )

/** @internal */
export const toObservation = (row: typeof ObservationRow.Type): Observation => ({
  id: row.id,
  reflex: row.reflex,
  subject: row.subject,
  head: row.head,
  value: row.value,
  gate: row.gate,
  score: row.score,
  features: row.features,
  evidence: row.evidence,
  paramsVersion: row.params_version,
  program: row.program,
  receipt: row.receipt,
  atMs: row.at_ms
})
