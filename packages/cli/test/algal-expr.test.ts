import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "steward-expr-"))

/** `steward algal expr ARGS… --json` through the real shell (exit codes, JSON errors on stderr). */
const runExpr = (args: ReadonlyArray<string>) =>
  Effect.map(runCli(["algal", "expr", ...args, "--json"]), (run) => ({
    ...run,
    code: run.exitCode === 2 && run.stderr !== ""
      ? (run.errorJson().error.reason ?? run.errorJson().error.code) as string
      : undefined,
    message: run.exitCode === 2 && run.stderr !== "" ? (run.errorJson().error.message as string) : ""
  }))

describe("steward algal expr", () => {
  it.live("prints the boundary document of the spec's worked example and exits 0", () =>
    Effect.gen(function*() {
      const run = yield* runExpr(["[\"get\",\"x\"]", "--env", "{\"x\":3}"])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      assert.strictEqual(run.stdout, `{"ok":true,"value":3,"fuel":4}`)
      const add = yield* runExpr(["[\"add\",1,2]"])
      assert.strictEqual(add.stdout, `{"ok":true,"value":3,"fuel":4}`)
    }))

  it.live("a failing program prints its error document and exits 1", () =>
    Effect.gen(function*() {
      const run = yield* runExpr(["[\"div\",1,0]"])
      assert.strictEqual(run.exitCode, 1)
      assert.strictEqual(run.stdout, `{"ok":false,"error":{"code":"EXPR_DIV_ZERO","op":"div"},"fuel":4}`)
      const unbound = yield* runExpr(["[\"get\",\"y\"]", "--env", "{\"x\":9}"])
      assert.strictEqual(unbound.exitCode, 1)
      assert.strictEqual(
        unbound.stdout,
        `{"ok":false,"error":{"code":"EXPR_PATH","op":"get","what":"unbound name \\"y\\""},"fuel":0}`
      )
    }))

  it.live("--fuel sets the budget; exhaustion is a failed program (exit 1)", () =>
    Effect.gen(function*() {
      const run = yield* runExpr(["[\"add\",1,2]", "--fuel", "3"])
      assert.strictEqual(run.exitCode, 1)
      assert.strictEqual(run.stdout, `{"ok":false,"error":{"code":"EXPR_FUEL","cost":1,"left":0},"fuel":3}`)
    }))

  it.live("invalid JSON, a non-object env, and an out-of-range fuel exit 2 with nothing on stdout", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string, string]> = [
        [["[\"add\",1"], "EXPR_PARSE", "PROGRAM is not valid JSON: Expected"],
        [["1", "--env", "[1]"], "EXPR_PARSE", "--env must be a JSON object"],
        [["1", "--env", "{"], "EXPR_PARSE", "--env is not valid JSON"],
        [["[\"slen\",\"\\ud800\"]"], "EXPR_PARSE", "PROGRAM is not JSON: string with a lone UTF-16 surrogate at [1]"],
        [["1e999"], "EXPR_PARSE", "PROGRAM is not JSON: non-finite number Infinity"],
        [["1", "--fuel", "1000001"], "EXPR_BOUNDS", "--fuel must be an integer in [0, 1000000]"],
        [["1", "--fuel", "-1"], "EXPR_BOUNDS", "--fuel must be an integer"]
      ]
      for (const [args, code, message] of cases) {
        const run = yield* runExpr(args)
        assert.strictEqual(run.exitCode, 2, args.join(" "))
        assert.strictEqual(run.code, code, args.join(" "))
        assert.include(run.message, message)
        assert.strictEqual(run.stdout, "")
      }
      const usage = yield* runExpr(["1", "--fuel", "many"])
      assert.strictEqual(usage.exitCode, 2)
      assert.strictEqual(usage.code, "usage")
      assert.strictEqual(usage.stdout, "")
    }))

  it.live("a syntax error names its line and column, not a character offset", () =>
    Effect.gen(function*() {
      const run = yield* runExpr(["[\"add\",\n  1\n  2]", "--json"])
      assert.strictEqual(run.exitCode, 2)
      const error = JSON.parse(run.stderr).error
      assert.strictEqual(
        error.message,
        "PROGRAM is not valid JSON: Expected ',' or ']', found \"2\" (line 3, column 3)"
      )
      assert.deepStrictEqual(error.details, { line: 3, column: 3 })
      assert.notInclude(error.message, "position")
    }))

  it.live("PROGRAM and --env accept @file", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const program = path.join(dir, "rate.json")
      const env = path.join(dir, "env.json")
      fs.writeFileSync(
        program,
        JSON.stringify(["if", ["gt", ["mul", ["get", "t", "amount"], ["get", "base"]], 1000], "high", "std"])
      )
      fs.writeFileSync(env, JSON.stringify({ t: { amount: 250 }, base: 5 }))
      const run = yield* runExpr([`@${program}`, "--env", `@${env}`])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      assert.strictEqual(run.stdout, `{"ok":true,"value":"high","fuel":17}`)
      const missing = yield* runExpr([`@${path.join(dir, "nope.json")}`])
      assert.strictEqual(missing.exitCode, 2)
      assert.strictEqual(missing.code, "io")
      assert.include(missing.message, "nope.json")
      assert.strictEqual(missing.stdout, "")
    }))

  it.live("a hostile program (a fuel bomb) ends in a failed document, not a hang", () =>
    Effect.gen(function*() {
      const l = JSON.stringify(Array.from({ length: 300 }, (_, i) => i))
      const bomb = `["map",["quote",${l}],"x",["fold",["get","l"],0,"a","y",["fold",["get","l"],0,"b","z",1]]]`
      const env = JSON.stringify({ l: Array.from({ length: 1000 }, (_, i) => i) })
      const run = yield* runExpr([bomb, "--env", env, "--fuel", "1000000"])
      assert.strictEqual(run.exitCode, 1)
      const doc = JSON.parse(run.stdout)
      assert.strictEqual(doc.ok, false)
      assert.strictEqual(doc.error.code, "EXPR_FUEL")
      assert.strictEqual(doc.fuel, 1_000_000 - doc.error.left)
    }))
})

describe("steward algal expr (text mode)", () => {
  it.live("prints the same one-line document without --json; errors as one line on stderr", () =>
    Effect.gen(function*() {
      const ok = yield* runCli(["algal", "expr", "[\"sconcat\",\"a\",\"é\"]"])
      assert.strictEqual(ok.exitCode, 0, ok.stderr)
      assert.strictEqual(ok.stdout, `{"ok":true,"value":"aé","fuel":7}`)
      const bad = yield* runCli(["algal", "expr", "{"])
      assert.strictEqual(bad.exitCode, 2)
      assert.strictEqual(bad.stdout, "")
      assert.match(bad.stderr, /^steward: PROGRAM is not valid JSON/)
    }))
})
