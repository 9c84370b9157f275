import { assert, describe, it } from "@effect/vitest"
import { curvePointOf, curvesOf, format, renderCurves, renderRows, rowsOf } from "../bench-report.mjs"

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

describe("bench-report growth curves", () => {
  const curveReport = (rows: Array<[string, number | undefined]>) => ({
    files: [{
      filepath: "/repo/packages/pkg/bench/Growth.bench.ts",
      groups: [{
        fullName: "bench/Growth.bench.ts > g",
        benchmarks: rows.map(([name, median]) => bench(name, median === undefined ? {} : { median, sampleCount: 5 }))
      }]
    }]
  })

  it("reads `— n=N` row names as curve points (separators, units, an expected exponent)", () => {
    assert.deepStrictEqual(curvePointOf("decide — n=1,000 rules (expect n^0)"), {
      curve: "decide",
      n: 1000,
      unit: "rules",
      expect: 0
    })
    assert.deepStrictEqual(curvePointOf("run — n=10_000"), { curve: "run", n: 10000, unit: "", expect: 1 })
    assert.isUndefined(curvePointOf("decide settle with its write, 200 stored observations"))
    assert.isUndefined(curvePointOf("decide — n=0 rules"))
  })

  it("fits the log-log slope: linear, quadratic and flat curves over 100×", () => {
    const curves = curvesOf(rowsOf(curveReport([
      ["linear — n=10 cells", 0.01],
      ["linear — n=100 cells", 0.1],
      ["linear — n=1000 cells", 1],
      ["quadratic — n=10", 1],
      ["quadratic — n=100", 100],
      ["quadratic — n=1000", 10_000],
      ["flat — n=10 rules (expect n^0)", 2],
      ["flat — n=1000 rules (expect n^0)", 2.1],
      ["plain row", 5]
    ])))
    assert.deepStrictEqual(curves.map((c: { curve: string }) => c.curve), ["linear", "quadratic", "flat"])
    const [linear, quadratic, flat] = curves
    assert.closeTo(linear.exponent, 1, 1e-9)
    assert.isFalse(linear.calledOut)
    assert.strictEqual(linear.span, 100)
    assert.closeTo(quadratic.exponent, 2, 1e-9)
    assert.isTrue(quadratic.calledOut)
    assert.closeTo(flat.exponent, Math.log(2.1 / 2) / Math.log(100), 1e-9)
    assert.isFalse(flat.calledOut)
    const text = renderCurves(curves).join("\n")
    assert.include(text, "CALLED OUT: pkg/bench/Growth.bench.ts \"quadratic\" grows as n^2.00 where the work is linear")
    assert.notInclude(text, "CALLED OUT: pkg/bench/Growth.bench.ts \"linear\"")
  })

  it("a flat curve that grows is called out against its own expectation; gaps and short spans are noted", () => {
    const curves = curvesOf(rowsOf(curveReport([
      ["cap — n=200 (expect n^0)", 1],
      ["cap — n=20000 (expect n^0)", 10],
      ["short — n=10", 1],
      ["short — n=50", 5],
      ["broken — n=10", 1],
      ["broken — n=1000", undefined]
    ])))
    const [cap, short, broken] = curves
    assert.closeTo(cap.exponent, 0.5, 1e-9)
    assert.isTrue(cap.calledOut)
    assert.isFalse(short.calledOut)
    assert.isUndefined(broken.exponent)
    assert.strictEqual(broken.missing, 1)
    const text = renderCurves(curves).join("\n")
    assert.include(text, "span < 100×")
    assert.include(text, "no exponent (fewer than 2 sizes with figures)")
    assert.include(text, "1 size(s) without figures")
    assert.include(text, "where the work is n^0 (limit 0.2)")
  })
})
