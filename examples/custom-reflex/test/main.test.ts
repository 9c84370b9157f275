import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(dirname(fileURLToPath(import.meta.url)))

/** Run a node script in the example's folder (asynchronously: a busy machine is slow). */
const node = (args: ReadonlyArray<string>) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, args, { cwd: here })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("close", (status) => resolve({ status, stdout, stderr }))
  })

describe("examples/custom-reflex", () => {
  it("checks, installs and runs a custom settle organism; refuses an impure one; learns a user-defined reflex", {
    timeout: 600_000
  }, async () => {
    const run = await node(["--import", "tsx", "main.ts", "--json"])
    assert.strictEqual(run.status, 0, run.stderr)
    const report = JSON.parse(run.stdout)

    // the custom organism is admissible, installed, and decides in the state dir
    assert.strictEqual(report.custom.check.exitCode, 0)
    assert.match(report.custom.check.digest, /^sha256:[0-9a-f]{64}$/)
    assert.deepStrictEqual(report.custom.installed, {
      digest: report.custom.check.digest,
      custom: true,
      fault: null,
      violations: []
    })
    assert.strictEqual(report.custom.shipped.category, "confirm", "the shipped program can answer confirm")
    assert.strictEqual(report.custom.decided.custom, true)
    assert.strictEqual(report.custom.decided.decision.category, "done", "the cautious program never does")

    // the organism with an agent cell is refused with every violated rule; the shipped program runs
    assert.strictEqual(report.rejected.check.exitCode, 1)
    assert.strictEqual(report.rejected.check.reason, "program-rejected")
    assert.includeMembers(report.rejected.check.violations.map((v: any) => v.rule), ["cell-kinds", "max-agent-calls"])
    assert.strictEqual(report.rejected.installed.custom, false)
    assert.strictEqual(report.rejected.installed.fault, "custom reflex program rejected; using the shipped program")
    assert.deepStrictEqual(
      report.rejected.installed.violations.map((v: any) => v.rule),
      report.rejected.check.violations.map((v: any) => v.rule)
    )
    assert.strictEqual(report.rejected.decided.custom, false)
    assert.strictEqual(report.rejected.decided.decision.category, "confirm")

    // the user-defined reflex: its own heads and labels, trained and certified from them
    const heads = Object.fromEntries(report.retry.heads.map((h: any) => [h.head, h]))
    assert.deepStrictEqual(Object.keys(heads), ["retry", "flaky"])
    assert.strictEqual(heads.retry.labels + heads.flaky.labels, report.retry.decided)
    assert.strictEqual(heads.flaky.labels, 64, "the evidence picks the flaky head for jobs marked flaky")
    assert.isAbove(report.retry.generation.version, 0, "training promoted a generation")
    assert.isTrue(heads.retry.certificate.certified, heads.retry.certificate.reason)
    assert.isAtLeast(heads.retry.certificate.lower, 0.8)
    assert.isFalse(heads.flaky.certificate.certified, "64 labels do not yet certify the flaky head")
    assert.isAbove(report.retry.agreed, report.retry.decided / 2)
  })

  it("type-checks, and every deliberately mis-typed program in src/typeErrors.ts is a type error", {
    timeout: 600_000
  }, async () => {
    const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
    const checked = await node([tsc, "-p", join(here, "tsconfig.json")])
    // an unused `@ts-expect-error` is itself an error (TS2578), so a clean check proves each one met an error
    assert.strictEqual(checked.status, 0, checked.stdout + checked.stderr)
  })
})
