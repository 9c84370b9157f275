#!/usr/bin/env node
// Prints the median of every benchmark from a `vitest bench --outputJson` file, in the units that
// suit it, so issue notes can quote medians (vitest's own table shows means and percentiles).
// A benchmark that produced no figures (it failed, or was skipped) is listed as such: the report
// never crashes on a partial run.
import { readFileSync } from "node:fs"

/** A duration in milliseconds in the unit that suits it; a value that is not a finite number is "—". */
export const format = (ms) =>
  typeof ms !== "number" || !Number.isFinite(ms)
    ? "—"
    : ms < 0.001
    ? `${(ms * 1e6).toFixed(0)} ns`
    : ms < 1
    ? `${(ms * 1e3).toFixed(2)} µs`
    : `${ms.toFixed(2)} ms`

const sampleCountOf = (b) =>
  typeof b.sampleCount === "number" ? b.sampleCount : Array.isArray(b.samples) ? b.samples.length : 0

/**
 * One row per benchmark: `{ group, name, median, samples }`, `median` in milliseconds per call or
 * `undefined` when the benchmark has no figures. A bench named "… ×N" times N calls per sample: its
 * median is reported per call.
 */
export const rowsOf = (report) => {
  const rows = []
  for (const entry of report?.files ?? []) {
    for (const group of entry?.groups ?? []) {
      for (const b of group?.benchmarks ?? []) {
        const raw = String(b?.name ?? "")
        const batch = /\s×(\d+)$/.exec(raw)
        const name = batch === null ? raw : `${raw.slice(0, batch.index)} (per call, batches of ${batch[1]})`
        const samples = sampleCountOf(b ?? {})
        const figure = typeof b?.median === "number" && Number.isFinite(b.median) && samples > 0
          ? b.median
          : undefined
        const median = figure === undefined || batch === null ? figure : figure / Number(batch[1])
        rows.push({ group: String(group.fullName ?? ""), name, median, samples })
      }
    }
  }
  return rows
}

/** The median table as text lines; a row without figures reads "no figures (failed or skipped)". */
export const renderRows = (rows) => {
  const cells = rows.map((r) => [
    r.group,
    r.name,
    r.median === undefined ? "no figures (failed or skipped)" : format(r.median),
    String(r.samples)
  ])
  const header = ["group", "benchmark", "median", "samples"]
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)))
  const line = (c) => c.map((x, i) => x.padEnd(widths[i])).join("  ").trimEnd()
  const missing = rows.filter((r) => r.median === undefined).length
  return [
    "",
    line(header),
    ...cells.map(line),
    ...(missing === 0 ? [] : ["", `${missing} benchmark(s) produced no figures (failed or skipped).`])
  ]
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2] ?? "bench-results.json"
  const report = JSON.parse(readFileSync(file, "utf8"))
  console.log(renderRows(rowsOf(report)).join("\n"))
}
