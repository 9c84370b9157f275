import { assert, describe, it } from "@effect/vitest"
import { format, renderRows, rowsOf } from "../bench-report.mjs"

const bench = (name: string, figures: { median?: number; samples?: Array<number>; sampleCount?: number }) => ({
  id: name,
  name,
  rank: 1,
  rme: 0,
  samples: figures.samples ?? [],
  ...(figures.median === undefined ? {} : { median: figures.median }),
  ...(figures.sampleCount === undefined ? {} : { sampleCount: figures.sampleCount })
})

const report = (benchmarks: Array<unknown>) => ({
  files: [{ filepath: "/x/bench/A.bench.ts", groups: [{ fullName: "bench/A.bench.ts > a", benchmarks }] }]
})

describe("bench-report", () => {
  it("a benchmark without figures is reported as such, never a crash", () => {
    const rows = rowsOf(report([
      bench("measured", { median: 2.5, sampleCount: 10 }),
      bench("failed — 100", {}),
      { name: "garbage", median: "x" },
      bench("no samples but a median", { median: 1, sampleCount: 0 })
    ]))
    assert.deepStrictEqual(rows.map((r: { name: string; median: number | undefined }) => [r.name, r.median]), [
      ["measured", 2.5],
      ["failed — 100", undefined],
      ["garbage", undefined],
      ["no samples but a median", undefined]
    ])
    const text = renderRows(rows).join("\n")
    assert.include(text, "2.50 ms")
    assert.include(text, "no figures (failed or skipped)")
    assert.include(text, "3 benchmark(s) produced no figures")
  })

  it("formats medians in the unit that suits them and divides batched rows per call", () => {
    assert.deepStrictEqual([format(0.0000005), format(0.5), format(12), format(undefined), format(NaN)], [
      "1 ns",
      "500.00 µs",
      "12.00 ms",
      "—",
      "—"
    ])
    const [row] = rowsOf(report([bench("op ×100", { median: 5, sampleCount: 3 })]))
    assert.strictEqual(row.name, "op (per call, batches of 100)")
    assert.strictEqual(row.median, 0.05)
  })

  it("an empty or malformed report yields no rows", () => {
    assert.deepStrictEqual(rowsOf({}), [])
    assert.deepStrictEqual(rowsOf({ files: [{ groups: [{}] }] }), [])
  })
})
