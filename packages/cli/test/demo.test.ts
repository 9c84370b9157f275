import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as DemoData from "../src/internal/demoData.js"
import { runCli } from "./harness.js"

describe("steward demo", () => {
  it("bundles the examples/data history: the same generator, the same bytes", () => {
    const fixture = fs.readFileSync(
      path.join(import.meta.dirname, "fixtures", "reflex", "settle-history.jsonl"),
      "utf8"
    )
    assert.strictEqual(DemoData.history(), fixture)
  })

  it.live("shows the SDK end to end in a fresh state directory, and runs twice", () =>
    Effect.gen(function*() {
      const parent = fs.mkdtempSync(path.join(os.tmpdir(), "steward-demo-test-"))
      const first = yield* runCli(["demo", "--json", "--state-dir", parent])
      assert.strictEqual(first.exitCode, 0, first.stderr)
      const report = first.json()
      assert.isTrue(report.stateDir.startsWith(parent))
      assert.isTrue(fs.existsSync(report.database))

      const byHead = (certificates: ReadonlyArray<any>) => Object.fromEntries(certificates.map((c) => [c.head, c]))
      for (const certificates of [report.importDryRun, report.import.certificates]) {
        assert.isTrue(byHead(certificates).stopped_short.certified)
        assert.isFalse(byHead(certificates).confirm.certified)
      }
      assert.strictEqual(report.import.inserted, 900)

      assert.deepStrictEqual(
        report.session.calls.map((c: any) => [c.decision, c.tool, c.rule, c.outcome]),
        [
          ["allow", "read", "execute.read", "ran"],
          ["deny", "shell", "universal.rm-home", "refused"],
          ["ask", "shell", "universal.publish.git-push", "asked (the run paused for the person)"]
        ]
      )
      // the stopped-short turn is continued by the certified stopped_short head
      assert.isTrue(
        report.session.settles.some((s: any) =>
          s.category === "stopped_short" && s.certified && s.acts && s.action === "continue"
        )
      )
      assert.isTrue(report.replay.matches)
      assert.match(report.replay.receipt, /^sha256:[0-9a-f]{64}$/)
      assert.isTrue(report.verify.verified)

      const second = yield* runCli(["demo", "--state-dir", parent])
      assert.strictEqual(second.exitCode, 0, second.stderr)
      assert.include(second.stdout, "Steward demo — state in")
      assert.include(second.stdout, "stopped_short certified at 0.65")
      assert.notInclude(second.stdout, report.stateDir) // a new directory each time
    }), { timeout: 400_000 })
})
