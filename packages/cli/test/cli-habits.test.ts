/**
 * The habits of git, gh and cargo (issue 37): `steward help CMD…`, `--version` / `-V` (an object
 * under `--json`), completion scripts that complete, help wrapped to the terminal (80 columns
 * when piped), `policy check --exit-code`, `audit next` naming no dead end, and `doctor` looking
 * without creating anything.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Help from "../src/Help.js"
import { runCli } from "./harness.js"
import { stewardArgv } from "./support/stewardProcess.js"

/** `steward ARGS…` as a process (support/stewardProcess), in `cwd`, with `env` added. */
const steward = (args: ReadonlyArray<string>, options: { cwd?: string; env?: Record<string, string> } = {}) =>
  spawnSync(process.execPath, stewardArgv(args), {
    cwd: options.cwd ?? os.tmpdir(),
    env: Object.fromEntries(
      Object.entries({ ...process.env, ...options.env }).filter(([k]) =>
        !(k === "STEWARD_STATE_DIR" || (k === "COLUMNS" && options.env?.["COLUMNS"] === undefined))
      )
    ),
    encoding: "utf8"
  })
const hasBash = spawnSync("bash", ["--version"]).status === 0

describe("steward: habits of git and cargo", () => {
  it.live("steward help CMD… is CMD… --help; help alone is the root's, listing help, completion and -V", () =>
    Effect.gen(function*() {
      const help = yield* runCli(["help", "session", "run"])
      assert.strictEqual(help.exitCode, 0)
      assert.strictEqual(help.stdout, (yield* runCli(["session", "run", "--help"])).stdout)
      assert.include(help.stdout, "Usage: steward session run")
      const root = yield* runCli(["help"])
      for (const word of ["completion", "-V, --version", "help "]) assert.include(root.stdout, word)
      const unknown = yield* runCli(["help", "nosuch", "verb"])
      assert.strictEqual(unknown.exitCode, 2)
      assert.include(unknown.stderr, "unknown command 'nosuch'")
    }))

  it.live("-V and --version print steward, node and sqlite; --json an object", () =>
    Effect.gen(function*() {
      for (const flag of ["-V", "--version"]) {
        const run = yield* runCli([flag])
        assert.strictEqual(run.exitCode, 0)
        assert.match(run.stdout, /^steward \d+\.\d+\.\d+ \(node v\d+\.\d+\.\d+, sqlite \d+\.\d+\.\d+\)$/)
      }
      const json = (yield* runCli(["--version", "--json"])).json()
      assert.strictEqual(json.name, "steward")
      assert.strictEqual(json.node, process.version)
      assert.match(json.sqlite, /^\d+\.\d+/)
      assert.match(json.packages["@steward/governance-rules"], /^\d+\.\d+\.\d+/)
    }))

  it.live("completion: an unknown or missing shell is a usage error (exit 2); each script names the tree", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* runCli(["completion"])).exitCode, 2)
      const bad = yield* runCli(["completion", "tcsh", "--json"])
      assert.strictEqual(bad.exitCode, 2)
      assert.strictEqual(bad.errorJson().error.code, "usage")
      for (const shell of ["bash", "zsh", "fish"]) {
        const run = yield* runCli(["completion", shell])
        assert.strictEqual(run.exitCode, 0)
        assert.include(run.stdout, "steward policy check")
        assert.include(run.stdout, "--exit-code")
      }
    }))

  it.live.skipIf(!hasBash)(
    "the bash script completes commands, nested commands and options, skipping option values",
    () =>
      Effect.gen(function*() {
        const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "steward-compl-")), "steward.bash")
        fs.writeFileSync(script, (yield* runCli(["completion", "bash"])).stdout)
        const complete = (...words: Array<string>) =>
          spawnSync("bash", [
            "-c",
            `source "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _steward; printf '%s\\n' "\${COMPREPLY[@]}"`,
            script,
            "steward",
            ...words
          ], { encoding: "utf8" }).stdout.trim().split("\n")
        assert.deepStrictEqual(complete("pol"), ["policy"])
        assert.deepStrictEqual(complete("policy", "ex"), ["explain"])
        assert.deepStrictEqual(complete("policy", "check", "--level", "execute", "--exit"), ["--exit-code"])
        assert.deepStrictEqual(complete("--json", "audit", "nex"), ["next"])
      })
  )

  it("help wraps to COLUMNS, the terminal, else 80 — at most 100 and at least 40", () => {
    assert.strictEqual(Help.width({}, undefined), 80)
    assert.strictEqual(Help.width({}, 132), 100)
    assert.strictEqual(Help.width({}, 90), 90)
    assert.strictEqual(Help.width({ COLUMNS: "72" }, 132), 72)
    assert.strictEqual(Help.width({ COLUMNS: "10" }, undefined), 40)
    assert.strictEqual(Help.width({ COLUMNS: "wide" }, undefined), 80)
  })

  it("COLUMNS=80 steward policy check --help has no line over 80; piped help neither", () => {
    for (const env of [{ COLUMNS: "80" }, {}]) {
      const run = steward(["policy", "check", "--help"], { env })
      assert.strictEqual(run.status, 0, run.stderr)
      const long = run.stdout.split("\n").filter((line) => line.length > 80)
      assert.deepStrictEqual(long, [])
    }
    const narrow = steward(["policy", "check", "--help"], { env: { COLUMNS: "60" } }).stdout.split("\n")
    assert.isTrue(narrow.every((line) => line.length <= 60 || !line.trimStart().includes(" ")))
  })

  it.live("--database-url keeps its text on its own line; reflex label's usage and VALUE name the same values", () =>
    Effect.gen(function*() {
      const help = (yield* runCli(["reflex", "label", "--help"])).stdout
      assert.match(help, /^ {2}--database-url DATABASE_URL {2}PostgreSQL/m)
      const value = help.slice(help.indexOf("VALUE   "), help.indexOf("(required)", help.indexOf("VALUE   ")))
      for (const word of ["frontier", "standard", "stopped_short", "confirm", "done"]) {
        assert.include(help.split("Arguments:")[0], word)
        assert.include(value, word)
      }
    }))

  it.live("policy check --exit-code: 0 allow, 1 deny, 3 ask; without it 0 whatever the decision", () =>
    Effect.gen(function*() {
      const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-exit-")))
      const check = (...args: Array<string>) => runCli(["policy", "check", "--workspace", ws, ...args])
      assert.strictEqual((yield* check("--exit-code", "--", "git status")).exitCode, 0)
      assert.strictEqual((yield* check("--exit-code", "--", "rm -rf ~")).exitCode, 1)
      assert.strictEqual((yield* check("--exit-code", "--sandbox", "off", "--", "eval \"$(cat steps)\"")).exitCode, 3)
      const json = yield* check("--exit-code", "--json", "--", "rm -rf ~")
      assert.strictEqual(json.exitCode, 1)
      assert.strictEqual(json.json().decision, "deny")
      assert.strictEqual((yield* check("--", "rm -rf ~")).exitCode, 0)
    }))

  it.live("audit next on an audit with no plan does not send the person to audit loop", () =>
    Effect.gen(function*() {
      const project = fs.mkdtempSync(path.join(os.tmpdir(), "steward-noplan-"))
      assert.strictEqual((yield* runCli(["audit", "init", "--project", project])).exitCode, 0)
      const next = yield* runCli(["audit", "next", "--dry-run", "--project", project])
      assert.include(next.stdout, "run-planner")
      assert.notInclude(next.stdout, "audit loop")
      assert.include(next.stdout, "steward audit migrate")
    }))

  it("doctor creates no state directory and no database where none exists", () => {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "steward-doctor-cwd-"))
    const run = steward(["doctor", "--json"], { cwd })
    assert.strictEqual(run.status, 0, run.stderr)
    const doc = JSON.parse(run.stdout)
    assert.strictEqual(doc.sqlite.ok, true)
    assert.strictEqual(doc.sqlite.created, false)
    assert.strictEqual(doc.sqlite.file, path.join(fs.realpathSync(cwd), ".steward", "steward.sqlite"))
    assert.deepStrictEqual(fs.readdirSync(cwd), [])
  })
})
