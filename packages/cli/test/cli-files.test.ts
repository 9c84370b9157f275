import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as StrictJson from "../src/StrictJson.js"
import { runCli } from "./harness.js"

// Hostile files as config.json: each is refused with exit 2, a typed code, and a message naming
// the file and the limit — never a hang, a stack overflow, or a read of the whole file.

const stateWith = (setup: (configFile: string) => void) => {
  const state = fs.mkdtempSync(path.join(os.tmpdir(), "steward-files-"))
  setup(path.join(state, "config.json"))
  return state
}

const doctor = (state: string) => runCli(["doctor", "--json", "--state-dir", state])

describe("hostile config.json", () => {
  it.live("a FIFO is refused without being opened", () =>
    Effect.gen(function*() {
      const state = stateWith((file) => execFileSync("mkfifo", [file]))
      const run = yield* doctor(state)
      assert.strictEqual(run.exitCode, 2)
      const error = run.errorJson().error
      assert.strictEqual(error.code, "io")
      assert.include(error.message, "config.json: is a FIFO (named pipe), not a regular file")
    }))

  it.live("a symlink to /dev/zero is refused as a device", () =>
    Effect.gen(function*() {
      const state = stateWith((file) => fs.symlinkSync("/dev/zero", file))
      const run = yield* doctor(state)
      assert.strictEqual(run.exitCode, 2)
      assert.strictEqual(run.errorJson().error.code, "io")
      assert.include(run.errorJson().error.message, "is a device")
    }))

  it.live("a 300 MB file is refused by its size before it is read", () =>
    Effect.gen(function*() {
      // sparse: no disk is used, and reading it would take seconds and 300 MB
      const state = stateWith((file) => {
        fs.writeFileSync(file, "")
        fs.truncateSync(file, 300 * 1024 * 1024)
      })
      const run = yield* doctor(state)
      assert.strictEqual(run.exitCode, 2)
      const error = run.errorJson().error
      assert.strictEqual(error.code, "limit")
      assert.include(error.message, "300 MiB is larger than the limit of 1 MiB")
      assert.strictEqual(error.details.limit, 1024 * 1024)
    }))

  it.live("100,000-deep nesting is refused at the depth limit with its line", () =>
    Effect.gen(function*() {
      const state = stateWith((file) => fs.writeFileSync(file, `{\n"extensions":\n${"[".repeat(100_000)}`))
      const run = yield* doctor(state)
      assert.strictEqual(run.exitCode, 2)
      const error = run.errorJson().error
      assert.strictEqual(error.code, "limit")
      assert.include(error.message, "config.json:3:")
      assert.include(error.message, "nested deeper than 32 levels")
      assert.strictEqual(error.details.line, 3)
    }))

  it.live("duplicate keys are an error naming the key and where", () =>
    Effect.gen(function*() {
      const state = stateWith((file) =>
        fs.writeFileSync(file, "{\"extensions\": {\"reflexes\": {\"route\": \"off\", \"route\": \"active\"}}}")
      )
      const run = yield* doctor(state)
      assert.strictEqual(run.exitCode, 2)
      const error = run.errorJson().error
      assert.strictEqual(error.code, "invalid-config")
      assert.include(error.message, "duplicate key \"route\" at $.extensions.reflexes")
    }))

  it.live("a lone surrogate and invalid UTF-8 are refused", () =>
    Effect.gen(function*() {
      const lone = stateWith((file) => fs.writeFileSync(file, "{\"$schema\": \"\\ud800\"}"))
      const run = yield* doctor(lone)
      assert.strictEqual(run.exitCode, 2)
      assert.include(run.errorJson().error.message, "lone UTF-16 surrogate")
      const bytes = stateWith((file) => fs.writeFileSync(file, Buffer.from([0x7b, 0xff, 0x7d])))
      const bad = yield* doctor(bytes)
      assert.strictEqual(bad.exitCode, 2)
      assert.include(bad.errorJson().error.message, "not valid UTF-8")
    }))
})

describe("StrictJson", () => {
  it("parses what JSON.parse parses (no duplicates, bounded depth)", () => {
    fc.assert(
      fc.property(fc.json({ depthSize: "small" }), (text) => {
        const result = StrictJson.parse(text)
        assert.isTrue(result.ok, text)
        assert.deepStrictEqual(result.ok ? result.value : undefined, JSON.parse(text))
      }),
      { numRuns: 300 }
    )
  })

  it("refuses what JSON.parse refuses, with a line and column", () => {
    for (const text of ["", "{", "[1,]", "{\"a\" 1}", "01", "\"\\x\"", "tru", "[1] 2", "{\"a\":1,}", "\"\u0001\""]) {
      assert.throws(() => JSON.parse(text))
      const result = StrictJson.parse(text)
      assert.isFalse(result.ok, text)
      if (!result.ok) assert.isAtLeast(result.error.line, 1)
    }
    const at = StrictJson.parse("{\n  \"a\": [1,\n  2 3]}")
    assert.deepStrictEqual(at.ok ? undefined : [at.error.line, at.error.column], [3, 5])
  })

  it("keeps __proto__ as an ordinary key and pairs surrogates", () => {
    const result = StrictJson.parse("{\"__proto__\": {\"x\": 1}, \"s\": \"\\ud83d\\ude00\"}")
    assert.isTrue(result.ok)
    const value = (result.ok ? result.value : {}) as Record<string, unknown>
    assert.deepStrictEqual(Object.keys(value), ["__proto__", "s"])
    assert.strictEqual(value["s"], "😀")
    assert.strictEqual(Object.getPrototypeOf(value), Object.prototype)
  })
})
