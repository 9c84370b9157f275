/**
 * Reading a file without trusting it (issue 16): the kind and size are checked before a byte is
 * read, the open is non-blocking (a FIFO swapped in after the check cannot hang it), the opened
 * descriptor is checked again, and reading stops one byte past the limit (a file that grew is
 * refused, not read whole). Synchronous, because the policy engine's file view is.
 *
 * @internal
 */
import * as fs from "node:fs"

/** Why a read was refused. @internal */
export type Reason = "not-a-file" | "too-large" | "io"

/** The outcome of a bounded read. @internal */
export type Read =
  | { readonly _tag: "bytes"; readonly bytes: Uint8Array }
  | { readonly _tag: "missing" }
  | { readonly _tag: "refused"; readonly reason: Reason; readonly message: string; readonly limit?: number }

const kindOf = (s: fs.Stats): string =>
  s.isFIFO()
    ? "a FIFO (named pipe)"
    : s.isCharacterDevice() || s.isBlockDevice()
    ? "a device"
    : s.isSocket()
    ? "a socket"
    : s.isDirectory()
    ? "a directory"
    : "not a regular file"

/** A byte count as people read it. @internal */
export const size = (bytes: number): string =>
  bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MiB` : `${bytes} bytes`

const notAFile = (file: string, s: fs.Stats): Read => ({
  _tag: "refused",
  reason: "not-a-file",
  message: `${file}: is ${kindOf(s)}, not a regular file`
})

const tooLarge = (file: string, bytes: number | undefined, limit: number): Read => ({
  _tag: "refused",
  reason: "too-large",
  message: bytes === undefined
    ? `${file}: grew while read (the limit is ${size(limit)})`
    : `${file}: ${size(bytes)} is larger than the limit of ${size(limit)}`,
  limit
})

const io = (file: string, error: unknown): Read => ({
  _tag: "refused",
  reason: "io",
  message: `${file}: cannot be read (${error instanceof Error ? error.message : String(error)})`
})

/** Read at most `maxBytes` of the regular file `file` (symlinks followed). @internal */
export const read = (file: string, maxBytes: number): Read => {
  let fd: number
  try {
    const s = fs.statSync(file, { throwIfNoEntry: false })
    if (s === undefined) return { _tag: "missing" }
    if (!s.isFile()) return notAFile(file, s)
    if (s.size > maxBytes) return tooLarge(file, s.size, maxBytes)
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? { _tag: "missing" } : io(file, error)
  }
  try {
    const s = fs.fstatSync(fd)
    if (!s.isFile()) return notAFile(file, s)
    if (s.size > maxBytes) return tooLarge(file, s.size, maxBytes)
    const buffer = Buffer.allocUnsafe(Math.min(maxBytes, s.size) + 1)
    let total = 0
    for (;;) {
      const n = fs.readSync(fd, buffer, total, buffer.length - total, null)
      if (n === 0) break
      total += n
      // one byte past what the stat promised: the file grew after it, so it is refused whole
      if (total === buffer.length) return tooLarge(file, undefined, maxBytes)
    }
    return { _tag: "bytes", bytes: buffer.subarray(0, total) }
  } catch (error) {
    return io(file, error)
  } finally {
    fs.closeSync(fd)
  }
}
