/**
 * The `metrics --json` payload computed from the state and the event stream (spec §6): the eight
 * health metrics, the tokens and telemetry coverage, and the breakdowns, in xcheck's shape. Rates
 * are `null`, never 0, on an empty denominator.
 *
 * @internal
 */
import type * as Events from "../../Events.js"
import * as State from "../../State.js"
import {
  DEGRADED_INDEPENDENCE,
  INDEPENDENCE_LEVELS,
  KILLED_OUTCOMES,
  OUTPUT_SCHEMA_VERSION,
  VERBS
} from "../../Vocabulary.js"
import { numeric } from "../json.js"
import type { MetricsReport } from "./report.js"

/** Python's `round(x, n)` (half to even on ties). */
export const pyRound = (x: number, digits = 0): number => {
  const f = 10 ** digits
  const y = x * f
  const t = Math.trunc(y)
  const frac = Math.abs(y - t)
  if (frac === 0.5) return (t % 2 === 0 ? t : t + Math.sign(y)) / f
  return Math.round(y) / f
}

const rate = (num: number, den: number): number | null => den === 0 ? null : pyRound((100 * num) / den, 1)

const tally = (values: Iterable<string>): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const v of values) out[v] = (out[v] ?? 0) + 1
  return out
}

const SURVIVED = new Set(["validated", "planned", "fixed", "closed", "reopened"])
const KILLED = new Set(["disputed", "obsolete", "withdrawn"])

/** The fixed Ouroboros-2 fix-durability baseline. */
export const FIX_DURABILITY_BASELINE_PCT = 70.3

const TELEMETRY_FIELDS = [
  "provider_model",
  "provider_request_id",
  "tokens_input",
  "tokens_cache",
  "tokens_output",
  "provider_stop_reason",
  "limit_input",
  "limit_output",
  "reasoning_effort",
  "tokens_log",
  "telemetry_source",
  "telemetry_disagreement",
  "telemetry_refused",
  "first_output_s",
  "idle_s",
  "first_activity_s"
]

const durability = (rs: ReadonlyArray<State.Finding>) => {
  const pool = rs.filter((r) => r.status === "closed" || r.status === "reopened")
  return rate(pool.filter((r) => r.status === "closed" && r.attempts === 0).length, pool.length)
}

const byFixType = (records: ReadonlyArray<State.Finding>): Record<string, number | null> => {
  const out: Record<string, number | null> = {}
  const cls = records.filter((r) => r.id.startsWith("CF-"))
  const ind = records.filter((r) => !r.id.startsWith("CF-"))
  if (cls.length > 0) out.class = durability(cls)
  if (ind.length > 0) out.individual = durability(ind)
  return out
}

const independenceSummary = (records: ReadonlyArray<State.Finding>) => {
  const judged = records.filter((r) => r.status === "closed" || r.status === "reopened")
  const byLevel = tally(judged.map((r) => r.independence ?? "unrecorded"))
  return {
    by_level: byLevel,
    measured: judged.filter((r) => r.independence !== undefined && r.independence !== "unrecorded").length,
    degraded: judged.filter((r) => DEGRADED_INDEPENDENCE.has(r.independence ?? "unrecorded")).length,
    levels: [...INDEPENDENCE_LEVELS],
    degraded_levels: [...DEGRADED_INDEPENDENCE],
    ceiling:
      "no level proves the absence of shared training data, a shared cache, or the same human behind both sessions"
  }
}

