/**
 * The line window a `read` of a file over the limit returns (issue 16 item 2, ADR 0557): against
 * `text.split("\n")` on arbitrary text (multi-byte characters and empty lines included), paging
 * from line 1 with the window each read says comes next returns every line once, in order, each
 * window whole lines within its byte bound; a line longer than the bound is cut on a character
 * boundary; FIFOs and devices are refused without being opened for a blocking read.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as FileWindow from "../src/internal/fileWindow.js"

const SAFETY = 20_000

const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-window-")))
let files = 0
const fileWith = (text: string): string => {
  const file = path.join(dir, `f${files++}.txt`)
  fs.writeFileSync(file, text)
  return file
}

const window = (result: FileWindow.WindowRead): FileWindow.Window => {
  assert.strictEqual(result._tag, "window")
  return result as FileWindow.Window
}

const text = fc.array(fc.constantFrom("a", "b", "é", "€", "😀", "\n", "\n"), { maxLength: 120 }).map((cs) =>
  cs.join("")
)

describe("FileWindow.read", () => {
  it("paging through a file returns every line once, in whole-line windows within the bound", () => {
    fc.assert(
      fc.property(
        text,
        fc.nat({ max: 30 }),
        fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
        (t, extra, maxLines) => {
          const lines = t.split("\n")
          const maxBytes = Math.max(1, ...lines.map((l) => Buffer.byteLength(l))) + extra
          const file = fileWith(t)
          const bytes = Buffer.from(t, "utf8")
          const seen: Array<string> = []
          for (let from = 1;;) {
            const w = window(FileWindow.read(file, { fromLine: from, maxLines, maxBytes }))
            assert.strictEqual(w.firstLine, from)
            assert.isFalse(w.lineCut)
            assert.isAtMost(Buffer.byteLength(w.text), maxBytes)
            if (maxLines !== undefined) assert.isAtMost(w.lastLine - w.firstLine + 1, maxLines)
            assert.strictEqual(w.text, lines.slice(w.firstLine - 1, w.lastLine).join("\n"))
            assert.strictEqual(bytes.subarray(w.startByte, w.endByte).toString("utf8"), w.text)
            assert.strictEqual(w.size, bytes.length)
            seen.push(...w.text.split("\n"))
            if (w.atEnd) break
            from = w.lastLine + 1
          }
          assert.deepStrictEqual(seen, lines)
        }
      ),
      { numRuns: 150 }
    )
  })

  it("a line longer than the bound is cut on a character boundary; past the end counts the lines", () => {
    const long = window(FileWindow.read(fileWith("ab€€€\nnext"), { fromLine: 1, maxBytes: 6 }))
    // "ab€" is 5 bytes, the sixth is inside the second "€": the cut backs off to before it
    assert.deepStrictEqual([long.text, long.lineCut, long.atEnd, long.endByte], ["ab€", true, false, 5])
    const exact = window(FileWindow.read(fileWith("abc\ndef"), { fromLine: 1, maxBytes: 3 }))
    assert.deepStrictEqual([exact.text, exact.lastLine, exact.lineCut, exact.atEnd], ["abc", 1, false, false])
    const limited = window(FileWindow.read(fileWith("1\n2\n3\n4"), { fromLine: 2, maxLines: 2, maxBytes: 100 }))
    assert.deepStrictEqual([limited.text, limited.firstLine, limited.lastLine, limited.atEnd], ["2\n3", 2, 3, false])
    const trailing = window(FileWindow.read(fileWith("1\n2\n"), { fromLine: 3, maxBytes: 100 }))
    assert.deepStrictEqual([trailing.text, trailing.lastLine, trailing.atEnd], ["", 3, true])
    assert.deepStrictEqual(FileWindow.read(fileWith("1\n2\n"), { fromLine: 4, maxBytes: 100 }), {
      _tag: "past-end",
      lines: 3
    })
  })

  it("a FIFO, a device and a missing file are refused without blocking", () => {
    const pipe = path.join(dir, "pipe")
    execFileSync("mkfifo", [pipe])
    const zero = path.join(dir, "zero")
    fs.symlinkSync("/dev/zero", zero)
    const options = { fromLine: 1, maxBytes: 100 }
    assert.deepStrictEqual(FileWindow.read(pipe, options, "pipe"), {
      _tag: "refused",
      reason: "not-a-file",
      message: "pipe is a FIFO (named pipe), not a regular file"
    })
    assert.deepStrictEqual(FileWindow.read(zero, options, "zero"), {
      _tag: "refused",
      reason: "not-a-file",
      message: "zero is a device, not a regular file"
    })
    assert.deepStrictEqual(FileWindow.read(path.join(dir, "missing"), options), { _tag: "missing" })
  }, SAFETY)
})
