import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

const here = dirname(dirname(fileURLToPath(import.meta.url)))

describe("examples/audit-cycle", () => {
  it(
    "audit → the person's triage → remediate → verify, every write through the verbs",
    { timeout: 600_000 },
    async () => {
      // asynchronous, so the test worker stays responsive while the cycle runs
      const { stdout } = await promisify(execFile)(process.execPath, ["main.mjs", "--triage", "accepted", "--json"], {
        cwd: here,
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024
      })
      const report = JSON.parse(stdout)
      const commands = report.steps.map((s: any) => s.command)
      // the loop stopped for the person, who typed the triage, and the second loop ran to the end
      const loops = report.steps.filter((s: any) => s.command.startsWith("steward audit loop"))
      assert.strictEqual(loops.length, 2)
      assert.match(loops[0].stdout, /session 1: Auditor \(P-01\)/)
      assert.include(loops[0].stdout, "stop: triage needed — 1 reported finding(s): F-0001")
      assert.include(commands, "steward audit set-status F-0001 accepted")
      assert.match(loops[1].stdout, /session 1: Remediator \(finding F-0001\)/)
      assert.match(loops[1].stdout, /session 2: Verifier/)
      assert.include(loops[1].stdout, "audit complete")
      assert.deepStrictEqual(report.status.decision, { kind: "done", detail: null })
      assert.deepStrictEqual(report.status.findings.by_status, { closed: 1 })
      // what the sessions wrote is on disk, rendered from state
      const ledger = readFileSync(join(report.project, "audit/LEDGER.md"), "utf8")
      assert.include(ledger, "| F-0001 | next() makes the counter go down | major | closed |")
      assert.include(ledger, "`steward audit render-views`")
      assert.include(readFileSync(join(report.project, "audit/findings/F-0001.md"), "utf8"), "## Evidence")
      assert.include(readFileSync(join(report.project, "audit/plans/RP-0001.md"), "utf8"), "## Fix plan")
      // three dispatches, each a finished envelope bound to its session
      const exported = report.state
      assert.deepStrictEqual(exported.sessions.map((s: any) => [s.role, s.outcome]), [["Auditor", "ok"], [
        "Remediator",
        "ok"
      ], ["Verifier", "ok"]])
      assert.strictEqual(exported.findings[0].fixed_by, exported.sessions[1].session_id)
      const lint = report.steps.find((step: any) => step.command === "steward audit lint")
      assert.isTrue(lint.stdout.startsWith("steward audit lint: clean"), lint.stdout)
    }
  )
})
