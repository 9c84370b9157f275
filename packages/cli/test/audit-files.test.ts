/**
 * Issue 16 (bounded reading) and ADR 0115 (view marks), through the CLI: every file the audit area
 * reads is size-checked before it is read and a FIFO is refused, not waited on — naming the file
 * and the rule; a view that a mark says agrees is still refused as drift once it is edited, even
 * by an edit of the same size.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

const fixtures = path.resolve(import.meta.dirname, "../../audit-state/test/fixtures")
const harness = () => {
  const doc = JSON.parse(fs.readFileSync(path.join(fixtures, "state/harness-minimal.json"), "utf8"))
  doc.queue[0].done = true
  doc.queue[0].coverage = { report_path: "passes/P-01.md", findings: ["F-0001"], updated: "2026-08-14", status: "done" }
  return JSON.stringify(doc, null, 2)
}
const tempDir = (tag: string) => fs.mkdtempSync(path.join(os.tmpdir(), `steward-audit-files-${tag}-`))
const fifo = (file: string) => execFileSync("mkfifo", [file])

const setup = Effect.gen(function*() {
  const project = tempDir("p")
  const file = path.join(tempDir("in"), "state.json")
  fs.writeFileSync(file, harness())
  const run = yield* runCli(["audit", "--project", project, "import-state", file])
  assert.strictEqual(run.exitCode, 0, run.stderr)
  return project
})
const audit = (project: string, ...args: ReadonlyArray<string>) =>
  runCli(["audit", "--project", project, ...args, "--json"])

describe("steward audit: bounded reading (issue 16)", () => {
  it.live("import-state of a FIFO is refused naming the file; nothing is created", () =>
    Effect.gen(function*() {
      const project = tempDir("p")
      const file = path.join(tempDir("in"), "state.json")
      fifo(file)
      const run = yield* runCli(["audit", "--project", project, "import-state", file, "--json"])
      assert.strictEqual(run.exitCode, 2)
      assert.include(run.errorJson().error.message, file)
      assert.isFalse(fs.existsSync(path.join(project, "audit")))
      // --events is read the same bounded way
      const state = path.join(tempDir("in"), "state.json")
      fs.writeFileSync(state, harness())
      const events = path.join(tempDir("in"), "events.jsonl")
      fs.closeSync(fs.openSync(events, "w"))
      fs.truncateSync(events, 300 * 1024 * 1024)
      const big = yield* runCli(["audit", "--project", project, "import-state", state, "--events", events, "--json"])
      assert.strictEqual(big.exitCode, 2)
      assert.include(big.errorJson().error.message, `${events}: 300 MiB is larger than the limit of 256 MiB`)
      assert.isFalse(fs.existsSync(path.join(project, "audit/state.sqlite")))
    }))

  it.live("import-state of a file above the limit is refused before it is read, naming the limit", () =>
    Effect.gen(function*() {
      const project = tempDir("p")
      const file = path.join(tempDir("in"), "state.json")
      // a sparse 300 MiB file: nothing is allocated unless someone reads it
      fs.closeSync(fs.openSync(file, "w"))
      fs.truncateSync(file, 300 * 1024 * 1024)
      const run = yield* runCli(["audit", "--project", project, "import-state", file, "--json"])
      assert.strictEqual(run.exitCode, 2)
      const error = run.errorJson().error
      assert.strictEqual(error.code, "limit")
      assert.include(error.message, "300 MiB is larger than the limit of 256 MiB")
      assert.isFalse(fs.existsSync(path.join(project, "audit")))
    }))

  it.live("a FIFO as orchestrator.conf, LEDGER.md or a body is refused by name, not waited on", () =>
    Effect.gen(function*() {
      const project = yield* setup
      const conf = path.join(project, "audit/orchestrator.conf")
      fifo(conf)
      const next = yield* audit(project, "next", "--dry-run")
      assert.strictEqual(next.exitCode, 2)
      assert.include(next.errorJson().error.message, `${conf}: is a FIFO (named pipe), not a regular file`)
      fs.rmSync(conf)
      const body = path.join(project, "audit/findings/F-0001.md")
      fs.rmSync(body)
      fifo(body)
      const status = yield* audit(project, "status")
      assert.strictEqual(status.exitCode, 2)
      assert.include(status.errorJson().error.message, `${body}: is a FIFO (named pipe), not a regular file`)
      const verb = yield* audit(project, "set-status", "F-0001", "accepted")
      assert.notStrictEqual(verb.exitCode, 0)
      assert.include(verb.stderr, "FIFO")
      fs.rmSync(body)
      const ledger = path.join(project, "audit/LEDGER.md")
      fs.rmSync(ledger)
      fifo(ledger)
      const metrics = yield* audit(project, "metrics")
      assert.strictEqual(metrics.exitCode, 2)
      assert.include(metrics.errorJson().error.message, `${ledger}: is a FIFO (named pipe), not a regular file`)
    }))

  it.live("dispatch open --prompt-file of a FIFO is refused naming the file", () =>
    Effect.gen(function*() {
      const project = yield* setup
      const prompt = path.join(tempDir("in"), "prompt.txt")
      fifo(prompt)
      const run = yield* audit(
        project,
        "dispatch",
        "open",
        "--role",
        "Auditor",
        "--executable",
        "claude",
        "--charter",
        "c",
        "--prompt-file",
        prompt
      )
      assert.strictEqual(run.exitCode, 2)
      assert.include(run.errorJson().error.message, `${prompt}: is a FIFO (named pipe), not a regular file`)
    }))
})

describe("steward audit: view marks never hide drift (ADR 0115)", () => {
  it.live("a same-size edit of a marked block or LEDGER.md is refused by next, metrics and status", () =>
    Effect.gen(function*() {
      const project = yield* setup
      // the checks record marks for every view they read and found to agree
      assert.strictEqual((yield* audit(project, "next", "--dry-run")).exitCode, 0)
      assert.strictEqual((yield* audit(project, "status")).exitCode, 0)
      const body = path.join(project, "audit/findings/F-0001.md")
      const before = fs.readFileSync(body, "utf8")
      const edited = before.replace("status: reported", "status: accepted")
      assert.strictEqual(edited.length, before.length)
      fs.writeFileSync(body, edited)
      for (const args of [["next", "--dry-run"], ["metrics"], ["status"]]) {
        const run = yield* audit(project, ...args)
        assert.notStrictEqual(run.exitCode, 0, args.join(" "))
        assert.include(run.stderr, "disagree with state.json", args.join(" "))
        assert.include(run.stderr, "findings/F-0001.md", args.join(" "))
      }
      fs.writeFileSync(body, before)
      assert.strictEqual((yield* audit(project, "next", "--dry-run")).exitCode, 0, "the same bytes agree again")
      // LEDGER.md: a verb rewrites it (and records its mark); a same-size edit right after is drift
      assert.strictEqual((yield* audit(project, "set-status", "F-0001", "accepted")).exitCode, 0)
      const ledger = path.join(project, "audit/LEDGER.md")
      const text = fs.readFileSync(ledger, "utf8")
      fs.writeFileSync(ledger, text.replace("| accepted |", "| rejected |"))
      const next = yield* audit(project, "next", "--dry-run")
      assert.notStrictEqual(next.exitCode, 0)
      assert.include(next.stderr, "LEDGER.md:")
    }))
})

describe("steward audit: next's drift scope (ADR 0134, `next_drift_scope`)", () => {
  it.live("by default next refuses an edited block of a record its decision does not name; `decision` does not", () =>
    Effect.gen(function*() {
      const project = yield* setup
      // F-0001 rejected: the pass is done and every record terminal, so the decision names none
      assert.strictEqual((yield* audit(project, "set-status", "F-0001", "rejected")).exitCode, 0)
      const decided = yield* audit(project, "next", "--dry-run")
      assert.strictEqual(decided.exitCode, 0, decided.stderr)
      assert.isTrue(JSON.parse(decided.stdout).decision.kind.startsWith("done"), decided.stdout)
      const body = path.join(project, "audit/findings/F-0001.md")
      fs.writeFileSync(body, fs.readFileSync(body, "utf8").replace("status: rejected", "status: accepted"))
      // xcheck's refuse_on_drift over every view, with its message
      const refused = yield* audit(project, "next", "--dry-run")
      assert.strictEqual(refused.exitCode, 1, refused.stderr)
      assert.include(
        refused.errorJson().error.message,
        "1 generated view(s) disagree with state.json:\n  - findings/F-0001.md:"
      )
      assert.include(
        refused.errorJson().error.message,
        "the file says 'status: accepted', state.json says 'status: rejected'"
      )
      const conf = path.join(project, "audit/orchestrator.conf")
      fs.writeFileSync(conf, "next_drift_scope = all\n")
      assert.strictEqual((yield* audit(project, "next", "--dry-run")).exitCode, 1, "all is the default spelled out")
      // `decision`: next checks LEDGER.md and the records it names — none here
      fs.writeFileSync(conf, "next_drift_scope = decision\n")
      const narrowed = yield* audit(project, "next", "--dry-run")
      assert.strictEqual(narrowed.exitCode, 0, narrowed.stderr)
      // ... and every other reader still refuses the edit
      assert.strictEqual((yield* audit(project, "status")).exitCode, 1)
      fs.writeFileSync(conf, "next_drift_scope = some\n")
      const bad = yield* audit(project, "next", "--dry-run")
      assert.strictEqual(bad.exitCode, 2)
      assert.include(bad.errorJson().error.message, "next_drift_scope must be one of all, decision, found 'some'")
    }))
})

describe("steward audit: refusal hints render as this CLI's commands (ADR 0135)", () => {
  it.live("a refusal's hinted verb is named `steward audit …`, from the library's structured hint", () =>
    Effect.gen(function*() {
      const project = yield* setup
      const unknown = yield* audit(project, "amend-pass", "P-09", "--charter", "x")
      assert.strictEqual(unknown.exitCode, 1)
      assert.include(unknown.errorJson().error.message, "add it with `steward audit queue-pass`")
      const done = yield* audit(project, "amend-pass", "P-01", "--charter", "x")
      assert.include(done.errorJson().error.message, "queue a new pass with `steward audit queue-pass`")
      const ledger = path.join(project, "audit/LEDGER.md")
      fs.writeFileSync(ledger, fs.readFileSync(ledger, "utf8").replace("| F-0001 |", "| F-0001 | EDITED"))
      const drift = yield* audit(project, "status")
      assert.include(
        drift.errorJson().error.message,
        "re-render them with `steward audit render-views` (xcheck render-views)"
      )
    }))
})
