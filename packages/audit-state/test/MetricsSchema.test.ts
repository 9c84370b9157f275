/**
 * Issue 18 item 3 / issue 21 item 4: the metrics and status payloads are defined by Schemas; the
 * closed type tables the checker uses (xcheck's wording) derive from them and equal xcheck's own,
 * and a property test holds the hand-written checker to the Schemas both ways.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Arbitrary from "effect/Arbitrary"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import * as Metrics from "../src/Metrics.js"
import * as State from "../src/State.js"
import { fixture } from "./helpers.js"

/** xcheck 0.9.5's `status --json` schema v10, as it spells it. */
const XCHECK_STATUS: Metrics.OutputSchema = {
  output_schema_version: "int",
  xcheck_version: "str",
  project: "str",
  schema_version: "int",
  state_revision: "int",
  head_before: "str|null",
  passes: { done: "int", queued: "list" },
  findings: { total: "int", by_status: "dict" },
  lock: "dict|null",
  decision: { kind: "str", detail: "str|list|null" },
  quarantine: { pending: "int", bundles: "list" },
  full_sweep: { last: "str|null", pass: "str|null", days: "int|null", note: "str" }
}

/** xcheck 0.9.5's `metrics --json` schema v10, as it spells it. */
const XCHECK_METRICS: Metrics.OutputSchema = {
  output_schema_version: "int",
  project: "str",
  passes_done: "int",
  findings: { total: "int", by_status: "dict", by_severity: "dict", by_dimension: "dict", attempts: "dict" },
  class_findings: { ids: "list", members: "int" },
  auditor_accuracy_pct: "num|null",
  fix_durability_pct: "num|null",
  independence: {
    by_level: "dict",
    degraded: "int",
    measured: "int",
    levels: "list",
    degraded_levels: "list",
    ceiling: "str"
  },
  sessions: { total: "int", by_outcome: "dict", by_provider: "dict" },
  fix_durability_baseline_pct: "num|null",
  reopen_rate_pct: "num|null",
  human_interventions: { gates: "int", by_gate: "dict", norm_rulings: "int", human_retakes: "int", total: "int" },
  false_closure_rate_pct: "num|null",
  false_closures: "int",
  closures_recorded: "int",
  tokens: {
    sessions_finished: "int",
    sessions_measured: "int",
    sessions_unmeasured: "int",
    total: "num|null",
    canonical_transitions: "int",
    canonical_transitions_measured: "int",
    coverage_pct: "num|null",
    per_canonical_transition: "num|null",
    on_sessions_that_moved_nothing: "num|null",
    share_that_moved_nothing_pct: "num|null",
    scope: "str",
    source: "str"
  },
  telemetry: {
    sessions_finished: "int",
    by_field: "dict",
    by_source: "dict",
    disagreements: "int",
    fields: "list",
    scope: "str"
  },
  cost_per_accepted_finding: {
    proxy: "str",
    session_seconds: "int",
    accepted_findings: "int",
    seconds_per_accepted_finding: "num|null"
  },
  coverage_completeness_pct: "num|null",
  recovery_after_kill_pct: "num|null",
  killed_sessions: "int",
  breakdowns: {
    durability_by_dimension: "dict",
    durability_by_fix_type: "dict",
    recurrence_rate_pct: "num|null",
    reopen_cause: "dict",
    verification_independence: "dict",
    human_intervention_rate: "num|null",
    seconds_per_closed_finding: "num|null",
    residue_pass_share_pct: "num|null",
    false_closures_found_later: "int",
    sessions_by_route: "dict"
  }
}

/** A change at some depth of a payload: drop a key, add one, or set one to another value. */
const mutation = fc.record({
  depth: fc.nat({ max: 2 }),
  kind: fc.constantFrom("drop", "add", "set"),
  key: fc.nat(),
  name: fc.string({ minLength: 1, maxLength: 8 }),
  value: fc.oneof(fc.jsonValue(), fc.constantFrom("7", 1.5, -1, true, [], {}, null))
})

type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never

const mutate = (value: unknown, m: Mutation): unknown => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) }
  const keys = Object.keys(out)
  if (keys.length === 0 || m.kind === "add") {
    out[m.name] = m.value
    return out
  }
  const key = keys[m.key % keys.length]!
  if (m.depth > 0 && typeof out[key] === "object" && out[key] !== null && !Array.isArray(out[key])) {
    out[key] = mutate(out[key], { ...m, depth: m.depth - 1 })
  } else if (m.kind === "drop") delete out[key]
  else out[key] = m.value
  return out
}

const cases = [
  { name: "metrics", schema: Metrics.MetricsReportSchema, table: Metrics.METRICS_SCHEMA, xcheck: XCHECK_METRICS },
  { name: "status", schema: Metrics.StatusReportSchema, table: Metrics.STATUS_SCHEMA, xcheck: XCHECK_STATUS }
] as const

describe("metrics and status payloads: one Schema each, the checker held to it", () => {
  for (const { name, schema, table, xcheck } of cases) {
    const is = Schema.is(schema as Schema.Schema<unknown>)
    const payloads = Arbitrary.make(schema as Schema.Schema<unknown>)

    it(`${name}: the table derived from the Schema is xcheck's, key for key and in order`, () => {
      assert.strictEqual(JSON.stringify(table), JSON.stringify(xcheck))
    })

    it(`${name}: every payload the Schema generates passes the checker`, () => {
      fc.assert(
        fc.property(payloads, (p) => {
          assert.deepStrictEqual(Metrics.outputIssues(p, table), [], JSON.stringify(p))
        }),
        { numRuns: 200 }
      )
    })

    it(`${name}: every payload the checker refuses, the Schema refuses`, () => {
      let refused = 0
      fc.assert(
        fc.property(payloads, fc.array(mutation, { minLength: 1, maxLength: 3 }), (p, ms) => {
          const changed = ms.reduce(mutate, p)
          if (Metrics.outputIssues(changed, table).length === 0) return
          refused++
          assert.isFalse(is(changed), JSON.stringify(changed))
        }),
        { numRuns: 300 }
      )
      assert.isAtLeast(refused, 150) // the mutations mostly produce refusals: the property bites
    })
  }

  it("the payloads computed from a state are members of their Schemas", () => {
    const doc = Effect.runSync(State.decodeText(fixture("state/valid-full.json")))
    assert.isTrue(Schema.is(Metrics.MetricsReportSchema)(Metrics.metrics(doc, [], "/p")))
    assert.isTrue(Schema.is(Metrics.MetricsReportSchema)(Metrics.metrics(State.empty("tests"), [], "/p")))
    const s = Metrics.status(doc, { kind: "stop-triage", detail: ["F-0001"] }, "/p", "2026-08-20")
    assert.isTrue(Schema.is(Metrics.StatusReportSchema)(s))
  })
})
