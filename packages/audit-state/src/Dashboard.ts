/**
 * The dashboard: one self-contained HTML page over the `status` and `metrics` payloads. It
 * computes nothing itself, loads nothing, and carries no script.
 *
 * @since 0.1.0
 */
import type * as Metrics from "./Metrics.js"

const esc = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

const show = (v: unknown): string =>
  v === null || v === undefined ? "n/a" : typeof v === "object" ? JSON.stringify(v) : String(v)

const table = (rows: ReadonlyArray<readonly [string, unknown]>): string =>
  `<table>${rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(show(v))}</td></tr>`).join("")}</table>`

/**
 * The eight metrics as labelled rows (M1–M8, with M2's baseline and M6b), in the order every
 * dashboard shows them.
 *
 * @since 0.1.0
 * @category rendering
 */
export const metricRows = (metrics: Metrics.MetricsReport): ReadonlyArray<readonly [string, unknown]> => [
  ["M1 auditor accuracy %", metrics.auditor_accuracy_pct],
  ["M2 fix durability %", metrics.fix_durability_pct],
  ["M2 baseline %", metrics.fix_durability_baseline_pct],
  ["M3 reopen rate %", metrics.reopen_rate_pct],
  ["M4 human interventions", metrics.human_interventions.total],
  ["M5 false-closure rate %", metrics.false_closure_rate_pct],
  ["M6 seconds per accepted finding", metrics.cost_per_accepted_finding.seconds_per_accepted_finding],
  ["M6b tokens per canonical transition", metrics.tokens.per_canonical_transition],
  ["M7 coverage completeness %", metrics.coverage_completeness_pct],
  ["M8 recovery after kill %", metrics.recovery_after_kill_pct]
]

/**
 * Render the page.
 *
 * @since 0.1.0
 * @category rendering
 */
export const render = (status: Metrics.StatusReport, metrics: Metrics.MetricsReport): string => {
  const rates = metricRows(metrics)
  return [
    "<!doctype html>",
    "<html lang=\"en\"><head><meta charset=\"utf-8\">",
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
    `<title>audit — ${esc(status.project)}</title>`,
    "<style>body{font:14px system-ui,sans-serif;margin:2em;max-width:60em}table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left}th{background:#f4f4f4}</style>",
    "</head><body>",
    `<h1>Audit dashboard — ${esc(status.project)}</h1>`,
    `<p>schema ${status.schema_version}, revision ${status.state_revision}, output schema ${status.output_schema_version}</p>`,
    "<h2>Decision</h2>",
    table([["kind", status.decision.kind], ["detail", status.decision.detail]]),
    "<h2>Passes and findings</h2>",
    table([
      ["passes done", status.passes.done],
      ["passes queued", status.passes.queued.join(", ") || "none"],
      ["findings", status.findings.total],
      ...Object.entries(status.findings.by_status).map(([k, v]) => [`  ${k}`, v] as const),
      [
        "full sweep",
        status.full_sweep.last === null
          ? status.full_sweep.note
          : `${status.full_sweep.pass} on ${status.full_sweep.last}`
      ]
    ]),
    "<h2>Metrics</h2>",
    table(rates),
    "<h2>Independence</h2>",
    table(Object.entries(metrics.independence.by_level)),
    "</body></html>",
    ""
  ].join("\n")
}
