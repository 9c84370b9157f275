import * as LanguageModel from "@effect/ai/LanguageModel"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Stream, TestClock } from "effect"
import * as AlgalRuntime from "../src/AlgalRuntime.js"
import * as Canonical from "../src/Canonical.js"
import * as EffectRequest from "../src/EffectRequest.js"
import * as Executor from "../src/Executor.js"
import * as LanguageModelExecutor from "../src/LanguageModelExecutor.js"
import * as Manifest from "../src/Manifest.js"
import * as ToolRegistry from "../src/ToolRegistry.js"
import { edge, organism } from "./helpers.js"

const input = (outputs: Record<string, unknown>) => ({ id: "in", kind: "input", outputs })
const run = (
  json: unknown,
  args: unknown,
  responses: Executor.Responses,
  extra: ReadonlyArray<Executor.Executor> = []
) =>
  Effect.flatMap(
    AlgalRuntime.AlgalRuntime,
    (rt) => rt.run(json, args, { executors: [...extra, Executor.scripted(responses)] })
  )
const verifyOk = (receipt: unknown, json: unknown) =>
  Effect.flatMap(AlgalRuntime.AlgalRuntime, (rt) => rt.verify(receipt, json)).pipe(Effect.map((v) => v.mismatches))

const classifier = organism(
  [
    input({ t: "text" }),
    {
      id: "route",
      kind: "classifier",
      inputs: { t: "text" },
      prompt: "Pick one.",
      output: { kind: "choice", labels: ["a", "b"] }
    }
  ],
  [edge("in.t", "route.t")],
  { budgets: { maxAgentCalls: 3 } }
)

