import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

// Hostile import files (issue 16): each refused at the boundary with its line, exit 2, nothing stored.
const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "steward-reflex-hostile-"))
const line = (id: string, text: string, label = true) => JSON.stringify({ id, text, label, tool_calls: 3 })

const importFile = (state: string, name: string, content: string | Buffer, ...flags: Array<string>) =>
  Effect.gen(function*() {
    const file = path.join(state, name)
    fs.writeFileSync(file, content)
    const run = yield* runCli(["reflex", "import", "settle", file, "--json", "--state-dir", state, ...flags])
    return { file, run }
  })

const observed = (state: string) =>
  Effect.map(runCli(["reflex", "status", "settle", "--json", "--state-dir", state]), (r) => r.json()[0].observed)

const refused = (run: { readonly exitCode: number; readonly errorJson: () => any }, where: string, text: string) => {
  assert.strictEqual(run.exitCode, 2)
  const error = run.errorJson().error
  assert.strictEqual(error.code, "invalid-input")
  assert.strictEqual(error.reason, "invalid-import")
  assert.include(error.message, where)
  assert.include(error.message, text)
}

describe("steward reflex import: hostile files", () => {
  it.live("a lone surrogate in an id is refused at the boundary, naming the line", () =>
    Effect.gen(function*() {
      const state = tempDir()
      const { file, run } = yield* importFile(
        state,
        "surrogate.jsonl",
        `${line("ok", "done")}\n{"id":"bad\\ud800","text":"done","label":true}\n`
      )
      refused(run, `${file}:2`, "lone surrogate")
      assert.strictEqual(yield* observed(state), 0)
    }))

  it.live("duplicate JSON keys are an error naming the key and the line", () =>
    Effect.gen(function*() {
      const state = tempDir()
      const { file, run } = yield* importFile(state, "dup.jsonl", `{"id":"a","text":"x","label":true,"label":false}\n`)
      refused(run, `${file}:1`, `duplicate key "label"`)
      assert.strictEqual(yield* observed(state), 0)
    }))

  it.live("a line nested 100,000 deep fails with its line number", () =>
    Effect.gen(function*() {
      const state = tempDir()
      const deep = "[".repeat(100_000) + "]".repeat(100_000)
      const { file, run } = yield* importFile(state, "deep.jsonl", `${line("a", "x")}\n${deep}\n`)
      refused(run, `${file}:2`, "nested deeper than 32")
      assert.strictEqual(yield* observed(state), 0)
    }))

  it.live("a 60 MB single line is refused by the line bound before it is parsed", () =>
    Effect.gen(function*() {
      const state = tempDir()
      const huge = Buffer.alloc(60 * 1024 * 1024, "a")
      huge.write(`{"id":"a","text":"`, 0)
      const { file, run } = yield* importFile(state, "huge.jsonl", huge)
      refused(run, `${file}:1`, "longer than 1048576 bytes (refused before parsing)")
      fs.rmSync(file)
      assert.strictEqual(yield* observed(state), 0)
    }))

  it.live("a conflicting duplicate id is an error; an identical one is idempotent", () =>
    Effect.gen(function*() {
      const state = tempDir()
      const same = yield* importFile(state, "same.jsonl", `${line("a", "done")}\n${line("a", "done")}\n`)
      assert.strictEqual(same.run.exitCode, 0, same.run.stderr)
      assert.strictEqual(same.run.json().inserted, 1)
      const inFile = yield* importFile(state, "conflict.jsonl", `${line("b", "done")}\n${line("b", "done", false)}\n`)
      refused(inFile.run, `${inFile.file}:2`, `id "b" repeats line 1 with a different example`)
      // against the ledger: the whole file is refused, its new lines included
      const stored = yield* importFile(state, "stored.jsonl", `${line("c", "new")}\n${line("a", "other text")}\n`)
      refused(stored.run, `${stored.file}:2`, `id "a" is already stored with a different text`)
      assert.strictEqual(yield* observed(state), 1)
      const relabel = yield* importFile(state, "relabel.jsonl", line("a", "done", false))
      refused(relabel.run, `${relabel.file}:1`, "already stored with a different label")
      const again = yield* importFile(state, "again.jsonl", line("a", "done"))
      assert.strictEqual(again.run.exitCode, 0, again.run.stderr)
      assert.strictEqual(again.run.json().inserted, 0)
    }))
})

