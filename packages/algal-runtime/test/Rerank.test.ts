import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import * as AlgalRuntime from "../src/AlgalRuntime.js"
import * as Canonical from "../src/Canonical.js"
import type * as EffectRequest from "../src/EffectRequest.js"
import * as Executor from "../src/Executor.js"
import { edge, organism } from "./helpers.js"

const recallCell = (extra: Record<string, unknown> = {}) => ({
  id: "mem",
  kind: "recall",
  inputs: { q: "text" },
  query: { contract: "algal.expr.v1", program: ["upper", ["get", "q"]] },
  k: 3,
  rerank: { route: { provider: "judge" }, take: 2 },
  ...extra
})

/** A recall cell whose failures are routed to `fb` by a fail edge. */
const manifest = (cell: Record<string, unknown> = recallCell(), budgets: Record<string, unknown> = {}) =>
  organism(
    [
      { id: "in", kind: "input", outputs: { q: "text" } },
      cell,
      { id: "fb", kind: "fn", fn: "echo.v1" }
    ],
    [edge("in.q", "mem.q"), edge("mem.out", "fb.value", { on: "fail" })],
    { budgets }
  )

const args = { in: { q: "cats" } }
const hits = ["h0", "h1", "h2"]

const run = (json: unknown, executors: ReadonlyArray<Executor.Executor>) =>
  Effect.flatMap(AlgalRuntime.AlgalRuntime, (rt) => rt.run(json, args, { executors }))
const scripted = (replies: ReadonlyArray<unknown>) =>
  run(manifest(), [Executor.scripted({ mem: replies } as Executor.Responses)])

const prompt = "Rerank the recalled hits in context.inputs.hits by relevance to context.inputs.query. " +
  "Reply {\"answers\":{\"order\":[…]}}: the 0-based indices of the hits to keep, most relevant first, " +
  "each at most once; leave out irrelevant hits; only the first 2 are kept."

/** The rerank request's exact canonical bytes (ADR 0315). */
const rerankBytes = (take = 2) =>
  `{"budget":{"maxContextBytes":65536,"maxOutputBytes":65536},"cellId":"mem",` +
  `"context":{"inputs":{"hits":["h0","h1","h2"],"query":"CATS"},"turn":0},"contract":"algal.effect.v1",` +
  `"kind":"decide","output":{"kind":"json","schema":{"properties":{"answers":{"properties":{"order":` +
  `{"items":{"minimum":0,"type":"integer"},"type":"array"}},"required":["order"],"type":"object"}},` +
  `"required":["answers"],"type":"object"}},"prompt":${
    JSON.stringify(prompt.replace("first 2", `first ${take}`))
  },"route":{"provider":"judge"}}`

