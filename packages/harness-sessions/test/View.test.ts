/**
 * A session's view reads only `Transcript.viewTypes`: the runs and the pending calls it shows must
 * be the same as from the whole stream, at every point of a session with asks, approvals,
 * refusals, tool results and several runs.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as EventStore from "../src/EventStore.js"
import * as Transcript from "../src/internal/transcript.js"
import * as Session from "../src/Session.js"
import { layer, script, workspace } from "./support/env.js"

const sameView = (id: string) =>
  Effect.gen(function*() {
    const store = yield* EventStore.EventStore
    const all = yield* store.read(id)
    const view = yield* store.read(id, { types: Transcript.viewTypes })
    assert.isBelow(view.length, all.length)
    assert.deepStrictEqual(view, all.filter((e) => Transcript.viewTypes.includes(e.type)))
    assert.deepStrictEqual(Transcript.runs(view), Transcript.runs(all))
    assert.deepStrictEqual(Transcript.pending(view), Transcript.pending(all))
    const shown = yield* Effect.flatMap(Session.Sessions, (s) => s.show(id))
    assert.deepStrictEqual([shown.runs, shown.pending, shown.events], [
      Transcript.runs(all),
      Transcript.pending(all),
      all.length
    ])
  })

describe("Session: the view reads only the events it shows", () => {
  it.effect("runs and pending calls from the view's types equal those from the whole stream", () =>
    Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const { id } = yield* sessions.create({ workspace: workspace(), level: "assist" })
      yield* sessions.run(id, "Say hi in the shell")
      yield* sameView(id)
      const pending = (yield* sessions.show(id)).pending
      assert.strictEqual(pending.length, 1)
      yield* sessions.approve(id, pending[0]!.callId, { remember: true, by: "alice" })
      yield* sameView(id)
      yield* sessions.run(id, "Again, and read a file")
      yield* sameView(id)
      assert.deepStrictEqual((yield* sessions.reopen(id)).runs, (yield* sessions.show(id)).runs)
    }).pipe(Effect.provide(layer(script(
      { toolCalls: [{ name: "shell", input: { command: "node -e \"console.log(11)\"" } }] },
      { text: "The shell call needs approval." },
      { text: "It printed." },
      {
        toolCalls: [
          { name: "shell", input: { command: "node -e \"console.log(22)\"" } },
          { name: "read", input: { path: "missing.txt" } },
          { name: "shell", input: { command: "rm -rf ~" } }
        ]
      },
      { text: "Done." }
    )))))
})
