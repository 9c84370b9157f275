import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as BoundedFile from "../src/BoundedFile.js"

// The open after the check: what is there when the file is opened may not be what was checked
// (a FIFO or a device swapped in). The open must not block and must refuse anything but a
// regular file; the read stops at the limit whatever the check saw.

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