describe("algal.effect.v1 requests", () => {
  it.effect("the request's canonical bytes and digest are exact; the effect event and record carry the digest", () =>
    Effect.gen(function*() {
      const out = yield* run(classifier, { in: { t: "hi" } }, { route: "a" })
      const expected =
        `{"budget":{"maxContextBytes":65536,"maxOutputBytes":65536},"cellId":"route","context":{"inputs":{"t":"hi"},"turn":0},"contract":"algal.effect.v1","kind":"classifier","output":{"kind":"choice","labels":["a","b"]},"prompt":"Pick one."}`
      const digest = Canonical.digestText(expected)
      assert.deepStrictEqual(out.receipt.effects, [{ requestDigest: digest, executor: "scripted", output: "a" }])
      assert.deepStrictEqual(out.receipt.events[2], { seq: 2, kind: "effect", path: "route", digest })
      assert.strictEqual(out.receipt.cells.route!.effectDigest, digest)
      // work: 100 activation + 500 + context bytes + output bytes
      assert.strictEqual(out.receipt.cells.route!.work, 100 + 500 + "{\"inputs\":{\"t\":\"hi\"},\"turn\":0}".length + 3)
      // scripted responses by request digest win over cell id
      const byDigest = yield* run(classifier, { in: { t: "hi" } }, { [digest]: "b", route: "a" })
      assert.deepStrictEqual(byDigest.receipt.cells.route!.outputs, { out: "b" })
    }).pipe(Effect.provide(AlgalRuntime.layer)))

  it.effect("per-cell budgets take min(cell, root); an oversize context fails before any call", () =>
    Effect.gen(function*() {
      const m = organism(
        [
          input({ t: "text" }),
          {
            id: "ask",
            kind: "agent",
            inputs: { t: "text" },
            prompt: "p",
            output: { kind: "text" },
            budget: { maxContextBytes: 200000, maxOutputBytes: 10 }
          }
        ],
        [edge("in.t", "ask.t")],
        { budgets: { maxContextBytes: 40 } }
      )
      const ok = yield* run(m, { in: { t: "hi" } }, { ask: "short" })
      const request = ok.receipt.effects[0] as EffectRequest.EffectReceipt
      assert.strictEqual(ok.outcome, "complete")
      assert.isDefined(request)
      const big = yield* run(m, { in: { t: "x".repeat(40) } }, { ask: "short" })
      assert.deepStrictEqual(big.receipt.cells.ask!.failure, {
        code: "BUDGET_EXHAUSTED",
        message: "context view 68B exceeds maxContextBytes 40B"
      })
      assert.strictEqual(big.receipt.work.agentCalls, 0)
      const long = yield* run(m, { in: { t: "hi" } }, { ask: "this is far too long" })
      assert.deepStrictEqual(long.receipt.cells.ask!.failure, {
        code: "BUDGET_EXHAUSTED",
        message: "effect output 22B exceeds maxOutputBytes 10B"
      })
    }).pipe(Effect.provide(AlgalRuntime.layer)))

  it.effect("maxAgentCalls counts every attempt; retries stop on retryable:false; exhaustion is routable", () =>
    Effect.gen(function*() {
      const m = organism(
        [
          input({ t: "text" }),
          {
            id: "route",
            kind: "classifier",
            inputs: { t: "text" },
            prompt: "p",
            output: { kind: "choice", labels: ["a"] },
            retry: { attempts: 5 }
          },
          { id: "fallback", kind: "fn", fn: "echo.v1" }
        ],
        [edge("in.t", "route.t"), edge("route.out", "fallback.value", { on: "fail" })],
        { budgets: { maxAgentCalls: 3 } }
      )
      const out = yield* run(m, { in: { t: "x" } }, { route: ["z", "z", "z", "a"] })
      assert.strictEqual(out.outcome, "complete")
      assert.strictEqual(out.receipt.work.agentCalls, 3)
      assert.deepStrictEqual(out.receipt.cells.fallback!.outputs, {
        value: { code: "BUDGET_EXHAUSTED", message: "maxAgentCalls exhausted" }
      })
      const fatal = yield* run(m, { in: { t: "x" } }, {
        route: [{ $error: { code: "EFFECT_FAILED", message: "no", retryable: false } }, "a"]
      })
      assert.strictEqual(fatal.receipt.work.agentCalls, 1)
      assert.deepStrictEqual(fatal.receipt.cells.route!.failure, { code: "EFFECT_FAILED", message: "no" })
      assert.deepStrictEqual(yield* verifyOk(fatal.receipt, m), [])
    }).pipe(Effect.provide(AlgalRuntime.layer)))

  it.effect("output binding: json schema → EFFECT_UNPARSEABLE; choice onMiss; text must be text; decide answers", () =>
    Effect.gen(function*() {
      const m = organism([
        input({ t: "text" }),
        {
          id: "j",
          kind: "agent",
          inputs: { t: "text" },
          prompt: "p",
          output: { kind: "json", schema: { type: "object", required: ["n"] } }
        },
        {
          id: "c",
          kind: "classifier",
          inputs: { t: "text" },
          prompt: "p",
          output: { kind: "choice", labels: ["a", "b"], onMiss: "b" }
        },
        { id: "x", kind: "agent", inputs: { t: "text" }, prompt: "p", output: { kind: "text" } },
        {
          id: "d",
          kind: "decide",
          inputs: { t: "text" },
          prompt: "p",
          questions: { q: { type: "score", instructions: "rate" } }
        },
        { id: "sink", kind: "fn", fn: "echo.v1" }
      ], [
        edge("in.t", "j.t"),
        edge("in.t", "c.t"),
        edge("in.t", "x.t"),
        edge("in.t", "d.t"),
        edge("j.out", "sink.value", { on: "fail" })
      ])
      // a score answer carries its score, confidence and probabilities (the derived answer contract)
      const answer = { score: 3, confidence: 0.8, probabilities: { "3": 0.8 } }
      const out = yield* run(m, { in: { t: "x" } }, { j: { m: 1 }, c: "zzz", x: 42, d: { answers: {} } })
      assert.deepStrictEqual(out.receipt.cells.j!.failure, {
        code: "EFFECT_UNPARSEABLE",
        message: "missing required field"
      })
      assert.deepStrictEqual(out.receipt.cells.c!.outputs, { out: "b" })
      assert.strictEqual(out.receipt.cells.x!.failure!.code, "EFFECT_UNPARSEABLE")
      assert.strictEqual(out.outcome, "failed")
      const ok = yield* run(m, { in: { t: "x" } }, {
        j: { n: 1 },
        c: "a",
        x: "fine",
        d: { answers: { q: answer } }
      })
      assert.strictEqual(ok.outcome, "complete")
      assert.deepStrictEqual(ok.receipt.cells.d!.outputs, { out: { answers: { q: answer } } })
    }).pipe(Effect.provide(AlgalRuntime.layer)))

  it.effect("classifier shadow commits take and records the model's output as shadowOut", () =>
    Effect.gen(function*() {
      const m = organism([
        input({ t: "text" }),
        {
          id: "route",
          kind: "classifier",
          inputs: { t: "text" },
          prompt: "p",
          output: { kind: "choice", labels: ["a", "b"] },
          shadow: { take: "a" }
        }
      ], [edge("in.t", "route.t")])
      const out = yield* run(m, { in: { t: "x" } }, { route: "b" })
      assert.deepStrictEqual(out.receipt.cells.route!.outputs, { out: "a" })
      assert.strictEqual(out.receipt.cells.route!.shadowOut, "b")
      assert.deepStrictEqual(yield* verifyOk(out.receipt, m), [])
    }).pipe(Effect.provide(AlgalRuntime.layer)))

  it.effect("context views: listed inputs, upstream cells and ports, graph, note", () =>
    Effect.gen(function*() {
      const m = organism([
        input({ a: "text", b: "text" }),
        { id: "up", kind: "fn", fn: "uppercase.v1" },
        {
          id: "ask",
          kind: "agent",
          inputs: { a: "text", b: "text", u: "text" },
          prompt: "p",
          output: { kind: "text" },
          view: { inputs: ["a"], cells: [{ cell: "up", ports: ["value"] }], graph: true, note: "be brief" }
        }
      ], [edge("in.a", "up.value"), edge("in.a", "ask.a"), edge("in.b", "ask.b"), edge("up.value", "ask.u")])
      let seen: EffectRequest.ModelRequest | undefined
      const spy = Executor.make({
        name: "spy",
        effects: ["agent"],
        execute: (request) => Effect.sync(() => (seen = request, { output: "ok" }))
      })
      const out = yield* run(m, { in: { a: "x", b: "y" } }, {}, [spy])
      assert.strictEqual(out.outcome, "complete")
      assert.deepStrictEqual(seen!.context, {
        inputs: { a: "x" },
        turn: 0,
        note: "be brief",
        cells: { up: { value: "X" } },
        graph: { cells: [{ id: "up", kind: "fn" }, { id: "ask", kind: "agent" }], edges: ["up.value->ask.u"] }
      })
      assert.strictEqual(out.receipt.effects[0]!.constructor, Object)
      assert.strictEqual(
        (out.receipt.effects[0] as EffectRequest.EffectReceipt).requestDigest,
        EffectRequest.digest(seen!)
      )
    }).pipe(Effect.provide(AlgalRuntime.layer)))
})

