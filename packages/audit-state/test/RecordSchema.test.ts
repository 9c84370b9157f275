import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as Arbitrary from "effect/Arbitrary"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import * as Fields from "../src/internal/state/fields.js"
import * as State from "../src/State.js"
import * as Verbs from "../src/Verbs.js"
import { REFUSAL_REASONS, SEVERITIES, STATUSES } from "../src/Vocabulary.js"
import { fixture } from "./helpers.js"

// One source of truth (issue 18 item 3): the Schema defines a finding row and a verb request; the
// hand-written checkers (xcheck's wording, the 10k-row hot path) must agree with it — every row
// the Schema accepts the checker accepts, every row the checker refuses the Schema refuses.

const decodes = <A, I>(schema: Schema.Schema<A, I>, u: unknown): boolean =>
  Either.isRight(Schema.decodeUnknownEither(schema)(u))

const rowCases: ReadonlyArray<{ name: string; schema: Schema.Schema.AnyNoContext; fields: Fields.Fields }> = [
  { name: "finding", schema: State.FindingSchema, fields: Fields.FINDING_FIELDS },
  { name: "class finding", schema: State.ClassFindingSchema, fields: Fields.CLASS_FINDING_FIELDS }
]

/** A change a hand-edited or hostile row might carry. */
const mutation = fc.oneof(
  fc.record({ kind: fc.constant("drop" as const), key: fc.nat() }),
  fc.record({
    kind: fc.constant("add" as const),
    key: fc.string({ minLength: 1, maxLength: 8 }),
    value: fc.jsonValue()
  }),
  fc.record({
    kind: fc.constant("set" as const),
    key: fc.nat(),
    value: fc.oneof(
      fc.jsonValue(),
      fc.constantFrom("", " ", "2026-02-30", "F-1", "CF-12345", "P-1", "nope", -1, 1.5, true, []),
      fc.string()
    )
  })
)

type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never

const mutate = (row: Record<string, unknown>, m: Mutation): Record<string, unknown> => {
  const keys = Object.keys(row)
  const out: Record<string, unknown> = { ...row }
  if (m.kind === "drop") delete out[keys[m.key % keys.length]!]
  else if (m.kind === "add") out[m.key] = m.value
  else out[keys[m.key % keys.length]!] = m.value
  return out
}

describe("record Schemas and the hand-written row checker agree", () => {
  for (const { fields, name, schema } of rowCases) {
    const rows = Arbitrary.make(schema)

    it(`every ${name} the Schema generates passes the checker`, () => {
      fc.assert(
        fc.property(rows, (row) => {
          const problem = Fields.recordIssue(row as unknown as Record<string, unknown>, fields, "row")
          assert.isUndefined(problem, JSON.stringify(row))
        }),
        { numRuns: 400 }
      )
    })

    it(`every ${name} the checker refuses, the Schema refuses`, () => {
      let refused = 0
      fc.assert(
        fc.property(rows, fc.array(mutation, { minLength: 1, maxLength: 3 }), (row, ms) => {
          const changed = ms.reduce(mutate, { ...(row as Record<string, unknown>) })
          if (Fields.recordIssue(changed, fields, "row") === undefined) return
          refused++
          assert.isFalse(decodes(schema, changed), JSON.stringify(changed))
        }),
        { numRuns: 600 }
      )
      assert.isAtLeast(refused, 300) // the mutations mostly produce refusals: the property bites
    })
  }

  it("the rows of a valid fixture decode under the Schemas", () => {
    const doc = Effect.runSync(State.decodeText(fixture("state/valid-full.json")))
    for (const r of doc.findings ?? []) assert.isTrue(decodes(State.FindingSchema, r), r.id)
    for (const r of doc.class_findings ?? []) assert.isTrue(decodes(State.ClassFindingSchema, r), r.id)
    assert.isFalse(decodes(State.FindingSchema, { ...doc.findings![0]!, status: "almost" }))
    assert.isFalse(decodes(State.FindingSchema, { ...doc.findings![0]!, colour: "red" }))
  })
})

describe("verb requests: the literal Schema, its text form and the verbs' own vocabulary checks", () => {
  const doc = Effect.runSync(State.decodeText(fixture("state/valid-full.json")))
  const ctx: Verbs.VerbContext = { today: "2026-01-01" }
  const outside = (vocabulary: ReadonlyArray<string>) => fc.string().filter((s) => !vocabulary.includes(s))

  it("every request the literal Schema generates is a text request", () => {
    fc.assert(
      fc.property(Arbitrary.make(Verbs.VerbRequestSchema), (request) => {
        assert.isTrue(decodes(Verbs.VerbRequestTextSchema, request), JSON.stringify(request))
      }),
      { numRuns: 300 }
    )
  })

  it("a status, severity or refusal reason outside the vocabulary: the Schema refuses it, and so does the verb", () => {
    const id = doc.findings![0]!.id
    fc.assert(
      fc.property(outside(STATUSES), (status) => {
        const request = { verb: "set-status" as const, id, status }
        assert.isFalse(decodes(Verbs.VerbRequestSchema, request))
        assert.isTrue(Verbs.isRefusal(Verbs.apply(doc, request, ctx)))
      })
    )
    fc.assert(
      fc.property(outside(SEVERITIES), (severity) => {
        const request = {
          verb: "file-finding" as const,
          id: "F-0999",
          title: "t",
          severity,
          dimension: doc.queue![0]!.dimension,
          unit: [...doc.queue![0]!.units],
          pass: doc.queue![0]!.id,
          body: "findings/F-0999.md"
        }
        assert.isFalse(decodes(Verbs.VerbRequestSchema, request))
        const outcome = Verbs.apply(doc, request, ctx)
        assert.isTrue(Verbs.isRefusal(outcome) && outcome.message.includes("severity"), JSON.stringify(outcome))
      })
    )
    fc.assert(
      fc.property(outside(REFUSAL_REASONS), (reason) => {
        const request = { verb: "record-refusal" as const, id, reason }
        assert.isFalse(decodes(Verbs.VerbRequestSchema, request))
        assert.isTrue(Verbs.isRefusal(Verbs.apply(doc, request, ctx)))
      })
    )
  })
})
