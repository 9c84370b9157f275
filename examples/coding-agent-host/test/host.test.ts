import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Host from "../src/host.js"

const here = path.dirname(path.dirname(fileURLToPath(import.meta.url)))
// CI has no API keys; a developer's shell might: the end-to-end runs always take the script.
const env = { ...process.env, OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "", STEWARD_EXAMPLE_MODEL: "" }
// Child processes run asynchronously, so the test worker stays responsive while they work.
const spawn = (args: ReadonlyArray<string>, cwd = here) =>
  new Promise<{ readonly status: number; readonly stdout: string; readonly stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd, encoding: "utf8", env },
      (error, stdout, stderr) =>
        resolve({ status: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
    )
  })
const run = async (args: ReadonlyArray<string>) => {
  const out = await spawn(["--import", "tsx", "main.ts", ...args])
  assert.strictEqual(out.status, 0, out.stderr)
  return out.stdout
}

describe("examples/coding-agent-host", () => {
  it("runs a governed task end to end on SQLite: allowed calls run, the product's rule denies the push", {
    timeout: 180_000
  }, async () => {
    const state = fs.mkdtempSync(path.join(os.tmpdir(), "cah-test-"))
    const report: Host.TaskReport = JSON.parse(await run(["--state", state, "--json"]))
    assert.strictEqual(report.model, "scripted")
    assert.deepStrictEqual([report.status, report.code], ["completed", null])
    assert.deepStrictEqual(report.calls.map((c) => [c.tool, c.decision, c.rule]), [
      ["todo_write", "allow", "harness.todo_write"],
      ["write", "allow", "execute.write"],
      ["shell", "allow", "execute.shell"],
      ["shell", "deny", "product.no-publish"],
      ["read", "allow", "execute.read"],
      ["todo_write", "allow", "harness.todo_write"]
    ])
    // what was allowed really ran in the workspace; the denied push never ran
    assert.strictEqual(report.calls[2]!.output, "Hello, Steward!")
    assert.isNull(report.calls[3]!.ok)
    assert.include(fs.readFileSync(path.join(report.workspace, "src", "greet.mjs"), "utf8"), "Hello, ${name}!")
    assert.deepStrictEqual(report.filesTouched, ["src/greet.mjs"])
    // the reflexes saw the run: the route picked a tier, the settle head categorised the turn end
    assert.deepStrictEqual(report.reflexes.map((r) => r.reflex), ["route", "settle"])
    assert.isTrue(report.reflexes.every((r) => r.receipt?.startsWith("sha256:") === true))
    assert.isTrue(report.verified)
    assert.strictEqual(report.database, path.join(state, "agent.sqlite"))

    // the same database keeps every session: a second task adds one
    const second: Host.TaskReport = JSON.parse(await run(["--state", state, "--json", "Add a greeting module."]))
    assert.strictEqual(second.sessions.length, 2)
    assert.include(second.sessions, report.session)
  })

  it("prints a readable transcript; a bad option exits 2", { timeout: 120_000 }, async () => {
    const text = await run(["--state", fs.mkdtempSync(path.join(os.tmpdir(), "cah-test-"))])
    assert.include(text, "deny  shell      product.no-publish")
    assert.include(text, "settled completed")
    assert.include(text, "history verified")
    const bad = await spawn(["--import", "tsx", "main.ts", "--answer", "maybe"])
    assert.strictEqual(bad.status, 2)
    assert.include(bad.stderr, "--answer must be allow, deny or none")
  })

  it("chooses a real provider when its key is in the environment, the script otherwise", () => {
    assert.strictEqual(Host.modelChoice({}), "scripted")
    assert.strictEqual(Host.modelChoice({ OPENAI_API_KEY: "" }), "scripted")
    assert.strictEqual(Host.modelChoice({ OPENAI_API_KEY: "k" }), "openai:gpt-4.1-mini")
    assert.strictEqual(Host.modelChoice({ ANTHROPIC_API_KEY: "k" }), "anthropic:claude-sonnet-4-5")
    assert.strictEqual(
      Host.modelChoice({ OPENAI_API_KEY: "k", STEWARD_EXAMPLE_MODEL: "anthropic:claude-opus-4-1" }),
      "anthropic:claude-opus-4-1"
    )
  })

  it("type-checks (the example is what a host copies)", { timeout: 180_000 }, async () => {
    const tsc = await spawn([path.join(here, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"])
    assert.strictEqual(tsc.status, 0, tsc.stdout + tsc.stderr)
  })
})
