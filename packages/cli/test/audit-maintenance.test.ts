import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

// xcheck's unlock / recover / doctor (spec §3.2, §5.1) through the CLI. Time is the TestClock: a
// heartbeat written at epoch second 0 is `now` seconds old.

const tempProject = () => fs.mkdtempSync(path.join(os.tmpdir(), "steward-audit-maint-"))

const init = (project: string) =>
  Effect.gen(function*() {
    const run = yield* runCli(["audit", "init", "--project", project])
    assert.strictEqual(run.exitCode, 0, run.stderr)
  })

/** A lease as another process left it: owner JSON and a heartbeat at epoch second `beat`. */
const plantLease = (project: string, beat: number, owner: Record<string, unknown> = {}) => {
  const dir = path.join(project, "audit/.lock")
  fs.mkdirSync(dir)
  fs.writeFileSync(
    path.join(dir, "owner"),
    JSON.stringify({
      pid: process.pid,
      role: "Auditor",
      started: "2026-01-01T00:00:00+00:00",
      host: os.hostname(),
      nonce: "0123456789abcdef",
      ...owner
    })
  )
  fs.writeFileSync(path.join(dir, "heartbeat"), `${beat}\n`)
}

describe("steward audit unlock", () => {
  it.effect("no lock; a live lease refused (and write verbs refused under it); an expired one reclaimed; --force", () =>
    Effect.gen(function*() {
      const project = tempProject()
      yield* init(project)
      const none = yield* runCli(["audit", "unlock", "--project", project])
      assert.strictEqual(none.exitCode, 0)
      assert.strictEqual(none.stdout, "no lock present")

      yield* TestClock.setTime(100_000) // now = 100 s; the heartbeat below is 100 s old, ttl 300 s
      plantLease(project, 0)
      const live = yield* runCli(["audit", "unlock", "--project", project, "--json"])
      assert.strictEqual(live.exitCode, 1)
      assert.strictEqual(live.errorJson().error.code, "refused")
      assert.include(live.errorJson().error.message, "LIVE or unverifiable")
      assert.include(live.errorJson().error.message, "heartbeat 100s ago (lease_ttl 300s)")
      assert.isTrue(fs.existsSync(path.join(project, "audit/.lock")), "a live lease is never removed")
      // while the lease is held, a hand-run write verb is refused and writes nothing
      const write = yield* runCli(["audit", "set-limit", "reopen_limit", "3", "--project", project, "--json"])
      assert.strictEqual(write.exitCode, 1)
      assert.include(write.errorJson().error.message, "audit/.lock is held")
      assert.include(write.errorJson().error.message, "steward audit unlock")
      const status = yield* runCli(["audit", "status", "--project", project, "--json"])
      assert.strictEqual(status.json().state_revision, 0)
      // status shows the lease as xcheck's `lock`
      assert.deepInclude(status.json().lock, { role: "Auditor", pid: process.pid, heartbeat_age_s: 100, state: "LIVE" })
      assert.include((yield* runCli(["audit", "status", "--project", project])).stdout, "lock: audit/.lock is held")

      yield* TestClock.setTime(301_000) // 301 s without a heartbeat: the lease has expired
      const reclaimed = yield* runCli(["audit", "unlock", "--project", project])
      assert.strictEqual(reclaimed.exitCode, 0, reclaimed.stderr)
      assert.include(reclaimed.stdout, "lock reclaimed: its lease heartbeat stopped 301s ago (lease_ttl 300s)")
      assert.isFalse(fs.existsSync(path.join(project, "audit/.lock")))
      assert.isNull((yield* runCli(["audit", "status", "--project", project, "--json"])).json().lock)
      const after = yield* runCli(["audit", "set-limit", "reopen_limit", "3", "--project", project])
      assert.strictEqual(after.exitCode, 0, after.stderr)

      // lease_ttl comes from orchestrator.conf (at least 30 s)
      fs.writeFileSync(path.join(project, "audit/orchestrator.conf"), "lease_ttl = 500\n")
      plantLease(project, 0)
      const longer = yield* runCli(["audit", "unlock", "--project", project])
      assert.strictEqual(longer.exitCode, 1)
      assert.include(longer.stderr, "lease_ttl 500s")
      const forced = yield* runCli(["audit", "unlock", "--force", "--project", project])
      assert.strictEqual(forced.exitCode, 0)
      assert.include(forced.stdout, "lock removed (--force)")
      assert.isFalse(fs.existsSync(path.join(project, "audit/.lock")))
    }))

  it.effect("a dead owner whose lease has not expired is still refused without --force", () =>
    Effect.gen(function*() {
      const project = tempProject()
      yield* init(project)
      yield* TestClock.setTime(10_000)
      plantLease(project, 0, { pid: 2 ** 22 + 12345 }) // above Linux's pid_max: no such process
      const run = yield* runCli(["audit", "unlock", "--project", project])
      assert.strictEqual(run.exitCode, 1)
      assert.include(run.stderr, "STALE (pid dead)")
      assert.include(run.stderr, "use --force")
    }))
})

