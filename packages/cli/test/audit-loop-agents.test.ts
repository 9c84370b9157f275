import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"
import { commitSubject, queueOnePass } from "./support/auditProject.js"

// `steward audit loop --agents` (issue 39): each role dispatched to its agent CLI as a child process.
// A scripted stand-in (test/fixtures/agents/scripted-agent.mjs) plays the CLIs here: it reads its
// prompt on stdin and writes the audit only through `steward audit` verbs, as a real agent would.

const AGENT = path.join(import.meta.dirname, "fixtures", "agents", "scripted-agent.mjs")
const SOURCE = "def core(x):\n    return x - 1  # documented as x + 1\n"
const FIXED = "def core(x):\n    return x + 1\n"
const sha = createHash("sha256").update(SOURCE).digest("hex")

type Step =
  | { readonly steward: ReadonlyArray<string>; readonly mustSucceed?: boolean }
  | { readonly write: { readonly path: string; readonly text: string } }
  | { readonly say: string }
  | { readonly sleep: number }
  | { readonly exit: number }
  | { readonly git: ReadonlyArray<string> }

/** A git subject with one file, an audit with one queued pass, and a state dir holding the role map. */
const setup = () =>
  Effect.gen(function*() {
    const project = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-audit-agents-loop-")))
    commitSubject(project, SOURCE)
    const state = path.join(project, ".steward")
    fs.mkdirSync(state)
    yield* queueOnePass(project)
    const at = ["--project", project]
    /** Give `role` a stand-in agent playing `agent` with these steps (its plan and wrapper live outside the project). */
    const agents: Record<string, unknown> = {}
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "steward-audit-agents-plans-"))
    const play = (role: string, agent: string, model: string, steps: ReadonlyArray<Step>) => {
      const plan = path.join(scratch, `${role}.json`)
      fs.writeFileSync(plan, JSON.stringify({ steps }))
      const exe = path.join(scratch, `${role}-${agent}`)
      fs.writeFileSync(exe, `#!/bin/sh\nexec ${process.execPath} ${AGENT} ${plan} "$@"\n`, { mode: 0o755 })
      agents[role] = { agent, model, executable: exe }
      fs.writeFileSync(path.join(state, "config.json"), JSON.stringify({ extensions: { audit: { agents } } }))
      return plan
    }
    return { project, state, at: [...at, "--state-dir", state], play }
  })

const exportState = (project: string) =>
  Effect.map(runCli(["audit", "export-state", "--project", project, "--json"]), (r) => JSON.parse(r.stdout).state)

const verb = (project: string, ...args: Array<string>) => ({ steward: [...args, "--project", project] })

const auditor = (project: string): ReadonlyArray<Step> => [
  { write: { path: "audit/findings/F-0001.md", text: "## Evidence\nsrc/core.py:2 returns x - 1.\n" } },
  verb(
    project,
    "file-finding",
    ...["--id", "F-0001", "--title", "core subtracts", "--severity", "major", "--dimension", "invariants"],
    ...["--unit", "U01", "--pass", "P-01", "--body", "findings/F-0001.md", "--locator", "src/core.py:2"],
    ...["--source-hash", sha]
  ),
  { write: { path: "audit/passes/P-01.md", text: "## Coverage\nCOVERED: src/core.py\n" } },
  verb(project, "record-coverage", "P-01", "--report", "passes/P-01.md", "--findings", "F-0001"),
  { say: "P-01 done (token ghp_0123456789abcdefghijABCDEFGHIJ0123 in my log)" }
]

const remediator = (project: string): ReadonlyArray<Step> => [
  verb(project, "set-status", "F-0001", "validated"),
  { write: { path: "audit/plans/RP-0001.md", text: "## Fix plan\n" } },
  verb(project, "record-plan", "RP-0001", "--findings", "F-0001", "--body", "plans/RP-0001.md"),
  verb(project, "set-status", "F-0001", "planned"),
  { write: { path: "src/core.py", text: FIXED } },
  // another session's id is refused: provenance binds to the open dispatch
  {
    ...verb(project, "record-fix", "F-0001", "--session", "0123456789abcdef", "--plan", "RP-0001"),
    mustSucceed: false
  },
  // --session omitted: the verb takes the open dispatch's (issue 39 item 2)
  verb(project, "record-fix", "F-0001", "--plan", "RP-0001")
]

