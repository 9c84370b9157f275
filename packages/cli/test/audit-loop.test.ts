import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"
import { commitSubject, queueOnePass } from "./support/auditProject.js"

// `steward audit loop`: each `next` that names a session runs as a governed harness session on
// the scripted model, writing only through the audit verbs, until the person must decide.

const SOURCE = "def core(x):\n    return x - 1  # documented as x + 1\n"
const sha = createHash("sha256").update(SOURCE).digest("hex")

/** A git subject with one file, an audit with one norm, dimension, unit and queued pass, and a state dir. */
const setup = () =>
  Effect.gen(function*() {
    const project = fs.mkdtempSync(path.join(os.tmpdir(), "steward-audit-loop-"))
    commitSubject(project, SOURCE)
    const state = path.join(project, ".steward")
    fs.mkdirSync(state)
    yield* queueOnePass(project)
    const at = ["--project", project]
    return { project, state, at: [...at, "--state-dir", state] }
  })

const turn = (role: string, name: string, input: Record<string, unknown>) =>
  JSON.stringify({ role, toolCalls: [{ name, input }] })
const say = (role: string, text: string) => JSON.stringify({ role, text })

const auditorTurns = [
  turn("Auditor", "audit_status", {}),
  turn("Auditor", "read", { path: "src/core.py" }),
  // an administrative verb: governance denies it with its rule's citation, and the session goes on
  turn("Auditor", "audit_set_limit", { key: "reopen_limit", value: "9" }),
  turn("Auditor", "audit_file_finding", {
    id: "F-0001",
    title: "core subtracts instead of adding",
    severity: "major",
    dimension: "invariants",
    unit: ["U01"],
    pass: "P-01",
    body: "findings/F-0001.md",
    locator: "src/core.py:2",
    sourceHash: sha,
    text: "## Evidence\nsrc/core.py:2 returns x - 1.\n"
  }),
  turn("Auditor", "audit_record_coverage", {
    id: "P-01",
    report: "passes/P-01.md",
    findings: ["F-0001"],
    text: "## Coverage\nCOVERED: src/core.py\n"
  }),
  say("Auditor", "P-01 done: F-0001.")
]
const remediatorTurns = [
  turn("Remediator", "audit_set_status", { id: "F-0001", status: "validated" }),
  turn("Remediator", "audit_record_plan", {
    id: "RP-0001",
    findings: ["F-0001"],
    body: "plans/RP-0001.md",
    text: "## Fix plan\n"
  }),
  turn("Remediator", "audit_set_status", { id: "F-0001", status: "planned" }),
  // a verb of another role: denied by governance before it reaches the store
  turn("Remediator", "audit_record_verdict", { id: "F-0001", verdict: "closed" }),
  turn("Remediator", "audit_record_fix", { id: "F-0001", plan: "RP-0001" }),
  say("Remediator", "F-0001 fixed.")
]
const verifierTurns = [
  turn("Verifier", "audit_record_verdict", { id: "F-0001", verdict: "closed", reason: "re-read src/core.py" }),
  say("Verifier", "F-0001 closed.")
]

const exportState = (project: string) =>
  Effect.map(runCli(["audit", "export-state", "--project", project, "--json"]), (r) => JSON.parse(r.stdout).state)

