import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

const fixtures = path.resolve(import.meta.dirname, "../../audit-state/test/fixtures")
const validFull = fs.readFileSync(path.join(fixtures, "state/valid-full.json"), "utf8")
const negative = JSON.parse(fs.readFileSync(path.join(fixtures, "state/schema-negative-cases.json"), "utf8"))

const tempProject = () => fs.mkdtempSync(path.join(os.tmpdir(), "steward-audit-"))

// the negative table's mutation language (see audit-state/test/mutations.ts)
const lit = (text: string): unknown => JSON.parse(text.replace(/'/g, "\""))
const resolve = (root: any, p: string) => {
  const parts: Array<string | number> = []
  for (const m of p.matchAll(/([A-Za-z_]+)|\[(\d+)\]/g)) parts.push(m[1] !== undefined ? m[1] : Number(m[2]))
  let parent = root
  for (const k of parts.slice(0, -1)) parent = parent[k]
  return { parent, key: parts[parts.length - 1]! }
}
const mutate = (d: any, m: string): void => {
  let r: RegExpExecArray | null
  if ((r = /^set top-level (\w+)=(.*)$/.exec(m))) d[r[1]!] = lit(r[2]!)
  else if ((r = /^delete (.*)$/.exec(m))) {
    const { key, parent } = resolve(d, r[1]!)
    delete parent[key]
  } else if ((r = /^append copy of (.*) with id (.*)$/.exec(m))) {
    const { key, parent } = resolve(d, r[1]!)
    parent.push({ ...structuredClone(parent[key]), id: r[2] })
  } else if ((r = /^append copy of (.*)$/.exec(m))) {
    const { key, parent } = resolve(d, r[1]!)
    parent.push(structuredClone(parent[key]))
  } else if ((r = /^([\w.[\]]+)=(.*)$/.exec(m))) {
    const { key, parent } = resolve(d, r[1]!)
    parent[key] = lit(r[2]!)
  } else throw new Error(`unparsed mutation ${m}`)
}
const applyMutation = (doc: any, mutation: string) => {
  const d = structuredClone(doc)
  let m = mutation.replace(/ \((?:status fixed|== session)\)$/, "")
  const extra = /^(.*) \((.*)\)$/.exec(m)
  if (extra) {
    m = extra[1]!
    mutate(d, extra[2]!)
  }
  mutate(d, m)
  return d
}

/** xcheck's harness state: P-01 done with coverage, F-0001 reported (major), limits {15, 8, 3, 2}. */
const harness = (patch: (d: any) => void = () => {}) => {
  const doc = JSON.parse(fs.readFileSync(path.join(fixtures, "state/harness-minimal.json"), "utf8"))
  doc.queue[0].done = true
  doc.queue[0].coverage = { report_path: "passes/P-01.md", findings: ["F-0001"], updated: "2026-08-14", status: "done" }
  patch(doc)
  return JSON.stringify(doc, null, 2)
}

const setup = (stateText: string) =>
  Effect.gen(function*() {
    const project = tempProject()
    const file = path.join(project, "state.json")
    fs.writeFileSync(file, stateText)
    const run = yield* runCli(["audit", "--project", project, "import-state", file])
    assert.strictEqual(run.exitCode, 0, run.stderr)
    return project
  })

const audit = (project: string, ...args: ReadonlyArray<string>) => runCli(["audit", "--project", project, ...args])
const exportText = (project: string) => Effect.map(audit(project, "export-state"), (r) => r.stdout)
const eventsOf = (project: string) =>
  Effect.gen(function*() {
    const out = path.join(project, "events.out.jsonl")
    yield* audit(project, "export-state", path.join(project, "state.out.json"), "--events-out", out)
    return fs.readFileSync(out, "utf8").split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l))
  })