const verifier = (project: string): ReadonlyArray<Step> => [
  verb(project, "record-verdict", "F-0001", "--verdict", "closed", "--reason", "re-read")
]

/** Run the cycle up to the remediator: audit, then the person's triage. */
const auditAndTriage = (s: Effect.Effect.Success<ReturnType<typeof setup>>) =>
  Effect.gen(function*() {
    const first = yield* runCli(["audit", "loop", "--agents", ...s.at])
    assert.strictEqual(first.exitCode, 0, first.stderr + first.stdout)
    assert.include(first.stdout, "stop: triage needed — 1 reported finding(s): F-0001")
    const triage = yield* runCli(["audit", "set-status", "F-0001", "accepted", "--project", s.project])
    assert.strictEqual(triage.exitCode, 0, triage.stderr)
    return first
  })

describe("steward audit loop --agents", () => {
  it.live("codex audits, claude-code remediates, codex verifies: cross-provider, full envelopes, verbs bound", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const auditorPlan = s.play("auditor", "codex", "gpt-scripted", auditor(s.project))
      const remediatorPlan = s.play("remediator", "claude-code", "claude-scripted", remediator(s.project))
      s.play("verifier", "codex", "gpt-scripted", verifier(s.project))
      const first = yield* auditAndTriage(s)
      assert.match(first.stdout, /^session 1: Auditor \(P-01\) — dispatch [0-9a-f]{16}, codex session ended ok/m)

      // the agent got the charter on stdin, its CLI's headless argv, and the loop's lease and session
      const seen = JSON.parse(fs.readFileSync(`${auditorPlan}.seen.json`, "utf8"))
      assert.deepStrictEqual(seen.args.slice(0, 2), ["exec", "--json"])
      assert.deepStrictEqual(seen.args.slice(-3), ["-m", "gpt-scripted", "-"])
      assert.include(seen.prompt, "You are the Auditor")
      assert.include(seen.prompt, "<<<CHARTER>>>")
      assert.match(seen.session, /^[0-9a-f]{16}$/)
      // Steward's hooks for this session only: Codex's home is the session's, in the state dir
      assert.strictEqual(seen.env.CODEX_HOME, path.join(s.state, "audit-sessions", seen.session, "agent-home"))
      assert.include(fs.readFileSync(path.join(seen.env.CODEX_HOME, "hooks.json"), "utf8"), "PreToolUse")

      const run = yield* runCli(["audit", "loop", "--agents", ...s.at, "--json"])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      assert.deepStrictEqual(run.json().sessions.map((l: any) => [l.role, l.agent, l.status]), [
        ["Remediator", "claude-code", "ok"],
        ["Verifier", "codex", "ok"]
      ])
      assert.strictEqual(run.json().decision.kind, "done")
      const claude = JSON.parse(fs.readFileSync(`${remediatorPlan}.seen.json`, "utf8"))
      const settings = claude.args[claude.args.indexOf("--settings") + 1]
      assert.isTrue(settings.startsWith(path.join(s.state, "audit-sessions")), "Claude Code's hooks: a session file")
      assert.include(fs.readFileSync(settings, "utf8"), "PreToolUse")
      assert.isFalse(fs.existsSync(path.join(s.project, ".claude")), "the project's own settings are untouched")
      assert.strictEqual(
        fs.readFileSync(path.join(s.project, "src/core.py"), "utf8"),
        FIXED,
        "an ok session's fix stays"
      )

      const doc = yield* exportState(s.project)
      const finding = doc.findings[0]
      assert.strictEqual(finding.status, "closed")
      assert.strictEqual(finding.independence, "cross-provider")
      assert.strictEqual(finding.fixed_by, doc.sessions[1].session_id, "the fix is bound to its dispatch")
      assert.deepStrictEqual(doc.sessions.map((e: any) => [e.role, e.provider, e.agent_model, e.outcome]), [
        ["Auditor", "openai", "gpt-scripted", "ok"],
        ["Remediator", "anthropic", "claude-scripted", "ok"],
        ["Verifier", "openai", "gpt-scripted", "ok"]
      ])
      for (const e of doc.sessions) {
        assert.match(e.executable_version, /^sha256:[0-9a-f]{64}$/)
        assert.strictEqual(
          e.executable_version,
          `sha256:${createHash("sha256").update(fs.readFileSync(e.executable)).digest("hex")}`,
          "the digest of the executable's bytes"
        )
        for (const k of ["charter_hash", "prompt_hash", "log_digest"]) assert.match(e[k], /^[0-9a-f]{64}$/, k)
        for (const k of ["head_before", "head_after"]) assert.match(e[k], /^[0-9a-f]{7,40}$/, k)
        assert.isAtLeast(e.duration_s, 0)
        assert.strictEqual(e.exit_status, 0)
        assert.include(e.sandbox_profile, "steward-hooks")
        // the log is outside the project, redacted, and its digest is the envelope's
        const log = fs.readFileSync(path.join(s.state, "audit-sessions", e.session_id, "session.log"))
        assert.strictEqual(createHash("sha256").update(log).digest("hex"), e.log_digest)
        assert.notInclude(log.toString(), "ghp_0123456789")
      }
      const auditLog = fs.readFileSync(path.join(s.state, "audit-sessions", doc.sessions[0].session_id, "session.log"))
      assert.include(auditLog.toString(), "[REDACTED:github-token]")
      const remediation = fs.readFileSync(
        path.join(s.state, "audit-sessions", doc.sessions[1].session_id, "session.log"),
        "utf8"
      )
      assert.include(
        remediation,
        `--session claims session 0123456789abcdef, but this process runs in dispatch ${doc.sessions[1].session_id}`,
        "another session id was refused"
      )

      const metrics = yield* runCli(["audit", "metrics", "--project", s.project, "--json"])
      assert.deepStrictEqual(metrics.json().independence.by_level, { "cross-provider": 1 })
      const dashboard = yield* runCli(["audit", "--project", s.project, "dashboard"])
      assert.strictEqual(dashboard.exitCode, 0, dashboard.stderr)
      assert.include(
        fs.readFileSync(path.join(s.project, "audit", "dashboard.html"), "utf8"),
        "independence: cross-provider 1<"
      )
      // the event chain verifies: recover finds it intact and nothing to repair
      const recover = yield* runCli(["audit", "recover", "--project", s.project, "--json"])
      assert.strictEqual(recover.exitCode, 0, recover.stdout + recover.stderr)
      assert.include(recover.stdout, "the event stream is intact")
      const lint = yield* runCli(["audit", "lint", "--project", s.project])
      assert.strictEqual(lint.exitCode, 0, lint.stdout)
    }))

  it.live("fixer and verifier on the same provider and model: the verdict records `same`, labelled degraded (ADR 0026)", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      s.play("auditor", "claude-code", "claude-scripted", auditor(s.project))
      s.play("remediator", "claude-code", "claude-scripted", remediator(s.project))
      s.play("verifier", "claude-code", "claude-scripted", verifier(s.project))
      yield* auditAndTriage(s)
      const run = yield* runCli(["audit", "loop", "--agents", ...s.at])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      const doc = yield* exportState(s.project)
      // two sessions, one provider and model: no independence (issue 39)
      const envelope = (role: string) => doc.sessions.find((e: any) => e.role === role)
      const [fixer, verifier_] = [envelope("Remediator"), envelope("Verifier")]
      assert.notStrictEqual(fixer.session_id, verifier_.session_id)
      assert.deepStrictEqual([fixer.provider, fixer.agent_model], [verifier_.provider, verifier_.agent_model])
      assert.strictEqual(doc.findings[0].independence, "same")
      const metrics = (yield* runCli(["audit", "metrics", "--project", s.project, "--json"])).json().independence
      assert.deepStrictEqual(metrics.by_level, { same: 1 })
      assert.strictEqual(metrics.degraded, 1)
      assert.include(metrics.degraded_levels, "same")
      const text = yield* runCli(["audit", "metrics", "--project", s.project])
      assert.include(text.stdout, "independence: same 1 ⚠ degraded")
      const dashboard = yield* runCli(["audit", "--project", s.project, "dashboard"])
      assert.strictEqual(dashboard.exitCode, 0, dashboard.stderr)
      const page = fs.readFileSync(path.join(s.project, "audit", "dashboard.html"), "utf8")
      assert.include(page, "independence: same 1 ⚠ degraded<")
      assert.include(page, "1 verdict(s) at a degraded independence level (same)")
    }))

  it.live("a remediator that times out, one that exits non-zero, one cancelled: project untouched, diff in quarantine", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      s.play("auditor", "codex", "gpt-scripted", auditor(s.project))
      yield* auditAndTriage(s)
      fs.appendFileSync(path.join(s.project, "audit/orchestrator.conf"), "session_timeout = 2\nsession_grace = 1\n")
      const before = fs.readFileSync(path.join(s.project, "src/core.py"), "utf8")
      const cases: ReadonlyArray<readonly [string, ReadonlyArray<Step>, string, number]> = [
        ["timeout", [{ sleep: 60_000 }], "timeout", -15],
        ["crash", [{ exit: 3 }], "crash", 3]
      ]
      for (const [name, tail, outcome, status] of cases) {
        s.play("remediator", "claude-code", "claude-scripted", [
          { write: { path: "src/core.py", text: FIXED } },
          { write: { path: `src/new-${name}.py`, text: "added\n" } },
          ...tail
        ])
        const run = yield* runCli(["audit", "loop", "--agents", ...s.at, "--json"])
        assert.strictEqual(run.exitCode, 1, `${name}: ${run.stderr}`)
        assert.include(run.json().stop, `ended ${outcome}`)
        assert.include(run.json().stop, "nothing it changed was applied")
        assert.strictEqual(fs.readFileSync(path.join(s.project, "src/core.py"), "utf8"), before, `${name}: restored`)
        assert.isFalse(fs.existsSync(path.join(s.project, `src/new-${name}.py`)), `${name}: the added file is gone`)
        const doc = yield* exportState(s.project)
        const envelope = doc.sessions.at(-1)
        assert.deepStrictEqual([envelope.outcome, envelope.exit_status], [outcome, status])
        const bundle = path.join(s.project, "audit", "quarantine", envelope.session_id)
        const manifest = JSON.parse(fs.readFileSync(path.join(bundle, "manifest.json"), "utf8"))
        assert.deepStrictEqual(manifest.changes.map((c: any) => [c.path, c.change]), [
          ["src/core.py", "modified"],
          [`src/new-${name}.py`, "added"]
        ])
        assert.strictEqual(fs.readFileSync(path.join(bundle, "files/src/core.py"), "utf8"), FIXED)
        assert.isFalse(fs.existsSync(path.join(s.project, "audit/.lock")), "the lease is released")
      }

      // steward audit cancel stops the running session the same way: cancelled, its changes quarantined
      const conf = path.join(s.project, "audit/orchestrator.conf")
      fs.writeFileSync(conf, fs.readFileSync(conf, "utf8").replace("session_timeout = 2", "session_timeout = 600"))
      const marker = path.join(s.project, "src/started.txt")
      s.play("remediator", "claude-code", "claude-scripted", [
        { write: { path: "src/started.txt", text: "x\n" } },
        { sleep: 60_000 }
      ])
      const nothing = yield* runCli(["audit", "cancel", "--project", s.project])
      assert.strictEqual(nothing.exitCode, 1)
      assert.include(nothing.stderr, "no session to cancel")
      const loop = yield* Effect.fork(runCli(["audit", "loop", "--agents", ...s.at, "--json"]))
      while (!fs.existsSync(marker)) yield* Effect.sleep("50 millis")
      const cancel = yield* runCli(["audit", "cancel", "--project", s.project])
      assert.strictEqual(cancel.exitCode, 0, cancel.stderr)
      const run = yield* Fiber.join(loop)
      assert.strictEqual(run.exitCode, 1)
      assert.include(run.json().stop, "ended cancelled")
      assert.isFalse(fs.existsSync(marker), "the cancelled session's file is gone")
      const doc = yield* exportState(s.project)
      assert.strictEqual(doc.sessions.at(-1).outcome, "cancelled")
      assert.isTrue(fs.existsSync(path.join(s.project, "audit/quarantine", doc.sessions.at(-1).session_id)))

      // the loop itself interrupted mid-session (Ctrl-C): the session is undone and its dispatch finished
      const interrupted = yield* Effect.fork(runCli(["audit", "loop", "--agents", ...s.at, "--json"]))
      while (!fs.existsSync(marker)) yield* Effect.sleep("50 millis")
      yield* Fiber.interrupt(interrupted)
      assert.isFalse(fs.existsSync(marker), "the interrupted session's file is gone")
      const after = yield* exportState(s.project)
      assert.strictEqual(after.sessions.length, doc.sessions.length + 1)
      assert.strictEqual(after.sessions.at(-1).outcome, "cancelled")
      assert.isTrue(fs.existsSync(path.join(s.project, "audit/quarantine", after.sessions.at(-1).session_id)))
      assert.isFalse(fs.existsSync(path.join(s.project, "audit/.lock")), "the lease is released")
    }))

  it.live("a remediator that commits then exits non-zero: HEAD, branch, index and tree as before, its commit quarantined", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      s.play("auditor", "codex", "gpt-scripted", auditor(s.project))
      yield* auditAndTriage(s)
      const git = (...args: Array<string>) =>
        execFileSync("git", args, { cwd: s.project, encoding: "utf8", stdio: "pipe" }).trim()
      const before = {
        head: git("rev-parse", "HEAD"),
        branch: git("symbolic-ref", "HEAD"),
        index: fs.readFileSync(path.join(s.project, ".git/index")),
        status: git("status", "--porcelain")
      }
      s.play("remediator", "claude-code", "claude-scripted", [
        { write: { path: "src/core.py", text: FIXED } },
        { git: ["commit", "-qam", "the session's fix"] },
        { git: ["checkout", "-qb", "session-branch"] },
        { write: { path: "src/staged.py", text: "staged\n" } },
        { git: ["add", "src/staged.py"] },
        { exit: 3 }
      ])
      const run = yield* runCli(["audit", "loop", "--agents", ...s.at, "--json"])
      assert.strictEqual(run.exitCode, 1, run.stderr)
      assert.include(run.json().stop, "ended crash")
      assert.strictEqual(git("rev-parse", "HEAD"), before.head, "HEAD is back")
      assert.strictEqual(git("symbolic-ref", "HEAD"), before.branch, "on the branch it was on")
      assert.strictEqual(git("rev-parse", before.branch), before.head, "the branch is back")
      assert.strictEqual(git("branch", "--list", "session-branch"), "", "the branch the session made is gone")
      assert.isTrue(before.index.equals(fs.readFileSync(path.join(s.project, ".git/index"))), "the index is back")
      assert.strictEqual(git("status", "--porcelain"), before.status, "the tree is back")
      assert.strictEqual(fs.readFileSync(path.join(s.project, "src/core.py"), "utf8"), SOURCE)

      const doc = yield* exportState(s.project)
      const envelope = doc.sessions.at(-1)
      assert.notStrictEqual(envelope.head_after, envelope.head_before, "the envelope shows the session's HEAD")
      const bundle = path.join(s.project, "audit", "quarantine", envelope.session_id)
      const manifest = JSON.parse(fs.readFileSync(path.join(bundle, "manifest.json"), "utf8"))
      assert.strictEqual(manifest.git.bundle, "commits.bundle")
      assert.deepStrictEqual(manifest.git.refs.map((r: any) => [r.ref, r.before]), [
        [before.branch, before.head],
        ["refs/heads/session-branch", null]
      ])
      // the commit is kept: the bundle verifies against the project and its tip is the session's fix
      git("bundle", "verify", path.join(bundle, "commits.bundle"))
      const tip = git("bundle", "list-heads", path.join(bundle, "commits.bundle"), before.branch).split(" ")[0]!
      assert.strictEqual(git("log", "-1", "--format=%s", tip), "the session's fix")
      assert.strictEqual(git("show", `${tip}:src/core.py`), FIXED.trim())
    }))

  it.scopedLive("audit cancel stops a session on the built-in harness (steward agent): cancelled, its changes quarantined", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      s.play("auditor", "codex", "gpt-scripted", auditor(s.project))
      yield* auditAndTriage(s)
      // the remediator on Steward's own harness, its provider a local server that never answers
      const calls: Array<http.ServerResponse> = []
      const server = yield* Effect.acquireRelease(
        Effect.promise(() =>
          new Promise<http.Server>((resolve) => {
            const srv = http.createServer((_request, response) => void calls.push(response))
            srv.listen(0, "127.0.0.1", () => resolve(srv))
          })
        ),
        (srv) => Effect.sync(() => (srv.closeAllConnections(), srv.close()))
      )
      const vars = {
        OPENAI_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
        OPENAI_API_KEY: "test-key"
      }
      yield* Effect.acquireRelease(
        Effect.sync(() => Object.assign(process.env, vars)),
        () => Effect.sync(() => Object.keys(vars).forEach((k) => delete process.env[k]))
      )
      const config = path.join(s.state, "config.json")
      const profile = JSON.parse(fs.readFileSync(config, "utf8"))
      profile.extensions.audit.agents.remediator = { agent: "steward", model: "openai:gpt-hangs" }
      fs.writeFileSync(config, JSON.stringify(profile))

      const loop = yield* Effect.fork(runCli(["audit", "loop", "--agents", ...s.at, "--json"]))
      while (calls.length === 0) yield* Effect.sleep("50 millis")
      // something changed in the workspace while the session ran: it is the session's, not applied
      fs.writeFileSync(path.join(s.project, "src/during.txt"), "x\n")
      const cancel = yield* runCli(["audit", "cancel", "--project", s.project])
      assert.strictEqual(cancel.exitCode, 0, cancel.stderr)
      const run = yield* Fiber.join(loop)
      assert.strictEqual(run.exitCode, 1, run.stderr)
      assert.include(run.json().stop, "cancelled")
      assert.deepStrictEqual(run.json().sessions.map((l: any) => l.role), ["Remediator"], "the loop stops there")
      assert.isFalse(fs.existsSync(path.join(s.project, "src/during.txt")), "the change is undone")
      const doc = yield* exportState(s.project)
      const envelope = doc.sessions.at(-1)
      assert.deepStrictEqual([envelope.role, envelope.outcome], ["Remediator", "cancelled"])
      const manifest = JSON.parse(
        fs.readFileSync(path.join(s.project, "audit/quarantine", envelope.session_id, "manifest.json"), "utf8")
      )
      assert.deepStrictEqual(manifest.changes.map((c: any) => [c.path, c.change]), [["src/during.txt", "added"]])
      assert.isFalse(fs.existsSync(path.join(s.project, "audit/.lock")), "the lease is released")

      // the loop itself interrupted mid-session (Ctrl-C): undone, its dispatch finished cancelled
      const asked = calls.length
      const interrupted = yield* Effect.fork(runCli(["audit", "loop", "--agents", ...s.at, "--json"]))
      while (calls.length === asked) yield* Effect.sleep("50 millis")
      fs.writeFileSync(path.join(s.project, "src/during.txt"), "y\n")
      yield* Fiber.interrupt(interrupted)
      assert.isFalse(fs.existsSync(path.join(s.project, "src/during.txt")), "the interrupted session's change is gone")
      const after = yield* exportState(s.project)
      assert.strictEqual(after.sessions.length, doc.sessions.length + 1)
      assert.strictEqual(after.sessions.at(-1).outcome, "cancelled")
      assert.isTrue(fs.existsSync(path.join(s.project, "audit/quarantine", after.sessions.at(-1).session_id)))
      assert.isFalse(fs.existsSync(path.join(s.project, "audit/.lock")), "the lease is released")
    }))

  it.effect("--agents with a missing agent binary names it; --agents with --script is a usage error", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const both = yield* runCli(["audit", "loop", "--agents", "--script", "x.jsonl", ...s.at, "--json"])
      assert.strictEqual(both.exitCode, 2)
      assert.include(both.errorJson().error.message, "or --agents")
      fs.writeFileSync(
        path.join(s.state, "config.json"),
        JSON.stringify({
          extensions: { audit: { agents: { auditor: { agent: "codex", executable: "/nonexistent/codex" } } } }
        })
      )
      const missing = yield* runCli(["audit", "loop", "--agents", ...s.at, "--json"])
      assert.notStrictEqual(missing.exitCode, 0)
      assert.include(missing.errorJson().error.message, "/nonexistent/codex")
      const doc = yield* exportState(s.project)
      assert.deepStrictEqual(doc.sessions ?? [], [], "nothing was dispatched")
    }))

  it.effect("record-fix without --session outside a dispatch: refused naming --session, nothing written", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const before = yield* exportState(s.project)
      const run = yield* runCli(["audit", "record-fix", "F-0001", "--project", s.project, "--json"])
      assert.strictEqual(run.exitCode, 2, run.stderr)
      assert.include(run.errorJson().error.message, "--session")
      assert.include(run.errorJson().error.message, "no dispatch is open")
      assert.deepStrictEqual(yield* exportState(s.project), before)
    }))
})