describe("steward audit loop", () => {
  it.effect("audit → triage at the CLI → remediate (--step) → verify, governed, writing only through verbs", () =>
    Effect.gen(function*() {
      const { at, project } = yield* setup()
      const script = path.join(project, "sessions.jsonl")
      fs.writeFileSync(script, [...auditorTurns, ...remediatorTurns, ...verifierTurns].join("\n") + "\n")

      const next = yield* runCli(["audit", "next", "--dry-run", "--project", project])
      assert.include(next.stdout, "or run it as a governed session: steward audit loop --step")
      const before = yield* exportState(project)
      const first = yield* runCli(["audit", "loop", "--script", script, ...at])
      assert.strictEqual(first.exitCode, 0, first.stderr)
      assert.match(
        first.stdout,
        /^session 1: Auditor \(P-01\) — dispatch [0-9a-f]{16}, harness session \S+ settled completed/m
      )
      assert.include(first.stdout, "stop: triage needed — 1 reported finding(s): F-0001")
      assert.include(first.stdout, "`steward audit set-status ID accepted`")
      assert.isFalse(fs.existsSync(path.join(project, "audit/.lock")), "the lease is released")
      const afterAudit = yield* exportState(project)
      assert.strictEqual(afterAudit.findings[0].status, "reported")
      assert.deepStrictEqual(afterAudit.limits, before.limits, "the denied admin verb changed nothing")
      assert.strictEqual(afterAudit.sessions[0].executable, "steward-audit-loop")
      assert.strictEqual(afterAudit.sessions[0].role, "Auditor")
      assert.strictEqual(afterAudit.sessions[0].outcome, "ok")
      assert.include(fs.readFileSync(path.join(project, "audit/findings/F-0001.md"), "utf8"), "## Evidence")

      // the harness session recorded governance's denial with the rule's citation
      const sessionId = /harness session (\S+) settled/.exec(first.stdout)![1]!
      const events = (yield* runCli(["session", "events", sessionId, "--json", ...at.slice(2)])).events()
      const refused = events.filter((e: any) => e.type === "tool.refused")
      assert.strictEqual(refused.length, 1)
      assert.include(JSON.stringify(refused[0]), "audit.admin.set-limit")
      const results = events.filter((e: any) => e.type === "tool.result")
      assert.include(JSON.stringify(results), "return x - 1", "the session read the subject")
      assert.include(JSON.stringify(results), "F-0001 filed at 'reported'")

      // the person's triage, typed at the CLI
      const triage = yield* runCli(["audit", "set-status", "F-0001", "accepted", "--project", project])
      assert.strictEqual(triage.exitCode, 0, triage.stderr)

      const step = yield* runCli(["audit", "loop", "--step", "--script", script, ...at])
      assert.strictEqual(step.exitCode, 0, step.stderr)
      assert.match(step.stdout, /session 1: Remediator \(finding F-0001\)/)
      assert.include(step.stdout, "step: one session ran; next: run-verifier")
      const fixed = yield* exportState(project)
      assert.strictEqual(fixed.findings[0].status, "fixed")
      assert.strictEqual(fixed.findings[0].fixed_by, fixed.sessions[1].session_id, "the fix is bound to its dispatch")

      const capped = yield* runCli(["audit", "loop", "--max-sessions", "0", "--script", script, ...at, "--json"])
      assert.strictEqual(capped.exitCode, 0)
      assert.strictEqual(capped.json().stop, "stop: max_sessions=0 reached (cost cap)")
      assert.deepStrictEqual(capped.json().sessions, [])

      const last = yield* runCli(["audit", "loop", "--script", script, ...at, "--json"])
      assert.strictEqual(last.exitCode, 0, last.stderr)
      assert.strictEqual(last.json().decision.kind, "done")
      assert.strictEqual(last.json().sessions[0].role, "Verifier")
      const closed = yield* exportState(project)
      assert.strictEqual(closed.findings[0].status, "closed")
      assert.deepStrictEqual(closed.sessions.map((s: any) => s.outcome), ["ok", "ok", "ok"])
      const lint = yield* runCli(["audit", "lint", "--project", project])
      assert.strictEqual(lint.exitCode, 0, lint.stdout)
    }))

  it.effect("a session whose model fails stops the loop with exit 1; its dispatch is finished, not left open", () =>
    Effect.gen(function*() {
      const { at, project } = yield* setup()
      const script = path.join(project, "short.jsonl")
      fs.writeFileSync(script, turn("Auditor", "audit_status", {}) + "\n") // then the script runs out
      const run = yield* runCli(["audit", "loop", "--script", script, ...at])
      assert.strictEqual(run.exitCode, 1)
      assert.include(run.stdout, "stop: Auditor session failed (MODEL_FAILED)")
      const state = yield* exportState(project)
      assert.strictEqual(state.sessions[0].outcome, "provider-error")
      assert.isFalse(fs.existsSync(path.join(project, "audit/.lock")))
    }))

  it.effect("sessions that change nothing stop the loop (no progress), and a held lease refuses it", () =>
    Effect.gen(function*() {
      const { at, project } = yield* setup()
      const script = path.join(project, "idle.jsonl")
      fs.writeFileSync(
        script,
        [say("Auditor", "nothing to do"), say("Auditor", "still nothing"), say("Auditor", "x")].join("\n")
      )
      const run = yield* runCli(["audit", "loop", "--script", script, ...at, "--json"])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      assert.strictEqual(run.json().sessions.length, 2)
      assert.include(
        run.json().stop,
        "stop: no progress — 2 session(s) in a row left the state unchanged on run-auditor"
      )

      fs.mkdirSync(path.join(project, "audit/.lock"))
      fs.writeFileSync(path.join(project, "audit/.lock/owner"), "{}")
      const held = yield* runCli(["audit", "loop", "--script", script, ...at, "--json"])
      assert.strictEqual(held.exitCode, 1)
      assert.include(held.errorJson().error.message, "audit/.lock is held")
    }))

  it.effect("bad input is refused before anything runs", () =>
    Effect.gen(function*() {
      const { at, project } = yield* setup()
      const untagged = path.join(project, "untagged.jsonl")
      fs.writeFileSync(untagged, JSON.stringify({ text: "hi" }) + "\n")
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [["audit", "loop", ...at], "exactly one of --script FILE or --model"],
        [["audit", "loop", "--script", untagged, ...at], "each turn names the role it answers"],
        [["audit", "loop", "--model", "nosuch:model", ...at], "nosuch"],
        [["audit", "loop", "--max-sessions", "banana", "--script", untagged, ...at], "must be an integer"]
      ]
      for (const [args, phrase] of cases) {
        const run = yield* runCli([...args, "--json"])
        assert.strictEqual(run.exitCode, 2, args.join(" "))
        assert.include(run.errorJson().error.message, phrase)
      }
      const state = yield* exportState(project)
      assert.deepStrictEqual(state.sessions ?? [], [])
    }))
})