describe("tool-call turns", () => {
  const lookup = (budget: Record<string, unknown> = { maxTurns: 3 }, compact?: unknown) =>
    organism([
      input({ doc: "json" }),
      {
        id: "reader",
        kind: "agent",
        inputs: { doc: "json" },
        prompt: "p",
        output: { kind: "text" },
        tools: ["pick.v1"],
        budget,
        ...(compact === undefined ? {} : { compact })
      }
    ], [edge("in.doc", "reader.doc")])
  const call = (field: string) => ({ tool: "pick.v1", inputs: { record: { a: 1, b: 2 }, field } })

  it.effect("each turn is an agent call; the tool log grows in context; maxTurns bounds the loop", () =>
    Effect.gen(function*() {
      const out = yield* run(lookup(), { in: { doc: { a: 1 } } }, { reader: [call("a"), call("b"), "done"] })
      assert.strictEqual(out.outcome, "complete")
      assert.strictEqual(out.receipt.work.agentCalls, 3)
      assert.deepStrictEqual(out.receipt.cells.reader!.toolCalls, [
        { fn: "pick.v1", inputs: call("a").inputs, output: { value: 1 } },
        { fn: "pick.v1", inputs: call("b").inputs, output: { value: 2 } }
      ])
      const digests = new Set(out.receipt.effects.map((e) => (e as EffectRequest.EffectReceipt).requestDigest))
      assert.strictEqual(digests.size, 3)
      const over = yield* run(lookup(), { in: { doc: {} } }, { reader: [call("a"), call("a"), call("a"), "done"] })
      assert.deepStrictEqual(over.receipt.cells.reader!.failure, {
        code: "BUDGET_EXHAUSTED",
        message: "cell \"reader\" produced no final output within maxTurns 3"
      })
      // a bad tool input is logged as an error the model can see, not a crash
      const bad = yield* run(lookup(), { in: { doc: {} } }, {
        reader: [{ tool: "pick.v1", inputs: { record: 1 } }, "gave up"]
      })
      assert.deepStrictEqual((bad.receipt.cells.reader!.toolCalls![0] as any).error.code, "TYPE_MISMATCH")
      assert.deepStrictEqual(yield* verifyOk(out.receipt, lookup()), [])
    }).pipe(Effect.provide(AlgalRuntime.layer)))

  it.effect("compact (elide) keeps the most recent entries in the context once the log exceeds maxLogBytes", () =>
    Effect.gen(function*() {
      const seen: Array<EffectRequest.Context> = []
      const queue = [call("a"), call("b"), call("a"), "done"]
      const spy = Executor.make({
        name: "spy",
        execute: (r) => Effect.sync(() => (seen.push(r.context), { output: queue.shift()! }))
      })
      const out = yield* run(lookup({ maxTurns: 4 }, { maxLogBytes: 80, keepRecent: 1 }), { in: { doc: {} } }, {}, [
        spy
      ])
      assert.strictEqual(out.outcome, "complete")
      assert.strictEqual(seen[1]!.toolLog!.length, 1)
      assert.deepStrictEqual(seen[3]!.toolLog![0], { elided: 2 })
      assert.strictEqual(seen[3]!.toolLog!.length, 2)
      assert.strictEqual(out.receipt.cells.reader!.toolCalls!.length, 3)
    }).pipe(Effect.provide(AlgalRuntime.layer)))
})

