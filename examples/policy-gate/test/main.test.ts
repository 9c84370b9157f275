import { assert, describe, it } from "@effect/vitest"
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(dirname(fileURLToPath(import.meta.url)))
const run = (args: ReadonlyArray<string>) =>
  execFileSync(process.execPath, ["--import", "tsx", "main.mjs", ...args], {
    cwd: here,
    encoding: "utf8",
    stdio: "pipe"
  })

describe("examples/policy-gate", () => {
  it("runs what the gate allows, asks the person, and shows each denial's rule", { timeout: 120_000 }, () => {
    const report = JSON.parse(run(["--answer", "deny", "--json"]))
    const workspace = report.workspace
    assert.deepStrictEqual(
      report.results.map((r: any) => [r.outcome, r.rule]),
      [
        ["allowed", "execute.write"],
        ["allowed", "execute.shell"],
        ["refused", "universal.publish.git-push"],
        ["denied", "universal.rm-home"],
        ["denied", "universal.cloud-metadata.0"]
      ]
    )
    // the allowed calls really ran; nothing after a denial did
    assert.include(readFileSync(join(workspace, "notes", "plan.md"), "utf8"), "# Plan")
    assert.strictEqual(report.results[1].output, "plan.md")
    assert.deepStrictEqual(report.results.slice(2).map((r: any) => r.output), [null, null, null])
    assert.isAbove(report.evidence, 5)
  })

  it("an operator who allows the push grants it", { timeout: 120_000 }, () => {
    const report = JSON.parse(run(["--answer", "allow", "--json"]))
    const push = report.results[2]
    assert.strictEqual(push.outcome, "granted")
    // granted, it really ran: the scratch repository has no remote, so the push fails harmlessly
    assert.notStrictEqual(push.exitCode, 0)
    assert.match(push.output, /^failed \(exit \d+\)/)
    assert.isTrue(existsSync(join(report.workspace, "notes", "plan.md")))
    // the denials stay denials whatever the person answers asks with
    assert.deepStrictEqual(report.results.slice(3).map((r: any) => r.outcome), ["denied", "denied"])
  })

  it("refuses a bad --answer with exit 2", { timeout: 60_000 }, () => {
    const bad = spawnSync(process.execPath, ["--import", "tsx", "main.mjs", "--answer", "maybe"], {
      cwd: here,
      encoding: "utf8"
    })
    assert.strictEqual(bad.status, 2)
    assert.include(bad.stderr, "--answer must be allow or deny")
  })
})
