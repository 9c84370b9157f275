/**
 * File tools never follow a link (issue 31 item 4, ADR 0564): a directory swapped for a symbolic
 * link while 200 writes race through it moves none of them outside the workspace; a dangling link
 * is never written through; a hard-linked file is refused by read, write and edit.
 */
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, type Schema } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Tools } from "../src/index.js"

const tempDir = (prefix: string) => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
const context = (dir: string): Tools.ToolContext => ({ workspace: dir, runId: "r1", callId: "c1" })
const run = <F extends Schema.Struct.Fields, R>(tool: Tools.Tool<F, R>, input: unknown, dir: string) =>
  Effect.flatMap(Tools.decodeInput(tool, input), (decoded) => tool.execute(decoded, context(dir)))

const listAll = (dir: string): ReadonlyArray<string> =>
  fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".txt"))

describe("file tools and links", () => {
  it.effect("200 racing writes while a directory is swapped for a link to outside: none lands outside", () =>
    Effect.gen(function*() {
      const ws = tempDir("steward-race-ws-")
      const outside = tempDir("steward-race-out-")
      fs.mkdirSync(path.join(ws, "sub"))
      fs.symlinkSync(outside, path.join(ws, "to-outside"))
      let swaps = 0
      let stop = false
      // `sub` is a real directory, then a link to outside, then the directory again, …
      const swapper = yield* Effect.fork(Effect.gen(function*() {
        while (!stop) {
          fs.renameSync(path.join(ws, "sub"), path.join(ws, "sub-parked"))
          fs.renameSync(path.join(ws, "to-outside"), path.join(ws, "sub"))
          yield* Effect.yieldNow()
          fs.renameSync(path.join(ws, "sub"), path.join(ws, "to-outside"))
          fs.renameSync(path.join(ws, "sub-parked"), path.join(ws, "sub"))
          swaps++
          yield* Effect.yieldNow()
        }
      }))
      const results = yield* Effect.forEach(
        Array.from({ length: 200 }, (_, i) => i),
        (i) => run(Tools.write, { path: `sub/f${i}.txt`, content: `write ${i}` }, ws),
        { concurrency: 8 }
      )
      stop = true
      yield* Fiber.join(swapper)
      assert.isAbove(swaps, 10, "the swapper raced the writes")
      assert.deepStrictEqual(listAll(outside), [], "nothing was written outside the workspace")
      const written = results.filter((r) => r.ok).length
      assert.strictEqual(listAll(path.join(ws, "sub")).length, written, "every reported write is inside")
      for (const r of results.filter((r) => !r.ok)) assert.notInclude(r.output, "created")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("a dangling link is never written through; a link as the file is neither read nor edited", () =>
    Effect.gen(function*() {
      const ws = tempDir("steward-links-ws-")
      const outside = tempDir("steward-links-out-")
      const target = path.join(outside, "made-by-the-write.txt")
      fs.symlinkSync(target, path.join(ws, "dangling.txt"))
      const w = yield* run(Tools.write, { path: "dangling.txt", content: "x" }, ws)
      assert.isFalse(w.ok)
      assert.isFalse(fs.existsSync(target), "the write did not create the link's target")
      // A link inside the workspace to a file inside it: the tools still do not follow it.
      fs.writeFileSync(path.join(ws, "real.txt"), "real")
      fs.symlinkSync(path.join(ws, "real.txt"), path.join(ws, "alias.txt"))
      for (
        const r of [
          yield* run(Tools.read, { path: "alias.txt" }, ws),
          yield* run(Tools.edit, { path: "alias.txt", oldString: "real", newString: "changed" }, ws),
          yield* run(Tools.write, { path: "alias.txt", content: "changed" }, ws)
        ]
      ) {
        assert.isFalse(r.ok)
        assert.include(r.output, "symbolic link")
      }
      assert.strictEqual(fs.readFileSync(path.join(ws, "real.txt"), "utf8"), "real")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("a hard-linked file is refused by read, write and edit; its other name is untouched", () =>
    Effect.gen(function*() {
      const ws = tempDir("steward-hard-ws-")
      const outside = tempDir("steward-hard-out-")
      const secret = path.join(outside, "secret.txt")
      fs.writeFileSync(secret, "secret")
      fs.linkSync(secret, path.join(ws, "linked.txt"))
      for (
        const r of [
          yield* run(Tools.read, { path: "linked.txt" }, ws),
          yield* run(Tools.write, { path: "linked.txt", content: "overwritten" }, ws),
          yield* run(Tools.edit, { path: "linked.txt", oldString: "secret", newString: "changed" }, ws)
        ]
      ) {
        assert.isFalse(r.ok)
        assert.include(r.output, "hard links")
        assert.notInclude(r.output, "secret\n")
      }
      assert.strictEqual(fs.readFileSync(secret, "utf8"), "secret")
    }).pipe(Effect.provide(NodeContext.layer)))
})
