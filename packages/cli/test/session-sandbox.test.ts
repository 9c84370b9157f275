/**
 * `steward session run --sandbox on|off` (issue 31 item 3, ADR 0563): by default the session's
 * shell calls the gate allows run inside the OS sandbox, with the `--rules` file's sandbox
 * section; `--sandbox off` keeps them on the host (the gate alone); `continue` keeps the
 * session's choice.
 */
import { assert, describe, it } from "@effect/vitest"
import { Sandbox } from "@steward/governance-rules"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

const availability = Effect.runSync(
  Effect.flatMap(Sandbox.Sandbox, (s) => s.availability).pipe(Effect.provide(Sandbox.layerLinux()))
)
const skip = !availability.available && process.env.CI !== "true" ? "skipped: no sandbox here" : undefined

const setup = (...turns: ReadonlyArray<unknown>) => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-session-sandbox-")))
  const ws = path.join(dir, "ws")
  const state = path.join(dir, "state")
  fs.mkdirSync(ws)
  fs.mkdirSync(state)
  const script = path.join(dir, "script.jsonl")
  fs.writeFileSync(script, turns.map((t) => JSON.stringify(t)).join("\n"))
  // The rules file's sandbox section: one more protected path in the workspace.
  const rules = path.join(dir, "policy.json")
  fs.writeFileSync(rules, JSON.stringify({ rules: [], sandbox: { protect: ["locked"] } }))
  fs.mkdirSync(path.join(ws, "locked"))
  return { dir, ws, script, state, rules }
}

const results = (state: string, id: string) =>
  Effect.map(
    runCli(["session", "events", "--state-dir", state, "--json", id]),
    (r) => r.events().filter((e: any) => e.type === "tool.result").map((e: any) => e.data.output as string)
  )

// Writes into the protected path only the sandbox refuses (the gate sees a plain workspace write).
const WRITE = "echo x > locked/a.txt; echo done"

describe.skipIf(skip !== undefined)(`steward session run --sandbox ${skip ?? ""}`, () => {
  it.live(
    "on by default: contained, with the policy's sandbox section; continue keeps it",
    () =>
      Effect.gen(function*() {
        const t = setup(
          { toolCalls: [{ name: "shell", input: { command: WRITE } }] },
          { text: "Tried." },
          { toolCalls: [{ name: "shell", input: { command: WRITE } }] },
          { text: "Tried again." }
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
          "--rules",
          t.rules,
          "--json",
          "Write"
        ])
        assert.strictEqual(run.exitCode, 0, run.stderr)
        const id = run.outcome().session
        const next = yield* runCli(["session", "continue", ...base, "--json", id, "Again"])
        assert.strictEqual(next.exitCode, 0, next.stderr)
        const outputs = yield* results(t.state, id)
        assert.strictEqual(outputs.length, 2)
        for (const output of outputs) assert.include(output, "(in the sandbox)")
        assert.isFalse(fs.existsSync(path.join(t.ws, "locked", "a.txt")), "the protected path stayed read-only")
      }),
    120_000
  )

  it.live("--sandbox off: on the host, as before", () =>
    Effect.gen(function*() {
      const t = setup({ toolCalls: [{ name: "shell", input: { command: WRITE } }] }, { text: "Wrote." })
      const run = yield* runCli([
        "session",
        "run",
        "--state-dir",
        t.state,
        "--script",
        t.script,
        "--workspace",
        t.ws,
        "--rules",
        t.rules,
        "--sandbox",
        "off",
        "--json",
        "Write"
      ])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      const [output] = yield* results(t.state, run.outcome().session)
      assert.notInclude(output, "(in the sandbox)")
      assert.isTrue(fs.existsSync(path.join(t.ws, "locked", "a.txt")))
    }), 120_000)
})
