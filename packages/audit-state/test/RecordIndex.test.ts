/**
 * A verb finds its record by id through an index an array earns on its second lookup and a
 * replacement's copy inherits. Held to `findIndex` over random histories of lookups, in-place
 * replacements (same id or another), appends and arrays grown in place, with repeated ids.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { findRecord, replaceRecord } from "../src/internal/verbs/common.js"
import { carryPositions, positionOf } from "../src/internal/verbs/recordIndex.js"
import type * as State from "../src/State.js"

interface Row {
  readonly id: string
  readonly n: number
}

type Step =
  | { readonly kind: "lookup"; readonly id: number }
  | { readonly kind: "replace"; readonly at: number; readonly id: number | undefined }
  | { readonly kind: "append"; readonly id: number }
  | { readonly kind: "push"; readonly id: number }

const ids = fc.nat({ max: 12 })
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("lookup" as const), id: ids }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("replace" as const),
      at: fc.nat(),
      id: fc.option(ids, { nil: undefined })
    })
  },
  fc.record({ kind: fc.constant("append" as const), id: ids }),
  fc.record({ kind: fc.constant("push" as const), id: ids })
)

describe("record index", () => {
  it("answers as findIndex through lookups, replacements and growth", () => {
    fc.assert(
      fc.property(fc.array(ids, { maxLength: 10 }), fc.array(step, { maxLength: 40 }), (start, steps) => {
        let rows: Array<Row> = start.map((id, n) => ({ id: `F-${id}`, n }))
        let n = rows.length
        for (const s of steps) {
          if (s.kind === "lookup") {
            const id = `F-${s.id}`
            assert.strictEqual(positionOf(rows, id), rows.findIndex((r) => r.id === id))
          } else if (s.kind === "replace" && rows.length > 0) {
            // as replaceRecord does: a copy with one row replaced, carrying positions only when
            // the replacement keeps the id
            const at = s.at % rows.length
            const next = [...rows]
            next[at] = { id: s.id === undefined ? rows[at]!.id : `F-${s.id}`, n: n++ }
            if (next[at]!.id === rows[at]!.id) carryPositions(rows, next)
            rows = next
          } else if (s.kind === "append") {
            rows = [...rows, { id: `F-${s.id}`, n: n++ }]
          } else if (s.kind === "push") {
            rows.push({ id: `F-${s.id}`, n: n++ })
          }
        }
      }),
      { numRuns: 500 }
    )
  })

  it("findRecord and replaceRecord keep finding every record after many verbs on one snapshot", () => {
    const finding = (k: number, status: string) => ({ id: `F-${k}`, status }) as unknown as State.Finding
    let doc = {
      findings: Array.from({ length: 50 }, (_, k) => finding(k, "reported")),
      class_findings: [{ id: "CF-1", status: "reported" }]
    } as unknown as State.StateDoc
    for (let round = 0; round < 3; round++) {
      for (let k = 0; k < 50; k++) {
        const loc = findRecord(doc, `F-${k}`)
        assert.deepStrictEqual(loc && { cls: loc.cls, index: loc.index }, { cls: false, index: k })
        doc = replaceRecord(doc, loc!, finding(k, `s${round}`))
      }
    }
    assert.deepStrictEqual(doc.findings!.map((r) => r.status), Array(50).fill("s2"))
    assert.deepStrictEqual(findRecord(doc, "CF-1")?.cls, true)
    assert.strictEqual(findRecord(doc, "F-50"), undefined)
  })
})
