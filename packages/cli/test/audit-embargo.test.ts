import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

const fixtures = path.resolve(import.meta.dirname, "../../audit-state/test/fixtures")
const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex")

/** P-01 queued, F-0001 closed: without the embargo `next` is `run-auditor P-01`. */
const queued = () => {
  const doc = JSON.parse(fs.readFileSync(path.join(fixtures, "state/harness-minimal.json"), "utf8"))
  doc.findings[0].status = "closed"
  return JSON.stringify(doc, null, 2)
}

const audit = (project: string, ...args: ReadonlyArray<string>) => runCli(["audit", "--project", project, ...args])

const setup = Effect.gen(function*() {
  const project = fs.mkdtempSync(path.join(os.tmpdir(), "steward-audit-embargo-"))
  const file = path.join(project, "state.json")
  fs.writeFileSync(file, queued())
  const run = yield* audit(project, "import-state", file)
  assert.strictEqual(run.exitCode, 0, run.stderr)
  return project
})

const barrenAuditor = (project: string) =>
  Effect.gen(function*() {
    const open = yield* audit(
      project,
      "dispatch",
      "open",
      "--role",
      "Auditor",
      "--executable",
      "claude",
      "--charter",
      "P-01",
      "--prompt",
      "audit P-01",
      "--json"
    )
    assert.strictEqual(open.exitCode, 0, open.stderr)
    const finish = yield* audit(project, "dispatch", "finish", "--outcome", "ok")
    assert.strictEqual(finish.exitCode, 0, finish.stderr)
    return open.json().session_id as string
  })

describe("steward audit — embargo (§4.3)", () => {
  it.live("three barren Auditor dispatches: off → run-auditor; embargo = on → stop-embargo; status --json prints", () =>
    Effect.gen(function*() {
      const project = yield* setup
      const sessions: Array<string> = []
      for (let k = 0; k < 3; k++) sessions.push(yield* barrenAuditor(project))

      const off = yield* audit(project, "next", "--dry-run", "--json")
      assert.strictEqual(off.exitCode, 0, off.stderr)
      assert.deepStrictEqual(off.json().decision, { kind: "run-auditor", detail: "P-01" })

      fs.writeFileSync(path.join(project, "audit/orchestrator.conf"), "embargo = on\n")
      const next = yield* audit(project, "next", "--json")
      assert.strictEqual(next.exitCode, 0, next.stderr)
      const decision = next.json().decision
      assert.strictEqual(decision.kind, "stop-embargo")
      const [attempts, key, last] = decision.detail["P-01"]
      assert.strictEqual(attempts, 3)
      assert.strictEqual(last, sessions[2])
      assert.strictEqual(key[0], "Auditor")
      assert.strictEqual(key[1], sha("P-01"))
      assert.match(key[2], /^[0-9a-f]{64}$/)
      assert.include(next.json().message, "embargo")

      const status = yield* audit(project, "status", "--json")
      assert.strictEqual(status.exitCode, 0, status.stderr)
      assert.deepStrictEqual(status.json().decision, { kind: "stop-embargo", detail: [["P-01", 3, key, last]] })

      const human = yield* audit(project, "status")
      assert.strictEqual(human.exitCode, 0, human.stderr)
      assert.include(human.stdout, `P-01 (3 barren Auditor dispatch(es), last ${last})`)

      fs.writeFileSync(path.join(project, "audit/orchestrator.conf"), "embargo = on\nembargo_after = 4\n")
      const below = yield* audit(project, "next", "--dry-run", "--json")
      assert.strictEqual(below.json().decision.kind, "run-auditor")

      fs.writeFileSync(path.join(project, "audit/orchestrator.conf"), "embargo_after = 0\n")
      const bad = yield* audit(project, "next", "--dry-run", "--json")
      assert.strictEqual(bad.exitCode, 2)
      assert.include(bad.errorJson().error.message, "embargo_after")

      // budgets = on: refused, not silently ignored (ADR 0108); nothing is written
      fs.writeFileSync(path.join(project, "audit/orchestrator.conf"), "budgets = off\n")
      const before = (yield* audit(project, "export-state", "--json")).stdout
      assert.include(before, "\"state_revision\"")
      fs.writeFileSync(path.join(project, "audit/orchestrator.conf"), "budgets = on\n")
      for (const args of [["next", "--json"], ["status", "--json"]]) {
        const budgets = yield* audit(project, ...args)
        assert.strictEqual(budgets.exitCode, 2, args.join(" "))
        assert.include(budgets.errorJson().error.message, "budgets = on is not supported")
      }
      fs.writeFileSync(path.join(project, "audit/orchestrator.conf"), "budgets = off\n")
      assert.strictEqual((yield* audit(project, "export-state", "--json")).stdout, before)
    }))
})
