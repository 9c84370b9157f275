import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Layer, Stream } from "effect"
import { Evidence, Progress } from "../src/index.js"

const run = (iterations: ReadonlyArray<Progress.Iteration>, config?: Progress.Config) =>
  Effect.gen(function*() {
    const tracker = yield* Progress.make(config)
    const out: Array<Progress.Verdict["verdict"]> = []
    for (const it of iterations) out.push((yield* tracker.record(it)).verdict)
    return out
  })

describe("Progress", () => {
  it("error classes normalize numbers, hex, paths and quoted strings away", () => {
    assert.strictEqual(Progress.errorClass("expected 3 got 4"), Progress.errorClass("Expected 71 got 92"))
    assert.strictEqual(
      Progress.errorClass("ENOENT: no such file '/tmp/a/b.txt' at 0x7ff3a"),
      Progress.errorClass("ENOENT: no such file '/var/x.json' at 0x1")
    )
    assert.strictEqual(
      Progress.errorClass("cannot read src/a/b.ts line 10"),
      Progress.errorClass("cannot read lib/c.ts line 99")
    )
    assert.notStrictEqual(
      Progress.errorClass("TypeError: x is undefined"),
      Progress.errorClass("AssertionError: x is undefined")
    )
    assert.isAtMost(Progress.errorClass("x".repeat(1000)).length, 160)
  })

  it.effect("a zero-movement loop is nudged after the window and failed after the grace, even if every call differs", () =>
    Effect.gen(function*() {
      const verdicts = yield* run(Array.from({ length: 7 }, (_, i) => ({
        reads: [{ path: "src/a.ts", digest: "d1" }],
        errors: [`Error: expected ${i} got ${i + 1} in /tmp/run-${i}/x.ts`],
        exitCodes: [1]
      })))
      // first iteration: new read + new error class (progress); then nothing moves
      assert.deepStrictEqual(verdicts, ["progress", "idle", "idle", "idle", "nudge", "idle", "stuck"])
    }))

  it.effect("a legitimate test-fix loop is not stopped", () =>
    Effect.gen(function*() {
      const verdicts = yield* run(Array.from({ length: 12 }, (_, i) => ({
        changes: [{ path: "src/a.ts", digest: `v${i}` }],
        tests: [{ name: "adds", passed: i === 11 }],
        errors: i === 11 ? [] : ["AssertionError: expected 3 got 4"]
      })))
      assert.isFalse(verdicts.includes("stuck"))
      assert.isFalse(verdicts.includes("nudge"))
    }))

  it.effect("flip-flopping edits earn nothing (content digests)", () =>
    Effect.gen(function*() {
      const verdicts = yield* run(
        Array.from({ length: 8 }, (_, i) => ({
          changes: [{ path: "src/a.ts", digest: i % 2 === 0 ? "A" : "B" }]
        })),
        { idleWindow: 3, postNudgeGrace: 1 }
      )
      assert.deepStrictEqual(verdicts, ["progress", "progress", "idle", "idle", "nudge", "stuck", "stuck", "stuck"])
    }))

  it.effect("information gain: re-reading known content earns nothing; new content does", () =>
    Effect.gen(function*() {
      const tracker = yield* Progress.make()
      const first = yield* tracker.record({ reads: [{ path: "a.ts", digest: "x", symbols: ["f", "g"] }] })
      assert.strictEqual(first.verdict, "progress")
      assert.strictEqual(first.gain, 0.54)
      const again = yield* tracker.record({ reads: [{ path: "a.ts", digest: "x", symbols: ["f", "g"] }] })
      assert.strictEqual(again.gain, 0)
      assert.strictEqual(again.verdict, "idle")
      const copy = yield* tracker.record({ reads: [{ path: "copy-of-a.ts", digest: "x" }] })
      assert.strictEqual(copy.verdict, "idle")
      const updated = yield* tracker.record({ reads: [{ path: "a.ts", digest: "y" }] })
      assert.strictEqual(updated.verdict, "progress")
    }))

  it.effect("25 genuinely new files read in a row never nudge", () =>
    Effect.gen(function*() {
      const verdicts = yield* run(
        Array.from({ length: 25 }, (_, i) => ({
          reads: [{ path: `src/f${i}.ts`, digest: `h${i}`, symbols: [`s${i}a`, `s${i}b`, `s${i}c`, `s${i}d`] }]
        })),
        { idleWindow: 3 }
      )
      assert.isTrue(verdicts.every((v) => v === "progress"))
    }))

  it.effect("progress gives the nudge back; test flips, exit patterns and task state count", () =>
    Effect.gen(function*() {
      const tracker = yield* Progress.make({ idleWindow: 2, postNudgeGrace: 1 })
      assert.strictEqual((yield* tracker.record({ exitCodes: [1] })).verdict, "idle")
      assert.strictEqual((yield* tracker.record({ exitCodes: [1] })).verdict, "nudge")
      const flip = yield* tracker.record({ exitCodes: [0] })
      assert.strictEqual(flip.verdict, "progress")
      assert.include(flip.signals[0], "exit pattern")
      yield* tracker.record({})
      assert.strictEqual((yield* tracker.record({})).verdict, "nudge")
      assert.strictEqual((yield* tracker.record({ taskState: "tests-green" })).verdict, "progress")
      yield* tracker.reset
      assert.strictEqual((yield* tracker.record({ exitCodes: [0] })).verdict, "idle")
    }))

  it.effect("the recording tracker appends every verdict to the evidence stream", () =>
    Effect.gen(function*() {
      const tracker = yield* Progress.ProgressTracker
      yield* tracker.record({ taskState: "a" }, { runId: "r" })
      yield* tracker.record({}, { runId: "r" })
      yield* tracker.record({}, { runId: "r" })
      const log = yield* Evidence.EvidenceLog
      const events = Chunk.toReadonlyArray(yield* Stream.runCollect(log.stream({ runId: "r" })))
      assert.deepStrictEqual(events.map((e) => [e.kind, (e.data as any).verdict]), [
        ["progress", "progress"],
        ["progress", "idle"],
        ["progress", "nudge"]
      ])
    }).pipe(Effect.provide(Progress.layerRecorded({ idleWindow: 2 }).pipe(Layer.provideMerge(Evidence.layerMemory)))))

  it.effect("the layer provides a tracker", () =>
    Effect.gen(function*() {
      const tracker = yield* Progress.ProgressTracker
      assert.strictEqual((yield* tracker.record({ taskState: "a" })).verdict, "progress")
    }).pipe(Effect.provide(Progress.layer())))
})
