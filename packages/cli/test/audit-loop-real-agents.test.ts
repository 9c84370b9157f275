/**
 * Issue 39's acceptance with the real agent CLIs (pinned as in the hooks issue), offline against
 * the scripted model server: `steward audit loop --agents` over a small git project where Codex
 * files a finding as auditor, Claude Code fixes it as remediator (after trying a force-push that
 * Steward's hook denies), and Codex verifies. One project, three real sessions: CI time is short.
 * Skips (with the reason) when a CLI is not installed or the CLI is not built.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { runCli } from "./harness.js"
import * as Agents from "./support/agentClis.js"
import { commitSubject, queueOnePass } from "./support/auditProject.js"
import * as Models from "./support/scriptedModels.js"

const fixtures = path.join(import.meta.dirname, "fixtures", "agent-clis")
const SOURCE = "def core(x):\n    return x - 1  # documented as x + 1\n"
const sha = createHash("sha256").update(SOURCE).digest("hex")

const skip = (() => {
  if (process.env["STEWARD_AGENT_CLI_TESTS"] === "skip") return "STEWARD_AGENT_CLI_TESTS=skip"
  if (!fs.existsSync(Agents.builtCli)) return `the CLI is not built (${Agents.builtCli})`
  for (const client of ["codex", "claude-code"] as const) {
    const found = Agents.binary(client)
    if ("missing" in found) return found.missing
  }
  return undefined
})()

/** The shell commands each role's model asks for, from its prompt (the verbs' command, its session). */
const plan = (role: string, steward: string, session: string, project: string): ReadonlyArray<string> => {
  const at = `--project ${project}`
  switch (role) {
    case "Auditor":
      return [
        `mkdir -p audit/findings audit/passes && printf '## Evidence\\nsrc/core.py:2 returns x - 1.\\n' > audit/findings/F-0001.md`,
        `${steward} file-finding --id F-0001 --title 'core subtracts' --severity major --dimension invariants --unit U01 --pass P-01 --body findings/F-0001.md --locator src/core.py:2 --source-hash ${sha} ${at}`,
        `printf '## Coverage\\nCOVERED: src/core.py\\n' > audit/passes/P-01.md && ${steward} record-coverage P-01 --report passes/P-01.md --findings F-0001 ${at}`
      ]
    case "Remediator":
      return [
        "git push --force origin main",
        `${steward} set-status F-0001 validated ${at}`,
        `mkdir -p audit/plans && printf '## Fix plan\\n' > audit/plans/RP-0001.md && ${steward} record-plan RP-0001 --findings F-0001 --body plans/RP-0001.md ${at} && ${steward} set-status F-0001 planned ${at}`,
        `printf 'def core(x):\\n    return x + 1\\n' > src/core.py && ${steward} record-fix F-0001 --session ${session} --plan RP-0001 ${at}`
      ]
    default:
      return [`${steward} record-verdict F-0001 --verdict closed --session ${session} --reason re-read ${at}`]
  }
}

