/**
 * Where `steward policy` takes its policy and level from without flags (ADR 0008): the project's
 * `steward.policy.yaml` found from the workspace upward, the `policy.*` defaults of config.json,
 * each named by `policy explain`; and `policy explain`'s filters.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Host from "../src/hooks/Host.js"
import { runCli } from "./harness.js"

const DENY_PUBLISH = "rules:\n  - id: no-publish\n    action: shell\n    effect: deny\n    resource: \"npm publish*\"\n"

/** A project with a nested workspace and its own state directory. */
const project = () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-psrc-")))
  const ws = path.join(root, "packages", "app")
  const state = path.join(root, ".steward")
  fs.mkdirSync(ws, { recursive: true })
  fs.mkdirSync(state)
  return { root, ws, state }
}

describe("steward policy: the project policy file and config defaults", () => {
  it.live("a steward.policy.yaml above the workspace changes policy check without --rules; explain names it", () =>
    Effect.gen(function*() {
      const { root, state, ws } = project()
      const before = yield* runCli([
        "policy",
        "check",
        "--json",
        "--workspace",
        ws,
        "--state-dir",
        state,
        "--",
        "npm publish"
      ])
      assert.notStrictEqual(before.json().decision, "deny")
      const file = path.join(root, "steward.policy.yaml")
      fs.writeFileSync(file, DENY_PUBLISH)
      const after = yield* runCli([
        "policy",
        "check",
        "--json",
        "--workspace",
        ws,
        "--state-dir",
        state,
        "--",
        "npm publish"
      ])
      assert.strictEqual(after.json().decision, "deny")
      assert.strictEqual(after.json().citation.ruleId, "no-publish")
      const explain = yield* runCli(["policy", "explain", "--json", "--workspace", ws, "--state-dir", state])
      assert.deepStrictEqual(explain.json().source, { file, fileFrom: "project", levelFrom: "default" })
      const text = yield* runCli(["policy", "explain", "--workspace", ws, "--state-dir", state])
      assert.include(text.stdout, `policy file: ${file} (found from the workspace upward)`)
      // --rules wins over the project's file.
      const other = path.join(root, "other.yaml")
      fs.writeFileSync(other, "level: assist\n")
      const flagged = yield* runCli([
        "policy",
        "explain",
        "--json",
        "--workspace",
        ws,
        "--rules",
        other,
        "--state-dir",
        state
      ])
      assert.deepStrictEqual(flagged.json().source, { file: other, fileFrom: "flag", levelFrom: "file" })
      // The nearest file wins.
      fs.writeFileSync(path.join(ws, "steward.policy.yaml"), "level: assist\n")
      const nearest = yield* runCli(["policy", "explain", "--json", "--workspace", ws, "--state-dir", state])
      assert.strictEqual(nearest.json().source.file, path.join(ws, "steward.policy.yaml"))
      assert.strictEqual(nearest.json().level, "assist")
    }))

  it.live("config policy.level and policy.rules are defaults: a flag or the policy file's level wins", () =>
    Effect.gen(function*() {
      const { root, state, ws } = project()
      const set = (key: string, value: string) => runCli(["config", "set", key, value, "--state-dir", state])
      assert.strictEqual((yield* set("policy.level", "\"read_only\"")).exitCode, 0)
      const explain = () => runCli(["policy", "explain", "--json", "--workspace", ws, "--state-dir", state])
      assert.deepStrictEqual([(yield* explain()).json().level, (yield* explain()).json().source.levelFrom], [
        "read_only",
        "config"
      ])
      const flagged = yield* runCli([
        "policy",
        "explain",
        "--json",
        "--workspace",
        ws,
        "--level",
        "autonomous",
        "--state-dir",
        state
      ])
      assert.deepStrictEqual([flagged.json().level, flagged.json().source.levelFrom], ["autonomous", "flag"])
      fs.writeFileSync(path.join(root, "rules.yaml"), `level: assist\n${DENY_PUBLISH}`)
      assert.strictEqual((yield* set("policy.rules", "\"rules.yaml\"")).exitCode, 0)
      const withRules = (yield* explain()).json()
      assert.deepStrictEqual(withRules.source, {
        file: path.join(root, "rules.yaml"),
        fileFrom: "config",
        levelFrom: "file"
      })
      const check = yield* runCli([
        "policy",
        "check",
        "--json",
        "--workspace",
        ws,
        "--state-dir",
        state,
        "--",
        "npm publish"
      ])
      assert.strictEqual(check.json().decision, "deny")
      // A value the schema refuses is refused, and nothing is written.
      const bad = yield* set("policy.level", "\"reckless\"")
      assert.strictEqual(bad.exitCode, 2)
      assert.strictEqual((yield* explain()).json().level, "assist")
    }))

  it.live("the hooks use the project's steward.policy.yaml too", () =>
    Effect.gen(function*() {
      const { root, ws } = project()
      fs.writeFileSync(path.join(root, "steward.policy.yaml"), DENY_PUBLISH)
      const outcome = yield* Effect.promise(() =>
        Host.runOnce({
          args: ["claude-code", "PreToolUse", "--workspace", ws, "--state-dir", path.join(root, ".steward")],
          home: os.homedir(),
          cwd: ws,
          stdin: JSON.stringify({
            session_id: "s",
            cwd: ws,
            hook_event_name: "PreToolUse",
            tool_name: "Bash",
            tool_input: { command: "npm publish" }
          })
        })
      )
      const answer = JSON.parse(outcome.stdout).hookSpecificOutput
      assert.strictEqual(answer.permissionDecision, "deny")
      assert.include(answer.permissionDecisionReason, "no-publish")
    }))
})

describe("steward policy explain: filters", () => {
  it.live("--layer, --action and --effect keep only matching rules; the engine's asks only where they fit", () =>
    Effect.gen(function*() {
      const { state, ws } = project()
      const explain = (...args: Array<string>) =>
        runCli(["policy", "explain", "--json", "--workspace", ws, "--state-dir", state, ...args]).pipe(
          Effect.map((r) => r.json())
        )
      const all = yield* explain()
      const universal = yield* explain("--layer", "universal")
      assert.deepStrictEqual(universal.layers.map((l: { layer: string }) => l.layer), ["universal"])
      assert.deepStrictEqual(universal.engine, [])
      const fetchDeny = yield* explain("--action", "fetch", "--effect", "deny")
      const rules = fetchDeny.layers.flatMap((l: { rules: Array<{ action: string; effect: string }> }) => l.rules)
      assert.isAbove(rules.length, 0)
      assert.isTrue(rules.every((r: { action: string; effect: string }) => r.action === "fetch" && r.effect === "deny"))
      assert.isBelow(rules.length, all.layers.flatMap((l: { rules: Array<unknown> }) => l.rules).length)
      assert.deepStrictEqual(fetchDeny.engine, [])
      assert.deepStrictEqual(fetchDeny.filter, { layer: null, action: "fetch", effect: "deny" })
      assert.isAbove((yield* explain("--layer", "engine")).engine.length, 0)
      const bad = yield* runCli(["policy", "explain", "--effect", "maybe", "--workspace", ws])
      assert.strictEqual(bad.exitCode, 2)
    }))
})
