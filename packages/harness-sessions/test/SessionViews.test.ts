/**
 * `SessionViews` reads a session from the event store alone and must return exactly what the
 * sessions service shows and lists, at every point of a session with asks, approvals and runs.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as EventStore from "../src/EventStore.js"
import * as Session from "../src/Session.js"
import * as SessionViews from "../src/SessionViews.js"
import { layer, script, workspace } from "./support/env.js"

const sameAsService = (id: string) =>
  Effect.gen(function*() {
    const store = yield* EventStore.EventStore
    const sessions = yield* Session.Sessions
    assert.deepStrictEqual(yield* SessionViews.show(store, id), yield* sessions.show(id))
    assert.deepStrictEqual(yield* SessionViews.list(store), yield* sessions.list)
  })

describe("SessionViews: views from the event store alone", () => {
  it.effect("show and list equal the sessions service's at every step", () =>
    Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const store = yield* EventStore.EventStore
      assert.deepStrictEqual(yield* SessionViews.list(store), [])
      const { id } = yield* sessions.create({ workspace: workspace(), level: "assist" })
      yield* sameAsService(id)
      yield* sessions.run(id, "Say hi in the shell")
      yield* sameAsService(id)
      const pending = (yield* SessionViews.show(store, id)).pending
      assert.strictEqual(pending.length, 1)
      yield* sessions.approve(id, pending[0]!.callId, { remember: true, by: "alice" })
      yield* sameAsService(id)
      const other = yield* sessions.create({ workspace: workspace(), level: "read_only" })
      yield* sameAsService(other.id)
      assert.deepStrictEqual((yield* SessionViews.list(store)).map((v) => v.id), [id, other.id])
    }).pipe(Effect.provide(layer(script(
      { toolCalls: [{ name: "shell", input: { command: "node -e \"console.log(11)\"" } }] },
      { text: "It printed." }
    )))))

  it.effect("list summarises each session: first prompt (cut), start time, runs, status, pending approvals", () =>
    Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const store = yield* EventStore.EventStore
      const { createdAt, id } = yield* sessions.create({ workspace: workspace(), level: "assist" })
      const empty = (yield* SessionViews.list(store))[0]!.summary
      assert.deepStrictEqual(empty, { firstPrompt: null, startedAt: createdAt, runs: 0, status: null, pending: 0 })
      const long = `Say hi in the shell ${"and more ".repeat(30)}`
      yield* sessions.run(id, long)
      const paused = (yield* SessionViews.list(store))[0]!.summary
      const start = (yield* store.read(id)).find((e) => e.type === "run.start")!
      assert.deepStrictEqual(paused, {
        firstPrompt: `${long.slice(0, 119)}…`,
        startedAt: start.at,
        runs: 1,
        status: "paused",
        pending: 1
      })
      yield* sessions.run(id, "Never mind")
      const after = (yield* sessions.list)[0]!.summary
      assert.deepStrictEqual([after.firstPrompt, after.runs, after.status, after.pending], [
        `${long.slice(0, 119)}…`,
        2,
        "completed",
        0
      ])
    }).pipe(Effect.provide(layer(script(
      { toolCalls: [{ name: "shell", input: { command: "node -e \"console.log(11)\"" } }] },
      { text: "Nothing to do." }
    )))))

  it.effect("an unknown session is SESSION_NOT_FOUND", () =>
    Effect.gen(function*() {
      const store = yield* EventStore.EventStore
      const error = yield* Effect.flip(SessionViews.show(store, "nope"))
      assert.strictEqual(error.code, "SESSION_NOT_FOUND")
    }).pipe(Effect.provide(EventStore.layerMemory)))
})
