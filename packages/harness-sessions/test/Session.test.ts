import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Session from "../src/Session.js"
import { events, layer, script, workspace } from "./support/env.js"

describe("Session: runs and settles", () => {
  it.effect("a plain reply settles completed, with a checkpoint, and the chain verifies", () =>
    Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const ws = workspace()
      const created = yield* sessions.create({ workspace: ws })
      const outcome = yield* sessions.run(created.id, "Say hello")
      assert.strictEqual(outcome.status, "completed")
      assert.isNull(outcome.code)
      const types = (yield* events(created.id)).map(([t]) => t)
      assert.deepStrictEqual(types, [
        "run.start",
        "message",
        "model.call",
        "message",
        "hook",
        "checkpoint",
        "run.settle"
      ])
      const verified = yield* sessions.verify(created.id)
      assert.isTrue(verified.verified, JSON.stringify(verified))
      assert.strictEqual(verified.revisions, 1)
    }).pipe(Effect.provide(layer(script({ text: "Hello." })))))

  it.effect("tool calls run through governance: allowed calls execute, a deny is relayed with its citation", () =>
    Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const ws = workspace()
      fs.writeFileSync(path.join(ws, "a.txt"), "alpha\n")
      const { id } = yield* sessions.create({ workspace: ws })
      const outcome = yield* sessions.run(id, "Look around")
      assert.strictEqual(outcome.status, "completed")
      const es = yield* events(id)
      const calls = es.filter(([t]) => t === "tool.call").map(([, d]) => [d.tool, d.decision, d.approval?.by ?? null])
      assert.deepStrictEqual(calls, [["read", "allow", "rule"], ["shell", "deny", null]])
      const refused = es.find(([t]) => t === "tool.refused")![1]
      assert.strictEqual(refused.citation.layer, "universal")
      assert.isString(refused.citation.ruleId)
      const result = es.find(([t]) => t === "tool.result")![1]
      assert.include(result.output, "alpha")
      assert.isTrue(es.some(([t, d]) => t === "hook" && d.hook === "audit_pretool"))
      assert.deepStrictEqual(outcome.checkpoint.done.length, 1)
    }).pipe(Effect.provide(layer(script(
      { toolCalls: [{ name: "read", input: { path: "a.txt" } }, { name: "shell", input: { command: "rm -rf ~" } }] },
      { text: "Read a.txt; the delete was refused." }
    )))))
})

describe("Session: the work-slice guard", () => {
  it.effect("a slice boundary continues in place with a checkpoint and a notice", () =>
    Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const ws = workspace()
      for (const f of ["a", "b", "c", "d"]) fs.writeFileSync(path.join(ws, `${f}.txt`), `${f}\n`)
      const { id } = yield* sessions.create({ workspace: ws, workSlice: { maxCalls: 2 } })
      const outcome = yield* sessions.run(id, "Read everything")
      assert.strictEqual(outcome.status, "completed")
      const es = yield* events(id)
      const notices = es.filter(([t, d]) => t === "notice" && d.cause === "slice").map(([, d]) => d.slice)
      assert.deepStrictEqual(notices, [2])
      assert.strictEqual(es.filter(([t]) => t === "checkpoint").length, 2)
      const settle = es.find(([t]) => t === "run.settle")![1]
      assert.strictEqual(settle.slices, 2)
      assert.isTrue((yield* sessions.verify(id)).verified)
    }).pipe(Effect.provide(layer(script(
      { toolCalls: [{ name: "read", input: { path: "a.txt" } }, { name: "read", input: { path: "b.txt" } }] },
      { toolCalls: [{ name: "read", input: { path: "c.txt" } }] },
      { text: "All read." }
    )))))

  it.effect("a fruitless slice stops the run slice_complete; STEWARD_WORK_SLICE-style disabling removes the boundary", () =>
    Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const ws = workspace()
      fs.writeFileSync(path.join(ws, "a.txt"), "a\n")
      const { id } = yield* sessions.create({ workspace: ws, workSlice: { maxCalls: 2 } })
      const outcome = yield* sessions.run(id, "Keep reading")
      assert.strictEqual(outcome.status, "interrupted")
      assert.strictEqual(outcome.code, "slice_complete")
      assert.include(outcome.reason!, "fruitless")
      const es = yield* events(id)
      assert.strictEqual(es.filter(([t, d]) => t === "notice" && d.cause === "slice").length, 1)
      assert.isFalse(es.some(([t]) => t === "tool.refused"))
      const off = yield* sessions.create({ workspace: ws, workSlice: { maxCalls: 2, enabled: false } })
      const free = yield* sessions.run(off.id, "Keep reading")
      assert.strictEqual(free.status, "completed")
    }).pipe(Effect.provide(layer(script(
      { toolCalls: [{ name: "read", input: { path: "a.txt" } }, { name: "read", input: { path: "a.txt" } }] },
      { toolCalls: [{ name: "read", input: { path: "a.txt" } }, { name: "read", input: { path: "a.txt" } }] },
      { toolCalls: [{ name: "read", input: { path: "a.txt" } }, { name: "read", input: { path: "a.txt" } }] },
      { toolCalls: [{ name: "read", input: { path: "a.txt" } }, { name: "read", input: { path: "a.txt" } }] },
      { toolCalls: [{ name: "read", input: { path: "a.txt" } }, { name: "read", input: { path: "a.txt" } }] },
      { text: "Done reading." }
    )))))
})

