import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as EventStore from "../src/EventStore.js"
import * as Session from "../src/Session.js"
import { events, layer, script, workspace } from "./support/env.js"

// The event types of every commit the run makes, in order.
const commits: Array<ReadonlyArray<string>> = []
const counting = Layer.effect(
  EventStore.EventStore,
  Effect.map(EventStore.EventStore, (inner): EventStore.EventStore["Type"] => ({
    ...inner,
    commit: (id, commit) => {
      commits.push(commit.events.map((e) => e.type))
      return inner.commit(id, commit)
    }
  }))
).pipe(Layer.provide(EventStore.layerMemory))

const reads = (n: number) =>
  script(
    ...Array.from({ length: n }, (_, i) => ({ toolCalls: [{ name: "read", input: { path: `${i}.txt` } }] })),
    { text: "All read." }
  )

describe("Session: commits per tool call (ADR 0567)", () => {
  it.effect("a turn of one call is two commits: the reply with the decision, the result; the heartbeat rides on", () =>
    Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const ws = workspace()
      for (let i = 0; i < 3; i++) fs.writeFileSync(path.join(ws, `${i}.txt`), `${i}\n`)
      const { id } = yield* sessions.create({ workspace: ws })
      commits.length = 0
      const outcome = yield* sessions.run(id, "Read the three files")
      assert.strictEqual(outcome.status, "completed")
      // run.start; per turn: model reply + decision, then the result; the final reply; the settle;
      // the session's meta.
      assert.strictEqual(commits.length, 1 + 3 * 2 + 1 + 1 + 1, JSON.stringify(commits))
      const decisions = commits.filter((c) => c.includes("tool.call"))
      assert.strictEqual(decisions.length, 3)
      for (const [i, c] of decisions.entries()) {
        assert.deepStrictEqual(c.slice(0, 2), i === 0 ? ["model.call", "tool.call"] : ["heartbeat", "model.call"])
        assert.isFalse(c.includes("tool.result"), "the decision commits before the tool runs (ADR 0560)")
      }
      // The stream reads as it did with a commit per step.
      const types = (yield* events(id)).map(([t]) => t).filter((t) => t !== "hook" && t !== "approval")
      assert.deepStrictEqual(types.slice(0, 6), [
        "run.start",
        "message",
        "model.call",
        "tool.call",
        "tool.result",
        "heartbeat"
      ])
      assert.isTrue((yield* sessions.verify(id)).verified)
    }).pipe(Effect.provide(layer(reads(3), { extra: counting }))))
})
