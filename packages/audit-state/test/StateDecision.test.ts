import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Decision from "../src/Decision.js"
import * as State from "../src/State.js"
import { A, finding, harness, session } from "./helpers.js"

const load = (patch: (doc: any) => void) => Effect.runSync(State.decodeText(harness(patch)))
const decide = (patch: (doc: any) => void, config: Partial<Decision.DecisionConfig> = {}) =>
  Decision.stateAndDecision(load(patch), { ...Decision.defaultConfig, ...config })

describe("Decision.stateAndDecision (§4.2 gates, §8.2 32–40)", () => {
  it("32: a live refusal stops; the same refusal on a closed record does not", () => {
    const live = decide((d) => Object.assign(d.findings[0], { status: "accepted", refusal: "material-missing" }))
    assert.deepStrictEqual(live, { kind: "stop-refusal", detail: ["F-0001", "material-missing"] })
    const closed = decide((d) => Object.assign(d.findings[0], { status: "closed", refusal: "material-missing" }))
    assert.strictEqual(closed.kind, "done")
  })

  it("33: reopened attempts 1 at limit 2 → needs-human; limit 5 or attempts 0 → Remediator (ADR 0101)", () => {
    assert.deepStrictEqual(decide((d) => Object.assign(d.findings[0], { status: "reopened", attempts: 1 })), {
      kind: "stop-needs-human",
      detail: "F-0001"
    })
    const five = decide((d) => {
      Object.assign(d.findings[0], { status: "reopened", attempts: 1 })
      d.limits.reopen_limit = 5
    })
    assert.strictEqual(five.kind, "run-remediator")
    assert.strictEqual(
      decide((d) => Object.assign(d.findings[0], { status: "reopened", attempts: 0 })).kind,
      "run-remediator"
    )
  })

  it("34: a reported recurrence of a closed finding means triage, not done", () => {
    const d = decide((doc) => {
      doc.findings[0].status = "closed"
      doc.findings.push(finding("F-0002", { recurrence_of: "F-0001" }))
    })
    assert.deepStrictEqual(d, { kind: "stop-triage", detail: ["F-0002"] })
  })

  it("35: critical findings block new auditing only", () => {
    const queued = (status: string) => (d: any) => {
      d.queue[0].done = false
      delete d.queue[0].coverage
      Object.assign(d.findings[0], { severity: "critical", status })
    }
    assert.deepStrictEqual(decide(queued("reported")), { kind: "stop-critical", detail: ["F-0001", "reported"] })
    assert.deepStrictEqual(decide(queued("deferred")), { kind: "stop-critical", detail: ["F-0001", "deferred"] })
    assert.strictEqual(decide(queued("accepted")).kind, "run-remediator")
    assert.deepStrictEqual(decide(queued("closed")), { kind: "run-auditor", detail: "P-01" })
    assert.deepStrictEqual(decide(queued("reported"), { auditOverCritical: true }), {
      kind: "run-auditor",
      detail: "P-01"
    })
  })

  it("36: 21 reported findings stop at the default triage cap of 20", () => {
    const d = decide((doc) => {
      doc.queue[0].done = false
      delete doc.queue[0].coverage
      for (let k = 2; k <= 21; k++) doc.findings.push(finding(`F-${String(k).padStart(4, "0")}`))
    })
    assert.strictEqual(d.kind, "stop-triage")
    assert.strictEqual((d.detail as ReadonlyArray<string>).length, 21)
  })

  it("37: the construal gate", () => {
    const accepted = (d: any) => (d.findings[0].status = "accepted")
    const gate = { construalGate: true }
    const none = decide(accepted, gate)
    assert.strictEqual(none.kind, "run-construal")
    const key = State.construalKey("Remediator", "finding F-0001")
    assert.deepStrictEqual(none.detail, ["Remediator", "finding F-0001", key, `audit/construals/${key}.md`])
    const construal = (status: string, extra: object = {}) => (d: any) => {
      accepted(d)
      d.construals = [{
        key,
        role: "Remediator",
        charter: "finding F-0001",
        session: A,
        status,
        created: "2026-08-14",
        body_path: `construals/${key}.md`,
        ...extra
      }]
    }
    assert.strictEqual(decide(construal("proposed"), gate).kind, "stop-construal")
    assert.deepStrictEqual(
      decide(construal("admitted", { admitted_by: "human:operator", admitted_at: "2026-08-14" }), gate),
      {
        kind: "run-remediator",
        detail: ["F-0001"]
      }
    )
    const other = decide((d: any) => {
      construal("admitted", { admitted_by: "human:operator" })(d)
      d.findings.push(finding("F-0002", { status: "closed" }))
      d.construals[0].charter = "finding F-0002"
      d.construals[0].key = State.construalKey("Remediator", "finding F-0002")
    }, gate)
    assert.strictEqual(other.kind, "run-construal")
  })

  it("38: disputed halts above every dispatch", () => {
    const d = decide((doc) => {
      doc.findings[0].status = "disputed"
      doc.findings.push(finding("F-0002", { status: "fixed", fixed_by: A }))
    })
    assert.deepStrictEqual(d, { kind: "stop-disputed", detail: ["F-0001"] })
  })

  it("39: done with a superseded member whose class is not closed → stop-broken-class", () => {
    const broken = decide((d) => {
      Object.assign(d.findings[0], { status: "superseded-by-class", class: "CF-0001" })
      d.class_findings = [{ ...finding("CF-0001", { status: "rejected" }), members: ["F-0001"] }]
    })
    assert.deepStrictEqual(broken, { kind: "stop-broken-class", detail: "F-0001" })
    const ok = decide((d) => {
      Object.assign(d.findings[0], { status: "superseded-by-class", class: "CF-0001" })
      d.class_findings = [{ ...finding("CF-0001", { status: "closed" }), members: ["F-0001"] }]
    })
    assert.strictEqual(ok.kind, "done")
  })

  it("40: a fixed record without fixed_by stops for verifier independence", () => {
    assert.deepStrictEqual(decide((d) => (d.findings[0].status = "fixed")), {
      kind: "stop-verifier-independence",
      detail: ["provenance", "F-0001"]
    })
    assert.deepStrictEqual(
      decide((d) => Object.assign(d.findings[0], { status: "fixed", fixed_by: A }), { sessionId: A }),
      { kind: "stop-verifier-independence", detail: ["same", "F-0001"] }
    )
    assert.strictEqual(
      decide((d) => Object.assign(d.findings[0], { status: "fixed", fixed_by: A })).kind,
      "run-verifier"
    )
  })

  it("norm ratification: a pending ruling stops; a token ruling passes", () => {
    const base = (ruling: string | undefined) => (d: any) => {
      Object.assign(d.findings[0], { status: "superseded-by-class", class: "CF-0001" })
      d.class_findings = [{
        ...finding("CF-0001", { status: "planned", blocked: "norm-ratification" }),
        members: ["F-0001"],
        ...(ruling ? { norm_ruling: ruling } : {})
      }]
    }
    assert.deepStrictEqual(decide(base("pending")), { kind: "stop-norm-ratification", detail: "CF-0001" })
    assert.deepStrictEqual(decide(base("not a token")), { kind: "stop-norm-ratification", detail: "CF-0001" })
    assert.strictEqual(decide(base("N1-over-N4")).kind, "run-remediator")
  })

  it("plan completeness: an empty state asks for the Planner (ADR 0105)", () => {
    const d = Decision.stateAndDecision(State.empty("tests"))
    assert.strictEqual(d.kind, "run-planner")
    assert.strictEqual(Decision.roleAndCharter(d)?.charter, Decision.PLANNER_CHARTER)
  })

  it("two open dispatches outside one concurrent group are refused at load", () => {
    const e = Effect.runSync(
      Effect.flip(State.decodeText(harness((d) => (d.sessions = [session(A), session("3333333333333333")]))))
    )
    assert.include(e.message, "still open")
  })
})