describe("host authority: executors, route binding, tools, caps", () => {
  it.effect("an executor serves only its declared kinds and routes; anything else is EFFECT_UNBOUND retryable:false", () =>
    Effect.gen(function*() {
      const m = organism([
        input({ t: "text" }),
        { id: "g", kind: "gate", inputs: { t: "text" }, prompt: "p", output: { kind: "choice", labels: ["go"] } },
        {
          id: "r",
          kind: "agent",
          inputs: { t: "text" },
          prompt: "p",
          output: { kind: "text" },
          route: { provider: "acme" }
        },
        { id: "s", kind: "agent", inputs: { t: "text" }, prompt: "p", output: { kind: "text" } },
        { id: "fb", kind: "fn", fn: "echo.v1" },
        { id: "fb2", kind: "fn", fn: "echo.v1" }
      ], [
        edge("in.t", "g.t"),
        edge("in.t", "r.t"),
        edge("in.t", "s.t"),
        edge("g.out", "fb.value", { on: "fail" }),
        edge("r.out", "fb2.value", { on: "fail" })
      ])
      const local = Executor.make({
        name: "local",
        routes: (route) => route === undefined || route.provider === "local",
        execute: () => Effect.succeed({ output: "go" })
      })
      const rt = yield* AlgalRuntime.AlgalRuntime
      const out = yield* rt.run(m, { in: { t: "x" } }, { executors: [local] })
      assert.strictEqual(out.outcome, "complete")
      assert.deepStrictEqual(out.receipt.cells.g!.failure, {
        code: "EFFECT_UNBOUND",
        message: "no host-admitted executor for this request"
      })
      assert.deepStrictEqual(out.receipt.cells.r!.failure, {
        code: "EFFECT_UNBOUND",
        message: "no host-admitted executor for this request"
      })
      assert.deepStrictEqual(out.receipt.cells.s!.outputs, { out: "go" })
      assert.deepStrictEqual(out.receipt.effects.map((e: any) => e.executor), ["unbound", "unbound", "local"])
    }).pipe(Effect.provide(AlgalRuntime.layer)))

  it.effect("host-registered Executors serve every run; a crashing executor is recorded as EFFECT_FAILED", () =>
    Effect.gen(function*() {
      const rt = yield* AlgalRuntime.AlgalRuntime
      const out = yield* rt.run(classifier, { in: { t: "x" } })
      assert.deepStrictEqual(out.receipt.cells.route!.outputs, { out: "a" })
      const boom = Executor.make({ name: "boom", execute: () => Effect.die("kaput") })
      const crashed = yield* rt.run(classifier, { in: { t: "x" } }, { executors: [boom] })
      assert.strictEqual(crashed.receipt.cells.route!.failure!.code, "EFFECT_FAILED")
    }).pipe(Effect.provide(
      AlgalRuntime.layerWith().pipe(
        Layer.provide(Layer.mergeAll(
          Executor.layer(Executor.scripted({ route: "a" })),
          AlgalRuntime.layerDeps
        ))
      )
    )))

  it.effect("tool cells: algal.tool-effect.v1 requests, cost + output bytes, output bounds, failures, unknown at run time", () =>
    Effect.gen(function*() {
      const calls: Array<EffectRequest.ToolRequest> = []
      const tools = ToolRegistry.layer({
        "kv.put": {
          inputs: { key: { type: "text" }, value: { type: "json" } },
          outputs: { ok: { type: "json" } },
          effect: "write",
          cost: 25,
          maxOutputBytes: 64,
          run: (inputs, request) =>
            inputs.key === "fail"
              ? Effect.fail({ code: "TOOL_FAILED" as const, message: "disk full" })
              : Effect.sync(() => (calls.push(request), inputs.key === "big" ? { ok: "x".repeat(100) } : { ok: true }))
        }
      })
      const m = (key: string) =>
        organism(
          [
            input({ k: "text", v: "json" }),
            { id: "put", kind: "tool", tool: "kv.put" }
          ],
          [edge("in.k", "put.key"), edge("in.v", "put.value")],
          {}
        )
      const program = Effect.gen(function*() {
        const rt = yield* AlgalRuntime.AlgalRuntime
        const ok = yield* rt.run(m("a"), { in: { k: "a", v: 1 } })
        const expected = {
          contract: "algal.tool-effect.v1",
          path: "put",
          tool: "kv.put",
          effect: "write",
          inputs: { key: "a", value: 1 }
        }
        assert.deepStrictEqual(calls[0], expected as any)
        assert.deepStrictEqual(ok.receipt.effects, [{
          requestDigest: EffectRequest.digest(expected as any),
          executor: "tool:kv.put",
          output: { ok: true }
        }])
        assert.strictEqual(ok.receipt.cells.put!.work, 100 + 25 + "{\"ok\":true}".length)
        assert.strictEqual(ok.receipt.work.agentCalls, 0)
        assert.deepStrictEqual((yield* rt.verify(ok.receipt, m("a"))).mismatches, [])
        const big = yield* rt.run(m("big"), { in: { k: "big", v: 1 } })
        assert.strictEqual(big.receipt.cells.put!.failure!.code, "BUDGET_EXHAUSTED")
        const failed = yield* rt.run(m("fail"), { in: { k: "fail", v: 1 } })
        assert.deepStrictEqual(failed.receipt.cells.put!.failure, { code: "TOOL_FAILED", message: "disk full" })
      })
      yield* program.pipe(
        Effect.provide(AlgalRuntime.layerWith().pipe(Layer.provide(Layer.mergeAll(tools, AlgalRuntime.layerDeps))))
      )
      // a host that did not register the tool cannot compile a tool cell
      const error = yield* Effect.flip(
        Effect.flatMap(AlgalRuntime.AlgalRuntime, (rt) => rt.run(m("a"), {})).pipe(Effect.provide(AlgalRuntime.layer))
      )
      assert.strictEqual(error.code, "TOOL_UNKNOWN")
    }))

  it.effect("cap handles: only tokens the host minted pass an input cap port; others are CAPABILITY_DENIED", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      const token = yield* registry.mint("mailbox", "inbox-1")
      assert.match(token, /^cap:mailbox:sha256:[0-9a-f]{64}$/)
      const m = organism([{ id: "in", kind: "input", outputs: { box: { type: "cap", capability: "mailbox" } } }])
      const rt = yield* AlgalRuntime.AlgalRuntime
      const ok = yield* rt.run(m, { in: { box: token } })
      assert.strictEqual(ok.outcome, "complete")
      const forged = `cap:mailbox:sha256:${"0".repeat(64)}`
      const denied = yield* rt.run(m, { in: { box: forged } })
      assert.strictEqual(denied.receipt.cells.in!.failure!.code, "CAPABILITY_DENIED")
      assert.strictEqual((yield* Effect.flip(registry.mint("Bad Class", "x"))).code, "CAPABILITY_DENIED")
    }).pipe(
      Effect.provide(
        Layer.provideMerge(AlgalRuntime.layerWith(), Layer.mergeAll(ToolRegistry.layerEmpty, AlgalRuntime.layerDeps))
      )
    ))
})

