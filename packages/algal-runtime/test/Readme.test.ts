import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { AlgalRuntime, Expr, Organism } from "../src/index.js"

describe("README quick start", () => {
  it.effect("builds, digests, runs and verifies the doubler", () =>
    Effect.gen(function*() {
      const doubler = Organism.make({ key: "organism:double", name: "Double", budgets: { maxAgentCalls: 0 } })
        .input("src", { n: "json" })
        .expr("calc", { inputs: { n: "json" }, program: Expr.mul(Expr.get("n"), 2), output: { kind: "json", schema: { type: "number" } } })
        .fn("sink", "echo.v1")
        .edge("src.n", "calc.n")
        .edge("calc.out", "sink.value", { guard: Organism.when(Expr.gt(Expr.get("value"), 100)) })
        .interface({ inputs: { n: "src.n" }, outputs: { doubled: "calc.out" } })
        .build()

      const program = Effect.gen(function*() {
        const runtime = yield* AlgalRuntime.AlgalRuntime
        const digest = yield* runtime.digest(doubler)
        const run = yield* runtime.run(doubler, { src: { n: 60 } })
        const verified = yield* runtime.verify(run.receipt, doubler)
        return { digest, outcome: run.outcome, doubled: run.outputs.doubled, fingerprint: run.digest, ok: verified.ok }
      })
      const result = yield* program.pipe(Effect.provide(AlgalRuntime.layer))
      assert.strictEqual(result.outcome, "complete")
      assert.strictEqual(result.doubled, 120)
      assert.isTrue(result.ok)
      assert.match(result.digest, /^sha256:[0-9a-f]{64}$/)
      assert.notStrictEqual(result.digest, result.fingerprint)
    }))
})