/** The `metrics --json` payload (output schema 10). */
export const metrics = (
  doc: State.StateDoc,
  events: ReadonlyArray<Events.AuditEvent>,
  project: string
): typeof MetricsReport.Type => {
  const records = State.records(doc)
  const queue = doc.queue ?? []
  const sessions = doc.sessions ?? []
  const survived = records.filter((r) => SURVIVED.has(r.status)).length
  const killed = records.filter((r) => KILLED.has(r.status)).length
  const reopenPool = records.filter((r) => ["planned", "fixed", "closed", "reopened"].includes(r.status))
  const transitions = events.filter((e) => e.event === "state_transition")
  const gates = events.filter((e) => e.event === "gate_reached")
  const normRulings = records.filter((r) => typeof r.norm_ruling === "string" && r.norm_ruling.length > 0).length
  const humanRetakes = transitions.filter((e) => typeof e.summary === "string" && e.summary.includes("human:")).length
  const closures = transitions.filter((e) => e.to_status === "closed").length
  const falseClosures = transitions.filter((e) => e.from_status === "closed").length
  // tokens (M6b)
  const finished = events.filter((e) => e.event === "session_finished")
  const measured = finished.filter((e) => typeof e.tokens === "number" && Number.isInteger(e.tokens))
  const measuredIds = new Set(measured.map((e) => e.session_id))
  const declared = new Set<string>(VERBS)
  const canonical = transitions.filter((e) => declared.has(String(e.verb)))
  const canonicalMeasured = canonical.filter((e) => e.session_id !== null && measuredIds.has(e.session_id))
  const movers = new Set(canonical.map((e) => e.session_id))
  const total = measured.length === 0 ? null : measured.reduce((s, e) => s + (e.tokens as number), 0)
  const onNothing = measured.length === 0
    ? null
    : measured.filter((e) => !movers.has(e.session_id)).reduce((s, e) => s + (e.tokens as number), 0)
  // sessions
  // xcheck sums whole seconds: each session's duration is truncated before it is added
  const seconds = sessions.reduce((s, x) => s + Math.trunc(numeric(x.duration_s) ?? 0), 0)
  const accepted = records.filter((r) => !["reported", "rejected", "deferred"].includes(r.status)).length
  const killedSessions = sessions.filter((s) => typeof s.outcome === "string" && KILLED_OUTCOMES.has(s.outcome))
  const last = sessions[sessions.length - 1]
  const recovered = killedSessions.filter((s) => s !== last).length
  const doneCoverage = queue.filter((p) => p.coverage?.status === "done")
  const closed = records.filter((r) => r.status === "closed").length
  const byDimension: Record<string, number | null> = {}
  for (const d of new Set(records.map((r) => r.dimension))) {
    byDimension[d] = durability(records.filter((r) => r.dimension === d))
  }
  const independence = independenceSummary(records)
  const telemetryByField: Record<string, { measured: number; unmeasured: number; coverage_pct: number | null }> = {}
  for (const f of TELEMETRY_FIELDS) {
    const m = finished.filter((e) => e[f] !== undefined && e[f] !== null).length
    telemetryByField[f] = { measured: m, unmeasured: finished.length - m, coverage_pct: rate(m, finished.length) }
  }
  const classes = doc.class_findings ?? []
  return {
    output_schema_version: OUTPUT_SCHEMA_VERSION,
    project,
    passes_done: queue.filter((p) => p.done).length,
    findings: {
      total: records.length,
      by_status: tally(records.map((r) => r.status)),
      by_severity: tally(records.map((r) => r.severity)),
      by_dimension: tally(records.map((r) => r.dimension)),
      attempts: tally(records.map((r) => String(r.attempts)))
    },
    class_findings: { ids: classes.map((c) => c.id), members: new Set(classes.flatMap((c) => c.members)).size },
    auditor_accuracy_pct: rate(survived, survived + killed),
    fix_durability_pct: durability(records),
    independence,
    sessions: {
      total: sessions.length,
      by_outcome: tally(sessions.map((s) => s.outcome ?? "in-flight")),
      by_provider: tally(sessions.map((s) => s.provider))
    },
    fix_durability_baseline_pct: FIX_DURABILITY_BASELINE_PCT,
    reopen_rate_pct: rate(
      reopenPool.filter((r) => r.attempts >= 1 || r.status === "reopened").length,
      reopenPool.length
    ),
    human_interventions: {
      gates: gates.length,
      by_gate: tally(gates.map((e) => String(e.gate))),
      norm_rulings: normRulings,
      human_retakes: humanRetakes,
      total: gates.length + normRulings
    },
    false_closure_rate_pct: rate(falseClosures, closures),
    false_closures: falseClosures,
    closures_recorded: closures,
    tokens: {
      sessions_finished: finished.length,
      sessions_measured: measured.length,
      sessions_unmeasured: finished.length - measured.length,
      total,
      canonical_transitions: canonical.length,
      canonical_transitions_measured: canonicalMeasured.length,
      coverage_pct: rate(measured.length, finished.length),
      per_canonical_transition: total === null || canonicalMeasured.length === 0
        ? null
        : pyRound(total / canonicalMeasured.length),
      on_sessions_that_moved_nothing: onNothing,
      share_that_moved_nothing_pct: total === null || onNothing === null ? null : rate(onNothing, total),
      scope: "tokens reported on session_finished events; sessions without a figure are unmeasured, never 0",
      source: "session_finished.tokens"
    },
    telemetry: {
      sessions_finished: finished.length,
      by_field: telemetryByField,
      by_source: tally(finished.map((e) => e.telemetry_source).filter((s): s is string => typeof s === "string")),
      disagreements:
        finished.filter((e) =>
          e.telemetry_disagreement !== undefined && e.telemetry_disagreement !== null &&
          e.telemetry_disagreement !== false
        ).length,
      fields: TELEMETRY_FIELDS,
      scope: "per-field coverage over finished sessions"
    },
    cost_per_accepted_finding: {
      proxy: "session seconds per accepted finding — money needs billing data this tool does not have",
      session_seconds: Math.round(seconds),
      accepted_findings: accepted,
      seconds_per_accepted_finding: accepted === 0 ? null : pyRound(seconds / accepted, 1)
    },
    coverage_completeness_pct: rate(doneCoverage.length, queue.length),
    recovery_after_kill_pct: rate(recovered, killedSessions.length),
    killed_sessions: killedSessions.length,
    breakdowns: {
      durability_by_dimension: byDimension,
      // grouped like durability_by_dimension: a fix type with no records has no key (xcheck's shape)
      durability_by_fix_type: byFixType(records),
      recurrence_rate_pct: rate(records.filter((r) => r.recurrence_of !== undefined).length, records.length),
      reopen_cause: tally(
        transitions.filter((e) => e.to_status === "reopened").map((e) =>
          typeof e.reason === "string" ? e.reason : "unrecorded"
        )
      ),
      verification_independence: independence,
      human_intervention_rate: queue.length === 0 ? null : pyRound((gates.length + normRulings) / queue.length, 2),
      seconds_per_closed_finding: closed === 0 ? null : pyRound(seconds / closed, 1),
      residue_pass_share_pct: rate(
        doneCoverage.filter((p) => p.coverage!.findings.length > 0).length,
        doneCoverage.length
      ),
      false_closures_found_later: falseClosures,
      sessions_by_route: tally(sessions.map((s) => typeof s.route === "string" ? s.route : "unrouted"))
    }
  }
}