const script = (t: Models.Turn): Models.Reply => {
  const text = JSON.stringify(t.body)
  const role = /You are the (\w+) of this audit/.exec(text)?.[1]
  const session = /Your dispatch is session ([0-9a-f]{16})/.exec(text)?.[1]
  const steward = /`([^`]+?) audit status --project ([^`\s\\]+)/.exec(text)
  if (role === undefined || session === undefined || steward === null) return { text: "No audit prompt." }
  const commands = plan(role, `${steward[1]} audit`, session, steward[2]!)
  // one command a turn: each result is seen before the next is asked for
  return t.step < commands.length ? { shell: [commands[t.step]!] } : { text: `${role} done.` }
}

describe.skipIf(skip !== undefined)(
  `audit loop with the real CLIs${skip === undefined ? "" : ` (skipped: ${skip})`}`,
  () => {
    it.live(
      "codex audits, claude-code remediates past a denied force-push, codex verifies: cross-provider",
      () =>
        Effect.gen(function*() {
          const s = Agents.scratch("audit-loop")
          const server = yield* Effect.promise(() => Models.start(script))
          const saved = { ...process.env }
          try {
            // the operator's environment the loop passes on: both CLIs offline, against the model server
            Agents.configure("codex", s, server.url, fixtures)
            Object.assign(
              process.env,
              Agents.environment("codex", s, server.url),
              Agents.environment("claude-code", s, server.url)
            )
            yield* Effect.promise(() => Agents.warmServer(s, process.env as Record<string, string>))
            const project = s.ws
            const origin = path.join(s.root, "origin.git")
            execFileSync("git", ["init", "-q", "--bare", "-b", "main", origin])
            const git = commitSubject(project, SOURCE, ["-b", "main"])
            git("remote", "add", "origin", origin)
            git("push", "-q", "origin", "main")
            const state = path.join(project, ".steward")
            fs.mkdirSync(state)
            yield* queueOnePass(project)
            const at = ["--project", project]
            const codex = (Agents.binary("codex") as { path: string }).path
            const claude = (Agents.binary("claude-code") as { path: string }).path
            fs.writeFileSync(
              path.join(state, "config.json"),
              JSON.stringify({
                extensions: {
                  audit: {
                    agents: {
                      auditor: { agent: "codex", model: "scripted-model", executable: codex },
                      remediator: { agent: "claude-code", model: "claude-scripted", executable: claude },
                      verifier: { agent: "codex", model: "scripted-model", executable: codex }
                    }
                  }
                }
              })
            )
            const loop = [...at, "--state-dir", state]
            const first = yield* runCli(["audit", "loop", "--agents", ...loop])
            assert.strictEqual(first.exitCode, 0, first.stderr + first.stdout)
            assert.include(first.stdout, "stop: triage needed — 1 reported finding(s): F-0001")
            assert.strictEqual((yield* runCli(["audit", "set-status", "F-0001", "accepted", ...at])).exitCode, 0)
            const second = yield* runCli(["audit", "loop", "--agents", ...loop, "--json"])
            assert.strictEqual(second.exitCode, 0, second.stderr + second.stdout)
            assert.deepStrictEqual(second.json().sessions.map((l: any) => [l.role, l.agent, l.status]), [
              ["Remediator", "claude-code", "ok"],
              ["Verifier", "codex", "ok"]
            ])
            const doc = JSON.parse((yield* runCli(["audit", "export-state", ...at, "--json"])).stdout).state
            assert.strictEqual(doc.findings[0].status, "closed")
            assert.strictEqual(doc.findings[0].independence, "cross-provider")
            for (const e of doc.sessions) {
              for (
                const k of [
                  "provider",
                  "agent_model",
                  "executable",
                  "executable_version",
                  "charter_hash",
                  "prompt_hash",
                  "state_revision",
                  "head_before",
                  "head_after",
                  "session_id",
                  "sandbox_profile",
                  "duration_s",
                  "exit_status",
                  "outcome",
                  "log_digest"
                ]
              ) {
                assert.notStrictEqual(e[k] ?? "unknown", "unknown", `${e.role}: ${k}`)
              }
            }
            // the force-push was denied by Steward's hook with its citation, and origin is unchanged
            assert.include(JSON.stringify(server.requests.map((r) => r.text)), "universal.force-push")
            assert.strictEqual(
              fs.readFileSync(path.join(project, "src/core.py"), "utf8"),
              "def core(x):\n    return x + 1\n"
            )
            // the event chain verifies: recover finds it intact and nothing to repair
            const recover = yield* runCli(["audit", "recover", ...at, "--json"])
            assert.strictEqual(recover.exitCode, 0, recover.stdout + recover.stderr)
            assert.include(recover.stdout, "the event stream is intact")
            const lint = yield* runCli(["audit", "lint", ...at])
            assert.strictEqual(lint.exitCode, 0, lint.stdout)
          } finally {
            for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
            Object.assign(process.env, saved)
            Agents.stopServers(s)
            yield* Effect.promise(() => server.close())
            fs.rmSync(s.root, { recursive: true, force: true })
          }
        }),
      300_000
    )
  }
)
