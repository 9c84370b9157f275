import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import * as State from "../src/State.js"
import { fixture } from "./helpers.js"
import { applyInPlace } from "./mutations.js"

// ADR 0111: a commit checks only what it changed; `issueAfter(prev, next)` must equal `issue(next)`
// whenever `prev` is valid — on the fast path (finding rows replaced in place) and on every fallback.

const prev = Effect.runSync(State.decodeText(fixture("state/valid-full.json")))
const negative = JSON.parse(fixture("state/schema-negative-cases.json"))

const parts = (path: string): Array<string | number> => {
  const out: Array<string | number> = []
  for (const m of path.matchAll(/([A-Za-z_]+)|\[(\d+)\]/g)) out.push(m[1] !== undefined ? m[1] : Number(m[2]))
  return out
}
/** Copy the containers along `path` so a mutation changes only them (what a verb does). */
const cow = (root: any, path: string) => {
  let cur = root
  for (const p of parts(path).slice(0, -1)) {
    const c = cur[p]
    const copy = Array.isArray(c) ? [...c] : { ...c }
    cur[p] = copy
    cur = copy
  }
}
const pathOf = (m: string): string => {
  const r = /^(?:set top-level |delete |append copy of )?([\w.[\]]+?)(?:=.*| with id .*)?$/.exec(m)
  return r ? r[1]! : ""
}
/** The negative case applied copy-on-write to the valid document. */
const derive = (mutation: string): any => {
  const next: any = { ...prev }
  const m = mutation.replace(/ \((?:status fixed|== session)\)$/, "")
  const extra = /^(.*) \((.*)\)$/.exec(m)
  const steps = extra ? [extra[2]!, extra[1]!] : [m]
  for (const s of steps) {
    cow(next, pathOf(s).replace(/^(\w+)$/, "$1.x"))
    applyInPlace(next, s)
  }
  return next
}

describe("State.issueAfter (ADR 0111)", () => {
  it("every negative case, applied copy-on-write to a valid state, gives exactly issue()'s message", () => {
    assert.strictEqual(negative.cases.length, 59)
    let fast = 0
    for (const c of negative.cases) {
      const next = derive(c.mutation)
      const full = State.issue(next)
      assert.isDefined(full, c.name)
      assert.include(full, c.expect, c.name)
      assert.strictEqual(State.issueAfter(prev, next), full, c.name)
      if (/^findings\[\d+\]\.(?!id=)/.test(c.mutation) || /^delete findings\[\d+\]\./.test(c.mutation)) fast++
    }
    assert.isAtLeast(fast, 10) // the fast path is exercised by the finding-row cases
  })

  it("a valid in-place change passes; the bookkeeping keys are still checked", () => {
    const rows = [...prev.findings!]
    rows[0] = { ...rows[0]!, status: "accepted", updated: "2026-08-20" }
    const next = { ...prev, findings: rows, state_revision: prev.state_revision + 1 }
    assert.isUndefined(State.issueAfter(prev, next))
    assert.strictEqual(
      State.issueAfter(prev, { ...next, ledger_commits: ["nothex"] }),
      State.issue({ ...next, ledger_commits: ["nothex"] })
    )
    assert.isDefined(State.issueAfter(prev, { ...next, ledger_commits: ["nothex"] }))
    assert.isUndefined(State.issueAfter(prev, prev))
  })

  it("the fast path reads only the changed rows: it relies on prev being valid (what the store guarantees)", () => {
    // an untouched row of an (impossible) invalid prev is not re-read — this is what makes the commit cheap
    const brokenRows = [...prev.findings!]
    brokenRows[1] = { ...brokenRows[1]!, pass: "P-99" }
    const brokenPrev = { ...prev, findings: brokenRows }
    const rows = [...brokenRows]
    rows[0] = { ...rows[0]!, title: "retitled" }
    const next = { ...brokenPrev, findings: rows }
    assert.include(State.issue(next), "'P-99' is not a pass in the queue")
    assert.isUndefined(State.issueAfter(brokenPrev, next))
    // a change outside the finding rows falls back to the full check and sees it
    const moved = { ...next, queue: [...next.queue!] }
    assert.include(State.issueAfter(brokenPrev, moved), "'P-99' is not a pass in the queue")
    const appended = { ...next, findings: [...rows, { ...rows[0]!, id: "F-0003" }] }
    assert.include(State.issueAfter(brokenPrev, appended), "'P-99' is not a pass in the queue")
  })

  const fields = [
    "status",
    "next",
    "pass",
    "dimension",
    "unit",
    "recurrence_of",
    "class",
    "attempts",
    "id",
    "severity",
    "title",
    "owner",
    "fixed_by",
    "refusal",
    "updated"
  ]
  const values = fc.constantFrom<unknown>(
    "reported",
    "accepted",
    "fixed",
    "closed",
    "reopened",
    "planned",
    "deferred",
    "almost",
    "Triage",
    "Remediator",
    "Verifier",
    "Nobody",
    "⚠ needs-human",
    "P-01",
    "P-02",
    "P-99",
    "invariants",
    "vibes",
    ["U01"],
    ["U99"],
    [],
    "F-0001",
    "F-0002",
    "F-0404",
    "CF-0001",
    "CF-0099",
    0,
    1,
    -1,
    "1",
    null,
    "",
    "   ",
    "2026-08-20",
    "2026-02-30",
    "0123456789abcdef",
    "material-missing",
    undefined
  )
  it("property: any in-place finding-row edit (or several) gives exactly issue()'s answer", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(prev.findings!.length - 1), fc.constantFrom(...fields), values), {
          minLength: 1,
          maxLength: 4
        }),
        fc.boolean(),
        (edits, bump) => {
          const rows: Array<any> = [...prev.findings!]
          for (const [k, f, v] of edits) {
            const r = { ...rows[k] }
            if (v === undefined) delete r[f]
            else r[f] = v
            rows[k] = r
          }
          const next: any = { ...prev, findings: rows }
          if (bump) next.state_revision = prev.state_revision + 1
          assert.strictEqual(State.issueAfter(prev, next), State.issue(next))
        }
      ),
      { numRuns: 500 }
    )
  })
})
