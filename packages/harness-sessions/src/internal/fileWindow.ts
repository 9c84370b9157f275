/**
 * A window of a file's lines, read without reading the rest of the file (issue 16): the file is
 * opened like every bounded read (kind checked before opening, non-blocking open, descriptor
 * checked again), the lines before the window are skipped in fixed-size chunks, and at most
 * `maxBytes` of the window are read. A window holds whole lines — the next one starts where it
 * ends, so a reader paging through sees every line once — unless its first line alone is longer
 * than `maxBytes` (`lineCut`). Lines are what `text.split("\n")` makes of the file.
 *
 * @internal
 */
import * as fs from "node:fs"
import * as BoundedFile from "./boundedFile.js"

/** A window of lines `firstLine`…`lastLine` (1-based, inclusive). @internal */
export interface Window {
  readonly _tag: "window"
  readonly text: string
  readonly firstLine: number
  readonly lastLine: number
  /** The window's bytes in the file: `[startByte, endByte)`. */
  readonly startByte: number
  readonly endByte: number
  /** The file's size when it was opened. */
  readonly size: number
  /** The window ends at the end of the file. */
  readonly atEnd: boolean
  /** The window's only line is longer than `maxBytes`, and is cut. */
  readonly lineCut: boolean
}

/** The outcome of a window read. @internal */
export type WindowRead =
  | Window
  | { readonly _tag: "past-end"; readonly lines: number }
  | BoundedFile.Refusal

const NEWLINE = 0x0a
const SKIP_CHUNK = 1024 * 1024

const describeError = (error: unknown): string => error instanceof Error ? error.message : String(error)

/** Where line `fromLine` starts, or the file's line count when it has fewer lines. */
const skipTo = (fd: number, fromLine: number): { readonly start: number } | { readonly lines: number } => {
  const chunk = Buffer.allocUnsafe(SKIP_CHUNK)
  let position = 0
  let line = 1
  while (line < fromLine) {
    const n = fs.readSync(fd, chunk, 0, chunk.length, position)
    if (n === 0) return { lines: line }
    const view = chunk.subarray(0, n)
    let at = 0
    for (let nl = view.indexOf(NEWLINE); nl !== -1 && line < fromLine; nl = view.indexOf(NEWLINE, at)) {
      line++
      at = nl + 1
    }
    position += line < fromLine ? n : at
  }
  return { start: position }
}

/** Back off to the start of a UTF-8 sequence, so a cut line does not end in half a character. */
const charBoundary = (bytes: Buffer, end: number): number => {
  let at = end
  while (at > 0 && end - at < 3 && (bytes[at]! & 0xc0) === 0x80) at--
  return at < end && (bytes[at]! & 0xc0) === 0x80 ? end : at
}

/**
 * Read lines `fromLine`… of the regular file `file`: at most `maxLines` lines and `maxBytes`
 * bytes (`maxBytes` ≥ 1). `shown` names the file in refusals. @internal
 */
export const read = (
  file: string,
  options: { readonly fromLine: number; readonly maxLines?: number | undefined; readonly maxBytes: number },
  shown: string = file,
  open: BoundedFile.Options = {}
): WindowRead => {
  const opened = BoundedFile.openRegular(file, shown, undefined, open)
  if (opened._tag !== "open") return opened
  const { fd, stats } = opened
  try {
    const skipped = skipTo(fd, options.fromLine)
    if ("lines" in skipped) return { _tag: "past-end", lines: skipped.lines }
    const start = skipped.start
    // one byte more than the window may hold: whether the file goes on past it
    const buffer = Buffer.allocUnsafe(Math.min(options.maxBytes, Math.max(0, stats.size - start)) + 1)
    let total = 0
    for (let n = -1; n !== 0 && total < buffer.length;) {
      n = fs.readSync(fd, buffer, total, buffer.length - total, start + total)
      total += n
    }
    const more = total === buffer.length
    const usable = more ? total - 1 : total
    const maxLines = options.maxLines ?? Number.POSITIVE_INFINITY
    let lines = 1
    let end = usable
    let byLines = false
    for (let at = 0, nl = buffer.indexOf(NEWLINE); nl !== -1 && nl < usable; nl = buffer.indexOf(NEWLINE, at)) {
      if (lines === maxLines) {
        end = nl
        byLines = true
        break
      }
      lines++
      at = nl + 1
    }
    let lineCut = false
    // the bytes ran out inside a line that goes on: end the window at the line before it
    if (!byLines && more && buffer[usable] !== NEWLINE) {
      const last = buffer.lastIndexOf(NEWLINE, usable - 1)
      if (last >= 0) {
        end = last
        lines--
      } else {
        end = charBoundary(buffer, usable)
        lineCut = true
      }
    }
    return {
      _tag: "window",
      text: buffer.toString("utf8", 0, end),
      firstLine: options.fromLine,
      lastLine: options.fromLine + lines - 1,
      startByte: start,
      endByte: start + end,
      size: stats.size,
      atEnd: !byLines && !more,
      lineCut
    }
  } catch (error) {
    return { _tag: "refused", reason: "io", message: `${shown} cannot be read (${describeError(error)})` }
  } finally {
    fs.closeSync(fd)
  }
}
