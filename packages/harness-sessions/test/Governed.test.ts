import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Session from "../src/Session.js"
import { alice, events, layer, script, workspace } from "./support/env.js"

describe("Session: asks, approvals and the reviewer", () => {
  it.effect("an ask with no responder pauses the run; approve-and-remember saves the shown scope and the next call cites it", () =>
    Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const { id } = yield* sessions.create({ workspace: workspace(), level: "assist" })
      const first = yield* sessions.run(id, "Run the tests")
      assert.strictEqual(first.status, "paused")
      let es = yield* events(id)
      const pause = es.find(([t]) => t === "run.pause")![1]
      assert.deepStrictEqual([pause.tool, pause.scope, first.pending?.callId], ["shell", "node --test *", pause.callId])
      assert.isTrue(es.some(([t, d]) => t === "approval" && d.answer === "unanswered"))
      assert.isFalse(es.some(([t]) => t === "tool.refused" || t === "run.settle"))
      const view = yield* sessions.show(id)
      assert.deepStrictEqual(view.pending.map((p) => p.callId), [pause.callId])
      assert.deepStrictEqual([view.runs[0]!.status, view.orphaned], ["paused", false])

      const approved = yield* sessions.approve(id, pause.callId, { remember: true, by: "alice" })
      assert.deepStrictEqual([approved.run, approved.status], [first.run, "completed"])
      assert.deepStrictEqual(approved.remembered, {
        id: "remembered.shell.1",
        action: "shell",
        resource: "node --test *",
        effect: "allow",
        note: "approved and remembered by alice"
      })
      es = yield* events(id)
      const notice = es.find(([t, d]) => t === "notice" && d.cause === "rule")![1]
      assert.include(notice.text, `allow shell "node --test *"`)
      const answer = es.find(([t, d]) => t === "approval" && d.paused === true)![1]
      assert.deepStrictEqual([answer.by, answer.name, answer.answer, typeof answer.at, answer.remembered], [
        "person",
        "alice",
        "allow",
        "number",
        "remembered.shell.1"
      ])
      assert.deepStrictEqual(es.filter(([t]) => t === "tool.result").length, 1)
      assert.deepStrictEqual((yield* sessions.show(id)).pending, [])
      assert.deepStrictEqual((yield* sessions.show(id)).remembered.map((r) => r.id), ["remembered.shell.1"])

      const again = yield* sessions.run(id, "Run them again")
      assert.strictEqual(again.status, "completed")
      es = yield* events(id)
      const next = es.filter(([t]) => t === "tool.call").at(-1)![1]
      assert.deepStrictEqual([next.decision, next.citation.ruleId, next.approval.by], [
        "allow",
        "remembered.shell.1",
        "rule"
      ])
      assert.isTrue((yield* sessions.verify(id)).verified)
    }).pipe(Effect.provide(layer(script(
      { toolCalls: [{ name: "shell", input: { command: "node --test" } }] },
      { text: "The tests ran." },
      { toolCalls: [{ name: "shell", input: { command: "node --test" } }] },
      { text: "Ran again." }
    )))))

  // Issue 35 acceptance: the next matching call is allowed by the saved rule; a force push is
  // still denied; a call no honoured scope covers is refused with governance's reason.
  for (
    const [first, scope, next] of [
      ["git push origin main", "git push origin *", "git push origin main"],
      ["psql -c 'select 1'", "psql -c *", "psql -c 'select 2'"]
    ] as const
  ) {
    it.effect(`remembering ${first} saves ${scope}; ${next} runs citing it`, () =>
      Effect.gen(function*() {
        const sessions = yield* Session.Sessions
        const { id } = yield* sessions.create({ workspace: workspace(), level: "assist" })
        const paused = yield* sessions.run(id, "First")
        assert.strictEqual(paused.pending?.scope, scope)
        const approved = yield* sessions.approve(id, paused.pending!.callId, { remember: true })
        assert.strictEqual(approved.remembered?.resource, scope)
        yield* sessions.run(id, "Next")
        const calls = (yield* events(id)).filter(([t]) => t === "tool.call").map(([, d]) => d)
        assert.deepStrictEqual([calls[1].decision, calls[1].citation.ruleId], ["allow", "remembered.shell.1"])
        if (first.startsWith("git")) assert.strictEqual(calls[2].decision, "deny")
      }).pipe(Effect.provide(layer(script(
        { toolCalls: [{ name: "shell", input: { command: first } }] },
        { text: "Done." },
        {
          toolCalls: [
            { name: "shell", input: { command: next } },
            ...(first.startsWith("git") ? [{ name: "shell", input: { command: "git push --force origin main" } }] : [])
          ]
        },
        { text: "Done again." }
      )))))
  }

  it.effect("remember refuses with governance's reason when no honoured scope exists, and checks an edited one", () =>
    Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const { id } = yield* sessions.create({ workspace: workspace(), level: "assist" })
      const paused = yield* sessions.run(id, "Print")
      const call = paused.pending!
      assert.strictEqual(call.scope, null)
      assert.isString(call.unscoped)
      const refused = yield* Effect.flip(sessions.approve(id, call.callId, { remember: true }))
      assert.strictEqual(refused.code, "INVALID_INPUT")
      assert.include(refused.message, call.unscoped!)
      const wide = yield* Effect.flip(sessions.approve(id, call.callId, { scope: "*" }))
      assert.include(wide.message, `cannot remember "*"`)
      assert.deepStrictEqual((yield* sessions.show(id)).pending.map((p) => p.callId), [call.callId])
      const once = yield* sessions.approve(id, call.callId)
      assert.deepStrictEqual([once.status, once.remembered], ["completed", null])
    }).pipe(Effect.provide(layer(script(
      { toolCalls: [{ name: "shell", input: { command: "touch \"$(date +%s).txt\"" } }] },
      { text: "Printed." }
    )))))

  it.effect("a responder's answer is recorded with the person and the time", () =>
    Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const { id } = yield* sessions.create({ workspace: workspace(), level: "assist" })
      yield* sessions.run(id, "Say hi")
      const es = yield* events(id)
      const call = es.find(([t]) => t === "tool.call")![1]
      assert.deepStrictEqual([call.decision, call.approval.by, call.approval.name, typeof call.approval.at], [
        "allow",
        "person",
        "alice",
        "number"
      ])
    }).pipe(Effect.provide(layer(
      script({ toolCalls: [{ name: "shell", input: { command: "touch x.txt" } }] }, { text: "ok" }),
      { extra: alice("allow") }
    ))))

  it.live("a reviewer command that times out fails closed (deny), before any person is asked", () =>
    Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const { id } = yield* sessions.create({
        workspace: workspace(),
        level: "assist",
        reviewer: { command: ["sh", "-c", "sleep 5"], timeoutMs: 300 }
      })
      yield* sessions.run(id, "Say hi")
      const es = yield* events(id)
      const review = es.find(([t, d]) => t === "approval" && d.by === "reviewer")![1]
      assert.deepStrictEqual([review.answer, review.failedClosed], ["deny", true])
      assert.include(review.reason, "timed out")
      const refused = es.find(([t]) => t === "tool.refused")![1]
      assert.deepStrictEqual([refused.decision, refused.pending], ["ask", false])
      assert.include(refused.reason, "denied by the reviewer")
      assert.isFalse(es.some(([t, d]) => t === "approval" && d.by === "person"))
      assert.isFalse(es.some(([t]) => t === "tool.result"))
    }).pipe(Effect.provide(layer(
      script({ toolCalls: [{ name: "shell", input: { command: "touch x.txt" } }] }, { text: "refused" }),
      { extra: alice("allow") }
    ))))

  it.live("a reviewer that allows approves the call (recorded as the reviewer)", () =>
    Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const { id } = yield* sessions.create({
        workspace: workspace(),
        level: "assist",
        reviewer: { command: ["sh", "-c", `cat >/dev/null; echo '{"decision":"allow","reason":"harmless echo"}'`] }
      })
      yield* sessions.run(id, "Say hi")
      const es = yield* events(id)
      const call = es.find(([t]) => t === "tool.call")![1]
      assert.deepStrictEqual([call.approval.by, call.approval.reason], ["reviewer", "harmless echo"])
      assert.isTrue(es.find(([t]) => t === "tool.result")![1].ok)
    }).pipe(Effect.provide(layer(
      script({ toolCalls: [{ name: "shell", input: { command: "touch x.txt" } }] }, { text: "ok" })
    ))))
})