describe("recall and spawn", () => {
  it.effect("recall evaluates its query, asks for ≤ k items, stores the hits and emits out + ref", () =>
    Effect.gen(function*() {
      const m = organism([
        input({ q: "text" }),
        {
          id: "mem",
          kind: "recall",
          inputs: { q: "text" },
          query: { contract: "algal.expr.v1", program: ["upper", ["get", "q"]] },
          k: 2
        }
      ], [edge("in.q", "mem.q")])
      let seen: EffectRequest.ModelRequest | undefined
      const spy = Executor.make({
        name: "mem",
        effects: ["recall"],
        execute: (r) => Effect.sync(() => (seen = r, { output: ["hit-1", "hit-2"] }))
      })
      const out = yield* run(m, { in: { q: "cats" } }, {}, [spy])
      assert.deepStrictEqual(seen!.recall, { query: "CATS", k: 2 })
      assert.deepStrictEqual(out.receipt.cells.mem!.outputs, {
        out: ["hit-1", "hit-2"],
        ref: Canonical.digestText("[\"hit-1\",\"hit-2\"]")
      })
      const tooMany = yield* run(m, { in: { q: "cats" } }, { mem: ["a", "b", "c"] })
      assert.strictEqual(tooMany.receipt.cells.mem!.failure!.code, "EFFECT_UNPARSEABLE")
    }).pipe(Effect.provide(AlgalRuntime.layer)))

  it.effect("spawn admits a delivered manifest, runs it one level deeper, and returns its outputs and digest", () =>
    Effect.gen(function*() {
      const child = organism(
        [
          { id: "in", kind: "input", outputs: { x: "json" } },
          {
            id: "calc",
            kind: "expr",
            inputs: { x: "json" },
            expr: { contract: "algal.expr.v1", program: ["mul", ["get", "x"], 2] },
            output: { kind: "json", schema: { type: "number" } }
          }
        ],
        [edge("in.x", "calc.x")],
        {
          key: "organism:child",
          interface: { inputs: { x: { cell: "in", port: "x" } }, outputs: { y: { cell: "calc", port: "out" } } }
        }
      )
      const m = organism(
        [
          input({ m: "json", a: "json" }),
          { id: "sp", kind: "spawn" }
        ],
        [edge("in.m", "sp.manifest"), edge("in.a", "sp.args")],
        { budgets: { maxDepth: 1 } }
      )
      const out = yield* run(m, { in: { m: child, a: { x: 21 } } }, {})
      assert.strictEqual(out.outcome, "complete")
      const parsed = Manifest.parseSync(child)
      assert.isTrue(parsed.ok)
      assert.deepStrictEqual(out.receipt.cells.sp!.outputs, {
        data: { y: 42 },
        digest: parsed.ok ? Manifest.digest(parsed.manifest) : ""
      })
      assert.strictEqual(out.receipt.cells["sp/calc"]!.status, "committed")
      const bad = yield* run(m, { in: { m: { contract: "nope" }, a: {} } }, {})
      assert.strictEqual(bad.receipt.cells.sp!.failure!.code, "PARSE_FAILED")
      const deep = yield* run({ ...m, budgets: { maxDepth: 0 } }, { in: { m: child, a: { x: 1 } } }, {})
      assert.strictEqual(deep.receipt.failure!.code, "DEPTH_EXCEEDED")
      assert.deepStrictEqual(yield* verifyOk(out.receipt, m), [])
    }).pipe(Effect.provide(AlgalRuntime.layer)))
})

