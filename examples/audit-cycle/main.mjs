#!/usr/bin/env node
// An audit → triage → remediate → verify cycle on @steward/audit-state, driven through the
// `steward` CLI as a person would: the Planner's catalog and queue typed as verbs, then
// `steward audit loop` runs the scripted Auditor session until triage needs the person, the
// person's triage is typed at the CLI (`steward audit set-status`), and the loop runs the
// Remediator and the Verifier to the end. Everything happens in a fresh scratch project.
//
//   node main.mjs [--triage accepted|rejected|deferred] [--json]
import { execFileSync, spawnSync } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { createInterface } from "node:readline/promises"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const bin = fileURLToPath(import.meta.resolve("@steward/cli/bin"))
const json = process.argv.includes("--json")
const arg = (name) => {
  const i = process.argv.indexOf(name)
  return i === -1 ? undefined : process.argv[i + 1]
}
const choices = ["accepted", "rejected", "deferred"]
const triage = arg("--triage")
if (triage !== undefined && !choices.includes(triage)) {
  process.stderr.write(`audit-cycle: --triage must be one of ${choices.join(", ")}, got ${triage}\n`)
  process.exit(2)
}

// A scratch project: the subject (a git repository), its audit, and a state directory for the
// harness sessions the loop runs.
const project = mkdtempSync(join(tmpdir(), "audit-cycle-"))
cpSync(join(here, "subject"), project, { recursive: true })
const git = (...args) => execFileSync("git", ["-c", "user.name=example", "-c", "user.email=example@example.org", ...args], { cwd: project, stdio: "pipe" })
git("init", "--quiet")
git("add", ".")
git("commit", "--quiet", "-m", "the subject")
const state = join(project, ".steward")
mkdirSync(state)

const steps = []
const say = (text) => { if (!json) process.stdout.write(`${text}\n`) }
const steward = (...args) => {
  const full = [...args, "--project", project, ...(args[1] === "loop" ? ["--state-dir", state] : [])]
  const done = spawnSync(process.execPath, ["--import", "tsx", bin, ...full], { cwd: here, encoding: "utf8" })
  const step = { command: `steward ${args.map((a) => (/\s/.test(a) ? `'${a}'` : a)).join(" ")}`, exitCode: done.status, stdout: done.stdout.trim(), stderr: done.stderr.trim() }
  steps.push(step)
  say(`$ ${step.command}\n${[step.stdout, step.stderr].filter((s) => s !== "").join("\n")}\n`)
  if (done.status !== 0) {
    process.stderr.write(`audit-cycle: \`${step.command}\` exited ${done.status}\n`)
    process.exit(1)
  }
  return step
}

// 1. The plan (the Planner's work, typed by the person as verbs).
steward("audit", "init")
steward("audit", "update-catalog", "norm", "N1", "--source", "docs/invariants.md", "--scope", "the counter's invariants")
steward("audit", "update-catalog", "dimension", "invariants", "--catches", "violations of documented invariants", "--norms", "N1")
steward("audit", "update-catalog", "unit", "U01", "--material", "src/counter.js", "--size", "2 lines", "--responsibility", "the counter")
steward("audit", "queue-pass", "P-01", "--dimension", "invariants", "--units", "U01", "--charter", "check the counter against its invariants", "--stop", "the unit is read")

// 2. The loop runs the Auditor until the decision needs the person: triage.
const script = join(here, "sessions.jsonl")
steward("audit", "loop", "--script", script)

// 3. The person's triage, typed at the CLI.
let verdict = triage
if (verdict === undefined && process.stdin.isTTY && !json) {
  const prompt = createInterface({ input: process.stdin, output: process.stdout })
  const reply = (await prompt.question(`triage F-0001 — ${choices.join(" / ")} [accepted]: `)).trim()
  prompt.close()
  verdict = choices.includes(reply) ? reply : "accepted"
}
steward("audit", "set-status", "F-0001", verdict ?? "accepted")

// 4. The loop again: the Remediator and the Verifier, to the end of the audit.
steward("audit", "loop", "--script", script)
const status = JSON.parse(steward("audit", "status", "--json").stdout)
steward("audit", "lint")
const exported = JSON.parse(steward("audit", "export-state").stdout)

if (json) {
  process.stdout.write(`${JSON.stringify({ project, triage: verdict ?? "accepted", steps, status, state: exported }, null, 2)}\n`)
}
else say(`the audit is in ${project}/audit (LEDGER.md, findings/, plans/, passes/); the sessions in ${state}`)
