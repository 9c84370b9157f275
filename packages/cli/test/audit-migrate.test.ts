import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

// `steward audit migrate`: an existing Markdown audit (xcheck's pre-state layout, spec §3.3) into
// state — once, all or nothing.

const fixture = path.resolve(import.meta.dirname, "fixtures/audit-markdown")

const copy = () => {
  const project = fs.mkdtempSync(path.join(os.tmpdir(), "steward-audit-migrate-"))
  fs.cpSync(fixture, project, { recursive: true })
  return project
}

describe("steward audit migrate", () => {
  it.effect("reads AUDIT.md and the frontmatter into state; dry run first; one-shot; undo printed", () =>
    Effect.gen(function*() {
      const project = copy()
      const findingFile = path.join(project, "audit/findings/F-0001-decrement.md")
      const original = fs.readFileSync(findingFile, "utf8")

      const dry = yield* runCli(["audit", "migrate", "--dry-run", "--project", project, "--json"])
      assert.strictEqual(dry.exitCode, 0, dry.stderr)
      assert.deepStrictEqual(dry.json().counts, {
        norms: 2,
        dimensions: 2,
        units: 2,
        passes: 2,
        done: 1,
        findings: 1,
        plans: 1,
        construals: 0
      })
      assert.isFalse(fs.existsSync(path.join(project, "audit/state.sqlite")), "a dry run writes nothing")
      assert.strictEqual(fs.readFileSync(findingFile, "utf8"), original)

      const run = yield* runCli(["audit", "migrate", "--project", project])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      assert.include(run.stdout, "(state revision 1)")
      assert.include(run.stdout, `rm -f ${path.join(project, "audit/state.sqlite")}`)
      assert.strictEqual(
        fs.readFileSync(path.join(project, "audit/.migration-backup/findings/F-0001-decrement.md"), "utf8"),
        original,
        "the view migrate overwrote is backed up"
      )

      const state = JSON.parse((yield* runCli(["audit", "export-state", "--project", project, "--json"])).stdout).state
      assert.deepStrictEqual(state.catalogs.norms[1], {
        id: "N2",
        scope: "the counter never goes down",
        source: "docs/invariants.md"
      })
      assert.deepStrictEqual(state.catalogs.dimensions[0], {
        catches: "violations of documented invariants",
        key: "invariants",
        norms: ["N2"]
      })
      assert.deepStrictEqual(state.catalogs.units[0], {
        id: "U01",
        material: "src/core.py",
        responsibility: "the counter",
        size: "0.2"
      })
      // the queue: P-01 done with its report's coverage; P-02's material name resolved to its unit id
      assert.deepStrictEqual(state.queue[0].coverage, {
        findings: ["F-0001"],
        report_path: "passes/P-01-core.md",
        status: "done",
        updated: "2026-08-14"
      })
      assert.isTrue(state.queue[0].done)
      assert.deepStrictEqual(state.queue[1].units, ["U02", "U01"])
      assert.strictEqual(state.queue[1].stop, "15 findings")
      // the finding: hyphenated keys renamed, nulls dropped, the material resolved
      assert.deepStrictEqual(state.findings[0], {
        attempts: 0,
        body_path: "findings/F-0001-decrement.md",
        dimension: "invariants",
        id: "F-0001",
        pass: "P-01",
        severity: "major",
        status: "accepted",
        title: "the counter can go down",
        unit: ["U01"],
        updated: "2026-08-14"
      })
      assert.deepStrictEqual(state.plans[0].findings, ["F-0001"])
      assert.deepStrictEqual(state.limits, {
        class_threshold: 3,
        max_findings_per_pass: 15,
        remediation_batch_size: 8,
        reopen_limit: 2
      })

      const next = yield* runCli(["audit", "next", "--dry-run", "--project", project, "--json"])
      assert.deepStrictEqual(next.json().decision, { kind: "run-remediator", detail: ["F-0001"] })
      assert.strictEqual((yield* runCli(["audit", "lint", "--project", project])).exitCode, 0)
      assert.include(fs.readFileSync(findingFile, "utf8"), "unit: U01")
      assert.include(fs.readFileSync(findingFile, "utf8"), "## Evidence", "the body below the block is kept")

      const again = yield* runCli(["audit", "migrate", "--project", project, "--json"])
      assert.strictEqual(again.exitCode, 1)
      assert.include(again.errorJson().error.message, "migrate is one-shot")
    }))

  it.effect("every defect is listed and nothing is written", () =>
    Effect.gen(function*() {
      const project = copy()
      const auditMd = path.join(project, "audit/AUDIT.md")
      fs.writeFileSync(
        auditMd,
        fs.readFileSync(auditMd, "utf8")
          .replace(
            "- [ ] P-02 — claims-honesty × src/api.py, U01: check every README claim; stop: 15 findings",
            "- [ ] P-02 — claims-honesty: no units here"
          )
          .replace(
            "| claims-honesty | README claims not backed by code | N1 |",
            "| claims-honesty | README claims | the README |"
          )
          .replace("reopen_limit: 2", "reopen_limit: two")
      )
      fs.rmSync(path.join(project, "audit/passes/P-01-core.md"))
      const run = yield* runCli(["audit", "migrate", "--project", project, "--json"])
      assert.strictEqual(run.exitCode, 2)
      const error = run.errorJson().error
      assert.strictEqual(error.code, "invalid-input")
      assert.strictEqual(error.details.defects.length, 4, error.message)
      assert.include(error.message, "a queue line that does not parse")
      assert.include(error.message, "dimension 'claims-honesty' names no norm id")
      assert.include(error.message, "reopen_limit must be a whole number")
      assert.include(error.message, "pass P-01 is checked in AUDIT.md but no report(s)")
      assert.isFalse(fs.existsSync(path.join(project, "audit/state.sqlite")))
      assert.isFalse(fs.existsSync(path.join(project, "audit/.migration-backup")))

      // a document that reads but breaks the state schema is refused as a whole too
      const schema = copy()
      const finding = path.join(schema, "audit/findings/F-0001-decrement.md")
      fs.writeFileSync(finding, fs.readFileSync(finding, "utf8").replace("pass: P-01", "pass: P-09"))
      const bad = yield* runCli(["audit", "migrate", "--project", schema, "--json"])
      assert.strictEqual(bad.exitCode, 2)
      assert.include(bad.errorJson().error.message, "P-09")
      assert.isFalse(fs.existsSync(path.join(schema, "audit/state.sqlite")))

      const none = yield* runCli([
        "audit",
        "migrate",
        "--project",
        fs.mkdtempSync(path.join(os.tmpdir(), "x-")),
        "--json"
      ])
      assert.strictEqual(none.exitCode, 2)
      assert.strictEqual(none.errorJson().error.code, "not-found")
    }))
})
