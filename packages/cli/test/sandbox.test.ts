import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { runCli } from "./harness.js"

// Issue 31 item 3: `steward sandbox -- COMMAND…` and the `sandbox` key of `policy check`.
const bwrap = process.platform === "linux" &&
  childProcess.spawnSync("bwrap", ["--ro-bind", "/", "/", "--unshare-pid", "--unshare-net", "true"]).status === 0
if (!bwrap) console.warn("SKIPPED steward sandbox runs: bubblewrap is not installed or cannot make namespaces")

// Not under /tmp: the sandbox's /tmp is private, so an escape into the scene would be invisible.
const SCENES = path.join(import.meta.dirname, "..", "node_modules", ".cache", "steward-cli-sandbox")
const scene = () => {
  fs.mkdirSync(SCENES, { recursive: true })
  const root = fs.realpathSync(fs.mkdtempSync(path.join(SCENES, "s-")))
  fs.mkdirSync(path.join(root, "ws"))
  fs.mkdirSync(path.join(root, "outside"))
  return { root, ws: path.join(root, "ws"), outside: path.join(root, "outside") }
}

describe("steward sandbox", () => {
  it.live("bad usage exits 2: no command, a bad domain, a missing workspace", () =>
    Effect.gen(function*() {
      const none = yield* runCli(["sandbox"])
      assert.strictEqual(none.exitCode, 2)
      assert.match(none.stderr, /needs the command after `--`/)
      const { ws } = scene()
      const domain = yield* runCli(["sandbox", "--workspace", ws, "--allow-domain", "not a domain", "--", "true"])
      assert.strictEqual(domain.exitCode, 2)
      const missing = yield* runCli(["sandbox", "--json", "--workspace", "/nonexistent/ws", "--", "true"])
      assert.strictEqual(missing.exitCode, 2)
      assert.strictEqual(missing.errorJson().error.code, "invalid-input")
    }))

  it.live.skipIf(!bwrap)(
    "runs the command inside the boundary and exits with its status",
    () =>
      Effect.gen(function*() {
        const { outside, root, ws } = scene()
        const ok = yield* runCli(["sandbox", "--workspace", ws, "--", "sh", "-c", "echo inside > made.txt"])
        assert.strictEqual(ok.exitCode, 0)
        assert.strictEqual(fs.readFileSync(path.join(ws, "made.txt"), "utf8"), "inside\n")
        const status = yield* runCli(["sandbox", "--workspace", ws, "--", "sh", "-c", "exit 7"])
        assert.strictEqual(status.exitCode, 7)
        const escape = yield* runCli(["sandbox", "--workspace", ws, "--", "sh", "-c", `echo x > ${outside}/escaped`])
        assert.notStrictEqual(escape.exitCode, 0)
        assert.isFalse(fs.existsSync(path.join(outside, "escaped")))
        const readOnly = yield* runCli(["sandbox", "--workspace", ws, "--level", "read_only", "--", "touch", "ro.txt"])
        assert.notStrictEqual(readOnly.exitCode, 0)
        assert.isFalse(fs.existsSync(path.join(ws, "ro.txt")))
        fs.rmSync(root, { recursive: true, force: true })
      })
  )
})

describe("steward policy check: the sandbox key", () => {
  it.live("an unresolved command is allowed contained when the boundary is on, asked with --sandbox off", () =>
    Effect.gen(function*() {
      const { root, ws } = scene()
      const off = yield* runCli([
        "policy",
        "check",
        "--json",
        "--workspace",
        ws,
        "--sandbox",
        "off",
        "--",
        "zzz-tool x"
      ])
      assert.strictEqual(off.json().decision, "ask")
      assert.deepStrictEqual(off.json().sandbox.state, "off")
      assert.strictEqual(off.json().sandbox.where, "host")
      const on = yield* runCli(["policy", "check", "--json", "--workspace", ws, "--", "zzz-tool x"])
      const doc = on.json()
      if (bwrap) {
        assert.strictEqual(doc.decision, "allow")
        assert.strictEqual(doc.citation.ruleId, "sandbox.contained")
        assert.strictEqual(doc.sandbox.where, "sandbox")
        assert.strictEqual(doc.sandbox.gate.decision, "ask")
        assert.deepStrictEqual(doc.sandbox.grants.network, "none")
        assert.include(doc.sandbox.grants.readOnlyInWorkspace, ".git/hooks")
      } else {
        // no boundary here: the gate's fail-closed decision stands
        assert.strictEqual(doc.sandbox.state, "unavailable")
        assert.strictEqual(doc.decision, "ask")
      }
      const deny = yield* runCli(["policy", "check", "--json", "--workspace", ws, "--", "git push --force origin main"])
      assert.strictEqual(deny.json().decision, "deny")
      assert.strictEqual(deny.json().sandbox.where, "nowhere")
      fs.rmSync(root, { recursive: true, force: true })
    }))
})
