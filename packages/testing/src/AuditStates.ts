/**
 * Synthetic audit states for benchmarks: one pass, one unit and `n` reported findings, in the
 * shape xcheck writes, so every bench that needs "an audit of n findings" imports the same one.
 *
 * @since 0.1.0
 */

/**
 * A `state.json` text with `n` (≤ 10,000) reported findings `F-0000` ….
 *
 * @since 0.1.0
 */
export const withFindings = (n: number): string =>
  JSON.stringify({
    schema_version: 1,
    state_revision: 1,
    generated_by: "bench",
    catalogs: {
      norms: [{ id: "N1", source: "README.md", scope: "all" }],
      dimensions: [{ key: "invariants", catches: "broken invariants", norms: ["N1"] }],
      units: [{ id: "U01", material: "src/", size: "1k", responsibility: "core" }]
    },
    limits: {},
    queue: [{ id: "P-01", dimension: "invariants", units: ["U01"], charter: "c", stop: "s", done: false }],
    findings: Array.from({ length: n }, (_, k) => ({
      attempts: 0,
      body_path: `findings/F-${String(k).padStart(4, "0")}.md`,
      dimension: "invariants",
      id: `F-${String(k).padStart(4, "0")}`,
      pass: "P-01",
      severity: k % 10 === 0 ? "minor" : "major",
      status: "reported",
      title: `finding number ${k}`,
      unit: ["U01"],
      updated: "2026-08-14"
    }))
  })
