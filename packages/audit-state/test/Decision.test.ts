import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Decision from "../src/Decision.js"

const cases = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "fixtures/decision/decide-cases.json"), "utf8"))

const options = (args: any): Decision.DecideOptions => ({
  ...cases.defaults,
  batchSize: args.batch_size ?? cases.defaults.batch_size,
  triageCap: args.triage_cap ?? cases.defaults.triage_cap,
  planComplete: args.plan_complete ?? cases.defaults.plan_complete,
  refusals: args.refusals ?? null,
  construal: args.construal === undefined
    ? null
    : (role: string, charter: string) => ({
      kind: "stop-construal",
      detail: [role, charter, "audit/construals/x.md", "test gate"]
    })
})

describe("Decision.decide (decide-cases.json)", () => {
  it("has every priority pair and the 40 cases", () => {
    assert.strictEqual(cases.cases.length, 40)
    assert.deepStrictEqual([...Decision.PRIORITY], cases.decide_priority)
  })
  for (const c of cases.cases) {
    it(c.name, () => {
      const d = Decision.decide(c.records, c.unchecked, options(c.args))
      assert.strictEqual(d.kind, c.expect_kind)
      assert.deepStrictEqual(d.detail, c.expect_detail)
    })
  }
  for (const c of cases.role_routes) {
    it(`route: ${c.name}`, () => {
      const d = Decision.decide(c.records, c.unchecked)
      assert.strictEqual(Decision.roleAndCharter(d)?.role, c.expect_role)
    })
  }
  it("charters", () => {
    assert.strictEqual(Decision.remediatorCharter(["F-0001"]), cases.charters["run-remediator (1 id)"])
    assert.strictEqual(
      Decision.remediatorCharter(["F-0001", "F-0002", "F-0003"]),
      cases.charters["run-remediator (contiguous)"]
    )
    assert.strictEqual(Decision.remediatorCharter(["F-0001", "F-0003"]), cases.charters["run-remediator (gapped)"])
    assert.strictEqual(Decision.verifierCharter(["F-0001", "F-0002"]), cases.charters["run-verifier"])
    assert.strictEqual(Decision.PLANNER_CHARTER, cases.charters["run-planner"])
  })
})