describe("steward audit", () => {
  it.live("valid-full.json imports and exports byte-identically through the CLI", () =>
    Effect.gen(function*() {
      const project = yield* setup(validFull)
      const out = path.join(project, "out.json")
      const run = yield* audit(project, "export-state", out)
      assert.strictEqual(run.exitCode, 0, run.stderr)
      assert.strictEqual(fs.readFileSync(out, "utf8"), validFull)
      assert.isTrue(fs.existsSync(path.join(project, "audit/state.sqlite")))
      assert.isTrue(fs.existsSync(path.join(project, "audit/LEDGER.md")))
      assert.include(
        fs.readFileSync(path.join(project, "audit/findings/F-0002-second.md"), "utf8"),
        "fixed-by: 0123456789abcdef"
      )
    }))

  it.live(
    "each of the 59 negative cases is refused with its substring (exit 2) and nothing is stored",
    () =>
      Effect.gen(function*() {
        assert.strictEqual(negative.cases.length, 59)
        const base = JSON.parse(validFull)
        for (const c of negative.cases) {
          const project = tempProject()
          const file = path.join(project, "state.json")
          fs.writeFileSync(file, JSON.stringify(applyMutation(base, c.mutation), null, 2))
          const run = yield* runCli(["audit", "--project", project, "import-state", file, "--json"])
          assert.strictEqual(run.exitCode, 2, c.name)
          assert.include(run.errorJson().error.message, c.expect, c.name)
          assert.strictEqual(run.errorJson().error.reason, "invalid-state")
          assert.isFalse(fs.existsSync(path.join(project, "audit")), `${c.name}: nothing written`)
        }
      }),
    { timeout: 120_000 }
  )

  it.live("§8.2 7/8/10: a verb applies once; refusals exit 1, change nothing and emit no transition", () =>
    Effect.gen(function*() {
      const project = yield* setup(harness())
      const ok = yield* audit(project, "set-status", "F-0001", "accepted", "--json")
      assert.strictEqual(ok.exitCode, 0, ok.stderr)
      assert.deepInclude(ok.json(), { verb: "set-status", target: "F-0001", state_revision: 2 })
      assert.include(fs.readFileSync(path.join(project, "audit/findings/F-0001.md"), "utf8"), "status: accepted")
      const before = yield* exportText(project)
      const again = yield* audit(project, "set-status", "F-0001", "accepted", "--json")
      assert.strictEqual(again.exitCode, 1)
      assert.strictEqual(again.errorJson().error.code, "refused")
      assert.include(again.errorJson().error.message, "already 'accepted'")
      const illegal = yield* audit(project, "set-status", "F-0001", "closed")
      assert.strictEqual(illegal.exitCode, 1)
      assert.include(illegal.stderr, "§5 allows only")
      assert.strictEqual(yield* exportText(project), before)
      const events = yield* eventsOf(project)
      assert.strictEqual(events.filter((e) => e.event === "state_transition").length, 1)
      assert.strictEqual(events[0].prev, "0".repeat(64))
      const lint = yield* audit(project, "lint")
      assert.strictEqual(lint.exitCode, 1)
      assert.include(lint.stdout, "passes/P-01.md does not exist")
      fs.mkdirSync(path.join(project, "audit/passes"))
      fs.writeFileSync(path.join(project, "audit/passes/P-01.md"), "# P-01\n")
      fs.writeFileSync(path.join(project, "audit/passes/P-09.md"), "# stray\n")
      const orphan = yield* audit(project, "lint")
      assert.include(orphan.stdout, "passes/P-09.md: orphan")
      fs.rmSync(path.join(project, "audit/passes/P-09.md"))
      assert.strictEqual((yield* audit(project, "lint")).exitCode, 0)
    }))

  it.live("--expect-revision: a stale writer is refused with stale-revision", () =>
    Effect.gen(function*() {
      const project = yield* setup(harness())
      const stale = yield* audit(project, "set-status", "F-0001", "accepted", "--expect-revision", "7", "--json")
      assert.strictEqual(stale.exitCode, 1)
      assert.strictEqual(stale.errorJson().error.reason, "stale-revision")
      assert.strictEqual(
        (yield* audit(project, "set-status", "F-0001", "accepted", "--expect-revision", "1")).exitCode,
        0
      )
    }))

  it.live("§8.2 43/44: a hand-edited view blocks reads and writes until render-views", () =>
    Effect.gen(function*() {
      const project = yield* setup(harness())
      const ledger = path.join(project, "audit/LEDGER.md")
      fs.writeFileSync(ledger, fs.readFileSync(ledger, "utf8").replace("| F-0001 |", "| F-0001 | EDITED"))
      for (
        const args of [["lint"], ["status"], ["metrics"], ["next", "--dry-run"], ["set-status", "F-0001", "accepted"]]
      ) {
        const run = yield* audit(project, ...args)
        assert.notStrictEqual(run.exitCode, 0, args.join(" "))
        for (const s of ["LEDGER.md:", "disagree with state.json", "xcheck render-views"]) {
          assert.include(run.stderr + run.stdout, s)
        }
      }
      assert.include(fs.readFileSync(ledger, "utf8"), "EDITED", "the edit stays on disk")
      const body = path.join(project, "audit/findings/F-0001.md")
      fs.writeFileSync(body, fs.readFileSync(body, "utf8").replace("severity: major", "severity: critical"))
      const sev = yield* audit(project, "status")
      assert.include(sev.stderr, "critical")
      assert.include(sev.stderr, "major")
      fs.rmSync(ledger)
      assert.include((yield* audit(project, "status")).stderr, "the file is missing")
      const render = yield* audit(project, "render-views")
      assert.strictEqual(render.exitCode, 0)
      assert.include(render.stdout, "had drifted")
      assert.strictEqual((yield* audit(project, "status")).exitCode, 0)
    }))

  it.live("status --json and metrics --json print one closed document", () =>
    Effect.gen(function*() {
      const project = yield* setup(harness())
      const status = yield* audit(project, "status", "--json")
      assert.strictEqual(status.exitCode, 0, status.stderr)
      const s = status.json()
      assert.strictEqual(s.output_schema_version, 10)
      assert.strictEqual(s.state_revision, 1)
      assert.deepStrictEqual(s.decision, { kind: "stop-triage", detail: ["F-0001"] })
      const metrics = yield* audit(project, "metrics", "--json")
      const m = metrics.json()
      assert.isNull(m.fix_durability_pct)
      assert.strictEqual(m.findings.total, 1)
      assert.deepStrictEqual(yield* eventsOf(project), [], "metrics appends no event")
    }))

  it.live("next: --dry-run at a gate records only gate_reached; a gate records it under the lease; a run prints the session", () =>
    Effect.gen(function*() {
      const project = yield* setup(harness())
      const dry = yield* audit(project, "next", "--dry-run")
      assert.include(dry.stdout, "stop-triage")
      assert.include(dry.stdout, "dry-run: not executing.")
      // issue 21: xcheck's `next --dry-run` at a gate appends gate_reached (and takes no lease)
      assert.deepStrictEqual((yield* eventsOf(project)).map((e: any) => e.event), ["gate_reached"])
      yield* audit(project, "next")
      const events = yield* eventsOf(project)
      assert.deepStrictEqual(events.slice(1).map((e: any) => e.event), [
        "lease_acquired",
        "gate_reached",
        "lease_released"
      ])
      assert.deepInclude(events[2], { event: "gate_reached", gate: "stop-triage" })
      yield* audit(project, "set-status", "F-0001", "accepted")
      const run = yield* audit(project, "next", "--json")
      assert.deepStrictEqual(run.json().session.charter, "finding F-0001")
      const text = yield* audit(project, "next")
      assert.include(text.stdout, "=== Remediator session ===")
    }))

  it.live("dispatch open/finish, authorization under the open dispatch, write_refused", () =>
    Effect.gen(function*() {
      const project = yield* setup(harness())
      const open = yield* audit(
        project,
        "dispatch",
        "open",
        "--role",
        "Auditor",
        "--executable",
        "/usr/bin/claude",
        "--charter",
        "P-01",
        "--prompt",
        "audit P-01",
        "--model",
        "opus",
        "--json"
      )
      assert.strictEqual(open.exitCode, 0, open.stderr)
      const sid = open.json().session_id
      assert.match(sid, /^[0-9a-f]{16}$/)
      const denied = yield* audit(project, "set-status", "F-0001", "accepted", "--json")
      assert.strictEqual(denied.exitCode, 1)
      assert.strictEqual(denied.errorJson().error.reason, "unauthorized")
      const admin = yield* audit(project, "set-limit", "reopen_limit", "3")
      assert.include(admin.stderr, "administrative")
      const finish = yield* audit(
        project,
        "dispatch",
        "finish",
        "--outcome",
        "ok",
        "--exit-status",
        "0",
        "--duration",
        "12.5",
        "--tokens",
        "900"
      )
      assert.strictEqual(finish.exitCode, 0, finish.stderr)
      const events = yield* eventsOf(project)
      assert.deepStrictEqual(events.map((e) => e.event), [
        "session_dispatched",
        "write_refused",
        "write_refused",
        "session_finished"
      ])
      assert.strictEqual(events[3].tokens, 900)
      const state = JSON.parse(fs.readFileSync(path.join(project, "state.out.json"), "utf8"))
      assert.strictEqual(state.sessions[0].provider, "anthropic")
      assert.strictEqual(state.sessions[0].duration_s, 12.5)
      assert.strictEqual((yield* audit(project, "set-limit", "reopen_limit", "3")).exitCode, 0)
    }))

  it.live("§8.2 21: file-finding resolves the locator against the subject's working tree", () =>
    Effect.gen(function*() {
      const project = yield* setup(harness())
      fs.mkdirSync(path.join(project, "src"))
      const content = "line 1\nline 2\nline 3\n"
      fs.writeFileSync(path.join(project, "src/core.py"), content)
      const sha = createHash("sha256").update(content).digest("hex")
      const file = (id: string, locator: string, hash: string) =>
        audit(
          project,
          "file-finding",
          "--id",
          id,
          "--title",
          "t",
          "--severity",
          "major",
          "--dimension",
          "invariants",
          "--unit",
          "U01",
          "--pass",
          "P-01",
          "--body",
          `findings/${id}.md`,
          "--locator",
          locator,
          "--source-hash",
          hash
        )
      assert.include((yield* file("F-0002", "no/such/file.py", sha)).stderr, "does not exist in the subject commit")
      assert.include((yield* file("F-0002", "src/core.py:9999", sha)).stderr, "names line 9999")
      assert.include((yield* file("F-0002", "/etc/passwd", sha)).stderr, "not a path inside the subject")
      assert.include((yield* file("F-0002", "src/core.py:2", "d".repeat(64))).stderr, "is not the sha-256 of")
      const ok = yield* file("F-0002", "src/core.py:2-3", sha)
      assert.strictEqual(ok.exitCode, 0, ok.stderr)
      assert.include(fs.readFileSync(path.join(project, "audit/LEDGER.md"), "utf8"), "| F-0002 |")
    }))

  it.live("record-refusal reads the finding body's ## Refusal prose", () =>
    Effect.gen(function*() {
      const project = yield* setup(harness((d) => (d.findings[0].status = "accepted")))
      const noProse = yield* audit(project, "record-refusal", "F-0001", "--reason", "material-missing")
      assert.include(noProse.stderr, "write the prose half FIRST")
      const body = path.join(project, "audit/findings/F-0001.md")
      fs.appendFileSync(body, "\n## Refusal\nThe module named by the charter is not in the repository.\n")
      const ok = yield* audit(project, "record-refusal", "F-0001", "--reason", "material-missing")
      assert.strictEqual(ok.exitCode, 0, ok.stderr)
      assert.include(fs.readFileSync(body, "utf8"), "refusal: material-missing")
      assert.include(fs.readFileSync(body, "utf8"), "The module named by the charter")
      const next = yield* audit(project, "next", "--dry-run")
      assert.include(next.stdout, "stop-refusal")
    }))

  it.live("init makes an empty audit whose first decision is the Planner; lint is clean with its files", () =>
    Effect.gen(function*() {
      const project = tempProject()
      const init = yield* audit(project, "init")
      assert.strictEqual(init.exitCode, 0, init.stderr)
      assert.include((yield* audit(project, "next", "--dry-run")).stdout, "run-planner")
      for (const dir of ["findings", "passes", "plans", "construals"]) {
        assert.isTrue(fs.statSync(path.join(project, "audit", dir)).isDirectory(), dir)
      }
      assert.strictEqual((yield* audit(project, "init")).exitCode, 1)
      for (
        const args of [
          ["update-catalog", "norm", "N1", "--source", "README.md", "--scope", "all"],
          ["update-catalog", "dimension", "invariants", "--catches", "broken invariants", "--norms", "N1"],
          ["update-catalog", "unit", "U01", "--material", "src/", "--size", "1k", "--responsibility", "core"],
          ["queue-pass", "P-01", "--dimension", "invariants", "--units", "U01", "--charter", "check", "--stop", "done"]
        ]
      ) {
        const r = yield* audit(project, ...args)
        assert.strictEqual(r.exitCode, 0, r.stderr)
      }
      const next = yield* audit(project, "next", "--dry-run", "--json")
      assert.deepStrictEqual(next.json().decision, { kind: "run-auditor", detail: "P-01" })
      assert.strictEqual((yield* audit(project, "lint")).exitCode, 0)
      const dash = yield* audit(project, "dashboard", "--json")
      assert.strictEqual(dash.exitCode, 0, dash.stderr)
      assert.deepStrictEqual(Object.keys(dash.json()), ["output_schema_version", "status", "metrics"])
      const html = fs.readFileSync(path.join(project, "audit/dashboard.html"), "utf8")
      assert.notInclude(html.toLowerCase(), "<script")
      assert.notInclude(html, "http://")
      assert.include(html, "run-auditor")
    }))

  it.live("usage errors exit 2; a project without state is a clear error", () =>
    Effect.gen(function*() {
      const project = tempProject()
      const missing = yield* audit(project, "status", "--json")
      assert.strictEqual(missing.exitCode, 2)
      assert.include(missing.errorJson().error.message, "steward audit init")
      assert.isFalse(fs.existsSync(path.join(project, "audit")))
      const unknown = yield* audit(project, "status", "--banana", "--json")
      assert.strictEqual(unknown.exitCode, 2)
      const badJson = path.join(project, "bad.json")
      fs.writeFileSync(badJson, "{\"schema_version\": 1,,}")
      const parse = yield* audit(project, "import-state", badJson)
      assert.strictEqual(parse.exitCode, 2)
      assert.include(parse.stderr, "not valid JSON at line")
    }))
})