describe("suspend and resume", () => {
  const chain = organism([
    input({ t: "text" }),
    { id: "a", kind: "agent", inputs: { t: "text" }, prompt: "first", output: { kind: "text" } },
    { id: "b", kind: "agent", inputs: { t: "text" }, prompt: "second", output: { kind: "text" } }
  ], [edge("in.t", "a.t"), edge("a.out", "b.t")])
  const suspend = { $error: { code: "EFFECT_SUSPENDED", message: "waiting for a human" } }

  it.effect("EFFECT_SUSPENDED stops the run with a checkpoint; resume continues it, idempotently", () =>
    Effect.gen(function*() {
      const rt = yield* AlgalRuntime.AlgalRuntime
      const first = yield* run(chain, { in: { t: "go" } }, { a: "A", b: suspend })
      assert.strictEqual(first.outcome, "suspended")
      assert.deepStrictEqual(first.receipt.cells.b, { status: "suspended", work: first.receipt.cells.b!.work })
      assert.strictEqual(first.receipt.failure!.code, "EFFECT_SUSPENDED")
      assert.strictEqual(first.receipt.events.at(-2)!.kind, "cell.suspend")
      assert.deepStrictEqual((yield* rt.verify(first.receipt, chain)).mismatches, [])
      const resumed = yield* rt.resume(first.receipt, chain, { executors: [Executor.scripted({ b: "B" })] })
      assert.strictEqual(resumed.outcome, "complete")
      assert.deepStrictEqual(resumed.receipt.cells.b!.outputs, { out: "B" })
      // the recorded answer for a was replayed, not asked again
      assert.deepStrictEqual(resumed.receipt.effects.map((e: any) => e.executor), ["scripted", "scripted"])
      const again = yield* rt.resume(first.receipt, chain, { executors: [Executor.scripted({ b: "B" })] })
      assert.strictEqual(again.digest, resumed.digest)
      assert.deepStrictEqual((yield* rt.verify(resumed.receipt, chain)).mismatches, [])
      // refused: tampered checkpoint, completed receipt, other manifest
      const tampered = JSON.parse(JSON.stringify(first.receipt))
      tampered.effects[0].output = "forged"
      assert.strictEqual((yield* Effect.flip(rt.resume(tampered, chain))).code, "RECEIPT_MISMATCH")
      assert.strictEqual((yield* Effect.flip(rt.resume(resumed.receipt, chain))).code, "RECEIPT_MISMATCH")
      assert.strictEqual((yield* Effect.flip(rt.resume(first.receipt, classifier))).code, "DIGEST_MISMATCH")
    }).pipe(Effect.provide(AlgalRuntime.layer)))

  it.effect("a suspension inside an embedded organism suspends the parent cell", () =>
    Effect.gen(function*() {
      const inner = {
        ...chain,
        key: "organism:inner",
        interface: { inputs: { t: { cell: "in", port: "t" } }, outputs: { out: { cell: "b", port: "out" } } }
      }
      const parsed = Manifest.parseSync(inner)
      if (!parsed.ok) return assert.fail(parsed.error.message)
      const outer = organism([input({ t: "text" }), {
        id: "sub",
        kind: "organism",
        manifest: Manifest.digest(parsed.manifest)
      }], [edge("in.t", "sub.t")])
      const rt = yield* AlgalRuntime.AlgalRuntime
      const first = yield* rt.run(outer, { in: { t: "go" } }, {
        executors: [Executor.scripted({ a: "A", b: suspend })]
      })
      assert.strictEqual(first.outcome, "suspended")
      assert.strictEqual(first.receipt.cells.sub!.status, "suspended")
      assert.strictEqual(first.receipt.cells["sub/b"]!.status, "suspended")
      assert.strictEqual(first.receipt.failure!.path, "sub/b")
      const resumed = yield* rt.resume(first.receipt, outer, { executors: [Executor.scripted({ b: "B" })] })
      assert.deepStrictEqual(resumed.receipt.cells.sub!.outputs, { out: "B" })
    }).pipe(Effect.provide(AlgalRuntime.layerMemory({
      manifests: (d) => {
        const inner = Manifest.parseSync({
          ...chain,
          key: "organism:inner",
          interface: { inputs: { t: { cell: "in", port: "t" } }, outputs: { out: { cell: "b", port: "out" } } }
        })
        return inner.ok && Manifest.digest(inner.manifest) === d ? inner.manifest : undefined
      }
    }))))
})