describe("recall rerank", () => {
  it.effect("a decide request on the rerank route orders and selects the hits; at most take are kept", () =>
    Effect.gen(function*() {
      const seen: Array<EffectRequest.ModelRequest> = []
      const spy = Executor.make({
        name: "spy",
        effects: ["recall", "decide"],
        execute: (r) =>
          Effect.sync(() => {
            seen.push(r)
            return { output: r.kind === "recall" ? hits : { answers: { order: [2, 0, 1] } } }
          })
      })
      const out = yield* run(manifest(), [spy])
      assert.strictEqual(out.outcome, "complete")
      assert.deepStrictEqual(seen.map((r) => r.kind), ["recall", "decide"])
      assert.deepStrictEqual(seen[0]!.recall, {
        query: "CATS",
        k: 3,
        rerank: { route: { provider: "judge" }, take: 2 }
      })
      assert.deepStrictEqual(seen[1]!.route, { provider: "judge" })
      const bytes = rerankBytes()
      assert.strictEqual(Canonical.encodeUnsafe(seen[1]! as unknown as Canonical.Json), bytes)
      const digest = Canonical.digestText(bytes)
      const kept = ["h2", "h0"]
      assert.deepStrictEqual(out.receipt.cells.mem!.outputs, {
        out: kept,
        ref: Canonical.digestText(Canonical.encodeUnsafe(kept))
      })
      // both calls are agent calls with effect events and receipts; the record names the last request
      assert.strictEqual(out.receipt.work.agentCalls, 2)
      assert.deepStrictEqual(out.receipt.effects.map((e: any) => e.requestDigest)[1], digest)
      assert.deepStrictEqual(out.receipt.effects[1], {
        requestDigest: digest,
        executor: "spy",
        output: { answers: { order: [2, 0, 1] } }
      })
      assert.strictEqual(out.receipt.cells.mem!.effectDigest, digest)
      assert.deepStrictEqual(
        out.receipt.events.filter((e: any) => e.kind === "effect").map((e: any) => e.digest),
        [out.receipt.effects[0]!.requestDigest, digest]
      )
      // work: activation + query fuel + (500 + context + output) per call
      const recallContext = "{\"inputs\":{\"q\":\"cats\"},\"turn\":0}".length
      const rerankContext = "{\"inputs\":{\"hits\":[\"h0\",\"h1\",\"h2\"],\"query\":\"CATS\"},\"turn\":0}".length
      const outputs = Canonical.encodeUnsafe(hits).length + "{\"answers\":{\"order\":[2,0,1]}}".length
      const fuel = out.receipt.cells.mem!.work - (100 + 1000 + recallContext + rerankContext + outputs)
      assert.isTrue(fuel > 0 && fuel < 20)
    }).pipe(Effect.provide(AlgalRuntime.layer)))

  it.effect("take defaults to k; a scripted per-cell queue serves recall then rerank; the empty hit list is not reranked", () =>
    Effect.gen(function*() {
      const m = manifest(recallCell({ rerank: { route: { preset: "fast" } } }))
      const out = yield* run(m, [Executor.scripted({ mem: [hits, { answers: { order: [1, 2, 0] } }] })])
      assert.deepStrictEqual(out.receipt.cells.mem!.outputs!.out, ["h1", "h2", "h0"])
      // a selection may drop hits
      const some = yield* run(m, [Executor.scripted({ mem: [hits, { answers: { order: [2] } }] })])
      assert.deepStrictEqual(some.receipt.cells.mem!.outputs!.out, ["h2"])
      const none = yield* run(m, [Executor.scripted({ mem: [[], { answers: { order: [] } }] })])
      assert.deepStrictEqual(none.receipt.cells.mem!.outputs!.out, [])
      assert.strictEqual(none.receipt.work.agentCalls, 1)
      assert.strictEqual(none.receipt.effects.length, 1)
    }).pipe(Effect.provide(AlgalRuntime.layer)))

  it.effect("verify and replay serve the rerank effect by request digest; a tampered rerank output is detected", () =>
    Effect.gen(function*() {
      const rt = yield* AlgalRuntime.AlgalRuntime
      const m = manifest()
      const out = yield* scripted([hits, { answers: { order: [1, 0] } }])
      assert.deepStrictEqual(out.receipt.cells.mem!.outputs!.out, ["h1", "h0"])
      const verified = yield* rt.verify(out.receipt, m)
      assert.isTrue(verified.ok)
      assert.deepStrictEqual(verified.mismatches, [])
      assert.strictEqual((yield* rt.replay(out.receipt, m)).verdict, "identical")
      // a forged rerank reply changes the committed hits
      const tampered = JSON.parse(JSON.stringify(out.receipt))
      tampered.effects[1].output = { answers: { order: [0, 1] } }
      const bad = yield* rt.verify(tampered, m)
      assert.isFalse(bad.ok)
      assert.isTrue(bad.mismatches.length > 0)
      assert.strictEqual((yield* rt.replay(tampered, m)).verdict, "diverged")
      // a forged reply that binds to the same hits (extra answers key) is caught by the digest
      const same = JSON.parse(JSON.stringify(out.receipt))
      same.effects[1].output = { answers: { order: [1, 0], note: "x" } }
      assert.isFalse((yield* rt.verify(same, m)).ok)
      // a dropped rerank record cannot be served: the replay misses it
      const dropped = JSON.parse(JSON.stringify(out.receipt))
      dropped.effects = dropped.effects.slice(0, 1)
      assert.notStrictEqual((yield* rt.replay(dropped, m)).verdict, "identical")
    }).pipe(Effect.provide(AlgalRuntime.layer)))

  it.effect("maxAgentCalls counts the rerank call: exhaustion fails the cell, routed by the fail edge", () =>
    Effect.gen(function*() {
      const m = manifest(recallCell(), { maxAgentCalls: 1 })
      const out = yield* run(m, [Executor.scripted({ mem: [hits, { answers: { order: [0] } }] })])
      assert.strictEqual(out.outcome, "complete")
      assert.strictEqual(out.receipt.work.agentCalls, 1)
      assert.strictEqual(out.receipt.effects.length, 1)
      assert.strictEqual(out.receipt.cells.mem!.status, "failed")
      assert.deepStrictEqual(out.receipt.cells.fb!.outputs, {
        value: { code: "BUDGET_EXHAUSTED", message: "maxAgentCalls exhausted" }
      })
      // retries of the rerank call count too
      const retried = manifest(recallCell({ retry: { attempts: 3 } }), { maxAgentCalls: 3 })
      const r = yield* run(retried, [Executor.scripted({ mem: [hits, "nope", "nope", { answers: { order: [0] } }] })])
      assert.strictEqual(r.receipt.work.agentCalls, 3)
      assert.strictEqual((r.receipt.cells.fb!.outputs!.value as any).code, "BUDGET_EXHAUSTED")
      const enough = yield* run(
        manifest(recallCell({ retry: { attempts: 3 } }), { maxAgentCalls: 4 }),
        [Executor.scripted({ mem: [hits, "nope", "nope", { answers: { order: [0] } }] })]
      )
      assert.deepStrictEqual(enough.receipt.cells.mem!.outputs!.out, ["h0"])
      assert.strictEqual(enough.receipt.work.agentCalls, 4)
    }).pipe(Effect.provide(AlgalRuntime.layer)))

  it.effect("no executor serving decide on the rerank route → EFFECT_UNBOUND, routed by the fail edge", () =>
    Effect.gen(function*() {
      const rt = yield* AlgalRuntime.AlgalRuntime
      const memory = Executor.make({
        name: "memory",
        effects: ["recall"],
        execute: () => Effect.succeed({ output: hits })
      })
      const otherJudge = Executor.make({
        name: "other",
        effects: ["decide"],
        routes: (route) => route?.provider === "other",
        execute: () => Effect.succeed({ output: { answers: { order: [0] } } })
      })
      const m = manifest()
      const out = yield* run(m, [memory, otherJudge])
      assert.strictEqual(out.outcome, "complete")
      assert.deepStrictEqual(out.receipt.cells.mem!.failure, {
        code: "EFFECT_UNBOUND",
        message: "no host-admitted executor for this request"
      })
      assert.deepStrictEqual(out.receipt.effects.map((e: any) => e.executor), ["memory", "unbound"])
      assert.strictEqual(out.receipt.effects[1]!.retryable, false)
      assert.strictEqual((out.receipt.cells.fb!.outputs!.value as any).code, "EFFECT_UNBOUND")
      assert.isUndefined(out.receipt.cells.mem!.effectDigest)
      assert.deepStrictEqual((yield* rt.verify(out.receipt, m)).mismatches, [])
      // an executor on the rerank route serves it
      const judge = Executor.make({
        name: "judge",
        effects: ["decide"],
        routes: (route) => route?.provider === "judge",
        execute: () => Effect.succeed({ output: { answers: { order: [2] } } })
      })
      const served = yield* run(m, [memory, otherJudge, judge])
      assert.deepStrictEqual(served.receipt.cells.mem!.outputs!.out, ["h2"])
      assert.deepStrictEqual(served.receipt.effects.map((e: any) => e.executor), ["memory", "judge"])
    }).pipe(Effect.provide(AlgalRuntime.layer)))

  it.effect("bad rerank replies are EFFECT_UNPARSEABLE; oversize rerank context is BUDGET_EXHAUSTED", () =>
    Effect.gen(function*() {
      const failure = (reply: unknown) => Effect.map(scripted([hits, reply]), (out) => out.receipt.cells.mem!.failure!)
      assert.deepStrictEqual(yield* failure({ answers: { order: [3] } }), {
        code: "EFFECT_UNPARSEABLE",
        message: "rerank order[0] 3 is not a hit index 0..2"
      })
      assert.deepStrictEqual(yield* failure({ answers: { order: [1, 1] } }), {
        code: "EFFECT_UNPARSEABLE",
        message: "rerank order[1] repeats hit index 1"
      })
      for (const reply of [["h0"], { answers: {} }, { order: [0] }, "0,1", { answers: { order: [0.5] } }]) {
        assert.strictEqual((yield* failure(reply)).code, "EFFECT_UNPARSEABLE")
      }
      assert.strictEqual(
        (yield* failure({ answers: { order: ["0"] } })).message,
        "rerank order[0] \"0\" is not a hit index 0..2"
      )
      // a retry after an unparseable reply can still succeed
      const retried = yield* run(
        manifest(recallCell({ retry: { attempts: 2 } })),
        [Executor.scripted({ mem: [hits, { answers: { order: [-1] } }, { answers: { order: [0] } }] })]
      )
      assert.deepStrictEqual(retried.receipt.cells.mem!.outputs!.out, ["h0"])
      // the hits must fit the rerank request's context bound
      const big = yield* run(
        manifest(recallCell({ budget: { maxContextBytes: 60 } })),
        [Executor.scripted({ mem: [["x".repeat(40), "y"], { answers: { order: [0] } }] })]
      )
      assert.strictEqual(big.receipt.cells.mem!.failure!.code, "BUDGET_EXHAUSTED")
      assert.match(big.receipt.cells.mem!.failure!.message, /^rerank context view \d+B exceeds maxContextBytes 60B$/)
      assert.strictEqual(big.receipt.effects.length, 1)
      assert.isUndefined(big.receipt.cells.mem!.effectDigest)
    }).pipe(Effect.provide(AlgalRuntime.layer)))

  it.effect("a suspended rerank call suspends the cell; resume replays the recall and asks only the rerank", () =>
    Effect.gen(function*() {
      const rt = yield* AlgalRuntime.AlgalRuntime
      const m = manifest()
      const suspend = { $error: { code: "EFFECT_SUSPENDED", message: "waiting for a judge" } }
      const first = yield* scripted([hits, suspend])
      assert.strictEqual(first.outcome, "suspended")
      assert.strictEqual(first.receipt.cells.mem!.status, "suspended")
      assert.strictEqual(first.receipt.failure!.code, "EFFECT_SUSPENDED")
      const asked: Array<string> = []
      const judge = Executor.make({
        name: "judge",
        effects: ["decide"],
        execute: (r) => Effect.sync(() => (asked.push(r.kind), { output: { answers: { order: [2, 1] } } }))
      })
      const resumed = yield* rt.resume(first.receipt, m, { executors: [judge] })
      assert.strictEqual(resumed.outcome, "complete")
      assert.deepStrictEqual(asked, ["decide"])
      assert.deepStrictEqual(resumed.receipt.cells.mem!.outputs!.out, ["h2", "h1"])
      assert.deepStrictEqual((yield* rt.verify(resumed.receipt, m)).mismatches, [])
    }).pipe(Effect.provide(AlgalRuntime.layer)))

  it.effect("property: the committed hits are the selected indices in order, truncated to take; replay is identical", () =>
    Effect.gen(function*() {
      const rt = yield* AlgalRuntime.AlgalRuntime
      const cases = fc.sample(
        fc.integer({ min: 1, max: 3 }).chain((n) =>
          fc.record({
            n: fc.constant(n),
            take: fc.integer({ min: 1, max: 3 }),
            order: fc.shuffledSubarray(Array.from({ length: n }, (_, i) => i))
          })
        ),
        { numRuns: 25, seed: 315 }
      )
      for (const { n, order, take } of cases) {
        const m = manifest(recallCell({ rerank: { route: { provider: "judge" }, take } }))
        const recalled = hits.slice(0, n)
        const out = yield* run(m, [Executor.scripted({ mem: [recalled, { answers: { order } }] })])
        assert.deepStrictEqual(out.receipt.cells.mem!.outputs!.out, order.slice(0, take).map((i) => recalled[i]))
        assert.strictEqual((yield* rt.replay(out.receipt, m)).verdict, "identical")
      }
    }).pipe(Effect.provide(AlgalRuntime.layer)))
})
