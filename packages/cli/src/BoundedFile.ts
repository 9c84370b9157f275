/**
 * Reading files a user names, without trusting them: the kind and size are checked before a byte
 * is read (a FIFO or a symlink to `/dev/zero` would hang or never end; a 300 MB file would be read
 * whole), reading stops at the limit, the text must be valid UTF-8, and JSON is parsed strictly
 * (`StrictJson`: depth bound, duplicate keys, lone surrogates). Every refusal names the file, the
 * line where there is one, and the limit.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as NodeConstants from "node:constants"
import * as NodeFs from "node:fs/promises"
import { cannotRun, type CommandFailure } from "./CliError.js"
import * as StrictJson from "./StrictJson.js"

/**
 * Why a file was refused.
 *
 * @since 0.1.0
 * @category models
 */
export const Reason = Schema.Literal(
  "not-found",
  "not-a-file",
  "too-large",
  "too-deep",
  "duplicate-key",
  "lone-surrogate",
  "invalid-utf8",
  "invalid-json",
  "io"
)

/**
 * @since 0.1.0
 * @category models
 */
export type Reason = typeof Reason.Type

/**
 * A file that could not be read as asked.
 *
 * @since 0.1.0
 * @category errors
 */
export class FileRefused extends Schema.TaggedError<FileRefused>()("FileRefused", {
  file: Schema.String,
  reason: Reason,
  message: Schema.String,
  line: Schema.optional(Schema.Number),
  limit: Schema.optional(Schema.Number)
}) {}

/**
 * Limits for one read.
 *
 * @since 0.1.0
 * @category models
 */
export interface Limits {
  /** Largest file accepted, in bytes. */
  readonly maxBytes: number
  /** Deepest nesting accepted in a JSON document. */
  readonly maxDepth?: number
}

const kindOf = (type: FileSystem.File.Type): string =>
  type === "FIFO"
    ? "a FIFO (named pipe)"
    : type === "CharacterDevice" || type === "BlockDevice"
    ? "a device"
    : type === "Socket"
    ? "a socket"
    : type === "Directory"
    ? "a directory"
    : `a ${type.toLowerCase()}`

