/**
 * The view marks a commit makes stale are found by comparing rows position by position, falling
 * back to matching by id when rows moved. Held to the plain by-id comparison for random edits
 * (replace, append, remove, reorder) of both collections.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { LEDGER_MARK, staleViews } from "../src/internal/store/backend.js"
import type * as State from "../src/State.js"

interface Row {
  readonly id: string
  readonly body_path: string
}

const byId = (before: ReadonlyArray<Row>, after: ReadonlyArray<Row>, out: Set<string>) => {
  const old = new Map(before.map((r) => [r.id, r]))
  for (const r of after) {
    const o = old.get(r.id)
    if (o !== r) {
      out.add(r.body_path)
      if (o !== undefined) out.add(o.body_path)
    }
    old.delete(r.id)
  }
  for (const r of old.values()) out.add(r.body_path)
}

const row = (id: string, body: string): Row => ({ id, body_path: body })
const rows = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, k) => row(`${prefix}-${k}`, `${prefix}/${k}.md`))

type Edit =
  | { readonly kind: "replace"; readonly at: number; readonly moveBody: boolean }
  | { readonly kind: "append" }
  | { readonly kind: "remove"; readonly at: number }
  | { readonly kind: "swap"; readonly a: number; readonly b: number }

const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant("replace" as const), at: fc.nat(), moveBody: fc.boolean() }),
  fc.record({ kind: fc.constant("append" as const) }),
  fc.record({ kind: fc.constant("remove" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("swap" as const), a: fc.nat(), b: fc.nat() })
)

const apply = (prefix: string, start: ReadonlyArray<Row>, edits: ReadonlyArray<Edit>): ReadonlyArray<Row> => {
  const out = [...start]
  let fresh = 0
  for (const e of edits) {
    if (e.kind === "append") out.push(row(`${prefix}-new${fresh}`, `${prefix}/new${fresh++}.md`))
    if (out.length === 0) continue
    if (e.kind === "replace") {
      const r = out[e.at % out.length]!
      out[e.at % out.length] = row(r.id, e.moveBody ? `${r.body_path}.moved` : r.body_path)
    }
    if (e.kind === "remove") out.splice(e.at % out.length, 1)
    if (e.kind === "swap") {
      const a = e.a % out.length, b = e.b % out.length
      ;[out[a], out[b]] = [out[b]!, out[a]!]
    }
  }
  return out
}

const doc = (findings: ReadonlyArray<Row>, classes: ReadonlyArray<Row>) =>
  ({ findings, class_findings: classes }) as unknown as State.StateDoc

describe("staleViews", () => {
  it("names exactly the bodies of the rows a commit changed, moved rows included", () => {
    fc.assert(
      fc.property(
        fc.nat(12),
        fc.nat(6),
        fc.array(edit, { maxLength: 6 }),
        fc.array(edit, { maxLength: 4 }),
        (n, m, findingEdits, classEdits) => {
          const before = { f: rows("F", n), c: rows("C", m) }
          const after = { f: apply("F", before.f, findingEdits), c: apply("C", before.c, classEdits) }
          const expected = new Set([LEDGER_MARK])
          byId(before.f, after.f, expected)
          byId(before.c, after.c, expected)
          const got = staleViews(doc(before.f, before.c), doc(after.f, after.c))
          assert.deepStrictEqual(new Set(got), expected)
        }
      )
    )
  })

  it("a first commit makes every body stale; an unchanged document only LEDGER.md", () => {
    const f = rows("F", 3)
    assert.deepStrictEqual(
      new Set(staleViews(undefined, doc(f, []))),
      new Set([LEDGER_MARK, ...f.map((r) => r.body_path)])
    )
    const same = doc(f, [])
    assert.deepStrictEqual(staleViews(same, same), [LEDGER_MARK])
  })
})
