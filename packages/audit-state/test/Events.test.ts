import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Events from "../src/Events.js"

const dir = path.join(import.meta.dirname, "fixtures/events")
const lines = fs.readFileSync(path.join(dir, "chain-example.jsonl"), "utf8").split("\n").filter((l) => l.length > 0)
const expected = JSON.parse(fs.readFileSync(path.join(dir, "chain-example.expected.json"), "utf8"))

describe("Events chain", () => {
  it("verifies the example chain and reproduces its head and event ids", () => {
    const s = Events.verify(lines)
    assert.isFalse(Events.isDefect(s))
    if (Events.isDefect(s)) return
    assert.strictEqual(s.heads[s.heads.length - 1], expected.head_after_all)
    assert.deepStrictEqual(s.events.map(Events.eventId), expected.event_ids)
    let head = Events.GENESIS
    const relinked = s.events.map((e) => {
      const l = Events.link(head, e)
      head = l.head
      return l.line
    })
    assert.deepStrictEqual(relinked, lines)
  })
  it("a rewritten line breaks the chain at the next line", () => {
    const tampered = [...lines]
    tampered[1] = tampered[1]!.replace("accepted", "rejected")
    const s = Events.verify(tampered)
    assert.isTrue(Events.isDefect(s))
    if (Events.isDefect(s)) {
      assert.strictEqual(s.state, "broken")
      assert.strictEqual(s.line, 3)
      assert.include(s.message, "the chain breaks HERE")
    }
  })
  it("legacy unchained lines seed the chain", () => {
    const legacy = JSON.stringify({
      event: "gate_reached",
      gate: "done",
      ts: "2026-08-01T00:00:00+00:00",
      session_id: null
    })
    const s = Events.verify([legacy])
    assert.isFalse(Events.isDefect(s))
    if (!Events.isDefect(s)) assert.strictEqual(s.legacy, 1)
    const bad = Events.verify(["{\"event\":\"nope\",\"ts\":\"x\"}"])
    assert.isTrue(Events.isDefect(bad))
  })
  it("anchor status: intact, short, replaced", () => {
    const heads = ["a", "b", "c"]
    const at = (k: number) => heads[k]
    assert.strictEqual(Events.anchorStatus({ digest: "b", events: 1, state_revision: 1 }, 2, at), "intact")
    assert.strictEqual(Events.anchorStatus({ digest: "c", events: 3, state_revision: 1 }, 2, at), "short")
    assert.strictEqual(Events.anchorStatus({ digest: "x", events: 1, state_revision: 1 }, 2, at), "replaced")
  })
})