describe("steward audit import-state (paths)", () => {
  it.live("a state naming a body outside audit/ is refused before anything is written", () =>
    Effect.gen(function*() {
      const project = tempProject()
      const file = path.join(project, "state.json")
      fs.writeFileSync(file, harness((d) => (d.findings[0].body_path = "../../outside.md")))
      const run = yield* runCli(["audit", "--project", project, "import-state", file, "--json"])
      assert.strictEqual(run.exitCode, 2)
      assert.include(run.errorJson().error.message, "outside")
      assert.isFalse(fs.existsSync(path.join(project, "audit")))
    }))
})

describe("steward audit next (gate messages, §8.2 32–34, 37)", () => {
  it.live("32: a live refusal STAYS IN FORCE; the same refusal on a closed record is audit complete", () =>
    Effect.gen(function*() {
      const live = yield* setup(
        harness((d) => Object.assign(d.findings[0], { status: "accepted", refusal: "material-missing" }))
      )
      fs.appendFileSync(path.join(live, "audit/findings/F-0001.md"), "\n## Refusal\nmissing.\n")
      const out = (yield* audit(live, "next", "--dry-run")).stdout
      for (const s of ["refusal on F-0001", "material-missing", "STAYS IN FORCE"]) assert.include(out, s)
      assert.notInclude(out, "session ===")
      const closed = yield* setup(
        harness((d) => Object.assign(d.findings[0], { status: "closed", refusal: "material-missing" }))
      )
      assert.include((yield* audit(closed, "next", "--dry-run")).stdout, "audit complete")
    }))

  it.live("33/34: needs-human on a reopened record; a reported recurrence means triage needed", () =>
    Effect.gen(function*() {
      const reopened = yield* setup(harness((d) => Object.assign(d.findings[0], { status: "reopened", attempts: 1 })))
      assert.include((yield* audit(reopened, "next", "--dry-run")).stdout, "needs-human on F-0001")
      const recur = yield* setup(harness((d) => {
        d.findings[0].status = "closed"
        d.findings.push({
          ...d.findings[0],
          id: "F-0002",
          status: "reported",
          recurrence_of: "F-0001",
          body_path: "findings/F-0002.md"
        })
      }))
      const out = (yield* audit(recur, "next", "--dry-run")).stdout
      assert.include(out, "triage needed")
      assert.notInclude(out, "audit complete")
    }))

  it.live("37: the construal gate prompts, gates, then licenses exactly its charter", () =>
    Effect.gen(function*() {
      const project = yield* setup(harness((d) => (d.findings[0].status = "accepted")))
      fs.writeFileSync(path.join(project, "audit/orchestrator.conf"), "construal_gate = on\n")
      const first = (yield* audit(project, "next", "--dry-run")).stdout
      for (
        const s of [
          "write your OPERATIONAL CONSTRUAL",
          "STOP without touching anything else",
          "<<<CHARTER>>>finding F-0001<<<END CHARTER>>>"
        ]
      ) {
        assert.include(first, s)
      }
      const key = (yield* audit(project, "next", "--dry-run", "--json")).json().session.construal_key
      fs.mkdirSync(path.join(project, "audit/construals"))
      fs.writeFileSync(path.join(project, `audit/construals/${key}.md`), "## Task frame\nfix it\n")
      const proposed = yield* audit(
        project,
        "propose-construal",
        key,
        "--role",
        "Remediator",
        "--charter",
        "finding F-0001",
        "--session",
        "1111111111111111",
        "--body",
        `construals/${key}.md`
      )
      assert.strictEqual(proposed.exitCode, 0, proposed.stderr)
      assert.include((yield* audit(project, "next", "--dry-run")).stdout, "gate: construal on the Remediator charter")
      assert.strictEqual((yield* audit(project, "admit-construal", key, "--admitter", "human:operator")).exitCode, 0)
      const admitted = (yield* audit(project, "next", "--dry-run")).stdout
      assert.include(admitted, "=== Remediator session ===")
      assert.include(admitted, "charter: finding F-0001")
      fs.writeFileSync(path.join(project, "audit/orchestrator.conf"), "construal_gate = maybe\n")
      const badConf = yield* audit(project, "next", "--dry-run")
      assert.strictEqual(badConf.exitCode, 2)
      assert.include(badConf.stderr, "construal_gate")
    }))
})