describe("steward reflex import: retention at the observation cap", () => {
  // The ledger keeps 20,000 observations a reflex; past that, retention once dropped the oldest
  // rows whatever they were, so labeled history imported through the CLI silently went. Five full
  // imports (5 × 4,096 labeled lines) pass the cap: every labeled row must still be there.
  it.live("20,480 labeled lines imported in five files are all kept past the 20,000 cap", () =>
    Effect.gen(function*() {
      const state = tempDir()
      for (let k = 0; k < 5; k++) {
        const lines = Array.from({ length: 4096 }, (_, i) => line(`r${k}-${i}`, `turn ${k} ${i} done`, i % 3 !== 0))
        const { run } = yield* importFile(state, `part-${k}.jsonl`, lines.join("\n") + "\n")
        assert.strictEqual(run.exitCode, 0, run.stderr)
        assert.strictEqual(run.json().inserted, 4096)
      }
      const status = (yield* runCli(["reflex", "status", "settle", "--json", "--state-dir", state])).json()[0]
      assert.strictEqual(status.labeled, 20_480)
      assert.strictEqual(status.observed, 20_480)
    }), { timeout: 300_000 })
})

describe("steward reflex: hostile files around imports and programs", () => {
  it.live("a FIFO, a symlink to /dev/zero and invalid UTF-8 are refused without reading them whole", () =>
    Effect.gen(function*() {
      const state = tempDir()
      const fifo = path.join(state, "fifo.jsonl")
      const made = yield* Effect.sync(() => {
        try {
          childProcess.execFileSync("mkfifo", [fifo])
          return true
        } catch {
          return false
        }
      })
      if (made) {
        const run = yield* runCli(["reflex", "import", "settle", fifo, "--json", "--state-dir", state])
        assert.strictEqual(run.exitCode, 2)
        assert.include(run.errorJson().error.message, "not a regular file")
      }
      const zero = path.join(state, "zero.jsonl")
      fs.symlinkSync("/dev/zero", zero)
      const dev = yield* runCli(["reflex", "import", "settle", zero, "--json", "--state-dir", state])
      assert.strictEqual(dev.exitCode, 2)
      assert.include(dev.errorJson().error.message, "not a regular file")
      const latin = yield* importFile(state, "latin1.jsonl", Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x7d, 0x0a]))
      assert.strictEqual(latin.run.exitCode, 2)
      assert.include(latin.run.errorJson().error.message, "not valid UTF-8")
      assert.strictEqual(yield* observed(state), 0)
    }))

  it.live("an oversized or a missing import file is refused by BoundedFile, naming the file and the limit", () =>
    Effect.gen(function*() {
      const state = tempDir()
      const big = path.join(state, "big.jsonl")
      // sparse: nothing is allocated unless someone reads it
      fs.closeSync(fs.openSync(big, "w"))
      fs.truncateSync(big, 65 * 1024 * 1024)
      const tooBig = yield* runCli(["reflex", "import", "settle", big, "--json", "--state-dir", state])
      assert.strictEqual(tooBig.exitCode, 2)
      assert.strictEqual(tooBig.errorJson().error.code, "limit")
      assert.include(tooBig.errorJson().error.message, `${big}: 65 MiB is larger than the limit of 64 MiB`)
      const missing = path.join(state, "missing.jsonl")
      const absent = yield* runCli(["reflex", "import", "settle", missing, "--json", "--state-dir", state])
      assert.strictEqual(absent.exitCode, 2)
      assert.strictEqual(absent.errorJson().error.code, "not-found")
      assert.include(absent.errorJson().error.message, `${missing}: no such file`)
      assert.strictEqual(yield* observed(state), 0)
    }))

  it.live("an organism that repeats a key is rejected by check, and as a custom program", () =>
    Effect.gen(function*() {
      const state = tempDir()
      const shipped = fs.readFileSync(path.join(__dirname, "fixtures", "reflex", "settle.algal.json"), "utf8")
      // the first `name` is what a reader sees; JSON.parse would keep the second
      const twice = shipped.replace(`"name": "XCB settle reflex",`, `"name": "XCB settle reflex",\n  "name": "other",`)
      const file = path.join(state, "twice.algal.json")
      fs.writeFileSync(file, twice)
      const check = yield* runCli(["reflex", "check", file, "--json", "--state-dir", state])
      assert.strictEqual(check.exitCode, 1)
      assert.include(check.errorJson().error.message, `duplicate key "name"`)
      fs.mkdirSync(path.join(state, "reflexes"))
      fs.writeFileSync(path.join(state, "reflexes", "settle.algal.json"), twice)
      const status = yield* runCli(["reflex", "status", "settle", "--json", "--state-dir", state])
      assert.strictEqual(status.exitCode, 0, status.stderr)
      const program = status.json()[0].program
      assert.isFalse(program.custom)
      assert.deepStrictEqual(program.violations, [{ rule: "json", message: `duplicate key "name"` }])
    }))
})
