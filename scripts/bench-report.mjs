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
      rows.push([group.fullName ?? "", b.name, format(b.median), String(b.sampleCount ?? b.samples?.length ?? "")])
    }
  }
}
const header = ["group", "benchmark", "median", "samples"]
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
const line = (r) => r.map((c, i) => c.padEnd(widths[i])).join("  ")
console.log("\n" + line(header))
for (const r of rows) console.log(line(r))
