import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type * as Events from "../src/Events.js"
import * as Metrics from "../src/Metrics.js"
import * as State from "../src/State.js"
import { finding, harness, session } from "./helpers.js"

const S1 = "aaaaaaaaaaaaaaaa"
const S2 = "bbbbbbbbbbbbbbbb"
const S3 = "cccccccccccccccc"

const doc = Effect.runSync(State.decodeText(harness((d) => {
  d.findings = [
    finding("F-0001", { status: "closed", independence: "cross-provider" }),
    finding("F-0002", { status: "closed", attempts: 1, independence: "same-provider-different-session" }),
    finding("F-0003", { status: "reopened", attempts: 1, recurrence_of: "F-0001" }),
    finding("F-0004", { status: "disputed" }),
    finding("F-0005", { status: "validated" }),
    finding("F-0006"),
    finding("F-0007", { status: "superseded-by-class", class: "CF-0001" })
  ]
  d.class_findings = [{
    ...finding("CF-0001", { status: "planned", blocked: "norm-ratification", norm_ruling: "pending" }),
    members: ["F-0007"]
  }]
  d.queue[0].coverage.findings = ["F-0001"]
  d.queue.push({ id: "P-02", dimension: "invariants", units: ["U01"], charter: "c", stop: "s", done: false })
  d.sessions = [
    session(S1, { outcome: "ok", duration_s: 100 }),
    session(S2, { outcome: "crash", duration_s: 50 }),
    session(S3, { outcome: "timeout" })
  ]
})))

const ev = (event: string, extra: Record<string, unknown> = {}): Events.AuditEvent => ({
  ts: "2026-08-14T00:00:00+00:00",
  event,
  session_id: null,
  ...extra
})

const events: ReadonlyArray<Events.AuditEvent> = [
  ev("session_finished", { session_id: S1, tokens: 3000 }),
  ev("session_finished", { session_id: S2, tokens: 1000 }),
  ev("session_finished", { session_id: S3 }),
  ev("state_transition", {
    session_id: S1,
    verb: "record-verdict",
    from_status: "fixed",
    to_status: "closed",
    summary: "x"
  }),
  ev("state_transition", {
    session_id: S1,
    verb: "record-verdict",
    from_status: "fixed",
    to_status: "closed",
    summary: "y"
  }),
  ev("state_transition", {
    session_id: S1,
    verb: "record-verdict",
    from_status: "fixed",
    to_status: "reopened",
    reason: "census 12 of 15",
    summary: "z"
  }),
  ev("state_transition", {
    verb: "set-status",
    from_status: "closed",
    to_status: "accepted",
    summary: "F: retake by human:op"
  }),
  ev("gate_reached", { gate: "stop-triage" }),
  ev("gate_reached", { gate: "stop-triage" })
]

