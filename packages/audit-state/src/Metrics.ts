/**
 * `metrics --json` and `status --json` (spec §6): closed, versioned output payloads computed
 * from the state and the event stream. Rates are `null`, never 0, on an empty denominator.
 *
 * @since 0.1.0
 */
import * as AuditError from "./AuditError.js"
import * as Decision from "./Decision.js"
import type * as Events from "./Events.js"
import { numeric } from "./internal/json.js"
import * as Schemas from "./internal/metrics/outputSchema.js"
import * as State from "./State.js"
import {
  DEGRADED_INDEPENDENCE,
  INDEPENDENCE_LEVELS,
  KILLED_OUTCOMES,
  OUTPUT_SCHEMA_VERSION,
  SCHEMA_VERSION,
  VERBS,
  XCHECK_VERSION
} from "./Vocabulary.js"

/**
 * Python's `round(x, n)` (half to even on ties).
 *
 * @since 0.1.0
 * @category utils
 */
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

/**
 * The fixed Ouroboros-2 fix-durability baseline.
 *
 * @since 0.1.0
 * @category metrics
 */
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

/**
 * The `metrics --json` payload (output schema 10).
 *
 * @since 0.1.0
 * @category metrics
 */
export const metrics = (doc: State.StateDoc, events: ReadonlyArray<Events.AuditEvent>, project: string) => {
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

/**
 * The `metrics --json` payload type.
 *
 * @since 0.1.0
 * @category metrics
 */
export type MetricsReport = ReturnType<typeof metrics>

/**
 * The `status --json` payload (output schema 10). This package holds no lock directory and no
 * quarantine, so `lock` is `null` and `quarantine` is empty.
 *
 * @since 0.1.0
 * @category status
 */
export const status = (doc: State.StateDoc, decision: Decision.Decision, project: string, today: string) => {
  const records = State.records(doc)
  const queue = doc.queue ?? []
  const sweeps = queue.filter((p) => p.done && p.base === undefined && p.coverage !== undefined)
    .sort((
      a,
      b
    ) => (a.coverage!.updated < b.coverage!.updated ? 1 : a.coverage!.updated > b.coverage!.updated ? -1 : 0))
  const last = sweeps[0]
  const days = last === undefined
    ? null
    : Math.round((Date.parse(`${today}T00:00:00Z`) - Date.parse(`${last.coverage!.updated}T00:00:00Z`)) / 86_400_000)
  return {
    output_schema_version: OUTPUT_SCHEMA_VERSION,
    xcheck_version: XCHECK_VERSION,
    project,
    schema_version: SCHEMA_VERSION,
    state_revision: doc.state_revision,
    head_before: doc.head_before ?? null,
    passes: { done: queue.filter((p) => p.done).length, queued: queue.filter((p) => !p.done).map((p) => p.id) },
    findings: { total: records.length, by_status: tally(records.map((r) => r.status)) },
    lock: null,
    decision: { kind: decision.kind, detail: Decision.statusDetail(decision.detail) },
    quarantine: { pending: 0, bundles: [] as Array<unknown> },
    full_sweep: {
      last: last?.coverage!.updated ?? null,
      pass: last?.id ?? null,
      days,
      note: last === undefined ? "no full-sweep pass is done yet" : "newest done pass without a diff base"
    }
  }
}

/**
 * The `status --json` payload type.
 *
 * @since 0.1.0
 * @category status
 */
export type StatusReport = ReturnType<typeof status>

/**
 * A closed output schema tree: leaves are type unions (`int`, `num|null`, `dict`, …).
 *
 * @since 0.1.0
 * @category schemas
 */
export interface OutputSchema {
  readonly [key: string]: string | OutputSchema
}

/**
 * `status --json` schema v10.
 *
 * @since 0.1.0
 * @category schemas
 */
export const STATUS_SCHEMA: OutputSchema = Schemas.STATUS_SCHEMA

/**
 * `metrics --json` schema v10.
 *
 * @since 0.1.0
 * @category schemas
 */
export const METRICS_SCHEMA: OutputSchema = Schemas.METRICS_SCHEMA

/**
 * Check a payload against a closed schema in both directions: unknown key, missing key, wrong
 * type. Returns every issue (empty = valid).
 *
 * @since 0.1.0
 * @category schemas
 */
export const outputIssues: (value: unknown, schema: OutputSchema, where?: string) => ReadonlyArray<string> =
  Schemas.outputIssues

/**
 * Validate a payload before printing: an `output-schema` error lists every violation.
 *
 * @since 0.1.0
 * @category schemas
 */
export const checkOutput = <A>(value: A, schema: OutputSchema, name: string): AuditError.AuditError | A => {
  const issues = outputIssues(value, schema)
  return issues.length === 0
    ? value
    : AuditError.make(
      "output-schema",
      `${name} payload violates output schema ${OUTPUT_SCHEMA_VERSION}: ${issues.join("; ")}`,
      { issues }
    )
}

/**
 * The human `metrics` lines (numbered as xcheck's printer; `n/a (reason)` for null).
 *
 * @since 0.1.0
 * @category printing
 */
export const renderMetrics = (m: MetricsReport): string => {
  const pct = (v: number | null, why: string) => v === null ? `n/a (${why})` : `${v}%`
  const n = (x: number) => x.toLocaleString("en-US")
  const lines = [
    `1 auditor accuracy (survived validation): ${
      pct(m.auditor_accuracy_pct, "nothing reached validation")
    }  (target >80)`,
    `2 fix durability (closed on the first attempt): ${
      pct(m.fix_durability_pct, "no verdicts yet")
    }  (baseline ${m.fix_durability_baseline_pct}%)`,
    `3 reopen rate: ${pct(m.reopen_rate_pct, "nothing planned yet")}`,
    `4 human interventions: ${m.human_interventions.total} (${m.human_interventions.gates} gate(s), ${m.human_interventions.norm_rulings} norm ruling(s), ${m.human_interventions.human_retakes} retake(s))`,
    `5 false-closure rate: ${
      pct(m.false_closure_rate_pct, "no closure recorded")
    }  (${m.false_closures} of ${m.closures_recorded})`,
    `6 cost per accepted finding: ${
      m.cost_per_accepted_finding.seconds_per_accepted_finding === null
        ? "n/a (no accepted finding)"
        : `${m.cost_per_accepted_finding.seconds_per_accepted_finding} session-seconds`
    }`,
    m.tokens.per_canonical_transition === null
      ? "6b tokens per canonical transition: n/a (no measured session moved state)"
      : `6b tokens per canonical transition: ${n(m.tokens.per_canonical_transition)}\n   = ${
        n(m.tokens.total ?? 0)
      } tokens / ${m.tokens.canonical_transitions_measured} canonical transition(s), both from the same ${m.tokens.sessions_measured} measured session(s)`,
    `7 coverage completeness: ${pct(m.coverage_completeness_pct, "no pass queued")}`,
    `8 recovery after a killed session: ${pct(m.recovery_after_kill_pct, "no session was killed")}`,
    `independence: ${
      Object.entries(m.independence.by_level).map(([k, v]) =>
        `${k} ${v}${DEGRADED_INDEPENDENCE.has(k) ? " ⚠ degraded" : ""}`
      ).join(", ") ||
      "no verdicts"
    }`
  ]
  return lines.join("\n")
}
