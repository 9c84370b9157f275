import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Admission from "../src/Admission.js"
import * as AlgalRuntime from "../src/AlgalRuntime.js"
import * as Controller from "../src/Controller.js"
import * as Executor from "../src/Executor.js"
import { xcb } from "./helpers.js"

const controllers = ["project-controller", "xcb-north-star-controller"] as const

describe("managed-controller admission profile (§4.3)", () => {
  it("admits the xcb controllers and the planner, inserting the missing budgets into the raw manifest", () => {
    for (const name of controllers) {
      const verdict = Admission.managedSync(xcb(name))
      assert.isTrue(verdict.ok, name)
      if (!verdict.ok) continue
      assert.deepStrictEqual((verdict.admitted.raw as any).budgets, {
        maxSteps: 64,
        maxAgentCalls: 8,
        maxWork: 100000,
        maxContextBytes: 32768,
        maxOutputBytes: 16384,
        maxDepth: 0
      })
      assert.deepStrictEqual(verdict.admitted.manifest.budgets.maxAgentCalls, 8)
      assert.match(verdict.admitted.rawDigest, /^sha256:[0-9a-f]{64}$/)
    }
    const planner = Admission.managedSync(xcb("project-planner"), 0)
    assert.isTrue(planner.ok)
    const four = Admission.managedSync(xcb("xcb-north-star-controller"), 4)
    assert.isTrue(four.ok && four.admitted.agentCells === 4)
  })

  it("rejects every violated rule at once", () => {
    const bad = xcb("project-controller")
    bad.budgets = { maxSteps: 65, maxDepth: 1 }
    bad.cells[0].route = { provider: "x" }
    bad.cells[1].output = { kind: "choice", labels: ["a"] }
    bad.interface.outputs.extra = { cell: "inspect", port: "out" }
    const verdict = Admission.managedSync(bad, 1)
    assert.isFalse(verdict.ok)
    if (verdict.ok) return
    const rules = new Set(verdict.violations.map((v) => v.rule))
    for (const rule of ["budget-caps", "agent-cells", "managed-calls"] as const) assert.isTrue(rules.has(rule), rule)
    assert.isTrue(verdict.violations.some((v) => v.message.includes("maxSteps 65 > 64")))
    assert.isTrue(verdict.violations.some((v) => v.message.includes("may not declare route")))
  })

  it.effect("a rejection is MANIFEST_INVALID naming the rules", () =>
    Effect.gen(function*() {
      const tools = xcb("project-controller")
      tools.cells.push({ id: "t", kind: "tool", tool: "x" })
      const error = yield* Effect.flip(Admission.managed(tools))
      assert.strictEqual(error.code, "MANIFEST_INVALID")
      assert.include(error.message, "cell-kinds")
      const calls = yield* Effect.flip(Admission.managed(xcb("project-controller"), 9))
      assert.include(calls.message, "managed-calls")
    }))
})

describe("resumable controllers suspend at each agent cell and resume to completion", () => {
  for (const name of controllers) {
    it.effect(name, () =>
      Effect.gen(function*() {
        const admitted = yield* Admission.managed(xcb(name))
        const prompts = admitted.manifest.cells.filter((c) => c.kind === "agent").map((c) =>
          (c as { prompt: string }).prompt
        )
        let slice = yield* Controller.step(admitted, {})
        const awaited: Array<string> = []
        while (slice._tag === "Awaiting") {
          awaited.push(slice.call.cellId)
          assert.strictEqual(slice.call.prompt, prompts[awaited.length - 1])
          assert.strictEqual(slice.checkpoint.outcome, "suspended")
          assert.deepStrictEqual(Admission.managedCheckpoint(slice.checkpoint), [])
          const answer = `result of ${slice.call.cellId}`
          // idempotent: the same checkpoint and answer give the same receipt
          const again = yield* Controller.step(admitted, {}, slice.checkpoint, answer)
          slice = yield* Controller.step(admitted, {}, slice.checkpoint, answer)
          const a = again._tag === "Awaiting" ? again.checkpoint.digest : again.receipt.digest
          const b = slice._tag === "Awaiting" ? slice.checkpoint.digest : slice.receipt.digest
          assert.strictEqual(a, b)
        }
        assert.deepStrictEqual(awaited, admitted.manifest.cells.map((c) => c.id))
        assert.strictEqual(slice.summary, `result of ${awaited[awaited.length - 1]}`)
        assert.strictEqual(slice.receipt.work.agentCalls, awaited.length)
        assert.isTrue(
          slice.receipt.effects.every((e: any) => e.executor === Executor.managedName && e.retryable === false)
        )
        const runtime = yield* AlgalRuntime.AlgalRuntime
        assert.isTrue((yield* runtime.verify(slice.receipt, admitted.program)).ok)
      }).pipe(Effect.provide(AlgalRuntime.layer)))
  }

  it.effect("a checkpoint that is not a managed suspension, or was tampered with, is refused", () =>
    Effect.gen(function*() {
      const admitted = yield* Admission.managed(xcb("project-controller"))
      const first = yield* Controller.step(admitted, {})
      assert.strictEqual(first._tag, "Awaiting")
      if (first._tag !== "Awaiting") return
      const forged = JSON.parse(JSON.stringify(first.checkpoint))
      forged.cells.inspect.work = 1
      const error = yield* Effect.flip(Controller.step(admitted, {}, forged, "x"))
      assert.strictEqual(error.code, "RECEIPT_MISMATCH")
      const done = JSON.parse(JSON.stringify(first.checkpoint))
      done.outcome = "complete"
      assert.strictEqual((yield* Effect.flip(Controller.step(admitted, {}, done, "x"))).code, "RECEIPT_MISMATCH")
    }).pipe(Effect.provide(AlgalRuntime.layer)))
})
