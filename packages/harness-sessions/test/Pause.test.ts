/**
 * An ask nobody can answer pauses the run at that call, durably; an answer resumes the same run
 * there without a new model call (issue 35 item 2, ADR 0573).
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as EventStore from "../src/EventStore.js"
import * as ScriptedModel from "../src/ScriptedModel.js"
import * as Session from "../src/Session.js"
import * as Tools from "../src/Tools.js"
import { events, script, workspace } from "./support/env.js"

/** What the model was asked: one entry per model call, its prompt's messages. */
interface Calls {
  readonly prompts: Array<ReadonlyArray<Prompt.Message>>
}

// The scripted model, counted: every call the harness makes is one served turn of the script.
const counted = (text: string, calls: Calls, offsets: ScriptedModel.Offsets = {}) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    Effect.gen(function*() {
      const turns = yield* ScriptedModel.parse(text)
      const inner = yield* ScriptedModel.makeModel(turns, offsets.agent)
      return {
        ...inner,
        generateText: ((options: any) =>
          Effect.suspend(() => {
            calls.prompts.push((options.prompt as Prompt.Prompt).content)
            return inner.generateText(options)
          })) as typeof inner.generateText
      }
    })
  )

const layerWith = (store: Layer.Layer<EventStore.EventStore, any>, text: string, calls: Calls) =>
  Session.layer({ lease: { owner: `test ${Math.random()}` } }).pipe(
    Layer.provideMerge(Layer.mergeAll(
      store,
      counted(text, calls),
      NodeContext.layer,
      FetchHttpClient.layer,
      Tools.layerAskUserUnavailable
    )),
    Layer.orDie
  )

// One turn proposes an ask (a shell command at `assist`) and a read after it; the next ends.
const askThenRead = script(
  {
    toolCalls: [
      { name: "shell", input: { command: "node -e \"console.log(11)\"" } },
      { name: "read", input: { path: "a.txt" } }
    ]
  },
  { text: "Done." }
)

const seeded = () => {
  const ws = workspace()
  fs.writeFileSync(path.join(ws, "a.txt"), "alpha\n")
  return ws
}

const toolResults = (messages: ReadonlyArray<Prompt.Message>) =>
  messages.flatMap((m) => m.role === "tool" ? m.content.map((p) => p as { id: string; result: unknown }) : [])

