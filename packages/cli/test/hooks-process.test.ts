/**
 * `steward hook` as the agent CLIs run it: a process of the built bundle — the lean CommonJS
 * entry `dist/hook.cjs` that `hooks install` writes, and `steward hook …` of the CLI bundle — the
 * event on stdin. The decision server answers over its socket (and a malformed request does not
 * stop it), the entry falls back to deciding itself when the server is out of reach, and
 * Steward's own deadline is a deny, never a timeout of the client's.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import * as Settings from "../src/hooks/Settings.js"
import * as HookClient from "../src/internal/hookClient.js"

const bin = path.join(import.meta.dirname, "..", "dist", "bin.js")
const lean = path.join(import.meta.dirname, "..", "dist", "hook.cjs")
const built = fs.existsSync(bin) && fs.existsSync(lean)
/** The two ways in: the words before `<client> <event>` (and before `--serve SOCKET`). */
const entries = [["hook.cjs", [lean]], ["bin.js hook", [bin, "hook"]]] as const

const project = () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-hookp-")))
  const ws = path.join(root, "ws")
  fs.mkdirSync(path.join(ws, ".steward"), { recursive: true })
  return { root, ws, state: path.join(ws, ".steward") }
}

const pre = (ws: string, command: string) =>
  JSON.stringify({
    session_id: "s1",
    transcript_path: path.join(ws, "t.jsonl"),
    cwd: ws,
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command }
  })

const hook = (
  ws: string,
  state: string,
  input: string,
  env: Record<string, string>,
  entry: ReadonlyArray<string> = [lean]
) =>
  spawnSync(process.execPath, [...entry, "claude-code", "PreToolUse", "--workspace", ws, "--state-dir", state], {
    input,
    encoding: "utf8",
    env: { ...process.env, ...env }
  })

/** The same, without blocking this process (a server of the test's own must go on answering). */
const hookAsync = (ws: string, state: string, input: string, env: Record<string, string>) =>
  new Promise<{ status: number | null; stdout: string }>((resolve) => {
    const child = spawn(
      process.execPath,
      [lean, "claude-code", "PreToolUse", "--workspace", ws, "--state-dir", state],
      {
        env: { ...process.env, ...env }
      }
    )
    let stdout = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.on("close", (status) => resolve({ status, stdout }))
    child.stdin.end(input)
  })

/** Where the lean entry looks for its server under `dir` (the entry file's identity names it). */
const leanSocket = (dir: string) => {
  const info = fs.statSync(lean)
  const name = `${info.ino.toString(36)}-${Math.round(info.mtimeMs).toString(36)}-${info.size.toString(36)}.sock`
  return path.join(dir, `steward-hooks-${process.getuid?.() ?? 0}`, name)
}

const ask = (socket: string, line: string) =>
  new Promise<string>((resolve) => {
    const conn = net.connect(socket)
    let out = ""
    conn.on("connect", () => conn.end(line))
    conn.on("data", (d) => (out += d))
    conn.on("close", () => resolve(out))
    conn.on("error", () => resolve(out))
  })