describe("Session: the harness's baseline rules", () => {
  it.effect("todo_write and ask_user are allowed by the baseline below autonomous; a session rule still wins", () =>
    Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const { id } = yield* sessions.create({ workspace: workspace(), level: "assist" })
      yield* sessions.run(id, "Plan the work")
      const calls = (yield* events(id)).filter(([t]) => t === "tool.call").map(([, d]) => [
        d.tool,
        d.decision,
        d.citation.ruleId
      ])
      assert.deepStrictEqual(calls, [["todo_write", "allow", "harness.todo_write"], [
        "ask_user",
        "allow",
        "harness.ask_user"
      ]])

      const strict = yield* sessions.create({
        workspace: workspace(),
        level: "assist",
        rules: [{ id: "no-questions", action: "mcp", resource: "ask_user", effect: "deny" }]
      })
      yield* sessions.run(strict.id, "Plan the work")
      const refused = (yield* events(strict.id)).filter(([t]) => t === "tool.refused").map(([, d]) => [
        d.tool,
        d.citation.ruleId
      ])
      assert.deepStrictEqual(refused, [["ask_user", "no-questions"]])
    }).pipe(Effect.provide(layer(script(
      {
        toolCalls: [
          { name: "todo_write", input: { todos: [{ content: "read the code", status: "in_progress" }] } },
          { name: "ask_user", input: { question: "Which module first?" } }
        ]
      },
      { text: "Planned." },
      {
        toolCalls: [
          { name: "todo_write", input: { todos: [{ content: "read the code", status: "in_progress" }] } },
          { name: "ask_user", input: { question: "Which module first?" } }
        ]
      },
      { text: "Planned without asking." }
    )))))
})
