/**
 * xcheck's closed `--json` output schemas (v10) and the checker that holds a payload to them both
 * ways. The schemas are pure data.
 *
 * @internal
 */
import type { OutputSchema } from "../../Metrics.js"

/** `status --json` schema v10. */
export const STATUS_SCHEMA: OutputSchema = {
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

/** `metrics --json` schema v10. */
export const METRICS_SCHEMA: OutputSchema = {
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

const typeOk = (v: unknown, t: string): boolean =>
  t.split("|").some((one) => {
    switch (one) {
      case "int":
        return typeof v === "number" && Number.isInteger(v)
      case "num":
        return typeof v === "number" && Number.isFinite(v)
      case "str":
        return typeof v === "string"
      case "list":
        return Array.isArray(v)
      case "dict":
        return typeof v === "object" && v !== null && !Array.isArray(v)
      case "null":
        return v === null
      case "bool":
        return typeof v === "boolean"
      default:
        return false
    }
  })

/** Check a payload against a closed schema both ways: unknown key, missing key, wrong type. */
export const outputIssues = (value: unknown, schema: OutputSchema, where = ""): ReadonlyArray<string> => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return [`${where || "payload"}: expected an object`]
  }
  const issues: Array<string> = []
  const obj = value as Record<string, unknown>
  for (const k of Object.keys(obj)) if (!(k in schema)) issues.push(`${where}${k}: unknown key`)
  for (const [k, t] of Object.entries(schema)) {
    if (!(k in obj)) {
      issues.push(`${where}${k}: missing key`)
      continue
    }
    if (typeof t === "string") {
      if (!typeOk(obj[k], t)) issues.push(`${where}${k}: expected ${t}, found ${JSON.stringify(obj[k])}`)
    } else issues.push(...outputIssues(obj[k], t, `${where}${k}.`))
  }
  return issues
}
