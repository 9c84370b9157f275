import { SqliteClient } from "@effect/sql-sqlite-node"
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

const tempDir = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-session-")))

const setup = (...turns: ReadonlyArray<unknown>) => {
  const dir = tempDir()
  const ws = path.join(dir, "ws")
  fs.mkdirSync(ws)
  const script = path.join(dir, "script.jsonl")
  fs.writeFileSync(script, turns.map((t) => JSON.stringify(t)).join("\n"))
  const state = path.join(dir, "state")
  fs.mkdirSync(state)
  return { dir, ws, script, state }
}

describe("steward session", () => {
  it.live("run: a plain reply settles completed (exit 0); list, show, events --json, verify read it back", () =>
    Effect.gen(function*() {
      const t = setup({ text: "Hello there." })
      const run = yield* runCli([
        "session",
        "run",
        "--state-dir",
        t.state,
        "--script",
        t.script,
        "--workspace",
        t.ws,
        "--json",
        "Say hello"
      ])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      const outcome = run.outcome()
      assert.deepStrictEqual([outcome.status, outcome.code], ["completed", null])
      const id = outcome.session
      const list = yield* runCli(["session", "list", "--state-dir", t.state, "--json"])
      assert.deepStrictEqual(list.json().map((s: any) => s.id), [id])
      const show = yield* runCli(["session", "show", "--state-dir", t.state, id])
      assert.include(show.stdout, "completed")
      const events = yield* runCli(["session", "events", "--state-dir", t.state, "--json", id])
      const types = events.events().map((e: any) => e.type)
      assert.strictEqual(types[0], "run.start")
      assert.strictEqual(types.at(-1), "run.settle")
      const verify = yield* runCli(["session", "verify", "--state-dir", t.state, "--json", id])
      assert.strictEqual(verify.exitCode, 0, verify.stderr)
      assert.deepStrictEqual(Object.keys(verify.json()).sort(), ["receipt", "revisions", "session", "verified"])
      assert.deepStrictEqual([verify.json().session, verify.json().verified, verify.json().revisions], [id, true, 1])
    }))

  it.live("run: the transcript relays a denied call with its citation", () =>
    Effect.gen(function*() {
      const t = setup({ toolCalls: [{ name: "shell", input: { command: "rm -rf ~" } }] }, { text: "That was refused." })
      const run = yield* runCli([
        "session",
        "run",
        "--state-dir",
        t.state,
        "--script",
        t.script,
        "--workspace",
        t.ws,
        "Clean up"
      ])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      assert.match(run.stdout, /\[deny: universal rule universal\.[a-z-]+ /)
      assert.include(run.stdout, "✗ refused: ")
      assert.include(run.stdout, "model:  That was refused.")
      assert.include(run.stdout, "── settled completed")
    }))

  it.live("summaries: one-line refusals citing the rule once (-v and show ID CALL in full); list's columns", () =>
    Effect.gen(function*() {
      const t = setup(
        { toolCalls: [{ name: "shell", input: { command: "git push --force origin main" } }] },
        { toolCalls: [{ name: "shell", input: { command: `node -e "console.log(41)"` } }] },
        { text: "Again." }
      )
      const base = ["--state-dir", t.state]
      const prompt = "Publish the branch\nand print the answer, a request long enough to be cut in the list's column"
      const run = yield* runCli(
        ["session", "run", ...base, "--script", t.script, "--workspace", t.ws, "--sandbox", "off", prompt]
      )
      assert.strictEqual(run.exitCode, 0, run.stderr)
      const id = /^session (\S+)$/m.exec(run.stdout)![1]!
      const refusals = run.stdout.split("\n").filter((l) => l.startsWith("  ✗"))
      assert.deepStrictEqual(refusals, ["  ✗ refused: force-push rewrites shared history"])
      // the rule is cited once: on the call's line, not again on its refusal
      assert.strictEqual(run.stdout.split("universal.force-push").length - 1, 1)

      const verbose = yield* runCli(["session", "events", ...base, "-v", id])
      assert.match(
        verbose.stdout,
        /✗ refused \(deny\) by universal rule universal\.force-push .* — force-push rewrites/
      )
      const call = yield* runCli(["session", "show", ...base, id, "call_1_1"])
      assert.strictEqual(call.exitCode, 0, call.stderr)
      assert.deepStrictEqual(call.stdout.split("\n").map((l) => l.slice(0, 12)), ["  → shell {\"", "  ✗ refused "])
      assert.include(call.stdout, `matched shell "git push --force origin main"`)
      const callJson = yield* runCli(["session", "show", ...base, "--json", id, "call_2_1"])
      assert.deepStrictEqual(callJson.events().map((e) => e.type).filter((t) => t !== "hook"), [
        "tool.call",
        "approval",
        "run.pause"
      ])
      const missing = yield* runCli(["session", "show", ...base, id, "call_9_9"])
      assert.strictEqual(missing.exitCode, 2)

      const list = yield* runCli(["session", "list", ...base])
      const [header, row] = list.stdout.split("\n")
      assert.match(header!, /^SESSION +STARTED +RUNS +STATUS +PENDING +FIRST PROMPT$/)
      assert.match(
        row!,
        new RegExp(`^${id} +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ +1 +paused +1 +Publish the branch and print`)
      )
      assert.isTrue(row!.endsWith("…") && row!.length < 160, row)
    }))

  it.live("approve --remember: the paused call runs in the same run, the saved scope is shown, the next call cites it", () =>
    Effect.gen(function*() {
      const t = setup(
        { toolCalls: [{ name: "shell", input: { command: `node -e "console.log(41)"` } }] },
        { text: "It printed 41." },
        { toolCalls: [{ name: "shell", input: { command: `node -e "console.log(42)"` } }] },
        { text: "Printed 42." }
      )
      const base = ["--state-dir", t.state]
      const run = yield* runCli([
        "session",
        "run",
        ...base,
        "--script",
        t.script,
        "--workspace",
        t.ws,
        "--sandbox",
        "off",
        "--json",
        "Print"
      ])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      const id = run.outcome().session
      const show = yield* runCli(["session", "show", ...base, "--json", id])
      const [pending] = show.json().pending
      assert.strictEqual(pending.tool, "shell")
      // Inline code is offered exactly first (ADR 0218); the person widens it to every `node -e`.
      assert.deepStrictEqual([pending.scope, pending.alternatives.includes("node -e *")], [
        "node -e console.log\\(41\\)",
        true
      ])
      const approve = yield* runCli([
        "session",
        "approve",
        ...base,
        "--remember",
        "--scope",
        "node -e *",
        id,
        pending.callId
      ])
      assert.strictEqual(approve.exitCode, 0, approve.stderr)
      assert.include(approve.stdout, `saved rule remembered.shell.1: allow shell "node -e *"`)
      assert.include(approve.stdout, "41")
      const next = yield* runCli(["session", "continue", ...base, id, "Print again"])
      assert.strictEqual(next.exitCode, 0, next.stderr)
      assert.include(next.stdout, "user rule remembered.shell.1")
      const again = yield* runCli(["session", "approve", ...base, id, pending.callId])
      assert.strictEqual(again.exitCode, 2)
    }))

  it.live("verify exits 1 naming the first divergent revision when a stored row is tampered with", () =>
    Effect.gen(function*() {
      const t = setup({ text: "One." }, { text: "Two." })
      const base = ["--state-dir", t.state]
      const run = yield* runCli([
        "session",
        "run",
        ...base,
        "--script",
        t.script,
        "--workspace",
        t.ws,
        "--json",
        "First"
      ])
      const id = run.outcome().session
      yield* runCli(["session", "continue", ...base, id, "Second"])
      assert.strictEqual((yield* runCli(["session", "verify", ...base, id])).exitCode, 0)
      yield* Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql`UPDATE harness_events SET data = ${JSON.stringify({ role: "assistant", text: "Forged." })}
          WHERE session = ${id} AND type = 'message' AND data LIKE '%Two.%'`
      ).pipe(
        Effect.provide(SqliteClient.layer({ filename: path.join(t.state, "steward.sqlite") })),
        Effect.orDie
      )
      const verify = yield* runCli(["session", "verify", ...base, "--json", id])
      assert.strictEqual(verify.exitCode, 1)
      const doc = verify.json()
      assert.deepStrictEqual([doc.verified, doc.revision], [false, 3])
    }))

  it.live("bad input exits 2 and writes nothing: both or neither model flag, a bad script line, no open run", () =>
    Effect.gen(function*() {
      const t = setup({ text: "x" })
      const both = yield* runCli([
        "session",
        "run",
        "--state-dir",
        t.state,
        "--script",
        t.script,
        "--model",
        "openai:gpt-x",
        "p"
      ])
      assert.strictEqual(both.exitCode, 2)
      const bad = path.join(t.dir, "bad.jsonl")
      fs.writeFileSync(bad, `{"text":"ok"}\n{"txt":"typo"}\n`)
      const badRun = yield* runCli(["session", "run", "--state-dir", t.state, "--script", bad, "--json", "p"])
      assert.strictEqual(badRun.exitCode, 2)
      assert.include(badRun.errorJson().error.message, "bad.jsonl:2")
      const list = yield* runCli(["session", "list", "--state-dir", t.state, "--json"])
      assert.deepStrictEqual(list.json(), [])
      const run = yield* runCli([
        "session",
        "run",
        "--state-dir",
        t.state,
        "--script",
        t.script,
        "--workspace",
        t.ws,
        "--json",
        "p"
      ])
      const resume = yield* runCli(["session", "continue", "--state-dir", t.state, run.outcome().session])
      assert.strictEqual(resume.exitCode, 2)
      assert.include(resume.stderr, "no open run")
      const missing = yield* runCli(["session", "show", "--state-dir", t.state, "nope"])
      assert.strictEqual(missing.exitCode, 2)
    }))
})
