/**
 * The finding records (spec §1.4) as `effect/Schema`: the one definition of their shape. The types
 * in `model.ts` derive from it; `fields.ts` keeps a hand-written checker of the same shape for
 * xcheck's exact wording and for speed on 10,000-row documents, and a property test holds the
 * two together (every row this Schema accepts the checker accepts, every row the checker
 * refuses this Schema refuses).
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import { INDEPENDENCE_LEVELS, NEXT_VALUES, PATTERNS, REFUSAL_REASONS, SEVERITIES, STATUSES } from "../../Vocabulary.js"

/** A string with something other than whitespace in it (xcheck's `str.strip()` test). */
const Text = Schema.String.pipe(
  Schema.filter((s) => s.trim().length > 0, { message: () => "expected a non-empty string" })
)

const matching = (re: RegExp, what: string) => Schema.String.pipe(Schema.pattern(re, { message: () => what }))

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

/** Whether a `YYYY-MM-DD` string names a day the calendar has. */
const existingDate = (v: string): boolean => {
  const y = Number(v.slice(0, 4))
  const m = Number(v.slice(5, 7))
  const d = Number(v.slice(8, 10))
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0
  const max = m === 2 && leap ? 29 : DAYS[m - 1]
  return max !== undefined && d >= 1 && d <= max
}

/** A calendar date, `YYYY-MM-DD`; generated from real days (a random digit string rarely is one). */
const Day = matching(PATTERNS.date, "a YYYY-MM-DD date").pipe(
  Schema.filter(existingDate, { message: () => "an existing calendar date" }),
  Schema.annotations({
    arbitrary: () => (fc) =>
      fc.date({ min: new Date(Date.UTC(1, 0, 1)), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10))
  })
)

const Count = Schema.Int.pipe(Schema.nonNegative())
const Texts = Schema.Array(Text).pipe(Schema.minItems(1))
const AnyFindingId = matching(PATTERNS.anyFinding, "a finding or class-finding id")
const Sha256 = matching(PATTERNS.sha256, "a sha-256 hex digest")
const NextActor = Schema.String.pipe(
  Schema.filter((s) => NEXT_VALUES.has(s), { message: () => "a canonical `next` actor" }),
  Schema.annotations({ arbitrary: () => (fc) => fc.constantFrom(...NEXT_VALUES) })
)

/** What every record carries, a finding or a class finding. */
const common = {
  title: Text,
  severity: Schema.Literal(...SEVERITIES),
  status: Schema.Literal(...STATUSES),
  dimension: Text,
  unit: Texts,
  pass: matching(PATTERNS.pass, "a pass id (P-NN)"),
  attempts: Count,
  updated: Day,
  body_path: Text,
  next: Schema.optionalWith(NextActor, { exact: true }),
  fixed_by: Schema.optionalWith(matching(PATTERNS.hex16, "a 16-lowercase-hex session id"), { exact: true }),
  refusal: Schema.optionalWith(Schema.Literal(...REFUSAL_REASONS), { exact: true }),
  admitted_scope: Schema.optionalWith(Text, { exact: true }),
  blocked: Schema.optionalWith(Text, { exact: true }),
  norm_ruling: Schema.optionalWith(Text, { exact: true }),
  independence: Schema.optionalWith(Schema.Literal(...INDEPENDENCE_LEVELS), { exact: true })
}

/**
 * The schema is closed: a field the tool does not read is refused, not ignored. Checked over the
 * enumerable keys, as the hand-written checker does: a checked row carries a non-enumerable mark
 * (`fields.ts`) that `onExcessProperty: "error"` (which reads every own key) would refuse.
 */
const closed = <Fields extends Schema.Struct.Fields>(identifier: string, fields: Fields) => {
  const known: ReadonlySet<string> = new Set(Object.keys(fields))
  const ClosedObject = Schema.Object.pipe(
    Schema.filter((o) => Object.keys(o).every((k) => known.has(k)), {
      message: () => `${identifier}: a field the tool does not read is refused`
    })
  )
  return Schema.compose(ClosedObject, Schema.Struct(fields), { strict: false }).annotations({ identifier })
}

/**
 * A finding row (`findings[]`).
 *
 * @internal
 */
export const FindingSchema = closed("Finding", {
  id: matching(PATTERNS.finding, "a finding id (F-NNNN)"),
  ...common,
  recurrence_of: Schema.optionalWith(AnyFindingId, { exact: true }),
  class: Schema.optionalWith(matching(PATTERNS.classFinding, "a class-finding id (CF-NNNN)"), { exact: true }),
  locator: Schema.optionalWith(Text, { exact: true }),
  source_hash: Schema.optionalWith(Sha256, { exact: true })
})

/**
 * A class finding row (`class_findings[]`): a finding with `members`.
 *
 * @internal
 */
export const ClassFindingSchema = closed("ClassFinding", {
  id: matching(PATTERNS.classFinding, "a class-finding id (CF-NNNN)"),
  ...common,
  members: Schema.Array(AnyFindingId).pipe(Schema.minItems(1)),
  created_by: Schema.optionalWith(Text, { exact: true })
})