describe("Sessions: an ask pauses the run at that call", () => {
  it.effect("the paused store holds run.pause and no settle; approve completes the same run with no model call of its own", () => {
    const calls: Calls = { prompts: [] }
    return Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const store = yield* EventStore.EventStore
      const { id } = yield* sessions.create({ workspace: seeded(), level: "assist" })
      const paused = yield* sessions.run(id, "Say hi, then read a.txt")
      assert.deepStrictEqual([paused.status, paused.pending?.tool, paused.pending?.scope], [
        "paused",
        "shell",
        "node -e *"
      ])
      let es = yield* events(id)
      assert.deepStrictEqual(es.filter(([t]) => t === "run.pause").length, 1)
      assert.isFalse(es.some(([t]) => t === "run.settle" || t === "tool.refused"))
      // The read after the ask waits: it is not decided before the answer.
      assert.deepStrictEqual(es.filter(([t]) => t === "tool.call").map(([, d]) => d.tool), ["shell"])
      assert.isTrue(Option.isNone(yield* store.lease(id)), "the lease is released at the pause")
      const modelCallsAtPause = es.filter(([t]) => t === "model.call").length
      assert.deepStrictEqual([modelCallsAtPause, calls.prompts.length], [1, 1])

      const approved = yield* sessions.approve(id, paused.pending!.callId, { by: "alice" })
      assert.deepStrictEqual([approved.run, approved.status, approved.pending], [paused.run, "completed", null])
      es = yield* events(id)
      // The approval adds no model call: the one after the tool round is the continuation the
      // model makes anyway (the script's second and last turn).
      const settle = es.find(([t]) => t === "run.settle")![1]
      assert.deepStrictEqual([es.filter(([t]) => t === "model.call").length, settle.modelCalls, calls.prompts.length], [
        2,
        2,
        2
      ])
      assert.deepStrictEqual(es.filter(([t]) => t === "run.start").length, 1)
      const results = es.filter(([t]) => t === "tool.result").map(([, d]) => [d.tool, d.ok, d.output.split("\n")[0]])
      assert.deepStrictEqual(results, [["shell", true, "11"], ["read", true, "alpha"]])
      assert.deepStrictEqual(toolResults(calls.prompts[1]!).map((p) => p.id), [
        paused.pending!.callId,
        es.filter(([t]) => t === "tool.call").at(-1)![1].callId
      ])
      assert.isTrue((yield* sessions.verify(id)).verified)
    }).pipe(Effect.provide(layerWith(EventStore.layerMemory, askThenRead, calls)))
  })

  it.effect("reject with a reason: the model reads it as the call's result in the same run, and the loop goes on", () => {
    const calls: Calls = { prompts: [] }
    return Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const { id } = yield* sessions.create({ workspace: seeded(), level: "assist" })
      const paused = yield* sessions.run(id, "Say hi, then read a.txt")
      const rejected = yield* sessions.reject(id, paused.pending!.callId, { by: "bob", reason: "use the read tool" })
      assert.deepStrictEqual([rejected.run, rejected.status], [paused.run, "completed"])
      const es = yield* events(id)
      const refused = es.find(([t]) => t === "tool.refused")![1]
      assert.deepStrictEqual([refused.by, refused.name, refused.reason], ["person", "bob", "use the read tool"])
      assert.deepStrictEqual(es.filter(([t]) => t === "tool.result").map(([, d]) => d.tool), ["read"])
      const answered = toolResults(calls.prompts[1]!).find((p) => p.id === paused.pending!.callId)!
      assert.include(String(answered.result), "REJECTED by bob: use the read tool")
      assert.strictEqual(calls.prompts.length, 2)
      assert.isTrue((yield* sessions.verify(id)).verified)
    }).pipe(Effect.provide(layerWith(EventStore.layerMemory, askThenRead, calls)))
  })

  it.effect("answering a call that is not the open pause is INVALID_INPUT naming the call; nothing is written", () => {
    const calls: Calls = { prompts: [] }
    return Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const { id } = yield* sessions.create({ workspace: seeded(), level: "assist" })
      const paused = yield* sessions.run(id, "Say hi, then read a.txt")
      const before = (yield* events(id)).length
      const wrong = yield* Effect.flip(sessions.approve(id, "call_9_9"))
      assert.deepStrictEqual(wrong.code, "INVALID_INPUT")
      assert.include(wrong.message, "call_9_9")
      assert.include(wrong.message, `paused at call ${paused.pending!.callId}`)
      const badReject = yield* Effect.flip(sessions.reject(id, "call_9_9", { reason: "no" }))
      assert.include(badReject.message, "call_9_9")
      assert.strictEqual((yield* events(id)).length, before)
      yield* sessions.approve(id, paused.pending!.callId)
      const twice = yield* Effect.flip(sessions.reject(id, paused.pending!.callId))
      assert.include(twice.message, "no run is paused")
    }).pipe(Effect.provide(layerWith(EventStore.layerMemory, askThenRead, calls)))
  })

  it.effect("resume leaves a paused run paused; a new request settles it needs_person naming the call", () => {
    const calls: Calls = { prompts: [] }
    return Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const { id } = yield* sessions.create({ workspace: seeded(), level: "assist" })
      const paused = yield* sessions.run(id, "Say hi, then read a.txt")
      const again = yield* sessions.resume(id)
      assert.deepStrictEqual([again.status, again.pending?.callId], ["paused", paused.pending!.callId])
      assert.strictEqual(calls.prompts.length, 1)
      const view = yield* sessions.reopen(id)
      assert.strictEqual(view.runs[0]!.status, "paused")
      const next = yield* sessions.run(id, "Never mind; say done")
      assert.strictEqual(next.status, "completed")
      const es = yield* events(id)
      const first = es.find(([t]) => t === "run.settle")![1]
      assert.deepStrictEqual([first.status, first.code, first.pending], ["interrupted", "needs_person", [
        paused.pending!.callId
      ]])
      assert.include(first.reason, `call ${paused.pending!.callId} (shell) was never answered`)
      assert.deepStrictEqual((yield* sessions.show(id)).pending, [])
      assert.isTrue((yield* sessions.verify(id)).verified)
    }).pipe(Effect.provide(layerWith(EventStore.layerMemory, askThenRead, calls)))
  })

  it.effect("an answer from another process (another layer on the same SQLite file) resumes the paused run there", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "harness-pause-")), "steward.sqlite")
    const sql = () => EventStore.layerSql.pipe(Layer.provide(SqliteClient.layer({ filename: file })))
    const one: Calls = { prompts: [] }
    const two: Calls = { prompts: [] }
    return Effect.gen(function*() {
      const ws = seeded()
      const first = yield* Effect.gen(function*() {
        const sessions = yield* Session.Sessions
        const { id } = yield* sessions.create({ workspace: ws, level: "assist" })
        return yield* sessions.run(id, "Say hi, then read a.txt")
      }).pipe(Effect.provide(layerWith(sql(), askThenRead, one)))
      assert.strictEqual(first.status, "paused")
      // The other process's script is served from where the stored model calls left it.
      const done = yield* Effect.gen(function*() {
        const sessions = yield* Session.Sessions
        const outcome = yield* sessions.approve(first.session, first.pending!.callId, { by: "alice" })
        return { outcome, verified: (yield* sessions.verify(first.session)).verified }
      }).pipe(Effect.provide(layerWith(sql(), askThenRead.split("\n").slice(1).join("\n"), two)))
      assert.deepStrictEqual([done.outcome.run, done.outcome.status, done.verified], [first.run, "completed", true])
      assert.deepStrictEqual([one.prompts.length, two.prompts.length], [1, 1])
    })
  })
})
