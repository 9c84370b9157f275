import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

// No silent no-ops: a directory named on the command line must exist (a typo is refused, naming
// the folder a relative path was taken against); only the default ./.steward is created.

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "steward-paths-"))

describe("paths named on the command line", () => {
  it.live("a --state-dir that does not exist is refused and nothing is created", () =>
    Effect.gen(function*() {
      const missing = path.join(tempDir(), "stewrad")
      const run = yield* runCli(["doctor", "--json", "--state-dir", missing])
      assert.strictEqual(run.exitCode, 2)
      const error = run.errorJson().error
      assert.strictEqual(error.code, "state-dir")
      assert.include(error.message, `${missing} (from --state-dir) does not exist`)
      assert.isFalse(fs.existsSync(missing))
    }))

  it.live("an audit --project that does not exist is refused, on the area and on a verb, and nothing is created", () =>
    Effect.gen(function*() {
      const state = tempDir()
      const missing = path.join(tempDir(), "projcet")
      for (
        const args of [
          ["audit", "init", "--json", "--project", missing, "--state-dir", state],
          ["audit", "--project", missing, "status", "--json", "--state-dir", state],
          ["audit", "loop", "--json", "--project", missing, "--state-dir", state]
        ]
      ) {
        const run = yield* runCli(args)
        assert.strictEqual(run.exitCode, 2, args.join(" "))
        const error = run.errorJson().error
        assert.strictEqual(error.code, "not-found")
        assert.include(error.message, `--project ${missing}: no such file or directory`)
      }
      assert.isFalse(fs.existsSync(missing))
    }))

  it.live("a relative --state-dir is refused naming the folder it is relative to", () =>
    Effect.gen(function*() {
      const run = yield* runCli(["doctor", "--state-dir", "no/such/state"])
      assert.strictEqual(run.exitCode, 2)
      assert.include(run.stderr, `(no/such/state is relative to ${process.cwd()})`)
    }))

  it.live("$STEWARD_STATE_DIR must exist too", () =>
    Effect.gen(function*() {
      const missing = path.join(tempDir(), "typo")
      const previous = process.env.STEWARD_STATE_DIR
      process.env.STEWARD_STATE_DIR = missing
      try {
        const run = yield* runCli(["doctor", "--json"])
        assert.strictEqual(run.exitCode, 2)
        assert.include(run.errorJson().error.message, "(from $STEWARD_STATE_DIR) does not exist")
      } finally {
        if (previous === undefined) delete process.env.STEWARD_STATE_DIR
        else process.env.STEWARD_STATE_DIR = previous
      }
    }))

  it.live("the default ./.steward is created on first use by a verb that records, not by doctor", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      const previous = { cwd: process.cwd(), env: process.env.STEWARD_STATE_DIR }
      delete process.env.STEWARD_STATE_DIR
      process.chdir(cwd)
      try {
        // doctor reports the default without creating it (issue 37); a verb that records does
        const doctor = yield* runCli(["doctor", "--json"])
        assert.strictEqual(doctor.exitCode, 0, doctor.stderr)
        assert.strictEqual(doctor.json().stateDir.source, "default")
        assert.isFalse(fs.existsSync(path.join(cwd, ".steward")))
        const decide = yield* runCli(["reflex", "decide", "settle", "--text", "Done.", "--json"])
        assert.strictEqual(decide.exitCode, 0, decide.stderr)
        assert.isTrue(fs.existsSync(path.join(cwd, ".steward", "steward.sqlite")))
      } finally {
        process.chdir(previous.cwd)
        if (previous.env !== undefined) process.env.STEWARD_STATE_DIR = previous.env
      }
    }))

  it.live("a --workspace that does not exist is refused, not judged against", () =>
    Effect.gen(function*() {
      const state = tempDir()
      const run = yield* runCli([
        "policy",
        "check",
        "--json",
        "--state-dir",
        state,
        "--workspace",
        "no-such-workspace",
        "--tool",
        "write",
        "--path",
        "out.txt"
      ])
      assert.strictEqual(run.exitCode, 2)
      const error = run.errorJson().error
      assert.strictEqual(error.code, "not-found")
      assert.include(error.message, "no such directory (no-such-workspace is relative to")
      assert.strictEqual(run.stdout, "")
    }))

  it.live("a path the option parser checks is said in words with its option and folder", () =>
    Effect.gen(function*() {
      const state = tempDir()
      const run = yield* runCli(["session", "run", "--json", "--state-dir", state, "--workspace", "./no-such-ws", "hi"])
      assert.strictEqual(run.exitCode, 2)
      const error = run.errorJson().error
      assert.strictEqual(error.code, "not-found")
      assert.include(
        error.message,
        `--workspace ${
          path.resolve("no-such-ws")
        }: no such file or directory (./no-such-ws is relative to ${process.cwd()})`
      )
      assert.notInclude(error.message, "must exist")
      assert.strictEqual(error.details.option, "--workspace")
      const version = yield* runCli(["reflex", "rollback", "settle", "abc", "--json", "--state-dir", state])
      assert.strictEqual(version.exitCode, 2)
      assert.include(version.errorJson().error.message, "VERSION: 'abc' is not an integer")
      assert.strictEqual(version.errorJson().error.details.argument, "VERSION")
    }))

  it.live("a missing file is said in words, as not-found, in every area", () =>
    Effect.gen(function*() {
      const state = tempDir()
      for (
        const args of [
          ["algal", "check", "nope.algal.json"],
          ["reflex", "import", "route", "nope.jsonl"],
          ["policy", "check", "--rules", "nope.yaml", "ls"]
        ]
      ) {
        const run = yield* runCli([...args, "--json", "--state-dir", state])
        assert.strictEqual(run.exitCode, 2, args.join(" "))
        const error = run.errorJson().error
        assert.strictEqual(error.code, "not-found", args.join(" "))
        assert.include(error.message, "no such file or directory")
        assert.notInclude(error.message, "ENOENT")
        assert.notInclude(error.message, "FileSystem.")
      }
      const text = yield* runCli(["algal", "check", "nope.algal.json"])
      assert.include(text.stderr, `(nope.algal.json is relative to ${process.cwd()})`)
    }))

  it.live("- reads a JSON argument from stdin (policy check --input)", () =>
    Effect.gen(function*() {
      const state = tempDir()
      const run = yield* runCli(
        [
          "policy",
          "check",
          "--json",
          "--state-dir",
          state,
          "--tool",
          "mcp",
          "--name",
          "github.create_issue",
          "--input",
          "-"
        ],
        { stdin: "{\"title\": \"x\"}" }
      )
      assert.strictEqual(run.exitCode, 0, run.stderr)
      assert.deepStrictEqual(run.json().call.input, { title: "x" })
      const deep = yield* runCli(
        ["policy", "check", "--json", "--state-dir", state, "--tool", "mcp", "--name", "x", "--input", "-"],
        { stdin: "[".repeat(100_000) }
      )
      assert.strictEqual(deep.exitCode, 2)
      assert.strictEqual(deep.errorJson().error.code, "limit")
    }))
})
