#!/usr/bin/env node
// A tiny agent product that is not built on Effect: its "agent" proposes tool calls, and before
// running any of them the product asks @steward/governance-rules' promise-based Gate. Allowed calls
// really run, in a fresh scratch workspace (a new git repository without a remote, so even a
// granted push goes nowhere); asks go to the person (a terminal prompt, or --answer when there is
// no terminal); denials are shown with the rule that made them.
//
//   node --import tsx main.mjs [--answer allow|deny] [--json]
import { execFileSync, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { homedir, tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { createInterface } from "node:readline/promises"
import { Gate } from "@steward/governance-rules"

const arg = (name) => {
  const i = process.argv.indexOf(name)
  return i === -1 ? undefined : process.argv[i + 1]
}
const json = process.argv.includes("--json")
const answer = arg("--answer")
if (answer !== undefined && answer !== "allow" && answer !== "deny") {
  process.stderr.write(`policy-gate: --answer must be allow or deny, got ${answer}\n`)
  process.exit(2)
}
const workspace = mkdtempSync(join(tmpdir(), "policy-gate-"))
execFileSync("git", ["init", "--quiet", workspace])

// What the agent wants to do, in order (a real product gets these from its model).
const proposals = [
  { tool: "write", paths: ["notes/plan.md"], content: "# Plan\n\n1. read the code\n2. change it\n" },
  { tool: "shell", command: "ls notes" },
  { tool: "shell", command: "git push origin main" },
  { tool: "shell", command: "cat notes/plan.md && rm -rf ~" },
  { tool: "fetch", url: "http://169.254.169.254/latest/meta-data/" }
]

// The person answers asks: at a terminal they are asked; otherwise --answer (default: deny).
const ask = async (request) => {
  if (answer !== undefined || !process.stdin.isTTY) return { answer: answer ?? "deny", by: "operator" }
  const prompt = createInterface({ input: process.stdin, output: process.stderr })
  const reply = await prompt.question(`${request.decision.citation.reason}\nallow this call? [y/N] `)
  prompt.close()
  return { answer: /^y(es)?$/i.test(reply.trim()) ? "allow" : "deny", by: "operator" }
}

// The product's own tools: they run only after the gate said yes. A failing tool is reported to
// the gate (its `tool_failure` hooks) and to the person, not thrown.
const perform = (call) => {
  if (call.tool === "write") {
    for (const path of call.paths) {
      mkdirSync(dirname(join(workspace, path)), { recursive: true })
      writeFileSync(join(workspace, path), call.content)
    }
    return { output: `wrote ${call.paths.join(", ")}`, exitCode: 0 }
  }
  if (call.tool === "shell") {
    const done = spawnSync("sh", ["-c", call.command], { cwd: workspace, encoding: "utf8" })
    if (done.status === 0) return { output: done.stdout.trim(), exitCode: 0 }
    return { output: `failed (exit ${done.status}): ${done.stderr.trim().split("\n")[0]}`, exitCode: done.status ?? 1 }
  }
  return { output: `(the product has no ${call.tool} tool)`, exitCode: 1 }
}

// the host says where the workspace and the home directory are; the gate never guesses them
const gate = await Gate.open({ level: "execute", workspace, home: homedir(), ask })
const results = []
try {
  for (const { content, ...call } of proposals) {
    const verdict = await gate.authorize(call, { runId: "policy-gate-demo" })
    const done = verdict.allowed ? perform({ ...call, content }) : null
    if (done !== null) await gate.completed(call, { exitCode: done.exitCode, runId: "policy-gate-demo" })
    results.push({
      call,
      outcome: verdict.outcome,
      rule: verdict.citation.ruleId,
      reason: verdict.citation.reason,
      output: done?.output ?? null,
      exitCode: done?.exitCode ?? null
    })
  }
  const evidence = await gate.evidence()
  if (json) {
    process.stdout.write(JSON.stringify({ workspace, results, evidence: evidence.length }, null, 2) + "\n")
  } else {
    for (const result of results) {
      const what = result.call.command ?? result.call.url ?? `${result.call.tool} ${result.call.paths.join(", ")}`
      process.stdout.write(`${result.outcome.padEnd(10)} ${what}\n           ${result.reason}\n`)
      if (result.output !== null) process.stdout.write(`           → ${result.output.split("\n").join(" / ")}\n`)
    }
    process.stdout.write(`\n${evidence.length} evidence events recorded; workspace: ${workspace}\n`)
  }
} finally {
  await gate.close()
}
