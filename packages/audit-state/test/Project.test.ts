import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Project from "../src/Project.js"
import * as State from "../src/State.js"
import { fixture } from "./helpers.js"

describe("Project.decisionRecords (ADR 0134: the views `next` checks)", () => {
  const doc = Effect.runSync(State.decodeText(fixture("state/valid-full.json")))

  it("names the records in the decision's detail, with the members of a named class finding", () => {
    assert.deepStrictEqual(
      [...Project.decisionRecords(doc, { kind: "run-remediator", detail: ["CF-0001"] })].sort(),
      ["CF-0001", "F-0002"]
    )
    assert.deepStrictEqual([...Project.decisionRecords(doc, { kind: "stop-triage", detail: ["F-0001"] })], ["F-0001"])
    assert.deepStrictEqual(
      [...Project.decisionRecords(doc, { kind: "stop-critical", detail: ["F-0001", "reported"] })],
      ["F-0001"]
    )
  })

  it("names nothing for a decision about passes or none, and ignores ids the state does not hold", () => {
    assert.strictEqual(Project.decisionRecords(doc, { kind: "run-auditor", detail: "P-01" }).size, 0)
    assert.strictEqual(Project.decisionRecords(doc, { kind: "done", detail: null }).size, 0)
    assert.strictEqual(Project.decisionRecords(doc, { kind: "run-verifier", detail: ["F-9999"] }).size, 0)
  })
})
