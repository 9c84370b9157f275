import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { AlgalRuntime, Executor, Expr, Manifest, Organism, Program, Runtime } from "../src/index.js"

describe("README quick start", () => {
  it.effect("builds, digests, runs and verifies the doubler", () =>
    Effect.gen(function*() {
      const doubler = Organism.make({ key: "organism:double", name: "Double", budgets: { maxAgentCalls: 0 } })
        .input("src", { n: "json" })
        .expr("calc", {
          inputs: { n: "json" },
          program: Expr.mul(Expr.get("n"), 2),
          output: { kind: "json", schema: { type: "number" } }
        })
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

  it.effect("agent programs: suspend, resume, verify, replay", () =>
    Effect.gen(function*() {
      const chain = {
        contract: "algal.organism.v1",
        key: "organism:chain",
        name: "Chain",
        cells: [
          { id: "in", kind: "input", outputs: { t: "text" } },
          { id: "a", kind: "agent", inputs: { t: "text" }, prompt: "Draft.", output: { kind: "text" } },
          { id: "b", kind: "agent", inputs: { t: "text" }, prompt: "Polish.", output: { kind: "text" } }
        ],
        edges: [
          { from: { cell: "in", port: "t" }, to: { cell: "a", port: "t" } },
          { from: { cell: "a", port: "out" }, to: { cell: "b", port: "t" } }
        ]
      }
      const program = Effect.gen(function*() {
        const runtime = yield* AlgalRuntime.AlgalRuntime
        const first = yield* runtime.run(chain, { in: { t: "notes" } }, {
          executors: [
            Executor.scripted({ a: "draft", b: { $error: { code: "EFFECT_SUSPENDED", message: "ask a human" } } })
          ]
        })
        const done = yield* runtime.resume(first.receipt, chain, { executors: [Executor.scripted({ b: "polished" })] })
        const verified = yield* runtime.verify(done.receipt, chain)
        const replay = yield* runtime.replay(done.receipt, chain)
        return [first.outcome, done.outcome, done.receipt.cells.b?.outputs, verified.ok, replay.verdict]
      })
      const result = yield* program.pipe(Effect.provide(AlgalRuntime.layer))
      assert.deepStrictEqual(result, ["suspended", "complete", { out: "polished" }, true, "identical"])
    }))
})

describe("README decisions without a receipt", () => {
  it("evaluates the score organism", () => {
    const score = Organism.make({ key: "organism:score", name: "Score", budgets: { maxAgentCalls: 0 } })
      .input("src", { x: "json" })
      .expr("calc", {
        inputs: { x: "json" },
        program: Expr.add(Expr.get("x"), 1),
        output: { kind: "json", schema: { type: "number" } }
      })
      .edge("src.x", "calc.x")
      .interface({ inputs: { x: "src.x" }, outputs: { y: "calc.out" } })
      .build()
    const parsed = Manifest.parseSync(score)
    const compiled = parsed.ok ? Program.compileSync(parsed.manifest) : undefined
    assert.isTrue(compiled?.ok)
    if (!compiled?.ok) return
    const decided = Runtime.evaluateSync(compiled.program, { src: { x: 41 } })
    assert.deepStrictEqual(decided, {
      ok: true,
      evaluation: { outcome: "complete", outputs: { y: 42 }, work: { steps: 2, agentCalls: 0, units: 207 } }
    })
  })
})
