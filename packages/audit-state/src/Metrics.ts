/**
 * `metrics --json` and `status --json` (spec §6): closed, versioned output payloads computed
 * from the state and the event stream, each defined by a Schema (`MetricsReportSchema`,
 * `StatusReportSchema`) from which its type and xcheck's closed type table derive. Rates are
 * `null`, never 0, on an empty denominator.
 *
 * @since 0.1.0
 */
import * as AuditError from "./AuditError.js"
import * as Decision from "./Decision.js"
import type * as Events from "./Events.js"
import * as Compute from "./internal/metrics/compute.js"
import * as Schemas from "./internal/metrics/outputSchema.js"
import * as Report from "./internal/metrics/report.js"
import * as State from "./State.js"
import { DEGRADED_INDEPENDENCE, OUTPUT_SCHEMA_VERSION, SCHEMA_VERSION, XCHECK_VERSION } from "./Vocabulary.js"

/**
 * Python's `round(x, n)` (half to even on ties).
 *
 * @since 0.1.0
 * @category utils
 */
export const pyRound: (x: number, digits?: number) => number = Compute.pyRound

/**
 * The fixed Ouroboros-2 fix-durability baseline.
 *
 * @since 0.1.0
 * @category metrics
 */
export const FIX_DURABILITY_BASELINE_PCT: number = Compute.FIX_DURABILITY_BASELINE_PCT

/**
 * The `metrics --json` payload (output schema 10), in xcheck's shape ({@link MetricsReportSchema}).
 *
 * @since 0.1.0
 * @category metrics
 */
export const metrics: (
  doc: State.StateDoc,
  events: ReadonlyArray<Events.AuditEvent>,
  project: string
) => MetricsReport = Compute.metrics

/**
 * The `metrics --json` payload's Schema: its one definition — {@link MetricsReport} is its type
 * and {@link METRICS_SCHEMA} xcheck's closed type table derived from it.
 *
 * @since 0.3.0
 * @category schemas
 */
export const MetricsReportSchema = Report.MetricsReport

/**
 * The `status --json` payload's Schema ({@link StatusReport} is its type, {@link STATUS_SCHEMA}
 * the table derived from it).
 *
 * @since 0.3.0
 * @category schemas
 */
export const StatusReportSchema = Report.StatusReport

/**
 * The `metrics --json` payload type.
 *
 * @since 0.1.0
 * @category metrics
 */
export type MetricsReport = typeof Report.MetricsReport.Type

const tally = (values: Iterable<string>): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const v of values) out[v] = (out[v] ?? 0) + 1
  return out
}

/**
 * The `status --json` payload (output schema 10). This package holds no lock directory and no
 * quarantine, so `lock` is `null` and `quarantine` is empty.
 *
 * @since 0.1.0
 * @category status
 */
export const status = (
  doc: State.StateDoc,
  decision: Decision.Decision,
  project: string,
  today: string
): StatusReport => {
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
export type StatusReport = typeof Report.StatusReport.Type

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
