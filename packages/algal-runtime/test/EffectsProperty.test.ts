import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import * as Admission from "../src/Admission.js"
import * as AlgalRuntime from "../src/AlgalRuntime.js"
import * as Controller from "../src/Controller.js"
import * as Executor from "../src/Executor.js"
import * as Program from "../src/Program.js"
import { example, parseOk, xcb } from "./helpers.js"

const panel = example("panel")
const reviewers = ["rev-structure", "rev-risk", "rev-cost", "synth"] as const
const text = fc.string({ maxLength: 40 })

describe("effectful receipts: properties", () => {
  it.effect("any scripted answers: the run completes, verifies, replays identically and is deterministic", () =>
    Effect.gen(function*() {
      const runtime = yield* AlgalRuntime.AlgalRuntime
      const program = yield* runtime.compile(panel)
      const samples = fc.sample(fc.tuple(text, text, text, text, fc.string({ maxLength: 60 })), {
        numRuns: 40,
        seed: 4
      })
      for (const [a, b, c, d, brief] of samples) {
        const responses = { "rev-structure": a, "rev-risk": b, "rev-cost": c, synth: d }
        const run = yield* runtime.run(program, { brief: { v: brief } }, { executors: [Executor.scripted(responses)] })
        assert.strictEqual(run.outcome, "complete")
        assert.deepStrictEqual(run.outputs, { verdict: d })
        const again = yield* runtime.run(program, { brief: { v: brief } }, {
          executors: [Executor.scripted(responses)]
        })
        assert.strictEqual(again.digest, run.digest)
        assert.isTrue((yield* runtime.verify(run.receipt, program)).ok)
        assert.strictEqual((yield* runtime.replay(run.receipt, program)).verdict, "identical")
      }
    }).pipe(Effect.provide(AlgalRuntime.layer)))

  it.effect("changing any one recorded effect output makes verify fail naming that cell's outputs", () =>
    Effect.gen(function*() {
      const runtime = yield* AlgalRuntime.AlgalRuntime
      const program = yield* runtime.compile(panel)
      const run = yield* runtime.run(program, { brief: { v: "b" } }, {
        executors: [Executor.scripted({ "rev-structure": "s", "rev-risk": "r", "rev-cost": "c", synth: "v" })]
      })
      const samples = fc.sample(fc.tuple(fc.integer({ min: 0, max: 3 }), text), { numRuns: 40, seed: 7 })
      for (const [i, forged] of samples) {
        const copy = JSON.parse(JSON.stringify(run.receipt))
        if (copy.effects[i].output === forged) continue
        copy.effects[i].output = forged
        const verified = yield* runtime.verify(copy, program)
        assert.isFalse(verified.ok)
        const cell = reviewers[i]!
        assert.isTrue(
          verified.mismatches.some((m) => m.startsWith(`cells.${cell}.outputs`)),
          verified.mismatches.join("\n")
        )
      }
    }).pipe(Effect.provide(AlgalRuntime.layer)))

  it.effect("concurrent runs with their own executors do not interfere", () =>
    Effect.gen(function*() {
      const runtime = yield* AlgalRuntime.AlgalRuntime
      const program = yield* runtime.compile(example("swarm"))
      const runs = yield* Effect.forEach(
        Array.from({ length: 16 }, (_, i) => i),
        (i) =>
          runtime.run(program, { batch: { qs: ["q1", "q2", "q3"] } }, {
            executors: [Executor.scripted({ researcher: [`a${i}`, `b${i}`, `c${i}`] })]
          }),
        { concurrency: "unbounded" }
      )
      runs.forEach((r, i) => assert.deepStrictEqual(r.outputs, { answers: `a${i}\nb${i}\nc${i}` }))
    }).pipe(
      Effect.provide(AlgalRuntime.layerMemory({ manifests: Program.resolverOf([parseOk(example("swarm-inner"))]) }))
    ))
})

describe("typed failures at the boundaries", () => {
  it.effect("responses documents", () =>
    Effect.gen(function*() {
      for (
        const bad of [null, [1], "x", { a: { $error: "boom" } }, { a: [{ $error: { code: "NOPE", message: "m" } }] }]
      ) {
        const error = yield* Effect.flip(Executor.decodeResponses(bad))
        assert.strictEqual(error.code, "PARSE_FAILED")
      }
      const ok = yield* Executor.decodeResponses({ a: ["x", { $error: { code: "EFFECT_FAILED", message: "m" } }] })
      assert.deepStrictEqual(Object.keys(ok), ["a"])
    }))

  it.effect("checkpoints with malformed effect receipts; controller inputs", () =>
    Effect.gen(function*() {
      const runtime = yield* AlgalRuntime.AlgalRuntime
      const admitted = yield* Admission.managed(xcb("project-controller"))
      const first = yield* Controller.step(admitted, {})
      if (first._tag !== "Awaiting") return assert.fail("expected a suspension")
      const bad = JSON.parse(JSON.stringify(first.checkpoint))
      bad.effects[0].surprise = true
      const error = yield* Effect.flip(runtime.resume(bad, admitted.program))
      assert.strictEqual(error.code, "PARSE_FAILED")
      assert.strictEqual((yield* runtime.replay(bad, admitted.program)).verdict, "could-not-replay")
      const big = yield* Effect.flip(Controller.step(admitted, { x: "y".repeat(40_000) }))
      assert.strictEqual(big.code, "BUDGET_EXHAUSTED")
      const moved = JSON.parse(JSON.stringify(first.checkpoint))
      moved.args = { elsewhere: { v: 1 } }
      const other = yield* Effect.flip(Controller.step(admitted, {}, moved, "x"))
      assert.strictEqual(other.code, "RECEIPT_MISMATCH")
      assert.include(other.message, "checkpoint args differ")
    }).pipe(Effect.provide(AlgalRuntime.layer)))
})
