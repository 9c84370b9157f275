import * as fs from "node:fs"
import * as path from "node:path"
import { bench, describe } from "vitest"
import { Expr } from "../src/index.js"

// Each evaluation is the whole pipeline the runtime pays per activation: env admission and bounds,
// the static check, compilation, the metered walk and the output bounds.
const fixtures = path.join(import.meta.dirname, "../test/fixtures")
const load = (file: string): any => JSON.parse(fs.readFileSync(path.join(fixtures, file), "utf8"))
const cell = (manifest: any, id: string): any => manifest.cells.find((c: any) => c.id === id).expr.program

const guard = load("algal/examples/expr-guard.algal.json").edges[1].guard.expr.program
const settle = load("xcb/settle.algal.json")
const head = cell(settle, "head")
const decide = cell(settle, "decide")

const params = {
  unfinished: {
    terms: Array.from({ length: 12 }, (_, i) => ({ f: `u${i}`, w: (i % 5) / 10 - 0.2 })),
    bias: -0.4,
    cut: 0.35
  },
  confirm: {
    terms: Array.from({ length: 8 }, (_, i) => ({ f: `c${i}`, w: (i % 3) / 5 })),
    bias: -1.1,
    cut: 0.6
  }
}
const features = Object.fromEntries([
  ...Array.from({ length: 12 }, (_, i) => [`u${i}`, (i * 7) % 10 / 10] as const),
  ...Array.from({ length: 8 }, (_, i) => [`c${i}`, i % 2] as const)
])
const evidence = { state: "idle", limit: 0, blocked: 0, done_claim: 0 }
const headResult = Expr.evaluate(head, { features, params, evidence })
if (!headResult.ok) throw new Error(JSON.stringify(headResult))
const scored = headResult.value

const compiledGuard = Expr.compile(guard, ["value"])
const compiledHead = Expr.compile(head, ["evidence", "features", "params"])

// A hand-written JavaScript guard: the floor the evaluator is compared against.
const nativeGuard = (env: { readonly value: unknown }) => typeof env.value === "number" && env.value > 100

describe("Expr", () => {
  bench("guard [gt, [get, value], 100] (expr-guard edge)", () => {
    const result = Expr.evaluate(guard, { value: 120 }, 10_000)
    if (!result.ok) throw new Error("guard failed")
  })

  bench("guard via Expr.run (compiled once)", () => {
    const result = Expr.run(compiledGuard, { value: 120 }, 10_000)
    if (!result.ok) throw new Error("guard failed")
  })

  bench("baseline: the same guard as a JavaScript function", () => {
    if (!nativeGuard({ value: 120 })) throw new Error("guard failed")
  })

  bench("settle head: two folds over 20 learned terms", () => {
    const result = Expr.evaluate(head, { features, params, evidence }, 100_000)
    if (!result.ok) throw new Error("head failed")
  })

  bench("settle head via Expr.run (compiled once)", () => {
    const result = Expr.run(compiledHead, { features, params, evidence }, 100_000)
    if (!result.ok) throw new Error("head failed")
  })

  bench("settle decide: the gate cascade and score rounding", () => {
    const result = Expr.evaluate(decide, { scored, evidence }, 100_000)
    if (!result.ok) throw new Error("decide failed")
  })

  bench("evaluateJson of the guard (boundary document text)", () => {
    Expr.evaluateJson(guard, { value: 120 }, 10_000)
  })
})
