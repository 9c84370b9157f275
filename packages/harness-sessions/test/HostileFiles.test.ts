/**
 * Hostile files (issue 16 item 2): the model-facing read, write and edit tools and the scripted
 * model's file refuse a FIFO, a symlink to `/dev/zero`, an oversized file, deep nesting and
 * duplicate keys — naming the file and the limit — and none hangs. The timeouts are only a
 * safety net: a read or write that blocked would never end.
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, type Schema } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { ScriptedModel, Tools } from "../src/index.js"
import * as BoundedFile from "../src/internal/boundedFile.js"
import { MAX_READ_BYTES, WINDOW_BYTES } from "../src/internal/tools/files.js"

const SAFETY = 20_000

const workspace = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-hostile-")))
const context = (dir: string): Tools.ToolContext => ({ workspace: dir, runId: "r1", callId: "c1" })
const run = <F extends Schema.Struct.Fields, R>(tool: Tools.Tool<F, R>, input: unknown, dir: string) =>
  Effect.flatMap(Tools.decodeInput(tool, input), (decoded) => tool.execute(decoded, context(dir)))
const env = Layer.mergeAll(NodeContext.layer, NodeHttpClient.layerUndici, Tools.layerAskUserUnavailable)

const hostile = () => {
  const dir = workspace()
  execFileSync("mkfifo", [path.join(dir, "pipe")])
  fs.symlinkSync("/dev/zero", path.join(dir, "zero"))
  const big = path.join(dir, "big.txt")
  fs.writeFileSync(big, "")
  // sparse: the size is what the stat reports, no disk is spent
  fs.truncateSync(big, MAX_READ_BYTES + 1)
  return dir
}

describe("the file tools against hostile files", () => {
  it.effect("read refuses a FIFO, /dev/zero and an oversized file without blocking", () =>
    Effect.gen(function*() {
      const dir = hostile()
      const pipe = yield* run(Tools.read, { path: "pipe" }, dir)
      assert.isFalse(pipe.ok)
      assert.include(pipe.output, "not a regular file")
      const zero = yield* run(Tools.read, { path: "zero" }, dir)
      assert.isFalse(zero.ok)
      const big = yield* run(Tools.read, { path: "big.txt" }, dir)
      assert.isFalse(big.ok)
      assert.include(big.output, "big.txt is 16.0 MiB, larger than the limit of 16 MiB")
    }).pipe(Effect.provide(env)), SAFETY)

  it.effect(
    "read of a text file over the limit returns its first window and says so; offset reads the next",
    () =>
      Effect.gen(function*() {
        const dir = workspace()
        const count = 1_400_000
        const name = (n: number) => `line ${String(n).padStart(7, "0")}`
        // 13 bytes a line: 18.2 MB, over the 16 MiB limit
        fs.writeFileSync(path.join(dir, "big.log"), Array.from({ length: count }, (_, i) => name(i + 1)).join("\n"))
        const note =
          /\n\[big\.log is 17\.4 MiB, larger than the limit of 16 MiB, so it is read a window at a time: lines (\d+)–(\d+) \(bytes (\d+)–(\d+)\) shown; ([^\]]+)\]$/
        const parse = (output: string) => {
          const m = note.exec(output)
          assert.isNotNull(m, output.slice(-300))
          return { text: output.slice(0, m!.index), first: Number(m![1]), last: Number(m![2]), next: m![5]! }
        }
        const first = yield* run(Tools.read, { path: "big.log" }, dir)
        assert.isTrue(first.ok)
        assert.isTrue(first.truncated)
        const one = parse(first.output)
        assert.strictEqual(one.first, 1)
        assert.isAtMost(Buffer.byteLength(one.text), WINDOW_BYTES)
        assert.deepStrictEqual(one.text.split("\n"), Array.from({ length: one.last }, (_, i) => name(i + 1)))
        assert.strictEqual(one.next, `read the next window with offset ${one.last + 1}`)
        const second = yield* run(Tools.read, { path: "big.log", offset: one.last + 1 }, dir)
        const two = parse(second.output)
        assert.strictEqual(two.first, one.last + 1)
        assert.strictEqual(two.text.split("\n")[0], name(one.last + 1))
        assert.strictEqual(two.text.split("\n").length, two.last - two.first + 1)
        const limited = parse((yield* run(Tools.read, { path: "big.log", offset: 1_000_000, limit: 3 }, dir)).output)
        assert.deepStrictEqual(limited.text.split("\n"), [name(1_000_000), name(1_000_001), name(1_000_002)])
        assert.strictEqual(limited.next, "read the next window with offset 1000003")
        const last = parse((yield* run(Tools.read, { path: "big.log", offset: count - 1 }, dir)).output)
        assert.deepStrictEqual([last.text, last.next], [
          `${name(count - 1)}\n${name(count)}`,
          "that is the end of the file"
        ])
        const past = yield* run(Tools.read, { path: "big.log", offset: count + 1 }, dir)
        assert.isFalse(past.ok)
        assert.include(past.output, `big.log has ${count} lines; offset ${count + 1} is past the end`)
        // edit still refuses it: an edit needs the whole file
        const edit = yield* run(Tools.edit, { path: "big.log", oldString: name(1), newString: "x" }, dir)
        assert.isFalse(edit.ok)
        assert.include(edit.output, "larger than the limit")
      }).pipe(Effect.provide(env)),
    SAFETY
  )

  it.effect(
    "edit refuses an oversized file; write refuses a FIFO target and leaves it a FIFO",
    () =>
      Effect.gen(function*() {
        const dir = hostile()
        const big = yield* run(Tools.edit, { path: "big.txt", oldString: "a", newString: "b" }, dir)
        assert.isFalse(big.ok)
        assert.include(big.output, "larger than the limit")
        const pipe = yield* run(Tools.write, { path: "pipe", content: "x" }, dir)
        assert.isFalse(pipe.ok)
        assert.include(pipe.output, "not a regular file")
        assert.isTrue(fs.statSync(path.join(dir, "pipe")).isFIFO())
      }).pipe(Effect.provide(env)),
    SAFETY
  )

  it("the guarded write fails at once on a FIFO it did not stat (non-blocking open)", () => {
    const dir = hostile()
    const result = BoundedFile.write(path.join(dir, "pipe"), "x", "pipe")
    assert.deepStrictEqual(result, {
      _tag: "refused",
      message: "pipe is a FIFO (named pipe), not a regular file; choose another path"
    })
    const file = path.join(dir, "ok.txt")
    fs.writeFileSync(file, "a much longer old content")
    assert.deepStrictEqual(BoundedFile.write(file, "new", "ok.txt"), { _tag: "written" })
    assert.strictEqual(fs.readFileSync(file, "utf8"), "new")
  }, SAFETY)

  it("the bounded read stops at the limit", () => {
    const dir = hostile()
    const file = path.join(dir, "five.txt")
    fs.writeFileSync(file, "hello")
    const small = BoundedFile.read(file, 4)
    assert.strictEqual(small._tag === "refused" ? small.reason : small._tag, "too-large")
    const zero = BoundedFile.read(path.join(dir, "zero"), 4)
    assert.strictEqual(zero._tag === "refused" ? zero.reason : zero._tag, "not-a-file")
    const whole = BoundedFile.read(file, 5)
    assert.strictEqual(whole._tag === "bytes" ? whole.bytes.toString() : whole._tag, "hello")
  }, SAFETY)
})

describe("a script file against hostile files", () => {
  const refusal = (file: string) =>
    Effect.flip(Effect.scoped(Layer.build(ScriptedModel.layerFromFile(file)))).pipe(
      Effect.map((error) => error.message)
    )

  it.effect("a FIFO, /dev/zero and an oversized script are refused naming the file", () =>
    Effect.gen(function*() {
      const dir = hostile()
      assert.include(yield* refusal(path.join(dir, "pipe")), "FIFO")
      assert.include(yield* refusal(path.join(dir, "zero")), "is a device, not a regular file")
      const big = path.join(dir, "big.jsonl")
      fs.writeFileSync(big, "")
      fs.truncateSync(big, ScriptedModel.MAX_SCRIPT_BYTES + 1)
      assert.include(yield* refusal(big), "larger than the limit of 16 MiB")
    }), SAFETY)

  it.effect("deep nesting and duplicate keys are refused naming the line", () =>
    Effect.gen(function*() {
      const dir = workspace()
      const file = path.join(dir, "s.jsonl")
      fs.writeFileSync(file, `{"text":"one"}\n{"text":"a","text":"b"}\n`)
      assert.include(yield* refusal(file), `s.jsonl:2: duplicate key "text"`)
      const deep = `{"text":"x","toolCalls":[{"name":"shell","input":${"[".repeat(100_000)}${"]".repeat(100_000)}}]}`
      const parsed = yield* Effect.flip(ScriptedModel.parse(deep, "d.jsonl"))
      assert.strictEqual(parsed.code, "INVALID_INPUT")
      assert.include(parsed.message, `d.jsonl:1: nested deeper than ${ScriptedModel.MAX_DEPTH} levels`)
    }), SAFETY)

  it.effect("a regular script file still serves its turns; a missing one is named", () => {
    const file = path.join(workspace(), "ok.jsonl")
    fs.writeFileSync(file, `{"text":"one"}\n`)
    return Effect.gen(function*() {
      const model = yield* LanguageModel.LanguageModel
      assert.strictEqual((yield* model.generateText({ prompt: "hi" })).text, "one")
      const missing = path.join(path.dirname(file), "missing.jsonl")
      assert.include(yield* refusal(missing), `${missing}: no such file`)
    }).pipe(Effect.provide(ScriptedModel.layerFromFile(file)))
  }, SAFETY)
})
