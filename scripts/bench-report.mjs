#!/usr/bin/env node
// Prints the median of every benchmark from a `vitest bench --outputJson` file, in the units that
// suit it, so issue notes can quote medians (vitest's own table shows means and percentiles).
import { readFileSync } from "node:fs"

const file = process.argv[2] ?? "bench-results.json"
const report = JSON.parse(readFileSync(file, "utf8"))

const format = (ms) =>
  ms < 0.001 ? `${(ms * 1e6).toFixed(0)} ns` : ms < 1 ? `${(ms * 1e3).toFixed(2)} µs` : `${ms.toFixed(2)} ms`

const rows = []
for (const entry of report.files ?? []) {
  for (const group of entry.groups ?? []) {
    for (const b of group.benchmarks ?? []) {
      // a bench named "… ×N" times N calls per sample: its median is reported per call
      const batch = /\s×(\d+)$/.exec(b.name)
      const name = batch === null ? b.name : `${b.name.slice(0, batch.index)} (per call, batches of ${batch[1]})`
      const median = batch === null ? b.median : b.median / Number(batch[1])
      rows.push([group.fullName ?? "", name, format(median), String(b.sampleCount ?? b.samples?.length ?? "")])
    }
  }
}
const header = ["group", "benchmark", "median", "samples"]
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
const line = (r) => r.map((c, i) => c.padEnd(widths[i])).join("  ")
console.log("\n" + line(header))
for (const r of rows) console.log(line(r))
