import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as RoleAgents from "../src/commands/audit/roleAgents.js"
import { runCli } from "./harness.js"

// The role map (issue 39): per-role agents from the operator's profile, never from the audited project.

/** Every file under `dir` with its bytes, to prove a refused loop wrote nothing. */
const snapshot = (dir: string): Record<string, string> =>
  Object.fromEntries(
    fs.readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => {
        const file = path.join(e.parentPath, e.name)
        return [path.relative(dir, file), fs.readFileSync(file, "base64")]
      })
  )

const initProject = () =>
  Effect.gen(function*() {
    const project = fs.mkdtempSync(path.join(os.tmpdir(), "steward-audit-agents-"))
    const state = path.join(os.tmpdir(), path.basename(project) + "-state")
    fs.mkdirSync(state)
    const init = yield* runCli(["audit", "init", "--project", project])
    assert.strictEqual(init.exitCode, 0, init.stderr)
    return { project, state }
  })

describe("role map", () => {
  it.effect("defaults: codex plans, audits and verifies; claude-code remediates (different providers)", () =>
    Effect.gen(function*() {
      const map = yield* RoleAgents.fromProfile(undefined, "config.json")
      assert.deepStrictEqual(map.auditor, { agent: { agent: "codex" }, source: "default" })
      assert.deepStrictEqual(map.planner.agent, { agent: "codex" })
      assert.deepStrictEqual(map.verifier.agent, { agent: "codex" })
      assert.deepStrictEqual(map.remediator, { agent: { agent: "claude-code" }, source: "default" })
      assert.notStrictEqual(RoleAgents.providerOf(map.auditor.agent), RoleAgents.providerOf(map.remediator.agent))
      assert.notStrictEqual(RoleAgents.providerOf(map.verifier.agent), RoleAgents.providerOf(map.remediator.agent))
    }))

  it.effect("a profile entry overrides its roles; the others keep their defaults", () =>
    Effect.gen(function*() {
      const map = yield* RoleAgents.fromProfile({
        agents: {
          remediator: { agent: "gemini", model: "gemini-2.5-pro" },
          verifier: { agent: "steward", model: "anthropic:claude-sonnet-4" }
        }
      }, "config.json")
      assert.deepStrictEqual(map.remediator, {
        agent: { agent: "gemini", model: "gemini-2.5-pro" },
        source: "profile"
      })
      assert.deepStrictEqual(map.verifier.agent, { agent: "steward", model: "anthropic:claude-sonnet-4" })
      assert.strictEqual(RoleAgents.providerOf(map.verifier.agent), "anthropic")
      assert.deepStrictEqual(map.auditor, { agent: { agent: "codex" }, source: "default" })
    }))

  it.effect("an invalid profile entry names the profile and the path", () =>
    Effect.gen(function*() {
      for (
        const [agents, what] of [
          [{ auditor: { agent: "aider" } }, "auditor"],
          [{ verifier: { agent: "steward" } }, "model"],
          [{ verifier: { agent: "steward", model: "no-colon" } }, "PROVIDER:MODEL"],
          [{ triager: { agent: "codex" } }, "triager"]
        ] as const
      ) {
        const error = yield* Effect.flip(RoleAgents.fromProfile({ agents }, "/p/config.json"))
        assert.strictEqual(error.code, "invalid-profile")
        assert.include(error.message, "/p/config.json")
        assert.include(error.message, what)
      }
    }))

  it("a role key in orchestrator.conf is refused naming the key, line and file; other keys pass", () => {
    for (const key of ["auditor", "remediator_cmd", "agents.verifier", "Planner", "role-auditor"]) {
      const result = Effect.runSync(
        Effect.either(
          RoleAgents.refuseProjectRoleKeys(`# conf\nlease_ttl = 60\n${key} = codex\n`, "/a/orchestrator.conf")
        )
      )
      assert.isTrue(Either.isLeft(result), key)
      const error = Either.getOrThrow(Either.flip(result))
      assert.strictEqual(error.code, "role-key-in-project")
      assert.strictEqual(error.key, key)
      assert.include(error.message, `/a/orchestrator.conf:3: role key '${key}'`)
    }
    const fine = "lease_ttl = 60\nmax_sessions: 4\n# auditor = codex\nauditorium_size = 3\n"
    assert.isTrue(Either.isRight(Effect.runSync(Effect.either(RoleAgents.refuseProjectRoleKeys(fine, "c")))))
  })

  it.live("steward audit loop refuses a role key in audit/ with exit 2, naming it, and writes nothing", () =>
    Effect.gen(function*() {
      const { project, state } = yield* initProject()
      const conf = path.join(project, "audit", "orchestrator.conf")
      fs.appendFileSync(conf, "\nremediator = codex\n")
      const before = snapshot(project)
      const run = yield* runCli(["audit", "loop", "--project", project, "--state-dir", state, "--model", "openai:m"])
      assert.strictEqual(run.exitCode, 2, run.stderr)
      assert.include(run.stderr, "role key 'remediator'")
      assert.include(run.stderr, conf)
      assert.deepStrictEqual(snapshot(project), before)
      assert.deepStrictEqual(fs.readdirSync(state), [])
    }))

  it.live("steward audit loop refuses an invalid role map in the profile with exit 2, naming the path", () =>
    Effect.gen(function*() {
      const { project, state } = yield* initProject()
      const configFile = path.join(state, "config.json")
      fs.writeFileSync(configFile, JSON.stringify({ extensions: { audit: { agents: { auditor: { agent: "x" } } } } }))
      const before = snapshot(project)
      const run = yield* runCli(["audit", "loop", "--project", project, "--state-dir", state, "--model", "openai:m"])
      assert.strictEqual(run.exitCode, 2, run.stderr)
      assert.include(run.stderr, configFile)
      assert.include(run.stderr, "auditor")
      assert.deepStrictEqual(snapshot(project), before)
      assert.deepStrictEqual(fs.readdirSync(state), ["config.json"])
    }))

  it.live("steward config set audit.agents.ROLE checks the entry; other audit keys are refused", () =>
    Effect.gen(function*() {
      const state = fs.mkdtempSync(path.join(os.tmpdir(), "steward-audit-agents-config-"))
      const set = yield* runCli([
        "config",
        "set",
        "audit.agents.remediator",
        JSON.stringify({ agent: "gemini", model: "gemini-2.5-pro" }),
        "--state-dir",
        state
      ])
      assert.strictEqual(set.exitCode, 0, set.stderr)
      assert.strictEqual(set.stderr, "", "a setting steward reads has no note")
      const config = JSON.parse(fs.readFileSync(path.join(state, "config.json"), "utf8"))
      const map = yield* RoleAgents.fromProfile(config.extensions.audit, "config.json")
      assert.deepStrictEqual(map.remediator, { agent: { agent: "gemini", model: "gemini-2.5-pro" }, source: "profile" })
      const bad = yield* runCli([
        "config",
        "set",
        "audit.agents.auditor",
        "{\"agent\":\"aider\"}",
        "--state-dir",
        state
      ])
      assert.strictEqual(bad.exitCode, 2)
      assert.include(bad.stderr, "audit.agents.auditor")
      const other = yield* runCli(["config", "set", "audit.colour", "blue", "--state-dir", state])
      assert.strictEqual(other.exitCode, 2)
      assert.include(other.stderr, "audit.agents")
      assert.deepStrictEqual(JSON.parse(fs.readFileSync(path.join(state, "config.json"), "utf8")), config)
    }))

  it.effect("locate: the first executable file on PATH, an absolute override as is; nothing is run", () =>
    Effect.gen(function*() {
      const root = fs.mkdtempSync(path.join(os.tmpdir(), "steward-audit-locate-"))
      const [plain, bin, other] = ["plain", "bin", "other"].map((d) => path.join(root, d))
      for (const dir of [plain!, bin!, other!]) fs.mkdirSync(dir)
      const script = "#!/bin/sh\ntouch \"$(dirname \"$0\")/RAN\"\n"
      fs.writeFileSync(path.join(plain!, "codex"), script, { mode: 0o644 })
      fs.writeFileSync(path.join(bin!, "codex"), script, { mode: 0o755 })
      fs.writeFileSync(path.join(other!, "my-claude"), script, { mode: 0o755 })
      fs.mkdirSync(path.join(bin!, "claude"))
      const searchPath = ["", "relative", plain, bin].join(path.delimiter)
      const locate = (agent: Parameters<typeof RoleAgents.locate>[0], where = searchPath) =>
        RoleAgents.locate(agent, where).pipe(Effect.provide(NodeContext.layer))
      assert.strictEqual(yield* locate({ agent: "codex" }), path.join(bin!, "codex"))
      assert.isUndefined(yield* locate({ agent: "claude-code" }), "a directory is not an executable")
      assert.isUndefined(yield* locate({ agent: "gemini" }))
      const mine = path.join(other!, "my-claude")
      assert.strictEqual(yield* locate({ agent: "claude-code", executable: mine }), mine)
      assert.strictEqual(
        yield* locate({ agent: "claude-code", executable: "my-claude" }, other!),
        mine
      )
      assert.isUndefined(yield* locate({ agent: "codex", executable: "other/my-claude" }, root))
      assert.isUndefined(yield* locate({ agent: "codex", executable: path.join(plain!, "codex") }))
      for (const dir of [plain!, bin!, other!]) assert.isFalse(fs.existsSync(path.join(dir, "RAN")))
    }))
})
