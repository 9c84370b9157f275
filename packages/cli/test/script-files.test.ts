/**
 * Issue 16 (bounded reading), through the CLI: a scripted model's file (`session run --script`,
 * `audit loop --script`, and the script a later `session continue` serves again), the loop's
 * `orchestrator.conf`, the lease's own files and `migrate`'s Markdown are read through
 * `BoundedFile` — a FIFO is refused unopened, an oversized file by its size before it is read, a
 * missing file in words — each naming the file (and the limit), exit 2, nothing written.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

const tempDir = (tag: string) => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `steward-script-${tag}-`)))
const fifo = (file: string) => execFileSync("mkfifo", [file])
/** A sparse file of `mib` MiB: nothing is allocated unless someone reads it. */
const sparse = (file: string, mib: number) => {
  fs.closeSync(fs.openSync(file, "w"))
  fs.truncateSync(file, mib * 1024 * 1024)
}

/** The three hostile scripts: a FIFO, a 17 MiB file (the limit is 16 MiB), a missing file. */
const hostileScripts = (dir: string) => {
  const pipe = path.join(dir, "fifo.jsonl")
  fifo(pipe)
  const big = path.join(dir, "big.jsonl")
  sparse(big, 17)
  const missing = path.join(dir, "missing.jsonl")
  return [
    { file: pipe, code: "io", phrase: `${pipe}: is a FIFO (named pipe), not a regular file` },
    { file: big, code: "limit", phrase: `${big}: 17 MiB is larger than the limit of 16 MiB` },
    { file: missing, code: "not-found", phrase: `${missing}: no such file` }
  ] as const
}

describe("scripted models' files are read boundedly (issue 16)", () => {
  it.live("session run --script: a FIFO, an oversized and a missing script are refused; no session is stored", () =>
    Effect.gen(function*() {
      const dir = tempDir("session")
      const state = path.join(dir, "state")
      fs.mkdirSync(state)
      for (const s of hostileScripts(dir)) {
        const run = yield* runCli(["session", "run", "--state-dir", state, "--script", s.file, "--json", "hi"])
        assert.strictEqual(run.exitCode, 2, s.file)
        const error = run.errorJson().error
        assert.include(error.message, s.phrase)
        assert.strictEqual(error.code, s.code)
        if (s.code === "limit") assert.strictEqual(error.details.limit, 16 * 1024 * 1024)
      }
      const list = yield* runCli(["session", "list", "--state-dir", state, "--json"])
      assert.strictEqual(list.exitCode, 0, list.stderr)
      assert.deepStrictEqual(list.json(), [])
    }))

  it.live("session continue: a script swapped for a FIFO is refused naming it, and the session is unchanged", () =>
    Effect.gen(function*() {
      const dir = tempDir("continue")
      const state = path.join(dir, "state")
      fs.mkdirSync(state)
      const script = path.join(dir, "script.jsonl")
      fs.writeFileSync(script, JSON.stringify({ text: "Hello." }) + "\n" + JSON.stringify({ text: "Again." }))
      const run = yield* runCli(["session", "run", "--state-dir", state, "--script", script, "--json", "hi"])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      const id = run.outcome().session
      const before = (yield* runCli(["session", "show", "--state-dir", state, "--json", id])).json()
      fs.rmSync(script)
      fifo(script)
      const again = yield* runCli(["session", "continue", "--state-dir", state, "--json", id, "more"])
      assert.strictEqual(again.exitCode, 2)
      assert.include(again.errorJson().error.message, `${script}: is a FIFO (named pipe), not a regular file`)
      const after = (yield* runCli(["session", "show", "--state-dir", state, "--json", id])).json()
      assert.deepStrictEqual(after, before)
    }))

  it.live("audit loop --script: a FIFO, an oversized and a missing script are refused; the audit is unchanged", () =>
    Effect.gen(function*() {
      const project = tempDir("loop")
      const state = path.join(project, ".steward")
      const at = ["--project", project, "--state-dir", state]
      assert.strictEqual((yield* runCli(["audit", "init", ...at])).exitCode, 0)
      const status = () => Effect.map(runCli(["audit", "status", ...at, "--json"]), (r) => r.json())
      const before = yield* status()
      for (const s of hostileScripts(project)) {
        const run = yield* runCli(["audit", "loop", "--script", s.file, ...at, "--json"])
        assert.strictEqual(run.exitCode, 2, s.file)
        const error = run.errorJson().error
        assert.include(error.message, s.phrase)
        assert.strictEqual(error.code, s.code)
      }
      assert.deepStrictEqual(yield* status(), before)
      assert.isFalse(fs.existsSync(path.join(project, "audit/.lock")))
    }))

  it.live("audit loop: a FIFO as orchestrator.conf is refused by name, not waited on, and no lease is taken", () =>
    Effect.gen(function*() {
      const project = tempDir("conf")
      const state = path.join(project, ".steward")
      const at = ["--project", project, "--state-dir", state]
      assert.strictEqual((yield* runCli(["audit", "init", ...at])).exitCode, 0)
      const script = path.join(project, "script.jsonl")
      fs.writeFileSync(script, JSON.stringify({ role: "Auditor", text: "done" }) + "\n")
      const conf = path.join(project, "audit/orchestrator.conf")
      fs.rmSync(conf, { force: true })
      fifo(conf)
      const run = yield* runCli(["audit", "loop", "--script", script, ...at, "--json"])
      assert.strictEqual(run.exitCode, 2)
      assert.include(run.errorJson().error.message, `${conf}: is a FIFO (named pipe), not a regular file`)
      assert.isFalse(fs.existsSync(path.join(project, "audit/.lock")))
    }))

  it.live("audit status: a FIFO as the lease's owner file is not waited on (the lease reads as held)", () =>
    Effect.gen(function*() {
      const project = tempDir("lease")
      const state = path.join(project, ".steward")
      const at = ["--project", project, "--state-dir", state]
      assert.strictEqual((yield* runCli(["audit", "init", ...at])).exitCode, 0)
      fs.mkdirSync(path.join(project, "audit/.lock"))
      fifo(path.join(project, "audit/.lock/owner"))
      fifo(path.join(project, "audit/.lock/heartbeat"))
      const run = yield* runCli(["audit", "status", ...at, "--json"])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      assert.deepStrictEqual(run.json().lock, {
        owner: "",
        heartbeat_age_s: null,
        lease_ttl_s: 300,
        state: "LIVE"
      })
    }))

  it.live("audit migrate: a FIFO or an oversized AUDIT.md is refused by name; no state is created", () =>
    Effect.gen(function*() {
      const project = tempDir("migrate")
      fs.mkdirSync(path.join(project, "audit"))
      const auditFile = path.join(project, "audit/AUDIT.md")
      fifo(auditFile)
      const run = yield* runCli(["audit", "--project", project, "migrate", "--json"])
      assert.strictEqual(run.exitCode, 2)
      assert.include(run.errorJson().error.message, `${auditFile}: is a FIFO (named pipe), not a regular file`)
      fs.rmSync(auditFile)
      sparse(auditFile, 65)
      const big = yield* runCli(["audit", "--project", project, "migrate", "--json"])
      assert.strictEqual(big.exitCode, 2)
      assert.strictEqual(big.errorJson().error.code, "limit")
      assert.include(big.errorJson().error.message, `${auditFile}: 65 MiB is larger than the limit of 64 MiB`)
      assert.isFalse(fs.existsSync(path.join(project, "audit/state.sqlite")))
    }))
})