const size = (bytes: number): string =>
  bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MiB` : `${bytes} bytes`

/**
 * Check a path before reading it: it must exist and be (or link to) a regular file of at most
 * `maxBytes`. Nothing is opened, so a FIFO or device never blocks.
 *
 * @since 0.1.0
 * @category io
 */
export const check = Effect.fn("BoundedFile.check")(function*(file: string, limits: Limits) {
  const fs = yield* FileSystem.FileSystem
  const info = yield* fs.stat(file).pipe(
    Effect.mapError((error) =>
      error._tag === "SystemError" && error.reason === "NotFound"
        ? new FileRefused({ file, reason: "not-found", message: `${file}: no such file or directory` })
        : new FileRefused({ file, reason: "io", message: `${file}: cannot be read (${error.message})` })
    )
  )
  if (info.type !== "File") {
    return yield* new FileRefused({
      file,
      reason: "not-a-file",
      message: `${file}: is ${kindOf(info.type)}, not a regular file`
    })
  }
  if (Number(info.size) > limits.maxBytes) {
    return yield* new FileRefused({
      file,
      reason: "too-large",
      message: `${file}: ${size(Number(info.size))} is larger than the limit of ${size(limits.maxBytes)}`,
      limit: limits.maxBytes
    })
  }
  return info
})

/**
 * Open `file` without blocking (`O_NONBLOCK`: a FIFO swapped in after `check` would otherwise
 * wait for a writer forever; on a regular file the flag changes nothing), check that what was
 * opened is a regular file (`fstat` on the open descriptor, not the path), and hand its bytes to
 * `onChunk` in chunks of at most 64 KiB, failing as soon as more than `limits.maxBytes` arrive.
 * Nothing is kept here: the caller decides what to hold, so a stream can refuse early (a line
 * past its bound) without the rest being read. The platform's `FileSystem.open` has no such
 * flag, so this one step uses Node's file handle directly.
 *
 * @since 0.2.0
 * @category io
 */
export const foldOpened = <E, R>(
  file: string,
  limits: Limits,
  onChunk: (chunk: Uint8Array) => Effect.Effect<void, E, R>
): Effect.Effect<void, FileRefused | E, R> => {
  const io = (error: unknown) =>
    new FileRefused({
      file,
      reason: "io",
      message: `${file}: cannot be read (${error instanceof Error ? error.message : String(error)})`
    })
  return Effect.acquireUseRelease(
    Effect.tryPromise({
      try: () => NodeFs.open(file, NodeConstants.O_RDONLY | NodeConstants.O_NONBLOCK),
      catch: io
    }),
    (handle) =>
      Effect.gen(function*() {
        const info = yield* Effect.tryPromise({ try: () => handle.stat(), catch: io })
        if (!info.isFile()) {
          return yield* new FileRefused({
            file,
            reason: "not-a-file",
            message: `${file}: is not a regular file (it changed after it was checked)`
          })
        }
        let total = 0
        for (;;) {
          const buffer = new Uint8Array(64 * 1024)
          const { bytesRead } = yield* Effect.tryPromise({
            try: () => handle.read(buffer, 0, buffer.length, null),
            catch: io
          })
          if (bytesRead === 0) return
          total += bytesRead
          if (total > limits.maxBytes) {
            return yield* new FileRefused({
              file,
              reason: "too-large",
              message: `${file}: larger than the limit of ${size(limits.maxBytes)}`,
              limit: limits.maxBytes
            })
          }
          yield* onChunk(buffer.subarray(0, bytesRead))
        }
      }),
    (handle) => Effect.promise(() => handle.close())
  )
}

/**
 * Read what is open at `file`, at most `limits.maxBytes` (`foldOpened`, collected).
 *
 * @internal
 */
export const readOpened = (file: string, limits: Limits): Effect.Effect<Uint8Array, FileRefused> =>
  Effect.suspend(() => {
    const chunks: Array<Uint8Array> = []
    return foldOpened(file, limits, (chunk) => Effect.sync(() => void chunks.push(chunk))).pipe(
      Effect.map(() => concat(chunks))
    )
  })

/**
 * Join chunks into one array.
 *
 * @internal
 */
export const concat = (chunks: ReadonlyArray<Uint8Array>): Uint8Array => {
  const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0))
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.length
  }
  return bytes
}

/**
 * Read a file's bytes: checked first (`check`), then opened without blocking and read in chunks
 * that stop at the limit, in case the file grew or was replaced after the check.
 *
 * @since 0.1.0
 * @category io
 */
export const readBytes = Effect.fn("BoundedFile.readBytes")(function*(file: string, limits: Limits) {
  yield* check(file, limits)
  return yield* readOpened(file, limits)
})

/**
 * Read a file as strictly valid UTF-8 text (a byte-order mark is dropped).
 *
 * @since 0.1.0
 * @category io
 */
export const readText = Effect.fn("BoundedFile.readText")(function*(file: string, limits: Limits) {
  const bytes = yield* readBytes(file, limits)
  return yield* Effect.try({
    try: () => {
      const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes)
      return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
    },
    catch: () => new FileRefused({ file, reason: "invalid-utf8", message: `${file}: not valid UTF-8` })
  })
})

/**
 * Parse JSON text strictly; the error names the file, line, column and path.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseJson = (
  text: string,
  file: string,
  maxDepth: number = StrictJson.defaultMaxDepth
): Effect.Effect<unknown, FileRefused> => {
  const result = StrictJson.parse(text, { maxDepth })
  if (result.ok) return Effect.succeed(result.value)
  const { error } = result
  const reason: Reason = error.issue === "syntax" ? "invalid-json" : error.issue
  const limit = error.issue === "too-deep" ? { limit: maxDepth } : {}
  return Effect.fail(
    new FileRefused({
      file,
      reason,
      message: `${file}:${error.line}:${error.column}: ${error.message}${
        error.issue === "syntax" || error.issue === "duplicate-key" ? "" : ` (at ${error.path})`
      }`,
      line: error.line,
      ...limit
    })
  )
}

/**
 * Read and parse a JSON file within the limits.
 *
 * @since 0.1.0
 * @category io
 */
export const readJson = Effect.fn("BoundedFile.readJson")(function*(file: string, limits: Limits) {
  const text = yield* readText(file, limits)
  return yield* parseJson(text, file, limits.maxDepth)
})

/**
 * The CLI failure for a refused file (exit 2): `not-found`, `io` for the wrong kind of file,
 * `limit` for size and depth, and `invalidCode` for content that is not a valid document.
 *
 * @since 0.1.0
 * @category errors
 */
export const toFailure = (error: FileRefused, invalidCode: string = "invalid-input"): CommandFailure =>
  cannotRun(
    error.reason === "not-found"
      ? "not-found"
      : error.reason === "not-a-file" || error.reason === "io"
      ? "io"
      : error.reason === "too-large" || error.reason === "too-deep"
      ? "limit"
      : invalidCode,
    error.message,
    {
      file: error.file,
      reason: error.reason,
      ...(error.line === undefined ? {} : { line: error.line }),
      ...(error.limit === undefined ? {} : { limit: error.limit })
    }
  )