describe("the @effect/ai LanguageModel executor", () => {
  const mockModel = (reply: (prompt: string) => string) =>
    Layer.effect(
      LanguageModel.LanguageModel,
      LanguageModel.make({
        generateText: (options) =>
          Effect.succeed([
            { type: "text" as const, text: reply(JSON.stringify(options.prompt)) },
            {
              type: "finish" as const,
              reason: "stop" as const,
              usage: { inputTokens: 12, outputTokens: 3, totalTokens: 15 }
            }
          ]),
        streamText: () => Stream.empty
      })
    )

  it.effect("serves classifier, agent and decide cells from the model's text; usage is recorded", () =>
    Effect.gen(function*() {
      const m = organism([
        input({ t: "text" }),
        {
          id: "c",
          kind: "classifier",
          inputs: { t: "text" },
          prompt: "label it",
          output: { kind: "choice", labels: ["bug", "feature"] }
        },
        {
          id: "d",
          kind: "decide",
          inputs: { t: "text" },
          prompt: "score it",
          questions: { size: { type: "score", instructions: "1-5" } }
        },
        { id: "w", kind: "agent", inputs: { t: "text" }, prompt: "write it", output: { kind: "text" } }
      ], [edge("in.t", "c.t"), edge("in.t", "d.t"), edge("in.t", "w.t")])
      const rt = yield* AlgalRuntime.AlgalRuntime
      const out = yield* rt.run(m, { in: { t: "crash" } })
      assert.strictEqual(out.outcome, "complete")
      assert.deepStrictEqual(out.receipt.cells.c!.outputs, { out: "bug" })
      assert.deepStrictEqual(out.receipt.cells.d!.outputs, {
        out: { answers: { size: { score: 4, confidence: 0.9, probabilities: { "4": 0.9 } } } }
      })
      assert.deepStrictEqual(out.receipt.cells.w!.outputs, { out: "A fix." })
      const e = out.receipt.effects[0] as EffectRequest.EffectReceipt
      assert.deepStrictEqual(e.usage, { model: "mock-1", tokensIn: 12, tokensOut: 3 })
      assert.strictEqual(e.executor, "language-model")
      assert.match(e.configurationDigest!, /^sha256:/)
      assert.deepStrictEqual((yield* rt.verify(out.receipt, m)).mismatches, [])
    }).pipe(Effect.provide(
      AlgalRuntime.layerWith().pipe(Layer.provide(Layer.mergeAll(
        LanguageModelExecutor.layer({ model: "mock-1" }).pipe(Layer.provide(mockModel((p) =>
          p.includes("label it")
            ? " bug\n"
            : p.includes("score it")
            ? "```json\n{\"answers\":{\"size\":{\"score\":4,\"confidence\":0.9,\"probabilities\":{\"4\":0.9}}}}\n```"
            : "A fix."
        ))),
        AlgalRuntime.layerDeps
      )))
    )))

  it("renders the request's canonical bytes after instructions for the output contract", () => {
    const request: EffectRequest.ModelRequest = {
      contract: "algal.effect.v1",
      cellId: "c",
      kind: "classifier",
      prompt: "p",
      context: { inputs: {}, turn: 0 },
      output: { kind: "choice", labels: ["x", "y"] },
      budget: { maxContextBytes: 1, maxOutputBytes: 1 }
    }
    const text = LanguageModelExecutor.render(request)
    assert.include(text, "exactly one of these labels: x, y")
    assert.isTrue(text.endsWith(`REQUEST ${EffectRequest.canonical(request)}`))
    assert.strictEqual(LanguageModelExecutor.outputOf({ ...request, kind: "decide" }, "not json"), "not json")
  })
})

