#!/usr/bin/env node
// Prints the median of every benchmark from a `vitest bench --outputJson` file, in the units that
// suit it, so issue notes can quote medians (vitest's own table shows means and percentiles), then
// the growth exponent of every curve. A benchmark that produced no figures (it failed, or was
// skipped) is listed as such: the report never crashes on a partial run.
//
// Curves (docs/performance/README.md): rows of one bench file whose names end in ` — n=N` (N may
// use `,` or `_` separators, and may be followed by a unit, e.g. `— n=1,000 rules`) and agree on
// the text before it form one curve. Its exponent is the least-squares slope of log(median) over
// log(n): 0 is flat, 1 linear. The work is taken to be at most linear unless the name says
// otherwise with `(expect n^K)` at the end; an exponent more than 0.2 above that is called out, as
// is a curve that spans less than 100× of n.
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
        rows.push({ file: String(entry.filepath ?? ""), group: String(group.fullName ?? ""), name, median, samples })
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

const CURVE = /^(.*\S)\s+—\s+n=(\d[\d,_]*)(?:\s+(.*?))?(?:\s*\(expect n\^(\d+(?:\.\d+)?)\))?$/

/** The curve a row name belongs to: `{ curve, n, unit, expect }`, or `undefined` for a plain row. */
export const curvePointOf = (name) => {
  const match = CURVE.exec(name)
  if (match === null) return undefined
  const n = Number(match[2].replace(/[,_]/g, ""))
  if (!Number.isFinite(n) || n <= 0) return undefined
  return { curve: match[1], n, unit: match[3] ?? "", expect: match[4] === undefined ? 1 : Number(match[4]) }
}

/** The least-squares slope of log(y) over log(x). */
export const exponentOf = (points) => {
  const xs = points.map((p) => Math.log(p.n))
  const ys = points.map((p) => Math.log(p.median))
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length
  const my = ys.reduce((a, b) => a + b, 0) / ys.length
  const sxx = xs.reduce((a, x) => a + (x - mx) ** 2, 0)
  return sxx === 0 ? undefined : xs.reduce((a, x, i) => a + (x - mx) * (ys[i] - my), 0) / sxx
}

const shortFile = (file) => {
  const match = /packages\/([^/]+)\/(.*)$/.exec(file)
  return match === null ? file : `${match[1]}/${match[2]}`
}

/**
 * Every curve in the rows: `{ file, curve, unit, expect, points, span, exponent, missing, calledOut }`,
 * in first-seen order. `points` are the rows with figures, by n; `missing` counts rows without.
 */
export const curvesOf = (rows) => {
  const curves = new Map()
  for (const row of rows) {
    const point = curvePointOf(row.name)
    if (point === undefined) continue
    const key = `${row.file}\u0000${point.curve}`
    const curve = curves.get(key) ?? {
      file: shortFile(row.file),
      curve: point.curve,
      unit: point.unit,
      expect: point.expect,
      points: [],
      missing: 0
    }
    if (row.median === undefined || row.median <= 0) curve.missing += 1
    else curve.points.push({ n: point.n, median: row.median })
    curves.set(key, curve)
  }
  return [...curves.values()].map((curve) => {
    const points = [...curve.points].sort((a, b) => a.n - b.n)
    const sizes = new Set(points.map((p) => p.n)).size
    const span = points.length === 0 ? 0 : points[points.length - 1].n / points[0].n
    const exponent = sizes < 2 ? undefined : exponentOf(points)
    const calledOut = exponent !== undefined && exponent > curve.expect + 0.2
    return { ...curve, points, span, exponent, calledOut }
  })
}

/** The growth table as text lines, then one call-out line per curve that grows faster than its work. */
export const renderCurves = (curves) => {
  if (curves.length === 0) return []
  const cells = curves.map((c) => [
    c.file,
    c.curve,
    c.points.length === 0
      ? "—"
      : `${c.points[0].n}…${c.points[c.points.length - 1].n}${c.unit === "" ? "" : ` ${c.unit}`}`,
    c.points.length === 0 ? "—" : `${c.span.toFixed(0)}×`,
    c.exponent === undefined ? "no exponent (fewer than 2 sizes with figures)" : c.exponent.toFixed(2),
    [
      c.expect === 1 ? "" : `expect n^${c.expect}`,
      c.calledOut ? `SUPER-LINEAR (> ${(c.expect + 0.2).toFixed(1)})` : "",
      c.points.length > 0 && c.span < 100 ? "span < 100×" : "",
      c.missing > 0 ? `${c.missing} size(s) without figures` : ""
    ].filter(Boolean).join("; ")
  ])
  const header = ["file", "curve", "sizes", "span", "exponent", "notes"]
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)))
  const line = (c) => c.map((x, i) => x.padEnd(widths[i])).join("  ").trimEnd()
  const out = curves.filter((c) => c.calledOut).map((c) =>
    `CALLED OUT: ${c.file} "${c.curve}" grows as n^${c.exponent.toFixed(2)} ` +
    `where the work is ${c.expect === 1 ? "linear" : `n^${c.expect}`} (limit ${(c.expect + 0.2).toFixed(1)})`
  )
  return ["", "growth curves (exponent: slope of log median over log n; 0 flat, 1 linear)", line(header),
    ...cells.map(line), ...(out.length === 0 ? [] : ["", ...out])]
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2] ?? "bench-results.json"
  const report = JSON.parse(readFileSync(file, "utf8"))
  const rows = rowsOf(report)
  console.log([...renderRows(rows), ...renderCurves(curvesOf(rows))].join("\n"))
}
