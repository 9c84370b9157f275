import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Decision from "../src/Decision.js"
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

describe("Project.nextDriftRecords (ADR 0134: next_drift_scope, default xcheck's)", () => {
  const doc = Effect.runSync(State.decodeText(fixture("state/valid-full.json")))
  const decision = { kind: "run-remediator", detail: ["CF-0001"] }

  it("checks every view by default and with `all`; the decision's records with `decision`", () => {
    assert.strictEqual(Project.nextDriftRecords(doc, decision, Decision.defaultConfig), undefined)
    assert.strictEqual(Project.nextDriftRecords(doc, decision, { nextDriftScope: "all" }), undefined)
    assert.deepStrictEqual(
      [...Project.nextDriftRecords(doc, decision, { nextDriftScope: "decision" }) ?? []].sort(),
      ["CF-0001", "F-0002"]
    )
  })

  it("reads next_drift_scope from orchestrator.conf, refusing any other value by line", () => {
    assert.strictEqual((Project.parseConfig("") as Decision.DecisionConfig).nextDriftScope, undefined)
    assert.strictEqual(
      (Project.parseConfig("next_drift_scope = decision") as Decision.DecisionConfig).nextDriftScope,
      "decision"
    )
    assert.strictEqual((Project.parseConfig("next_drift_scope: all") as Decision.DecisionConfig).nextDriftScope, "all")
    assert.strictEqual(
      Project.parseConfig("embargo = off\nnext_drift_scope = named"),
      "line 2: next_drift_scope must be one of all, decision, found 'named'"
    )
  })
})
