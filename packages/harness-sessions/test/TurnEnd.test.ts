import { assert, describe, it } from "@effect/vitest"
import { Learning, ReflexConfig, Reflexes, ReflexLedger } from "@steward/reflex-core"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as EventStore from "../src/EventStore.js"
import * as Session from "../src/Session.js"
import * as TranscriptText from "../src/TranscriptText.js"
import { events, layer, script, workspace } from "./support/env.js"

const SHORT = "Parser updated. Next, I'll wire the CLI:"
const DONE = "All tests pass; the PR is merged."

const engine = (config: ReflexConfig.ReflexConfig = ReflexConfig.defaults) =>
  Reflexes.layer({ config }).pipe(Layer.provideMerge(ReflexLedger.layerMemory))

/** A session id whose first run is (or is not) in the one-in-ten hold-back of the stopped_short head. */
const sessionId = (held: boolean, prefix: string): string => {
  for (let i = 0;; i++) {
    const id = `${prefix}${i}`
    if (Learning.heldTurn("unfinished", `${id}.r1`, 0) === held) return id
  }
}

const reads = { toolCalls: Array.from({ length: 3 }, () => ({ name: "read", input: { path: "a.txt" } })) }

// A turn that did real work (60 tool calls) before it stopped short.
const work = { toolCalls: Array.from({ length: 60 }, () => ({ name: "read", input: { path: "a.txt" } })) }

const decisions = (id: string) =>
  Effect.map(
    events(id),
    (es) => es.filter(([t, d]) => t === "reflex.decision" && d.reflex === "settle").map(([, d]) => d)
  )

describe("Session: turn-end reflexes", () => {
  it.effect("a stopped-short turn is continued by a certified head, not by an uncertified or held-back one", () =>
    Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const reflexes = yield* Reflexes.Reflexes
      const ws = workspace()
      fs.writeFileSync(path.join(ws, "a.txt"), "a\n")
      const fresh = yield* sessions.create({ id: "fresh", workspace: ws })
      const before = yield* sessions.run(fresh.id, "Refactor the parser")
      assert.strictEqual(before.status, "completed")
      const [uncertified] = yield* decisions(fresh.id)
      assert.deepStrictEqual([uncertified.mode, uncertified.certified, uncertified.acts, uncertified.action], [
        "auto",
        false,
        false,
        "none"
      ])
      // The person's own history certifies the head.
      for (let i = 1; i <= 60; i++) {
        yield* reflexes.decide("settle", { text: SHORT, toolCalls: 60 }, { subject: `t${i}` })
        yield* reflexes.label("settle", `t${i}`, i % 10 === 0 ? "done" : "unfinished")
      }
      const held = yield* sessions.create({ id: sessionId(true, "held"), workspace: ws })
      yield* sessions.run(held.id, "Refactor the parser")
      const [heldDecision] = yield* decisions(held.id)
      assert.deepStrictEqual([heldDecision.certified, heldDecision.held, heldDecision.action], [true, true, "none"])

      const certified = yield* sessions.create({ id: sessionId(false, "cert"), workspace: ws })
      const outcome = yield* sessions.run(certified.id, "Refactor the parser")
      assert.strictEqual(outcome.status, "completed")
      const [acted, after] = yield* decisions(certified.id)
      assert.deepStrictEqual([acted.category, acted.certified, acted.held, acted.acts, acted.action], [
        "stopped_short",
        true,
        false,
        true,
        "continue"
      ])
      assert.match(acted.receipt, /^sha256:/)
      assert.strictEqual(after.action, "none")
      const es = yield* events(certified.id)
      const notice = es.find(([t, d]) => t === "notice" && d.cause === "reflex")![1]
      assert.strictEqual(notice.receipt, acted.receipt)
      // The continuation is the reflex's act with its receipt, not a person's prompt (issue 35 item 5).
      const carried = es.find(([t, d]) => t === "message" && d.role === "user" && d.by === "reflex")![1]
      assert.strictEqual(carried.receipt, acted.receipt)
      const stored = (yield* Effect.flatMap(EventStore.EventStore, (s) => s.read(certified.id))).find((e) =>
        e.type === "message" && (e.data as any).by === "reflex"
      )!
      assert.strictEqual(
        TranscriptText.line(stored),
        `reflex (receipt ${acted.receipt}) → model: ${(stored.data as any).text}`
      )
      assert.isTrue((yield* sessions.verify(certified.id)).verified)
    }).pipe(
      Effect.provide(
        layer(script(work, { text: SHORT }, work, { text: SHORT }, work, { text: SHORT }, { text: DONE }), {
          extra: engine()
        })
      )
    ))

  it.effect("a go-ahead on a risky turn is never answered; a safe one is", () =>
    Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const ws = workspace()
      fs.writeFileSync(path.join(ws, "a.txt"), "a\n")
      const { id } = yield* sessions.create({ workspace: ws })
      yield* sessions.run(id, "Stage the migration")
      const [risky] = yield* decisions(id)
      assert.deepStrictEqual([risky.category, risky.vetoed, risky.action], ["confirm", true, "none"])
      const safe = yield* sessions.create({ workspace: ws })
      yield* sessions.run(safe.id, "Fix the bug")
      const [answered] = yield* decisions(safe.id)
      assert.deepStrictEqual([answered.category, answered.vetoed, answered.action], ["confirm", false, "answer"])
      const es = yield* events(safe.id)
      assert.isTrue(es.some(([t, d]) => t === "message" && d.role === "user" && d.text === "Yes, go ahead."))
    }).pipe(Effect.provide(layer(
      script(
        reads,
        { text: "## Summary\n\nThe migration is staged.\n\nShould I run it against production data?" },
        reads,
        { text: "The fix is ready on the branch. Should I open the PR and merge it?" },
        { text: DONE }
      ),
      { extra: engine({ ...ReflexConfig.defaults, settle: "active", confirm: "active" }) }
    ))))
})

describe("Session: the person's replies", () => {
  it.effect("the next prompt labels the last turn's settle decision", () =>
    Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const reflexes = yield* Reflexes.Reflexes
      const ws = workspace()
      fs.writeFileSync(path.join(ws, "a.txt"), "a\n")
      const { id } = yield* sessions.create({ workspace: ws })
      yield* sessions.run(id, "Refactor the parser")
      const before = (yield* reflexes.status("settle")).labeled
      yield* sessions.run(id, "You stopped short; continue with the CLI wiring")
      const after = (yield* reflexes.status("settle")).labeled
      assert.isAbove(after, before)
    }).pipe(Effect.provide(layer(script(work, { text: SHORT }, { text: DONE }), { extra: engine() }))))
})
