/**
 * The project's own files, read and written the bounded way (issue 16): a file is size-checked
 * before it is read, FIFOs, devices and sockets are refused without opening them for a blocking
 * read, and every refusal names the file and the limit. Views are written atomically (a
 * temporary file renamed over the old one) with their modification time set a second back, so any
 * later edit — which stamps the current time — changes the fingerprint a view mark records
 * (ADR 0115). The node calls live here only: everything else reads through a `ProjectFiles.FileView`
 * (this module's {@link nodeView}, or the memory view of a test).
 *
 * @internal
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import type { FileView, Kind } from "../../ProjectFiles.js"

/** The largest view, body, report or config file the audit area reads (bytes). */
export const MAX_FILE_BYTES = 64 * 1024 * 1024

/** How far back a written view's modification time is set (ms). */
const BACKDATE_MS = 1_000

export type Read =
  | { readonly _tag: "text"; readonly text: string }
  | { readonly _tag: "missing" }
  | { readonly _tag: "refused"; readonly message: string }

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

export const size = (bytes: number): string =>
  bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MiB` : `${bytes} bytes`

export type ReadBytes =
  | { readonly _tag: "bytes"; readonly bytes: Uint8Array }
  | { readonly _tag: "missing" }
  | { readonly _tag: "refused"; readonly message: string }

/**
 * Read `file`: `missing` when it does not exist; `refused` (naming the file and the rule) when it
 * is not a regular file or is larger than `maxBytes`.
 */
export const readBytes = (file: string, maxBytes: number = MAX_FILE_BYTES): ReadBytes => {
  let fd: number
  try {
    const s = fs.statSync(file, { throwIfNoEntry: false })
    if (s === undefined) return { _tag: "missing" }
    if (!s.isFile()) return { _tag: "refused", message: `${file}: is ${kindOf(s)}, not a regular file` }
    // O_NONBLOCK: a FIFO swapped in after the stat cannot hang the open
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
  } catch (e) {
    return { _tag: "refused", message: `${file}: cannot be read (${(e as Error).message})` }
  }
  try {
    const s = fs.fstatSync(fd)
    if (!s.isFile()) return { _tag: "refused", message: `${file}: is ${kindOf(s)}, not a regular file` }
    if (s.size > maxBytes) {
      return { _tag: "refused", message: `${file}: ${size(s.size)} is larger than the limit of ${size(maxBytes)}` }
    }
    const buffer = Buffer.allocUnsafe(s.size + 1)
    let total = 0
    for (;;) {
      const n = fs.readSync(fd, buffer, total, buffer.length - total, null)
      if (n === 0) break
      total += n
      if (total > s.size) return { _tag: "refused", message: `${file}: grew while read, past ${size(s.size)}` }
    }
    return { _tag: "bytes", bytes: buffer.subarray(0, total) }
  } catch (e) {
    return { _tag: "refused", message: `${file}: cannot be read (${(e as Error).message})` }
  } finally {
    fs.closeSync(fd)
  }
}

/** Read `file` through `view` as UTF-8 text (bounded; invalid UTF-8 is `refused`). */
export const readText = (view: FileView, file: string, maxBytes: number = MAX_FILE_BYTES): Read => {
  const r = view.read(file, maxBytes)
  if (r._tag !== "bytes") return r
  try {
    return { _tag: "text", text: new TextDecoder("utf-8", { fatal: true }).decode(r.bytes) }
  } catch {
    return { _tag: "refused", message: `${file}: not valid UTF-8` }
  }
}

/**
 * A regular file's mark — size, modification and change times, inode — or `undefined` when `file`
 * is missing or not a regular file (a symlink is never marked).
 */
const mark = (file: string): string | undefined => {
  // number fields (not bigint): a stat per view at 10,000 views must not allocate 14 BigInts each;
  // milliseconds as a double keep sub-microsecond precision, finer than any file system's clock
  const s = fs.lstatSync(file, { throwIfNoEntry: false })
  return s === undefined || !s.isFile() ? undefined : `${s.size}:${s.mtimeMs}:${s.ctimeMs}:${s.ino}`
}

/**
 * Whether each of `files` (relative to `base`) is a regular file whose mark has the four fields
 * `marks` holds for it, file after file — compared as numbers, no mark printed (ADR 0141).
 */
export const unchangedSince = (base: string, files: ReadonlyArray<string>, marks: ReadonlyArray<number>): boolean => {
  const prefix = base + nodePath.sep
  for (let k = 0; k < files.length; k++) {
    const s = fs.lstatSync(prefix + files[k], { throwIfNoEntry: false })
    if (
      s === undefined || !s.isFile() || s.size !== marks[4 * k] || s.mtimeMs !== marks[4 * k + 1] ||
      s.ctimeMs !== marks[4 * k + 2] || s.ino !== marks[4 * k + 3]
    ) return false
  }
  return true
}

/** The modification time (ms) a mark records (its second field). */
export const markTime = (mark: string): number => Number(mark.split(":")[1])

/** Write a file atomically (a temporary file renamed over it) with the given modification time. */
const writeAtomic = (file: string, content: string, mtimeMs: number): string | undefined => {
  fs.mkdirSync(nodePath.dirname(file), { recursive: true })
  const tmp = `${file}.tmp`
  fs.writeFileSync(tmp, content)
  fs.utimesSync(tmp, mtimeMs / 1000, mtimeMs / 1000)
  fs.renameSync(tmp, file)
  return mark(file)
}

const kind = (s: fs.Stats): Kind =>
  s.isFile() ? "file" : s.isDirectory() ? "directory" : s.isSymbolicLink() ? "symlink" : "other"

/** The real disk. */
export const nodeView: FileView = {
  read: readBytes,
  stat: (file) => {
    try {
      const s = fs.statSync(file, { throwIfNoEntry: false })
      return s === undefined ? undefined : kind(s)
    } catch {
      return undefined
    }
  },
  mark,
  writeAtomic,
  realpath: (file) => {
    try {
      return fs.realpathSync(file)
    } catch {
      return undefined
    }
  }
}

/**
 * Write a view atomically through `view`; returns its mark. Its modification time is set
 * `BACKDATE_MS` before `nowMs`, so a later edit always changes it.
 */
export const writeView = (view: FileView, file: string, content: string, nowMs: number): string | undefined =>
  view.writeAtomic(file, content, nowMs - BACKDATE_MS)

/**
 * Whether a file last modified at `mtimeMs` may be marked clean now: only once its timestamp is
 * far enough in the past that an edit would stamp a different one.
 */
export const settled = (mtimeMs: number, nowMs: number): boolean => nowMs - mtimeMs >= BACKDATE_MS

/** The real path of `file`: the deepest existing ancestor resolved, the rest appended. */
export const realish = (view: FileView, file: string): string => {
  const rest: Array<string> = []
  let at = file
  while (true) {
    const real = view.realpath(at)
    if (real !== undefined) return nodePath.join(real, ...rest.reverse())
    const parent = nodePath.dirname(at)
    if (parent === at) return file
    rest.push(nodePath.basename(at))
    at = parent
  }
}