describe("steward audit recover", () => {
  it.effect("diagnoses what a crashed loop leaves, repairs it with --apply, and is then clean", () =>
    Effect.gen(function*() {
      const project = tempProject()
      yield* init(project)
      // a loop's open dispatch, its expired lease, a half-written view and a view the crash did not render
      const open = yield* runCli([
        "audit",
        "dispatch",
        "open",
        "--project",
        project,
        "--role",
        "Auditor",
        "--executable",
        "steward-audit-loop",
        "--charter",
        "P-01",
        "--prompt",
        "audit P-01",
        "--session",
        "00000000000000aa"
      ])
      assert.strictEqual(open.exitCode, 0, open.stderr)
      yield* TestClock.setTime(1_000_000)
      plantLease(project, 0)
      fs.writeFileSync(path.join(project, "audit/LEDGER.md.tmp"), "# LEDGER — 0 rec")
      fs.rmSync(path.join(project, "audit/LEDGER.md"))

      const report = yield* runCli(["audit", "recover", "--project", project, "--json"])
      assert.strictEqual(report.exitCode, 1)
      const checks = Object.fromEntries(report.json().checks.map((c: any) => [c.check, c]))
      assert.isTrue(checks.database.ok)
      assert.isTrue(checks.events.ok)
      for (const name of ["lease", "dispatch", "views", "leftovers"]) assert.isFalse(checks[name].ok, name)
      assert.include(checks.dispatch.detail, "00000000000000aa")
      // the report changed nothing
      assert.isTrue(fs.existsSync(path.join(project, "audit/.lock")))
      assert.isTrue(fs.existsSync(path.join(project, "audit/LEDGER.md.tmp")))

      const applied = yield* runCli(["audit", "recover", "--apply", "--project", project])
      assert.strictEqual(applied.exitCode, 0, applied.stdout + applied.stderr)
      assert.include(applied.stdout, "recovered: the project is consistent")
      assert.isFalse(fs.existsSync(path.join(project, "audit/.lock")))
      assert.isFalse(fs.existsSync(path.join(project, "audit/LEDGER.md.tmp")))
      assert.isTrue(fs.existsSync(path.join(project, "audit/LEDGER.md")))
      const state = JSON.parse((yield* runCli(["audit", "export-state", "--project", project, "--json"])).stdout).state
      assert.strictEqual(state.sessions[0].outcome, "crash")
      assert.include(state.sessions[0].note, "abandoned")

      const again = yield* runCli(["audit", "recover", "--project", project])
      assert.strictEqual(again.exitCode, 0)
      assert.include(again.stdout, "nothing to recover")
      const lint = yield* runCli(["audit", "lint", "--project", project])
      assert.strictEqual(lint.exitCode, 0, lint.stdout)
    }))

  it.effect("an external session's open dispatch is reported, not closed", () =>
    Effect.gen(function*() {
      const project = tempProject()
      yield* init(project)
      yield* runCli([
        "audit",
        "dispatch",
        "open",
        "--project",
        project,
        "--role",
        "Auditor",
        "--executable",
        "codex",
        "--charter",
        "P-01",
        "--prompt",
        "audit P-01"
      ])
      const run = yield* runCli(["audit", "recover", "--apply", "--project", project, "--json"])
      assert.strictEqual(run.exitCode, 0)
      const dispatch = run.json().checks.find((c: any) => c.check === "dispatch")
      assert.isTrue(dispatch.ok)
      assert.include(dispatch.detail, "an external session")
    }))

  it.effect("a tampered event stream cannot be recovered in place (exit 1, FAIL)", () =>
    Effect.gen(function*() {
      const project = tempProject()
      yield* init(project)
      assert.strictEqual((yield* runCli(["audit", "set-limit", "reopen_limit", "3", "--project", project])).exitCode, 0)
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const tables = yield* sql.unsafe<{ readonly name: string }>(
          "select name from sqlite_master where type = 'table' and name like '%event%'"
        )
        assert.isAbove(tables.length, 0)
        yield* sql.unsafe(`delete from ${tables[0]!.name}`)
      }).pipe(Effect.provide(SqliteClient.layer({ filename: path.join(project, "audit/state.sqlite") })), Effect.scoped)
      const run = yield* runCli(["audit", "recover", "--apply", "--project", project])
      assert.strictEqual(run.exitCode, 1)
      assert.match(run.stdout, /FAIL events: the event stream is (short|replaced|broken)/)
      assert.include(run.stdout, "not recoverable in place")
    }))
})

describe("steward audit doctor", () => {
  it.effect("a fresh project passes; a missing state, a drifted view and a bad config fail", () =>
    Effect.gen(function*() {
      const project = tempProject()
      const missing = yield* runCli(["audit", "doctor", "--project", project, "--json"])
      assert.strictEqual(missing.exitCode, 1)
      const state = missing.json().checks.find((c: any) => c.name === "state")
      assert.strictEqual(state.status, "fail")
      assert.include(state.detail, "steward audit migrate")

      yield* init(project)
      const ok = yield* runCli(["audit", "doctor", "--project", project])
      assert.strictEqual(ok.exitCode, 0, ok.stdout)
      assert.include(ok.stdout, "ok   database:")
      assert.include(ok.stdout, "warn subject: not a git repository")

      fs.appendFileSync(path.join(project, "audit/LEDGER.md"), "| F-9999 | hand edit |\n")
      fs.writeFileSync(path.join(project, "audit/orchestrator.conf"), "batch_size = many\n")
      const bad = yield* runCli(["audit", "doctor", "--project", project, "--json"])
      assert.strictEqual(bad.exitCode, 1)
      const byName = Object.fromEntries(bad.json().checks.map((c: any) => [c.name, c]))
      assert.strictEqual(byName.views.status, "fail")
      assert.include(byName.views.detail, "steward audit render-views")
      assert.strictEqual(byName.config.status, "fail")
      assert.include(byName.config.detail, "batch_size")
    }))
})
