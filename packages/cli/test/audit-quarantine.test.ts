import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as AgentCli from "../src/commands/audit/agentCli.js"
import * as Redact from "../src/commands/audit/redact.js"
import * as Snapshot from "../src/commands/audit/workspaceSnapshot.js"

// The pieces around an external audit session (issue 39): the workspace snapshot that undoes a
// session that did not end `ok` (its diff kept in quarantine), the log's redaction, and each CLI's argv.

const tree = () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "steward-snapshot-"))
  fs.mkdirSync(path.join(root, "src/deep"), { recursive: true })
  fs.mkdirSync(path.join(root, "audit"))
  fs.writeFileSync(path.join(root, "src/a.py"), "a\n")
  fs.writeFileSync(path.join(root, "src/deep/b.py"), "b\n")
  fs.writeFileSync(path.join(root, "run.sh"), "#!/bin/sh\n", { mode: 0o755 })
  fs.symlinkSync("src/a.py", path.join(root, "link"))
  fs.writeFileSync(path.join(root, "audit/state.txt"), "audit\n")
  return root
}

/** Every path below `root` with what it is (bytes, link target, mode), for comparing trees. */
const listing = (root: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const visit = (rel: string) => {
    for (const name of fs.readdirSync(path.join(root, rel)).sort()) {
      const child = path.join(rel, name)
      const info = fs.lstatSync(path.join(root, child))
      if (info.isSymbolicLink()) out[child] = `-> ${fs.readlinkSync(path.join(root, child))}`
      else if (info.isDirectory()) (out[child] = "dir"), visit(child)
      else out[child] = `${(info.mode & 0o777).toString(8)} ${fs.readFileSync(path.join(root, child), "utf8")}`
    }
  }
  visit("")
  return out
}

describe("workspace snapshot and quarantine", () => {
  it.effect("every kind of change is captured in the bundle and undone; excluded paths are left alone", () =>
    Effect.gen(function*() {
      const root = tree()
      const original = listing(root)
      const blobs = fs.mkdtempSync(path.join(os.tmpdir(), "steward-blobs-"))
      const snapshot = yield* Snapshot.take(root, ["audit"], blobs)
      // a session's changes: an edit, an addition in a new directory, a deletion, a mode change,
      // a link retargeted, a file replaced by a directory and a directory replaced by a file
      fs.writeFileSync(path.join(root, "src/a.py"), "edited\n")
      fs.mkdirSync(path.join(root, "new/dir"), { recursive: true })
      fs.writeFileSync(path.join(root, "new/dir/c.py"), "c\n")
      fs.chmodSync(path.join(root, "run.sh"), 0o644)
      fs.rmSync(path.join(root, "link"))
      fs.symlinkSync("/etc/passwd", path.join(root, "link"))
      fs.rmSync(path.join(root, "src/deep"), { recursive: true })
      fs.writeFileSync(path.join(root, "src/deep"), "now a file\n")
      fs.writeFileSync(path.join(root, "audit/state.txt"), "written by a verb\n")
      const changes = yield* Snapshot.diff(snapshot)
      assert.deepStrictEqual(changes.map((c) => [c.path, c.change]), [
        ["link", "modified"],
        ["new", "added"],
        ["new/dir", "added"],
        ["new/dir/c.py", "added"],
        ["run.sh", "modified"],
        ["src/a.py", "modified"],
        ["src/deep", "modified"],
        ["src/deep/b.py", "deleted"]
      ])
      const bundle = path.join(root, "audit/quarantine/0123456789abcdef")
      yield* Snapshot.quarantine(snapshot, changes, bundle, { outcome: "timeout" })
      yield* Snapshot.restore(snapshot, changes)
      const restored = listing(root)
      assert.strictEqual(restored["audit/state.txt"], "644 written by a verb\n", "the audit directory is not undone")
      for (const key of Object.keys(restored).filter((k) => k.startsWith("audit"))) delete restored[key]
      for (const key of Object.keys(original).filter((k) => k.startsWith("audit"))) delete original[key]
      assert.deepStrictEqual(restored, original)
      assert.strictEqual(fs.readFileSync(path.join(bundle, "files/src/a.py"), "utf8"), "edited\n")
      assert.strictEqual(fs.readFileSync(path.join(bundle, "files/new/dir/c.py"), "utf8"), "c\n")
      const manifest = JSON.parse(fs.readFileSync(path.join(bundle, "manifest.json"), "utf8"))
      assert.strictEqual(manifest.outcome, "timeout")
      assert.deepStrictEqual(manifest.changes[0].after, { kind: "link", target: "/etc/passwd" })
    }))
})

describe("log redaction", () => {
  it("secret-looking variables' values and token shapes are replaced, ordinary text is kept", () => {
    const env = {
      OPENAI_API_KEY: "not-a-known-shape-0123456789",
      HOME: "/home/someone-long-enough",
      SHORT_TOKEN: "abc",
      MY_PASSWORD: "correct horse battery staple"
    }
    const log = [
      "key=not-a-known-shape-0123456789 home=/home/someone-long-enough short=abc",
      "pw: correct horse battery staple",
      "Authorization: Bearer abcdefghijklmnopqrstuvwx",
      "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX and AKIAABCDEFGHIJKLMNOP and ghp_abcdefghijklmnopqrstuvwxyz0123",
      "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----"
    ].join("\n")
    const out = Buffer.from(Redact.redact(Buffer.from(log), env)).toString()
    assert.strictEqual(
      out,
      [
        "key=[REDACTED:OPENAI_API_KEY] home=/home/someone-long-enough short=abc",
        "pw: [REDACTED:MY_PASSWORD]",
        "Authorization: [REDACTED:bearer]",
        "[REDACTED:api-key] and [REDACTED:aws-key] and [REDACTED:github-token]",
        "[REDACTED:private-key]"
      ].join("\n")
    )
  })
})

describe("agent CLI argv", () => {
  it("each CLI runs headless with the prompt on stdin, its model flag and Steward's session settings", () => {
    assert.deepStrictEqual(AgentCli.argv("codex", "o3", "/s/hooks.json"), [
      "exec",
      "--json",
      "--skip-git-repo-check",
      "--dangerously-bypass-hook-trust",
      "-s",
      "workspace-write",
      "-m",
      "o3",
      "-"
    ])
    assert.deepStrictEqual(AgentCli.argv("claude-code", undefined, "/s/settings.json"), [
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--settings",
      "/s/settings.json"
    ])
    assert.deepStrictEqual(AgentCli.argv("gemini", "gemini-x", "/s/system-settings.json"), [
      "--output-format",
      "stream-json",
      "--approval-mode",
      "yolo",
      "-m",
      "gemini-x"
    ])
  })
})
