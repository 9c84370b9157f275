/**
 * An event as one NDJSON line (issue 35 item 1): one JSON object per line, never a line break
 * inside, read back by the event's Schema to the same event.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as Event from "../src/Event.js"
import * as EventJson from "../src/EventJson.js"
import * as EventStore from "../src/EventStore.js"
import * as Session from "../src/Session.js"
import { layer, script, workspace } from "./support/env.js"

const encoded = Schema.encodeSync(Event.SessionEvent)
const decoded = Schema.decodeUnknownSync(Schema.parseJson(Event.SessionEvent))

describe("EventJson", () => {
  it.effect("every event of a run, and hostile text, round-trips through one line each", () =>
    Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const { id } = yield* sessions.create({ workspace: workspace(), level: "assist" })
      yield* sessions.run(id, "Say hi\nin the shell")
      const store = yield* EventStore.EventStore
      yield* store.commit(id, {
        events: [
          Event.make(null, "host.note", {
            text: "line\nbreak\r\nand \u2028 \u2029 \"quotes\" \\ \u0000 ü 😀",
            n: -0.5,
            list: [1, null, { deep: true }]
          })
        ]
      })
      const events = yield* store.read(id)
      const text = events.map(EventJson.line).join("\n") + "\n"
      const lines = text.split("\n").slice(0, -1)
      assert.strictEqual(lines.length, events.length)
      for (const [i, line] of lines.entries()) {
        const e = events[i]!
        // The same object the Schema encodes, and the Schema reads it back as the same event.
        assert.deepStrictEqual(JSON.parse(line), encoded(e))
        assert.deepStrictEqual(encoded(decoded(line)), encoded(e))
        assert.deepStrictEqual(encoded(yield* EventJson.parse(line)), encoded(e))
      }
    }).pipe(Effect.provide(layer(script(
      { toolCalls: [{ name: "shell", input: { command: "node -e \"console.log(11)\"" } }] },
      { text: "The shell call needs approval." }
    )))))

  it.effect("a line that is not an event is refused, naming where", () =>
    Effect.gen(function*() {
      const notJson = yield* Effect.flip(EventJson.parse("{", "stdin line 3"))
      assert.strictEqual(notJson.code, "INVALID_INPUT")
      assert.match(notJson.message, /^stdin line 3: not a session event/)
      const noSeq = yield* Effect.flip(EventJson.parse(`{"session":"s","at":0,"run":null,"type":"x","data":1}`))
      assert.include(noSeq.message, "seq")
      const badType = yield* Effect.flip(
        EventJson.parse(`{"session":"s","seq":1,"at":0,"run":null,"type":"Not A Type","data":1}`)
      )
      assert.strictEqual(badType.code, "INVALID_INPUT")
    }))
})