describe("hostile executors", () => {
  it.effect("non-JSON, deeply nested or huge replies are recorded as typed failures, never crash the run", () =>
    Effect.gen(function*() {
      let deep: any = "x"
      for (let i = 0; i < 100; i++) deep = [deep]
      const replies: Array<unknown> = [Number.NaN, { f: () => 1 }, deep, "\uD800", "x".repeat(300_000)]
      for (const reply of replies) {
        const bad = Executor.make({ name: "bad", execute: () => Effect.succeed({ output: reply as any }) })
        const out = yield* Effect.flatMap(
          AlgalRuntime.AlgalRuntime,
          (rt) => rt.run(classifier, { in: { t: "x" } }, { executors: [bad] })
        )
        assert.strictEqual(out.outcome, "failed")
        assert.include(["EFFECT_UNPARSEABLE", "BUDGET_EXHAUSTED"], out.receipt.cells.route!.failure!.code)
        assert.match(out.digest, /^sha256:/)
      }
    }).pipe(Effect.provide(AlgalRuntime.layer)))
})

describe("maxEffectMs", () => {
  it.effect("a slow executor is cut off at maxEffectMs (Clock) and recorded as BUDGET_EXHAUSTED; retries continue", () =>
    Effect.gen(function*() {
      const m = organism([
        input({ t: "text" }),
        {
          id: "ask",
          kind: "agent",
          inputs: { t: "text" },
          prompt: "p",
          output: { kind: "text" },
          budget: { maxEffectMs: 1000 },
          retry: { attempts: 2 }
        }
      ], [edge("in.t", "ask.t")])
      let calls = 0
      const slow = Executor.make({
        name: "slow",
        execute: () =>
          Effect.suspend(() => (calls++ === 0 ? Effect.sleep("10 seconds") : Effect.void)).pipe(
            Effect.as({ output: "late but fine" })
          )
      })
      const fiber = yield* Effect.fork(
        Effect.flatMap(AlgalRuntime.AlgalRuntime, (rt) => rt.run(m, { in: { t: "x" } }, { executors: [slow] }))
      )
      yield* TestClock.adjust("2 seconds")
      const out = yield* Fiber.join(fiber)
      assert.deepStrictEqual((out.receipt.effects[0] as EffectRequest.EffectReceipt).error, {
        code: "BUDGET_EXHAUSTED",
        message: "effect exceeded maxEffectMs 1000"
      })
      assert.deepStrictEqual(out.receipt.cells.ask!.outputs, { out: "late but fine" })
    }).pipe(Effect.provide(AlgalRuntime.layer)))
})