describe("Metrics (§6, hand-derived)", () => {
  const m = Metrics.metrics(doc, events, "/p")

  it("M1–M8 and breakdowns", () => {
    assert.strictEqual(m.auditor_accuracy_pct, 83.3) // 5 survived of 6 validated
    assert.strictEqual(m.fix_durability_pct, 33.3) // 1 of F-0001,F-0002,F-0003
    assert.strictEqual(m.reopen_rate_pct, 50) // F-0002,F-0003 of 4
    assert.deepStrictEqual(m.human_interventions, {
      gates: 2,
      by_gate: { "stop-triage": 2 },
      norm_rulings: 1,
      human_retakes: 1,
      total: 3
    })
    assert.strictEqual(m.false_closure_rate_pct, 50)
    assert.strictEqual(m.closures_recorded, 2)
    assert.strictEqual(m.tokens.total, 4000)
    assert.strictEqual(m.tokens.canonical_transitions, 4)
    assert.strictEqual(m.tokens.canonical_transitions_measured, 3)
    assert.strictEqual(m.tokens.per_canonical_transition, 1333)
    assert.strictEqual(m.tokens.on_sessions_that_moved_nothing, 1000)
    assert.strictEqual(m.tokens.share_that_moved_nothing_pct, 25)
    assert.strictEqual(m.tokens.coverage_pct, 66.7)
    assert.strictEqual(m.cost_per_accepted_finding.session_seconds, 150)
    assert.strictEqual(m.cost_per_accepted_finding.accepted_findings, 7)
    assert.strictEqual(m.cost_per_accepted_finding.seconds_per_accepted_finding, 21.4)
    assert.strictEqual(m.coverage_completeness_pct, 50)
    assert.strictEqual(m.killed_sessions, 2)
    assert.strictEqual(m.recovery_after_kill_pct, 50)
    assert.deepStrictEqual(m.independence.by_level, {
      "cross-provider": 1,
      "same-provider-different-session": 1,
      unrecorded: 1
    })
    assert.strictEqual(m.independence.degraded, 2)
    assert.deepStrictEqual(m.breakdowns.reopen_cause, { "census 12 of 15": 1 })
    assert.strictEqual(m.breakdowns.recurrence_rate_pct, 12.5)
    assert.strictEqual(m.breakdowns.residue_pass_share_pct, 100)
    assert.deepStrictEqual(m.class_findings, { ids: ["CF-0001"], members: 1 })
    assert.deepStrictEqual(Metrics.outputIssues(m, Metrics.METRICS_SCHEMA), [])
  })

  it("ADR 0026: a `same` verdict counts as degraded and is flagged in the text", () => {
    const same = Effect.runSync(State.decodeText(harness((d) => {
      d.findings = [
        finding("F-0001", { status: "closed", independence: "same" }),
        finding("F-0002", { status: "closed", independence: "cross-model" })
      ]
    })))
    const m = Metrics.metrics(same, [], "p")
    assert.strictEqual(m.independence.degraded, 1)
    assert.deepStrictEqual(m.independence.degraded_levels, ["same-provider-different-session", "same", "unrecorded"])
    assert.include(Metrics.renderMetrics(m), "same 1 ⚠ degraded")
    assert.notInclude(Metrics.renderMetrics(m), "cross-model 1 ⚠")
  })

  it("an empty project: every rate is null, not 0", () => {
    const e = Metrics.metrics(State.empty("tests"), [], "/p")
    for (
      const k of [
        "auditor_accuracy_pct",
        "fix_durability_pct",
        "reopen_rate_pct",
        "false_closure_rate_pct",
        "coverage_completeness_pct",
        "recovery_after_kill_pct"
      ] as const
    ) {
      assert.isNull(e[k], k)
    }
    assert.isNull(e.tokens.total)
    assert.strictEqual(e.closures_recorded, 0)
    assert.deepStrictEqual(Metrics.outputIssues(e, Metrics.METRICS_SCHEMA), [])
  })

  it("51: the closed output schemas report a surprise key, a missing key and a wrong type", () => {
    const s = Metrics.status(doc, { kind: "done", detail: null }, "/p", "2026-08-20")
    assert.deepStrictEqual(Metrics.outputIssues(s, Metrics.STATUS_SCHEMA), [])
    assert.strictEqual(s.full_sweep.days, 6)
    assert.deepInclude(Metrics.outputIssues({ ...s, surprise: 1 }, Metrics.STATUS_SCHEMA), "surprise: unknown key")
    const { state_revision: _, ...missing } = s
    assert.deepInclude(Metrics.outputIssues(missing, Metrics.STATUS_SCHEMA), "state_revision: missing key")
    assert.deepInclude(
      Metrics.outputIssues({ ...s, state_revision: "7" }, Metrics.STATUS_SCHEMA),
      "state_revision: expected int, found \"7\""
    )
    const bad = Metrics.checkOutput({ ...m, surprise: true }, Metrics.METRICS_SCHEMA, "metrics")
    assert.instanceOf(bad, Error)
  })

  it("pyRound rounds half to even like Python", () => {
    assert.strictEqual(Metrics.pyRound(0.5), 0)
    assert.strictEqual(Metrics.pyRound(1.5), 2)
    assert.strictEqual(Metrics.pyRound(2 / 3 * 100, 1), 66.7)
  })

  it("xcheck's shape: whole seconds are summed; a breakdown with no records has no key", () => {
    const timed = Effect.runSync(State.decodeText(harness((d) => {
      d.findings = [finding("F-0001", { status: "accepted" })]
      d.sessions = [session(S1, { outcome: "ok", duration_s: 2.7 }), session(S2, { outcome: "ok", duration_s: 1.6 })]
    })))
    const m = Metrics.metrics(timed, [], "/p")
    assert.strictEqual(m.cost_per_accepted_finding.session_seconds, 3)
    assert.strictEqual(m.cost_per_accepted_finding.seconds_per_accepted_finding, 3)
    assert.deepStrictEqual(m.breakdowns.durability_by_fix_type, { individual: null })
    const empty = Metrics.metrics(State.empty("tests"), [], "/p")
    assert.deepStrictEqual(empty.breakdowns.durability_by_fix_type, {})
    assert.deepStrictEqual(empty.breakdowns.durability_by_dimension, {})
    assert.deepStrictEqual(Metrics.outputIssues(empty, Metrics.METRICS_SCHEMA), [])
  })
})
