import { bench, describe } from "vitest"
import * as Manifest from "../src/Manifest.js"
import * as Program from "../src/Program.js"
import * as Runtime from "../src/Runtime.js"

// Issue 17: a run as the organism grows from 8 to 1,009 scheduled cells (126×), with the growth
// exponent of the curve (the slope of log time over log cells; 1 is linear). A run activates at
// most 1,024 cells (maxSteps), so the large sizes embed a 62-cell child organism m times.

const exprCell = (id: string) => ({
  id,
  kind: "expr",
  inputs: { x: "json" },
  expr: { contract: "algal.expr.v1", program: ["add", ["get", "x"], 1] },
  output: { kind: "json", schema: { type: "number" } }
})

/** An organism of an input cell and `n` expr cells reading it. */
const flat = (key: string, n: number) => {
  const cells = Array.from({ length: n }, (_, i) => exprCell(`e${i}`))
  return {
    contract: "algal.organism.v1",
    key: `organism:${key}`,
    name: key,
    budgets: { maxSteps: 1024, maxWork: 100_000_000 },
    interface: { inputs: { x: { cell: "in", port: "x" } }, outputs: { y: { cell: "e0", port: "out" } } },
    cells: [{ id: "in", kind: "input", outputs: { x: "json" } }, ...cells],
    edges: cells.map((c) => ({ from: { cell: "in", port: "x" }, to: { cell: c.id, port: "x" } }))
  }
}

const parse = (json: unknown): Manifest.Manifest => {
  const parsed = Manifest.parseSync(json)
  if (!parsed.ok) throw new Error(parsed.error.message)
  return parsed.manifest
}

const child = parse(flat("child", 61))
const childDigest = Manifest.digest(child)

/** `m` organism cells embedding the 62-cell child, each fed by the parent's input. */
const nested = (m: number) => {
  const cells = Array.from({ length: m }, (_, i) => ({ id: `o${i}`, kind: "organism", manifest: childDigest }))
  return {
    contract: "algal.organism.v1",
    key: `organism:nested-${m}`,
    name: "nested",
    budgets: { maxSteps: 1024, maxWork: 100_000_000 },
    cells: [{ id: "in", kind: "input", outputs: { x: "json" } }, ...cells],
    edges: cells.map((c) => ({ from: { cell: "in", port: "x" }, to: { cell: c.id, port: "x" } }))
  }
}

const compile = (json: unknown): Program.Program => {
  const compiled = Program.compileSync(parse(json), { manifests: Program.resolverOf([child]) })
  if (!compiled.ok) throw new Error(compiled.error.message)
  return compiled.program
}

const args = { in: { x: 1 } }
const sizes = [
  { cells: 8, program: compile(flat("flat-7", 7)) },
  { cells: 62, program: compile(flat("flat-61", 61)) },
  { cells: 253, program: compile(nested(4)) },
  { cells: 1009, program: compile(nested(16)) }
]
for (const { cells, program } of sizes) {
  const run = Runtime.runUnchecked(program, args)
  if (run.outcome !== "complete" || run.receipt.work.steps !== cells) {
    throw new Error(`${cells}: ${run.outcome} after ${run.receipt.work.steps} steps`)
  }
}

/** Median µs of one run with its receipt, over batches (noisy on a loaded machine). */
const median = (program: Program.Program, runs: number): number => {
  const samples: Array<number> = []
  for (let b = 0; b < 31; b++) {
    const start = performance.now()
    for (let i = 0; i < runs; i++) Runtime.runUnchecked(program, args)
    samples.push(((performance.now() - start) * 1000) / runs)
  }
  samples.sort((a, b) => a - b)
  return samples[15]!
}

// The curve, measured once before the rows.
{
  const medians = sizes.map(({ cells, program }) => median(program, Math.max(1, Math.round(2000 / cells))))
  const xs = sizes.map((s) => Math.log(s.cells))
  const ys = medians.map(Math.log)
  const mx = xs.reduce((a, b) => a + b) / xs.length
  const my = ys.reduce((a, b) => a + b) / ys.length
  const slope = xs.reduce((a, x, i) => a + (x - mx) * (ys[i]! - my), 0) / xs.reduce((a, x) => a + (x - mx) ** 2, 0)
  const rows = sizes.map((s, i) => `${s.cells}: ${medians[i]!.toFixed(1)} µs`).join(", ")
  console.log(`[algal run, by cells] ${rows}; growth exponent ${slope.toFixed(2)}`)
  if (slope > 1.2) console.log("[algal run, by cells] growth exponent above 1.2 where the work is linear")
}

describe("a run with its receipt, by scheduled cells", () => {
  for (const { cells, program } of sizes) {
    bench(`runUnchecked — n=${cells} cells`, () => {
      Runtime.runUnchecked(program, args)
    })
  }
})