describe.skipIf(!built)(`steward hook processes${built ? "" : " (skipped: build the CLI first)"}`, () => {
  for (const [name, entry] of entries) {
    it.live(`${name}: Steward's own deadline is a deny, in the client's form, with exit 0`, () =>
      Effect.sync(() => {
        const { state, ws } = project()
        const r = hook(ws, state, pre(ws, "ls"), { STEWARD_HOOK_DEADLINE_MS: "1", STEWARD_HOOK_SERVER: "off" }, entry)
        assert.strictEqual(r.status, 0)
        const answer = JSON.parse(r.stdout)
        assert.strictEqual(answer.hookSpecificOutput.permissionDecision, "deny")
        assert.include(answer.hookSpecificOutput.permissionDecisionReason, "deadline")
      }))

    it.live(`${name}: without a server it decides in its own process (the ES module host)`, () =>
      Effect.sync(() => {
        const { state, ws } = project()
        const denied = hook(ws, state, pre(ws, "git push --force origin main"), { STEWARD_HOOK_SERVER: "off" }, entry)
        assert.strictEqual(denied.status, 0)
        assert.include(JSON.parse(denied.stdout).hookSpecificOutput.permissionDecisionReason, "universal.force-push")
        const allowed = hook(ws, state, pre(ws, "git status"), { STEWARD_HOOK_SERVER: "off" }, entry)
        assert.strictEqual(JSON.parse(allowed.stdout).hookSpecificOutput.permissionDecision, "allow")
      }))
  }

  it.live("Steward's deadline is below the client timeout hooks install writes", () =>
    Effect.sync(() => assert.isBelow(HookClient.DEFAULT_DEADLINE_MS, Settings.TIMEOUT_SECONDS * 1000)))

  it.live("a server that answers only near the client's timeout: Steward's deadline denies first, the late allow is never printed", () =>
    Effect.promise(async () => {
      const { root, state, ws } = project()
      const socket = leanSocket(path.join(root, "sock"))
      fs.mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 })
      const allow = JSON.stringify({
        hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" }
      })
      let asked = false
      const late = net.createServer({ allowHalfOpen: true }, (conn) => {
        asked = true
        conn.on("data", () => undefined)
        conn.on("error", () => undefined)
        // The client's timeout (scaled): long after Steward's own deadline.
        setTimeout(() => conn.end(`${JSON.stringify({ stdout: allow, stderr: "", exitCode: 0 })}\n`), 3_000)
      })
      await new Promise<void>((resolve) => late.listen(socket, resolve))
      try {
        const r = await hookAsync(ws, state, pre(ws, "git status"), {
          STEWARD_HOOK_SOCKET_DIR: path.join(root, "sock"),
          STEWARD_HOOK_DEADLINE_MS: "500"
        })
        assert.isTrue(asked)
        assert.strictEqual(r.status, 0)
        const lines = r.stdout.trim().split("\n")
        assert.strictEqual(lines.length, 1)
        const answer = JSON.parse(lines[0]!)
        assert.strictEqual(answer.hookSpecificOutput.permissionDecision, "deny")
        assert.include(answer.hookSpecificOutput.permissionDecisionReason, "deadline")
      } finally {
        late.close()
      }
    }))

  it.live("the decision server answers on its socket; a malformed request is dropped and it goes on", () =>
    Effect.promise(async () => {
      const { root, state, ws } = project()
      const dir = path.join(root, "s")
      fs.mkdirSync(dir, { mode: 0o700 })
      const socket = path.join(dir, "test.sock")
      const server = spawn(process.execPath, [lean, "--serve", socket], { stdio: "ignore" })
      try {
        for (let i = 0; i < 200 && !fs.existsSync(`${socket}.pid`); i++) await new Promise((r) => setTimeout(r, 50))
        assert.strictEqual(fs.statSync(socket).mode & 0o777, 0o600)
        assert.strictEqual(await ask(socket, "not json\n"), "")
        const call = {
          args: ["gemini", "BeforeTool", "--workspace", ws, "--state-dir", state],
          home: root,
          cwd: ws,
          stdin: pre(ws, "git push --force origin main")
        }
        const outcome = JSON.parse(await ask(socket, `${JSON.stringify(call)}\n`))
        assert.strictEqual(outcome.exitCode, 0)
        const answer = JSON.parse(outcome.stdout)
        assert.strictEqual(answer.decision, "deny")
        assert.include(answer.reason, "universal.force-push")
      } finally {
        server.kill("SIGTERM")
      }
    }))

  it.live("an untrusted socket directory is never used: the entry decides in its own process", () =>
    Effect.sync(() => {
      const { root, state, ws } = project()
      const sockets = path.join(root, "open")
      fs.mkdirSync(path.join(sockets, `steward-hooks-${process.getuid?.() ?? 0}`), { recursive: true })
      fs.chmodSync(path.join(sockets, `steward-hooks-${process.getuid?.() ?? 0}`), 0o777)
      const r = hook(ws, state, pre(ws, "git push --force origin main"), {
        STEWARD_HOOK_SOCKET_DIR: sockets,
        STEWARD_HOOK_SERVER: "off"
      })
      assert.strictEqual(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision, "deny")
    }))
})
