/**
 * `steward audit dashboard`: one self-contained page (inline CSS, no script, nothing fetched) a
 * person decides from — the next step exactly as `steward audit next` words it, the independence
 * warning `steward audit metrics` prints, every finding with its title, severity and status,
 * the passes, and the eight metrics.
 * @internal
 */
import * as Dashboard from "@steward/audit-state/Dashboard"
import type * as Metrics from "@steward/audit-state/Metrics"
import type * as State from "@steward/audit-state/State"
import * as Vocabulary from "@steward/audit-state/Vocabulary"
import type { NextStep } from "./nextSteps.js"

const esc = (value: unknown): string =>
  String(value).replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!
  )
const show = (v: unknown): string =>
  v === null || v === undefined ? "n/a" : typeof v === "object" ? JSON.stringify(v) : String(v)
const rows = (cls: string, header: ReadonlyArray<string>, body: ReadonlyArray<ReadonlyArray<string>>) =>
  `<table class="${cls}"><thead><tr>${header.map((h) => `<th>${esc(h)}</th>`).join("")}</tr></thead><tbody>${
    body.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join("")}</tr>`).join("")
  }</tbody></table>`
const pairs = (cls: string, body: ReadonlyArray<readonly [string, unknown]>) =>
  `<table class="${cls}">${
    body.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(show(v))}</td></tr>`).join("")
  }</table>`

const nextSection = (step: NextStep) =>
  `<section class="next"><h2>Next step</h2><p class="decision"><code>${
    esc(step.decision)
  }</code></p><p class="message">${esc(step.message)}</p>${
    step.session === null
      ? ""
      : `<p>${esc(step.session.role)} session, charter <q>${esc(step.session.charter)}</q></p><pre>${
        step.commands.map(esc).join("\n")
      }</pre>`
  }</section>`

/** The same judgement `steward audit metrics` prints: degraded levels flagged, the ceiling always said. */
const independenceSection = (m: Metrics.MetricsReport) => {
  const levels = Object.entries(m.independence.by_level)
  const degraded = levels.filter(([k]) => Vocabulary.DEGRADED_INDEPENDENCE.has(k))
  const line = levels.map(([k, v]) => `${k} ${v}${Vocabulary.DEGRADED_INDEPENDENCE.has(k) ? " ⚠ degraded" : ""}`)
    .join(", ") || "no verdicts"
  const warning = degraded.length === 0
    ? ""
    : `<p class="warning independence" role="alert">⚠ ${
      degraded.reduce((n, [, v]) => n + v, 0)
    } verdict(s) at a degraded independence level (${
      esc(degraded.map(([k]) => k).join(", "))
    }): the verifier was no more independent of the fixer than another session of the same provider, or nobody recorded how independent it was. Weigh those closures accordingly.</p>`
  return `<section class="independence"><h2>Independence of verification</h2>${warning}<p class="cli-line"><code>independence: ${
    esc(line)
  }</code></p><p class="ceiling">${esc(m.independence.ceiling)}.</p></section>`
}

const findingsSection = (findings: ReadonlyArray<State.Finding>) => {
  const byStatus = new Map<string, number>()
  for (const f of findings) byStatus.set(f.status, (byStatus.get(f.status) ?? 0) + 1)
  const counts = [...byStatus].map(([k, v]) => `${esc(k)} ${v}`).join(" · ")
  return `<section class="findings"><h2>Findings (${findings.length})</h2>${
    findings.length === 0
      ? "<p>No findings yet.</p>"
      : `<p>${counts}</p>${
        rows(
          "findings",
          ["id", "title", "severity", "status", "pass", "next", "updated", "independence"],
          findings.map((f) => [
            `<code>${esc(f.id)}</code>`,
            esc(f.title),
            `<span class="severity ${esc(f.severity)}">${esc(f.severity)}</span>`,
            `<span class="status ${esc(f.status)}">${esc(f.status)}</span>`,
            esc(f.pass),
            esc(f.next ?? "—"),
            esc(f.updated),
            esc(f.independence ?? "—")
          ])
        )
      }`
  }</section>`
}

/** The page. @internal */
export const render = (
  status: Metrics.StatusReport,
  metrics: Metrics.MetricsReport,
  findings: ReadonlyArray<State.Finding>,
  step: NextStep
): string => {
  const rates = Dashboard.metricRows(metrics)
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>audit — ${esc(status.project)}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}
table{border-collapse:collapse;margin:8px 0} th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top} th{background:#f4f4f4}
section{border-top:1px solid #ddd;margin-top:16px} pre{background:#f8f9fa;padding:8px;white-space:pre-wrap}
.next{background:#e7f5ff;border:2px solid #1c7ed6;padding:4px 14px} .message{font-size:16px;font-weight:600}
.warning{background:#fff3bf;border:2px solid #f08c00;padding:8px 12px;font-weight:600}
.severity.critical{color:#c92a2a;font-weight:700} .severity.major{color:#d9480f}
.status{padding:0 6px;border-radius:3px;background:#f1f3f5} .status.closed{background:#d3f9d8} .status.reopened{background:#ffe3e3}
</style></head><body>
<h1>Audit dashboard — ${esc(status.project)}</h1>
<p>schema ${esc(status.schema_version)}, revision ${esc(status.state_revision)}, output schema ${
    esc(status.output_schema_version)
  }</p>
${nextSection(step)}
${independenceSection(metrics)}
${findingsSection(findings)}
<section><h2>Passes</h2>${
    pairs("passes", [
      ["passes done", status.passes.done],
      ["passes queued", status.passes.queued.join(", ") || "none"],
      [
        "full sweep",
        status.full_sweep.last === null
          ? status.full_sweep.note
          : `${status.full_sweep.pass} on ${status.full_sweep.last}`
      ]
    ])
  }</section>
<section><h2>Metrics</h2>${pairs("metrics", rates)}</section>
</body></html>
`
}
