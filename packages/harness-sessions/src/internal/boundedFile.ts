/**
 * Files the harness reads or writes on a model's or a host's behalf, without trusting them
 * (issue 16): the kind and size are checked before a byte is read, opens are non-blocking (a FIFO
 * swapped in after the check cannot hang them), the opened descriptor is checked again, reading
 * stops one byte past the limit, and a write never opens a FIFO, device or socket for a blocking
 * write nor truncates one. Refusals name the file and the limit.
 *
 * @internal
 */
import * as fs from "node:fs"

/** The outcome of a bounded read. @internal */
export type Read =
  | { readonly _tag: "bytes"; readonly bytes: Buffer }
  | { readonly _tag: "missing" }
  | { readonly _tag: "refused"; readonly reason: "not-a-file" | "too-large" | "io"; readonly message: string }

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

/** A read that returned no bytes. @internal */
export type Refusal = Exclude<Read, { readonly _tag: "bytes" }>

const refused = (reason: "not-a-file" | "too-large" | "io", message: string): Refusal => ({
  _tag: "refused",
  reason,
  message
})

const describeError = (error: unknown): string => error instanceof Error ? error.message : String(error)

/**
 * `confined`: the file tools' opens (ADR 0564) — a symbolic link as the file itself is refused
 * (`O_NOFOLLOW`: never read or written through, dangling or not), and so is a file with more than
 * one hard link (its other names may lie outside the workspace). @internal
 */
export interface Options {
  readonly confined?: boolean
}

const noFollow = (options: Options) => options.confined === true ? fs.constants.O_NOFOLLOW : 0

const linkRefusal = (shown: string) =>
  `${shown} is a symbolic link; the file tools do not follow links (read or change its target by its own path)`

const hardLinked = (shown: string, s: fs.Stats, options: Options): string | undefined =>
  options.confined === true && s.nlink > 1
    ? `${shown} has ${s.nlink} hard links; the file tools refuse a file that also has names elsewhere`
    : undefined

const tooLarge = (shown: string, bytes: number, maxBytes: number): Refusal =>
  refused("too-large", `${shown} is ${size(bytes)}, larger than the limit of ${size(maxBytes)}`)

/**
 * Open the regular file `file` for reading without blocking: stat first (a FIFO, device or socket
 * is refused unopened, and so is a file over `maxBytes` when given), open non-blocking, and check
 * the opened descriptor again. The caller closes `fd`. @internal
 */
export const openRegular = (
  file: string,
  shown: string = file,
  maxBytes?: number,
  options: Options = {}
): { readonly _tag: "open"; readonly fd: number; readonly stats: fs.Stats } | Refusal => {
  let fd: number
  try {
    const s = options.confined === true
      ? fs.lstatSync(file, { throwIfNoEntry: false })
      : fs.statSync(file, { throwIfNoEntry: false })
    if (s === undefined) return { _tag: "missing" }
    if (s.isSymbolicLink()) return refused("not-a-file", linkRefusal(shown))
    if (!s.isFile()) return refused("not-a-file", `${shown} is ${kindOf(s)}, not a regular file`)
    if (maxBytes !== undefined && s.size > maxBytes) return tooLarge(shown, s.size, maxBytes)
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | noFollow(options))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") return refused("not-a-file", linkRefusal(shown))
    return (error as NodeJS.ErrnoException).code === "ENOENT"
      ? { _tag: "missing" }
      : refused("io", `${shown} cannot be read (${describeError(error)})`)
  }
  try {
    const s = fs.fstatSync(fd)
    const linked = hardLinked(shown, s, options)
    const refusal = !s.isFile()
      ? refused("not-a-file", `${shown} is ${kindOf(s)}, not a regular file`)
      : linked !== undefined
      ? refused("not-a-file", linked)
      : maxBytes !== undefined && s.size > maxBytes
      ? tooLarge(shown, s.size, maxBytes)
      : undefined
    if (refusal === undefined) return { _tag: "open", fd, stats: s }
    fs.closeSync(fd)
    return refusal
  } catch (error) {
    fs.closeSync(fd)
    return refused("io", `${shown} cannot be read (${describeError(error)})`)
  }
}

/** Read at most `maxBytes` of the regular file `file` (symlinks followed); `shown` names it. @internal */
export const read = (file: string, maxBytes: number, shown: string = file, options: Options = {}): Read => {
  const opened = openRegular(file, shown, maxBytes, options)
  if (opened._tag !== "open") return opened
  const { fd, stats } = opened
  try {
    const buffer = Buffer.allocUnsafe(Math.min(maxBytes, stats.size) + 1)
    let total = 0
    for (;;) {
      const n = fs.readSync(fd, buffer, total, buffer.length - total, null)
      if (n === 0) break
      total += n
      // one byte past what the stat promised: the file grew after it, so it is refused whole
      if (total === buffer.length) {
        return refused("too-large", `${shown} grew while read (the limit is ${size(maxBytes)})`)
      }
    }
    return { _tag: "bytes", bytes: buffer.subarray(0, total) }
  } catch (error) {
    return refused("io", `${shown} cannot be read (${describeError(error)})`)
  } finally {
    fs.closeSync(fd)
  }
}

/** The outcome of a guarded write. @internal */
export type Write = { readonly _tag: "written" } | { readonly _tag: "refused"; readonly message: string }

/**
 * Replace (or create) the regular file `file` with `content`. The open is non-blocking and does
 * not truncate: a FIFO without a reader fails at once, and whatever was opened is checked to be a
 * regular file before it is truncated and written. @internal
 */
export const write = (file: string, content: string, shown: string = file, options: Options = {}): Write => {
  let fd: number
  try {
    const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_NONBLOCK | noFollow(options)
    fd = fs.openSync(file, flags, 0o666)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return {
      _tag: "refused",
      message: code === "ENXIO"
        ? `${shown} is a FIFO (named pipe), not a regular file; choose another path`
        : code === "ELOOP"
        ? linkRefusal(shown)
        : `${shown} cannot be written (${describeError(error)})`
    }
  }
  try {
    const s = fs.fstatSync(fd)
    if (!s.isFile()) {
      return { _tag: "refused", message: `${shown} is ${kindOf(s)}, not a regular file; choose another path` }
    }
    const linked = hardLinked(shown, s, options)
    if (linked !== undefined) return { _tag: "refused", message: linked }
    fs.ftruncateSync(fd, 0)
    const bytes = Buffer.from(content, "utf8")
    for (let at = 0; at < bytes.length;) at += fs.writeSync(fd, bytes, at, bytes.length - at, at)
    return { _tag: "written" }
  } catch (error) {
    return { _tag: "refused", message: `${shown} cannot be written (${describeError(error)})` }
  } finally {
    fs.closeSync(fd)
  }
}