describe("Session: budgets", () => {
  it.effect("a token budget sends one wrap-up turn and ends the run unfinished", () =>
    Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const ws = workspace()
      fs.writeFileSync(path.join(ws, "a.txt"), "a\n")
      const { id } = yield* sessions.create({ workspace: ws, budget: { tokens: 100 } })
      const outcome = yield* sessions.run(id, "Work")
      assert.strictEqual(outcome.status, "interrupted")
      assert.strictEqual(outcome.code, "unfinished")
      assert.include(outcome.reason!, "token budget reached: 110 of 100")
      const es = yield* events(id)
      const calls = es.filter(([t]) => t === "model.call").map(([, d]) => d.usage)
      assert.deepStrictEqual(calls, [{ input: 90, cachedInput: 10, output: 30 }, {
        input: 0,
        cachedInput: 0,
        output: 0
      }])
      assert.isTrue(es.some(([t, d]) => t === "notice" && d.cause === "budget"))
    }).pipe(Effect.provide(layer(script(
      { toolCalls: [{ name: "read", input: { path: "a.txt" } }], usage: { input: 90, cachedInput: 10, output: 30 } },
      { text: "Summary: read a.txt; next, edit it." }
    )))))
})

describe("Session: a person's interrupt", () => {
  it.effect("a completed abort signal settles the run interrupted{aborted} with a checkpoint", () =>
    Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const { id } = yield* sessions.create({ workspace: workspace() })
      const abort = yield* Deferred.make<void>()
      yield* Deferred.succeed(abort, undefined)
      const outcome = yield* sessions.run(id, "Work", { abort })
      assert.deepStrictEqual([outcome.status, outcome.code], ["interrupted", "aborted"])
      assert.strictEqual(outcome.checkpoint.asked, "Work")
      const types = (yield* events(id)).map(([t]) => t)
      assert.notInclude(types, "model.call")
      assert.isTrue((yield* sessions.verify(id)).verified)
    }).pipe(Effect.provide(layer(script({ text: "never" })))))
})

describe("Session: cost budgets", () => {
  it.effect("a cost budget from the price table ends the run unfinished after one wrap-up turn", () =>
    Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const ws = workspace()
      fs.writeFileSync(path.join(ws, "a.txt"), "a\n")
      const { id } = yield* sessions.create({
        workspace: ws,
        budget: { cost: 0.01, prices: { scripted: { input: 10, cachedInput: 1, output: 30 } } }
      })
      const outcome = yield* sessions.run(id, "Work")
      assert.deepStrictEqual([outcome.status, outcome.code], ["interrupted", "unfinished"])
      assert.include(outcome.reason!, "cost budget reached")
      const costs = (yield* events(id)).filter(([t]) => t === "model.call").map(([, d]) => d.cost)
      // 900 uncached input × 10 + 100 cached × 1 + 100 output × 30, per million tokens
      assert.closeTo(costs[0], 0.0121, 1e-9)
    }).pipe(Effect.provide(layer(
      script(
        {
          toolCalls: [{ name: "read", input: { path: "a.txt" } }],
          usage: { input: 1000, cachedInput: 100, output: 100 }
        },
        { text: "Summary and the next step." }
      ),
      { modelName: "scripted" }
    ))))
})

describe("Session: ids", () => {
  it.effect("sessions created in the same second get distinct generated ids (a drawn id that is taken is drawn again)", () =>
    Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const ws = workspace()
      // The test clock stands still: every id carries the same second.
      const ids = yield* Effect.forEach(Array.from({ length: 600 }), () => sessions.create({ workspace: ws }))
      assert.strictEqual(new Set(ids.map((v) => v.id)).size, 600)
    }).pipe(Effect.provide(layer(script({ text: "unused" })))))
})
