import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "steward-cli-"))

describe("steward shell", () => {
  it.live("doctor --json prints one document with SQLite migrated in WAL mode", () =>
    Effect.gen(function*() {
      const state = tempDir()
      const run = yield* runCli(["doctor", "--json", "--state-dir", state])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      const doc = run.json()
      // `database` names the database every store uses and each store's migrations (issue 19)
      assert.deepStrictEqual(Object.keys(doc).sort(), [
        "config",
        "database",
        "node",
        "ok",
        "packages",
        "platform",
        "sqlite",
        "stateDir"
      ])
      assert.isTrue(doc.ok)
      assert.strictEqual(doc.node, process.version)
      assert.strictEqual(doc.stateDir.path, state)
      assert.strictEqual(doc.stateDir.source, "flag")
      assert.isTrue(doc.sqlite.ok)
      assert.strictEqual(doc.sqlite.journalMode, "wal")
      assert.isTrue(doc.sqlite.migrated)
      assert.deepInclude(doc.database, { kind: "sqlite", url: path.join(state, "steward.sqlite"), source: "default" })
      assert.deepInclude(doc.database.stores[0], { store: "host", applied: 1 })
      assert.strictEqual(typeof doc.packages["effect"], "string")
      assert.isTrue(fs.existsSync(path.join(state, "steward.sqlite")))
    }))

  it.live("doctor is idempotent: a second run migrates nothing again and still succeeds", () =>
    Effect.gen(function*() {
      const state = tempDir()
      assert.strictEqual((yield* runCli(["doctor", "--json", "--state-dir", state])).exitCode, 0)
      const again = yield* runCli(["doctor", "--state-dir", state])
      assert.strictEqual(again.exitCode, 0)
      assert.match(again.stdout, /sqlite\s+OK .*migrated/)
    }))

  it.live("an unknown option exits 2 with a JSON usage error on stderr and nothing on stdout", () =>
    Effect.gen(function*() {
      const run = yield* runCli(["doctor", "--json", "--no-such-option"])
      assert.strictEqual(run.exitCode, 2)
      assert.strictEqual(run.stdout, "")
      const error = run.errorJson().error
      assert.strictEqual(error.code, "usage")
      assert.include(error.message, "--no-such-option")
    }))

  it.live("an unknown command exits 2", () =>
    Effect.gen(function*() {
      const run = yield* runCli(["frobnicate", "--json"])
      assert.strictEqual(run.exitCode, 2)
      assert.strictEqual(run.errorJson().error.code, "usage")
    }))

  it.live("a state dir that is a file is a clear state-dir error, exit 2, nothing written", () =>
    Effect.gen(function*() {
      const file = path.join(tempDir(), "not-a-dir")
      fs.writeFileSync(file, "x")
      const run = yield* runCli(["doctor", "--json", "--state-dir", file])
      assert.strictEqual(run.exitCode, 2)
      assert.strictEqual(run.stdout, "")
      const error = run.errorJson().error
      assert.strictEqual(error.code, "state-dir")
      assert.include(error.message, file)
      assert.include(error.message, "not a directory")
      assert.strictEqual(fs.readFileSync(file, "utf8"), "x")
      const text = yield* runCli(["doctor", "--state-dir", file])
      assert.strictEqual(text.exitCode, 2)
      assert.match(text.stderr, /^steward: state directory .* is not a directory/)
    }))

  it.live("a read-only state dir is refused with exit 2 and no database is created", () =>
    Effect.gen(function*() {
      const state = tempDir()
      fs.chmodSync(state, 0o555)
      try {
        const run = yield* runCli(["doctor", "--json", "--state-dir", state])
        assert.strictEqual(run.exitCode, 2)
        const error = run.errorJson().error
        assert.strictEqual(error.code, "state-dir")
        assert.include(error.message, "read-only")
        assert.isFalse(fs.existsSync(path.join(state, "steward.sqlite")))
      } finally {
        fs.chmodSync(state, 0o755)
      }
    }))

  it.live("$STEWARD_STATE_DIR is used when --state-dir is absent", () =>
    Effect.gen(function*() {
      const state = tempDir()
      const previous = process.env.STEWARD_STATE_DIR
      process.env.STEWARD_STATE_DIR = state
      try {
        const run = yield* runCli(["doctor", "--json"])
        assert.strictEqual(run.exitCode, 0, run.stderr)
        assert.deepStrictEqual(run.json().stateDir, { path: state, source: "env" })
      } finally {
        if (previous === undefined) delete process.env.STEWARD_STATE_DIR
        else process.env.STEWARD_STATE_DIR = previous
      }
    }))

  it.live("config.json with an unknown key is an error naming the key", () =>
    Effect.gen(function*() {
      const state = tempDir()
      fs.writeFileSync(path.join(state, "config.json"), JSON.stringify({ extensions: {}, colour: "blue" }))
      const run = yield* runCli(["doctor", "--json", "--state-dir", state])
      assert.strictEqual(run.exitCode, 2)
      const error = run.errorJson().error
      assert.strictEqual(error.code, "invalid-config")
      assert.include(error.message, "colour")
      assert.include(error.message, "config.json")
    }))

  it.live("config.json that is not JSON is a config error", () =>
    Effect.gen(function*() {
      const state = tempDir()
      fs.writeFileSync(path.join(state, "config.json"), "{ nope")
      const run = yield* runCli(["doctor", "--json", "--state-dir", state])
      assert.strictEqual(run.exitCode, 2)
      assert.strictEqual(run.errorJson().error.code, "invalid-config")
    }))

  it.live("--version prints the CLI version and exits 0", () =>
    Effect.gen(function*() {
      const run = yield* runCli(["--version"])
      assert.strictEqual(run.exitCode, 0)
      assert.match(run.stdout, /^steward \d+\.\d+\.\d+ \(node v/)
    }))

  it.live("--help lists the doctor command and exits 0", () =>
    Effect.gen(function*() {
      const run = yield* runCli(["--help"])
      assert.strictEqual(run.exitCode, 0)
      assert.include(run.stdout, "doctor")
    }))
})
