/**
 * The xcheck conformance corpus through the CLI itself (argv exactly as recorded): accept/refuse,
 * key phrase, the `next --dry-run` decision after every step and the masked state digest. The
 * whole corpus is replayed over the library path in audit-state (`test/Conformance.*`); here the
 * probes and the fresh-start sequences run through every CLI layer a user meets.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

const CORPUS = path.resolve(import.meta.dirname, "../../audit-state/test/fixtures/conformance")
const LIMITS = { reopen_limit: 2, remediation_batch_size: 8, class_threshold: 3, max_findings_per_pass: 15 }

const sortKeys = (v: any): any =>
  Array.isArray(v)
    ? v.map(sortKeys)
    : v !== null && typeof v === "object"
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]))
    : v

/** `xcheck-conformance-mask/1` (the corpus README), then the canonical sha-256. */
const maskedDigest = (doc: any, today: string): string => {
  const d = JSON.parse(JSON.stringify(doc))
  const dates = (v: any): any =>
    Array.isArray(v)
      ? v.map(dates)
      : v !== null && typeof v === "object"
      ? Object.fromEntries(
        Object.entries(v).map(([k, x]) =>
          ["updated", "created", "admitted_at"].includes(k) && typeof x === "string"
            ? [k, x === today ? "<today>" : x.startsWith(today + "T") ? "<now>" : x]
            : [k, dates(x)]
        )
      )
      : v
  if (Array.isArray(d.ledger_commits)) d.ledger_commits = d.ledger_commits.map(() => "<txn>")
  if (d.ledger_anchor) d.ledger_anchor = { ...d.ledger_anchor, digest: "<digest>", events: "<events>" }
  for (const c of ["findings", "class_findings", "queue", "plans", "construals"]) if (d[c]) d[c] = dates(d[c])
  delete d.head_before
  d.limits = { ...LIMITS, ...(d.limits ?? {}) }
  d.sessions = (d.sessions ?? []).map((s: any) => {
    const r = { ...s, started: "<ts>" }
    for (
      const k of [
        "policy_digest",
        "subject_commit",
        "subject_manifest",
        "controller_commit",
        "capsule_digest",
        "sandbox_details"
      ]
    ) delete r[k]
    for (const k of ["head_after", "duration_s", "exit_status", "outcome", "log_digest", "trust_level", "tokens"]) {
      if (r[k] === null) delete r[k]
    }
    return r
  })
  return createHash("sha256").update(JSON.stringify(sortKeys(d)), "utf8").digest("hex")
}

const norm = (s: string) => s.toLowerCase().replaceAll("`", "").replaceAll("‘", "'").replaceAll("’", "'")

const subject = (files: Record<string, string>): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-conf-subject-"))
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true })
    fs.writeFileSync(path.join(dir, rel), text)
  }
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@t",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@t",
    GIT_AUTHOR_DATE: "2026-01-01T00:00:00+00:00",
    GIT_COMMITTER_DATE: "2026-01-01T00:00:00+00:00"
  }
  execFileSync("git", ["init", "-q"], { cwd: dir, env })
  execFileSync("git", ["add", ...Object.keys(files)], { cwd: dir, env })
  execFileSync("git", ["-c", "commit.gpgsign=false", "commit", "-q", "-m", "subject"], { cwd: dir, env })
  return dir
}

interface Divergence {
  readonly sequence: string
  readonly step: number
  readonly what: string
  readonly expected: unknown
  readonly observed: unknown
}

const replay = (seq: any, template: string) =>
  Effect.gen(function*() {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "cli-conf-"))
    const project = path.join(root, "project")
    const input = path.join(root, "input")
    fs.cpSync(template, project, { recursive: true })
    fs.mkdirSync(input)
    const today = new Date().toISOString().slice(0, 10)
    const sub = (a: string) => a.replaceAll("{project}", project).replaceAll("{input}", input)
    const divergences: Array<Divergence> = []
    if (seq.start === "shared") {
      yield* runCli(seq.setup.init.argv.map(sub))
    } else {
      for (const d of seq.setup.init.mkdirs ?? []) fs.mkdirSync(path.join(project, "audit", d), { recursive: true })
      for (const [n, t] of Object.entries(seq.setup.init.input ?? {})) {
        fs.writeFileSync(path.join(input, n), t as string)
      }
      const r = yield* runCli(["audit", "import-state", path.join(input, "state.json"), "--project", project])
      assert.strictEqual(r.exitCode, 0, r.stderr)
    }
    for (let k = 0; k < seq.steps.length; k++) {
      const step = seq.steps[k]
      if (step.originalBug) break // README D5: the original's own bug, skipped with every later step
      if (step.kind === "file") {
        const f = step.file
        const file = path.join(project, f.path)
        fs.mkdirSync(path.dirname(file), { recursive: true })
        if (f.op === "write") fs.writeFileSync(file, f.text)
        else if (f.op === "append") fs.appendFileSync(file, f.text)
        else fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace(f.old, f.new))
        continue
      }
      const e = step.expect
      const run = yield* runCli(step.argv.map(sub))
      const accepted = run.exitCode === 0
      const message = accepted ? run.stdout : (() => {
        try {
          return String(run.errorJson().error.message)
        } catch {
          return run.stderr
        }
      })()
      const diverge = (what: string, expected: unknown, observed: unknown) =>
        divergences.push({ sequence: seq.id, step: k, what, expected, observed })
      if (accepted !== e.accepted) {
        diverge("accept", e.refusal ?? "accepted", message)
        break
      }
      if (!accepted && e.keyPhrase !== null && !norm(message).includes(norm(e.keyPhrase))) {
        diverge("keyPhrase", e.keyPhrase, message)
      }
      const next = step.kind === "next"
        ? run
        : yield* runCli(["audit", "next", "--dry-run", "--project", project, "--json"])
      const decision = next.exitCode === 0 ? next.json().decision : { error: next.stderr }
      const nextOk = e.next !== null && typeof e.next === "object" && "error" in e.next
        ? "error" in decision
        : JSON.stringify(decision) === JSON.stringify(e.next)
      if (!nextOk) {
        diverge("next", e.next, decision)
        break
      }
      const exported = yield* runCli(["audit", "export-state", "--project", project, "--json"])
      const digest = maskedDigest(exported.json().state, today)
      if (e.state !== null && digest !== e.state.sha256) diverge("state", e.state.sha256, digest)
    }
    fs.rmSync(root, { recursive: true, force: true })
    return divergences
  })

const corpus = (file: string): ReadonlyArray<any> =>
  fs.readFileSync(path.join(CORPUS, file), "utf8").split("\n").filter((l) => l.trim().length > 0).map((l) =>
    JSON.parse(l)
  )

describe("steward audit: the xcheck conformance corpus through the CLI", () => {
  for (const file of ["probes.jsonl", "sequences-fresh.jsonl"]) {
    it.live(`${file}: accept/refuse, key phrase, next and state agree at every step`, () =>
      Effect.gen(function*() {
        const sequences = corpus(file)
        const template = subject(sequences[0].setup.git.files)
        const all: Array<Divergence> = []
        for (const seq of sequences) all.push(...(yield* replay(seq, template)))
        assert.deepStrictEqual(all.slice(0, 3), [])
      }), 900_000)
  }
})
