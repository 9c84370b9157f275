/**
 * The scripted model as a testing tool (issue 35 item 4, CLI side): `session tools` lists every
 * tool of the library's toolkit with its input schema; the guide's example per tool runs as
 * written; `continue` and `approve` take `--script`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Tools from "@steward/harness-sessions/Tools"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

const guide = path.resolve(import.meta.dirname, "../../../docs/guides/scripted-model.md")

/** The fenced blocks of the guide in a language (`jsonl`, `json`), as their text. */
const blocks = (language: string): ReadonlyArray<string> =>
  [...fs.readFileSync(guide, "utf8").matchAll(new RegExp("^```" + language + "\\n([\\s\\S]*?)^```$", "gm"))]
    .map((m) => m[1]!)

const scratch = () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-script-")))
  const ws = path.join(dir, "ws")
  const state = path.join(dir, "state")
  fs.mkdirSync(ws)
  fs.mkdirSync(state)
  const file = (name: string, turns: ReadonlyArray<unknown> | string) => {
    const target = path.join(dir, name)
    fs.writeFileSync(target, typeof turns === "string" ? turns : turns.map((t) => JSON.stringify(t)).join("\n"))
    return target
  }
  return { dir, ws, state, file }
}

describe("the scripted model as a testing tool", () => {
  it.effect("session tools --json: every tool of the toolkit, its input as JSON Schema with its fields", () =>
    Effect.gen(function*() {
      const run = yield* runCli(["session", "tools", "--json"])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      const listed = run.json() as ReadonlyArray<any>
      assert.deepStrictEqual(listed.map((t) => t.name), [
        ...Tools.defaults.map((t) => t.name),
        "get_goal",
        "update_goal"
      ])
      assert.deepStrictEqual(listed.filter((t) => t.goal).map((t) => t.name), ["get_goal", "update_goal"])
      assert.deepStrictEqual(listed.find((t) => t.name === "update_goal").input.required, ["status"])
      for (const tool of Tools.defaults) {
        const schema = listed.find((t) => t.name === tool.name).input
        assert.strictEqual(schema.type, "object", tool.name)
        assert.deepStrictEqual(Object.keys(schema.properties).sort(), Object.keys(tool.input.fields).sort(), tool.name)
      }
      const edit = listed.find((t) => t.name === "edit").input
      assert.deepStrictEqual([...edit.required].sort(), ["newString", "oldString", "path"])
      const text = yield* runCli(["session", "tools"])
      assert.include(text.stdout, "edit: Replace exact text")
      assert.match(text.stdout, /^ {2}replaceAll +boolean \(optional\) — Replace every occurrence$/m)
      assert.match(
        text.stdout,
        /^ {2}todos +array of \{content: string, status: "pending" \| "in_progress" \| "completed"\}/m
      )
    }))

  it.live("the guide's example per tool: every call decodes and runs as written, the goal checker's line too", () =>
    Effect.gen(function*() {
      const [examples, goalScript] = blocks("jsonl")
      const turns = examples!.trim().split("\n").map((l) => JSON.parse(l))
      const calls = turns.flatMap((t) => t.toolCalls ?? [])
      // one example per tool of the toolkit, each input what the tool's own schema decodes
      assert.deepStrictEqual(calls.map((c: any) => c.name).sort(), Tools.defaults.map((t) => t.name).sort())
      for (const call of calls) {
        const tool = Tools.defaults.find((t) => t.name === call.name)! as Tools.Any
        yield* Tools.decodeInput(tool, call.input)
      }
      const t = scratch()
      const run = yield* runCli([
        "session",
        "run",
        "--state-dir",
        t.state,
        "--script",
        t.file("tools.jsonl", examples!),
        "--workspace",
        t.ws,
        "--json",
        "Try every tool"
      ])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      const events = run.events()
      assert.deepStrictEqual(events.filter((e) => e.type === "tool.error"), [])
      assert.deepStrictEqual(
        events.filter((e) => e.type === "tool.call").map((e) => e.data.tool),
        calls.map((c: any) => c.name)
      )
      assert.strictEqual(fs.readFileSync(path.join(t.ws, "notes.md"), "utf8"), "# Notes\n\nsecond draft\n")

      const goal = yield* runCli([
        "session",
        "run",
        "--state-dir",
        t.state,
        "--script",
        t.file("goal.jsonl", goalScript!),
        "--workspace",
        t.ws,
        "--goal",
        "notes.md says second draft",
        "--json",
        "Check the notes"
      ])
      assert.strictEqual(goal.exitCode, 0, goal.stderr)
      const check = goal.events().find((e) => e.type === "goal" && e.data.action === "check")
      assert.isTrue(check.data.achieved, JSON.stringify(check))
    }))

  it.live("--script on continue and approve: the whole script, served from where the session left it", () =>
    Effect.gen(function*() {
      const t = scratch()
      const first = t.file("first.jsonl", [{ text: "One." }])
      const run = yield* runCli([
        "session",
        "run",
        "--state-dir",
        t.state,
        "--script",
        first,
        "--workspace",
        t.ws,
        // inline code asks only without the boundary (with it, it runs contained: ADR 0563)
        "--sandbox",
        "off",
        "--json",
        "First"
      ])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      const id = run.outcome().session
      // the whole script: its first turn is the one already served
      const more = t.file("more.jsonl", [
        { text: "One (served already)." },
        { toolCalls: [{ name: "shell", input: { command: `node -e "console.log(6*7)"` } }] },
        { text: "Printed it." }
      ])
      const continued = yield* runCli([
        "session",
        "continue",
        "--state-dir",
        t.state,
        "--script",
        more,
        "--json",
        id,
        "Third"
      ])
      assert.strictEqual(continued.exitCode, 0, continued.stderr)
      // served from the script's second turn: the call, which pauses the run
      assert.strictEqual(continued.outcome().status, "paused")
      assert.strictEqual(continued.outcome().input.command, `node -e "console.log(6*7)"`)
      const pending = (yield* runCli(["session", "show", "--state-dir", t.state, "--json", id])).json().pending
      assert.strictEqual(pending.length, 1, JSON.stringify(pending))
      const approved = yield* runCli(
        ["session", "approve", "--state-dir", t.state, "--script", more, id, pending[0].callId]
      )
      assert.strictEqual(approved.exitCode, 0, approved.stderr)
      assert.include(approved.stdout, "42")
      assert.include(approved.stdout, "model:  Printed it.")
      // a bad script is refused before anything runs, naming the line
      const bad = t.file("bad.jsonl", `{"text":"ok"}\n{"txt":"typo"}\n`)
      const refused = yield* runCli(["session", "continue", "--state-dir", t.state, "--script", bad, "--json", id, "x"])
      assert.strictEqual(refused.exitCode, 2)
      assert.include(refused.errorJson().error.message, "bad.jsonl:2")
    }))
})
