import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as FileSystem from "@effect/platform/FileSystem"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as BoundedFile from "../src/BoundedFile.js"
import * as ReflexFiles from "../src/commands/reflex/files.js"

// The open after the check: what is there when the file is opened may not be what was checked
// (a FIFO or a device swapped in). The open must not block and must refuse anything but a
// regular file; the read stops at the limit whatever the check saw.

const fixtures = path.join(import.meta.dirname, "fixtures")
const dir = () => fs.mkdtempSync(path.join(os.tmpdir(), "steward-open-"))

describe("BoundedFile.readOpened", () => {
  it.effect("a FIFO opened without a writer is refused, not waited on", () =>
    Effect.gen(function*() {
      const fifo = path.join(dir(), "swapped.json")
      execFileSync("mkfifo", [fifo])
      const error = yield* Effect.flip(BoundedFile.readOpened(fifo, { maxBytes: 1024 }))
      assert.strictEqual(error.reason, "not-a-file")
      assert.include(error.message, "swapped.json: is not a regular file")
    }).pipe(Effect.timeout("20 seconds")))

  it.effect("a device is refused", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(BoundedFile.readOpened("/dev/zero", { maxBytes: 1024 }))
      assert.strictEqual(error.reason, "not-a-file")
    }).pipe(Effect.timeout("20 seconds")))

  it.effect("a regular file that grew past the limit stops at the limit", () =>
    Effect.gen(function*() {
      const file = path.join(dir(), "big.txt")
      fs.writeFileSync(file, "x".repeat(200_000))
      const error = yield* Effect.flip(BoundedFile.readOpened(file, { maxBytes: 100_000 }))
      assert.strictEqual(error.reason, "too-large")
      assert.strictEqual(error.limit, 100_000)
    }))

  it.effect("a regular file within the limit is read whole", () =>
    Effect.gen(function*() {
      const file = path.join(dir(), "ok.txt")
      const text = "héllo ".repeat(30_000)
      fs.writeFileSync(file, text)
      const bytes = yield* BoundedFile.readOpened(file, { maxBytes: 1_000_000 })
      assert.strictEqual(new TextDecoder().decode(bytes), text)
    }))
})

// The swap itself: a file system whose `stat` answers for the regular file and then replaces it
// with a FIFO, so `reflex import`'s check passes and its open meets the FIFO. A blocking open would
// wait for a writer forever; the import must refuse it.
const swapAfterStat = (target: string) =>
  Layer.effect(
    FileSystem.FileSystem,
    Effect.map(FileSystem.FileSystem, (real): FileSystem.FileSystem => ({
      ...real,
      stat: (p) =>
        real.stat(p).pipe(Effect.tap(() =>
          Effect.sync(() => {
            if (p !== target) return
            fs.rmSync(target)
            execFileSync("mkfifo", [target])
          })
        ))
    }))
  ).pipe(Layer.provide(NodeFileSystem.layer))

// Were the open blocking, free the reader stuck on the FIFO so the worker can end.
const unblock = (fifo: string) =>
  Effect.sync(() => {
    try {
      fs.closeSync(fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK))
    } catch {
      // no reader waiting: nothing to free
    }
  })

describe("reflex import: a FIFO swapped in between the check and the open", () => {
  it.effect("is refused from the descriptor's fstat, not waited on", () =>
    Effect.gen(function*() {
      const file = path.join(dir(), "history.jsonl")
      fs.writeFileSync(file, `${JSON.stringify({ id: "a", text: "done", label: true })}\n`)
      const error = yield* Effect.flip(ReflexFiles.readImport(file)).pipe(
        Effect.provide(swapAfterStat(file)),
        Effect.timeout("20 seconds"),
        Effect.ensuring(unblock(file))
      )
      assert.isTrue(fs.statSync(file).isFIFO(), "the swap happened")
      assert.strictEqual(error._tag, "CommandFailure")
      assert.include(error.message, "history.jsonl: is not a regular file (it changed after it was checked)")
    }))

  it.effect("text is decoded as it streams: a character across a chunk boundary is whole; a cut one refused", () =>
    Effect.gen(function*() {
      const file = path.join(dir(), "boundary.jsonl")
      // "é" is two bytes: its first ends the first 64 KiB chunk, its second starts the next
      const text = `${"a".repeat(64 * 1024 - 1)}é\n${"b".repeat(10)}\n`
      fs.writeFileSync(file, text)
      assert.strictEqual(yield* ReflexFiles.readImportOpened(file), text)
      const cut = path.join(dir(), "cut.jsonl")
      fs.writeFileSync(cut, Buffer.concat([Buffer.from("ok\n"), Buffer.from([0xc3])]))
      const error = yield* Effect.flip(ReflexFiles.readImportOpened(cut))
      assert.include(error.message, "cut.jsonl: not valid UTF-8")
    }))

  it.effect("a regular import is still streamed with the line bound and its line number", () =>
    Effect.gen(function*() {
      const file = path.join(dir(), "long.jsonl")
      const ok = `${JSON.stringify({ id: "a", text: "done", label: true })}\n`
      // the long line is 3 MiB and the file continues: refused at line 2, past the 1 MiB bound
      fs.writeFileSync(file, ok + "x".repeat(3 * 1024 * 1024) + "\n" + ok)
      const error = yield* Effect.flip(ReflexFiles.readImport(file)).pipe(Effect.provide(NodeFileSystem.layer))
      assert.include(error.message, `${file}:2: line is longer than 1048576 bytes (refused before parsing)`)
      const text = yield* ReflexFiles.readImportOpened(path.join(fixtures, "reflex", "route.valid.jsonl"))
      assert.strictEqual(text, fs.readFileSync(path.join(fixtures, "reflex", "route.valid.jsonl"), "utf8"))
    }))
})
