import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

const tempState = () => fs.mkdtempSync(path.join(os.tmpdir(), "steward-config-"))

describe("steward config", () => {
  it.live("set, get, list, unset and path work on config.json, validated", () =>
    Effect.gen(function*() {
      const state = tempState()
      const file = path.join(state, "config.json")
      const where = yield* runCli(["config", "path", "--state-dir", state])
      assert.strictEqual(where.stdout, file)
      const fallback = yield* runCli(["config", "get", "reflexes.route", "--json", "--state-dir", state])
      assert.deepStrictEqual(fallback.json(), { key: "reflexes.route", value: "active", source: "default" })
      const set = yield* runCli(["config", "set", "reflexes.route", "observe", "--state-dir", state])
      assert.strictEqual(set.exitCode, 0, set.stderr)
      assert.strictEqual(set.stderr, "", "a setting steward reads has no note")
      assert.deepStrictEqual(JSON.parse(fs.readFileSync(file, "utf8")), {
        extensions: { reflexes: { route: "observe" } }
      })
      const policy = yield* runCli(["config", "set", "policy.level", "read_only", "--state-dir", state])
      assert.strictEqual(policy.exitCode, 0, policy.stderr)
      // `steward policy` reads policy.* (ADR 0008): no note
      assert.strictEqual(policy.stderr, "")
      const free = yield* runCli(["config", "set", "sessions.colour", "\"blue\"", "--state-dir", state])
      assert.strictEqual(free.exitCode, 0, free.stderr)
      // a free-form area: stored, and said to be read by no steward command (no silent no-op)
      assert.include(free.stderr, "note: no steward command reads sessions.* settings")
      const get = yield* runCli(["config", "get", "reflexes.route", "--state-dir", state])
      assert.strictEqual(get.stdout, "observe")
      const list = yield* runCli(["config", "list", "--json", "--state-dir", state])
      assert.deepStrictEqual(list.json().values, {
        "reflexes.route": "observe",
        "policy.level": "read_only",
        "sessions.colour": "blue"
      })
      assert.strictEqual(list.json().defaults["reflexes.settle"], "auto")
      // the reflex area reads what config set wrote
      const status = yield* runCli(["reflex", "status", "route", "--json", "--state-dir", state])
      assert.strictEqual(status.exitCode, 0, status.stderr)
      const unset = yield* runCli(["config", "unset", "reflexes.route", "--state-dir", state])
      assert.strictEqual(unset.stdout, "reflexes.route removed")
      assert.deepStrictEqual(JSON.parse(fs.readFileSync(file, "utf8")), {
        extensions: { policy: { level: "read_only" }, sessions: { colour: "blue" } }
      })
    }))

  it.live("an invalid value lists every valid value and writes nothing", () =>
    Effect.gen(function*() {
      const state = tempState()
      const run = yield* runCli(["config", "set", "reflexes.route", "activ", "--json", "--state-dir", state])
      assert.strictEqual(run.exitCode, 2)
      const error = run.errorJson().error
      assert.strictEqual(error.code, "invalid-config")
      assert.include(
        error.message,
        "reflexes.route: expected one of \"off\", \"observe\", \"auto\", \"active\", got \"activ\""
      )
      // one line per issue: the optional field's `undefined` alternative is not a second line
      assert.notInclude(error.message, "Expected undefined")
      assert.strictEqual(error.message.split("\n").length, 1, error.message)
      assert.isFalse(fs.existsSync(path.join(state, "config.json")))
      const learn = yield* runCli(["config", "set", "reflexes.learn", "yes", "--json", "--state-dir", state])
      assert.strictEqual(learn.exitCode, 2)
      assert.include(learn.errorJson().error.message, "reflexes.learn")
      assert.notInclude(learn.errorJson().error.message, "Expected undefined")
    }))

  it.live("an unknown key names the nearest valid one and lists the keys", () =>
    Effect.gen(function*() {
      const state = tempState()
      const run = yield* runCli(["config", "set", "reflexes.rout", "off", "--json", "--state-dir", state])
      assert.strictEqual(run.exitCode, 2)
      const error = run.errorJson().error
      assert.strictEqual(error.code, "usage")
      assert.include(error.message, "unknown key reflexes.rout (did you mean reflexes.route?)")
      assert.include(error.details.keys, "reflexes.promotion")
      const area = yield* runCli(["config", "get", "colour.x", "--state-dir", state])
      assert.strictEqual(area.exitCode, 2)
      assert.include(area.stderr, "AREA.NAME for sessions")
    }))

  it.live("- reads the value as JSON from stdin", () =>
    Effect.gen(function*() {
      const state = tempState()
      const run = yield* runCli(["config", "set", "reflexes.custom", "-", "--json", "--state-dir", state], {
        stdin: "{\"mine\": \"observe\"}"
      })
      assert.strictEqual(run.exitCode, 0, run.stderr)
      assert.deepStrictEqual(run.json().value, { mine: "observe" })
      const bad = yield* runCli(["config", "set", "reflexes.custom", "-", "--json", "--state-dir", state], {
        stdin: "{\"mine\": \"observe\", \"mine\": \"off\"}"
      })
      assert.strictEqual(bad.exitCode, 2)
      assert.include(bad.errorJson().error.message, "duplicate key \"mine\"")
    }))
})
