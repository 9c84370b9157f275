import { assert, describe, it } from "@effect/vitest"
import * as Learning from "@steward/reflex-core/Learning"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

// Decisions explain themselves (issue 15 item 5).
const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "steward-reflex-explain-"))
const SHORT = "Parser updated. Next, I'll wire the CLI:"

const decide = (state: string, text: string, ...flags: Array<string>) =>
  runCli(["reflex", "decide", "settle", "--text", text, "--state-dir", state, ...flags])

describe("steward reflex: decisions say why they do not act", () => {
  it.live("vetoed by cue class; not certified yet with fires and precision; mode observe", () =>
    Effect.gen(function*() {
      const state = tempDir()
      const vetoed = yield* decide(
        state,
        "Tests pass. Want me to wire the payment to the vendor now?",
        "--tool-calls",
        "20",
        "--json"
      )
      assert.strictEqual(vetoed.exitCode, 0, vetoed.stderr)
      assert.strictEqual(vetoed.json().decision.category, "confirm")
      assert.strictEqual(vetoed.json().why, "does not act: risk: the turn mentions 'payment'")
      const text = yield* decide(
        state,
        "Tests pass. Want me to wire the payment to the vendor now?",
        "--tool-calls",
        "20"
      )
      assert.match(text.stdout, /why\s+does not act: risk: the turn mentions 'payment'/)
      const short = yield* decide(state, SHORT, "--tool-calls", "60", "--json")
      assert.strictEqual(short.json().decision.category, "stopped_short")
      assert.strictEqual(
        short.json().why,
        "does not act: not certified yet: no labeled history (it must fire on at least 30 labeled turns)"
      )
      fs.writeFileSync(
        path.join(state, "config.json"),
        JSON.stringify({ extensions: { reflexes: { settle: "observe" } } })
      )
      const observe = yield* decide(state, SHORT, "--tool-calls", "60", "--json")
      assert.strictEqual(
        observe.json().why,
        "does not act: settle.stopped_short is in mode observe (decide and record only)"
      )
    }))

  it.live("status says watching until certified; import says would certify, then certified", () =>
    Effect.gen(function*() {
      const state = tempDir()
      const before = yield* runCli(["reflex", "status", "settle", "--state-dir", state])
      assert.match(before.stdout, /standing\s+watching until certified \(no labeled history/)
      const file = path.join(state, "history.jsonl")
      fs.writeFileSync(
        file,
        Array.from(
          { length: 400 },
          (_, i) => JSON.stringify({ id: `l${i}`, text: SHORT, label: i % 10 !== 0, tool_calls: 60 })
        )
          .join("\n")
      )
      const dry = yield* runCli(["reflex", "import", "settle", file, "--dry-run", "--state-dir", state])
      assert.strictEqual(dry.exitCode, 0, dry.stderr)
      assert.match(dry.stdout, /settle\.stopped_short: would certify at/)
      const real = yield* runCli(["reflex", "import", "settle", file, "--state-dir", state])
      assert.match(real.stdout, /settle\.stopped_short: certified at/)
      assert.notMatch(real.stdout, /would/)
      const after = yield* runCli(["reflex", "status", "settle", "--json", "--state-dir", state])
      const head = after.json()[0].heads.find((h: any) => h.head === "stopped_short")
      assert.match(head.standing, /^auto: certified at /)
      const confirm = after.json()[0].heads.find((h: any) => h.head === "confirm")
      assert.match(
        confirm.standing,
        /^auto: watching until certified \((?:precision not confidently at the floor; )?fired on /
      )
      assert.match(confirm.standing, /labeled turns, precision .* against the floor 0\.85; needs .*\)$/)
      assert.notMatch(confirm.standing, /of the 30 needed/) // issue 37: "fired 280 of the 30 needed"
      // certified now: a turn acts, except the one-in-ten held back by hash
      const revisions = Array.from({ length: 40 }, (_, r) => r)
      const held = revisions.find((r) => Learning.heldTurn("stopped_short", "task-h", r))!
      const free = revisions.find((r) => !Learning.heldTurn("stopped_short", "task-h", r))!
      const acting = yield* decide(
        state,
        SHORT,
        "--tool-calls",
        "60",
        "--task",
        "task-h",
        "--revision",
        `${free}`,
        "--json"
      )
      assert.isTrue(acting.json().acts, acting.json().why)
      assert.match(acting.json().why, /^acts: settle\.stopped_short is certified at /)
      const heldBack = yield* decide(
        state,
        SHORT,
        "--tool-calls",
        "60",
        "--task",
        "task-h",
        "--revision",
        `${held}`,
        "--json"
      )
      assert.isFalse(heldBack.json().acts)
      assert.strictEqual(
        heldBack.json().why,
        "does not act: held back (one turn in ten is left to the person, chosen by hash)"
      )
    }))

  it.live("a route decision with no eligible tier says which gate failed", () =>
    Effect.gen(function*() {
      const state = tempDir()
      const run = yield* runCli([
        "reflex",
        "decide",
        "route",
        "--text",
        "rename a variable",
        "--eligible",
        "premium",
        "--json",
        "--state-dir",
        state
      ])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      assert.isFalse(run.json().acts)
      assert.strictEqual(run.json().why, "does not act: gate failed: no eligible value among the tiers given")
    }))
})
