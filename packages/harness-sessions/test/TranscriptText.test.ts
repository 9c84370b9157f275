/**
 * The public transcript renderer (issue 35 item 1): a pure function of one event, the lines the
 * CLI prints for a stored stream and a live follow alike.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Event from "../src/Event.js"
import * as EventStore from "../src/EventStore.js"
import * as Session from "../src/Session.js"
import * as TranscriptText from "../src/TranscriptText.js"
import { layer, script, workspace } from "./support/env.js"

const event = (type: string, data: unknown, run: string | null = "s.r1") =>
  new Event.SessionEvent({ session: "s", seq: 1, at: 0, run, type, data })

describe("TranscriptText", () => {
  it.effect("a run's events read as a transcript: the start, the pause with how to answer, the rejection, the settle", () =>
    Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const { id } = yield* sessions.create({ workspace: workspace(), level: "assist" })
      const paused = yield* sessions.run(id, "Say hi in the shell")
      yield* sessions.reject(id, paused.pending!.callId, { by: "alice", reason: "not now" })
      const events = yield* Effect.flatMap(EventStore.EventStore, (store) => store.read(id))
      const lines = events.map(TranscriptText.line)
      const of = (type: string) => lines.filter((_, i) => events[i]!.type === type)
      assert.deepStrictEqual(of("run.start"), [`── run ${id}.r1 (person)`])
      assert.deepStrictEqual(of("message"), ["person: Say hi in the shell", "model:  The shell call was rejected."])
      const pause = TranscriptText.line(events.find((e) => e.type === "run.pause")!)!
      const callId = paused.pending!.callId
      assert.match(pause, new RegExp(`^── paused at shell call ${callId}: needs approval \\(`))
      assert.include(pause, `remember would save "node -e *"`)
      assert.include(pause, `steward session approve ${id} ${callId} [--remember]`)
      assert.include(pause, `steward session reject ${id} ${callId} [--reason TEXT]`)
      assert.deepStrictEqual(
        of("approval").filter((l) => l !== undefined).at(-1),
        `  ✗ alice rejected ${callId}: not now`
      )
      assert.deepStrictEqual(of("run.settle"), ["── settled completed"])
      // Hooks and heartbeats leave no line; the transcript is the other lines, in order.
      assert.isTrue(of("hook").every((l) => l === undefined))
      assert.strictEqual(TranscriptText.text(events), lines.filter((l) => l !== undefined).join("\n"))
    }).pipe(Effect.provide(layer(script(
      { toolCalls: [{ name: "shell", input: { command: "node -e \"console.log(11)\"" } }] },
      { text: "The shell call was rejected." }
    )))))

  it("is a pure function of the event: any type, any data, never a throw", () => {
    const note = event("host.note", { text: "from the host" }, null)
    assert.strictEqual(TranscriptText.line(note), `  [host.note] {"text":"from the host"}`)
    assert.strictEqual(TranscriptText.line(note), TranscriptText.line(note))
    for (const type of Event.types) {
      for (const data of [null, 7, "text", [], {}]) assert.doesNotThrow(() => TranscriptText.line(event(type, data)))
    }
    assert.strictEqual(TranscriptText.line(event("heartbeat", {})), undefined)
    assert.strictEqual(
      TranscriptText.line(event("run.settle", { status: "interrupted", code: "needs_person", reason: "asked" })),
      "── settled interrupted{needs_person}: asked"
    )
    assert.strictEqual(TranscriptText.text([]), "")
  })
})
