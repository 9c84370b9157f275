/**
 * `read`, `write` and `edit`: files inside the workspace (paths resolved through the platform
 * `FileSystem`; contents read and written bounded, see `boundedFile`).
 * Every refusal names the path and says what to do instead, because the model reads it.
 *
 * @internal
 */
import * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as HarnessError from "../../HarnessError.js"
import type * as Tools from "../../Tools.js"
import * as BoundedFile from "../boundedFile.js"
import * as FileWindow from "../fileWindow.js"
import * as Confined from "./confined.js"
import { bound, outputLimit } from "./output.js"
import * as Paths from "./paths.js"

const PathField = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(4096)).annotations({
  description: "File path, relative to the workspace root (or absolute inside it)"
})

/** The resource governance decides for a file call: the path as the workspace sees it. */
const governed = (workspace: string, raw: string): string =>
  raw.startsWith("/") ? raw : `${workspace.replace(/\/+$/, "")}/${raw}`

const failure = (output: string): Tools.ToolResult => ({ ok: false, output })

const ioError = (what: string) => (error: unknown) =>
  new HarnessError.HarnessError({ code: "TOOL_FAILED", message: `${what}: ${String(error)}` })

type FileEnv = FileSystem.FileSystem | Path.Path

/** A resolved file, opened through its pinned directory (ADR 0564): `open` is the path to use. */
interface Opened extends Paths.Resolved {
  readonly open: string
}

// Every open of the file tools: no link followed, a hard-linked file refused (`boundedFile`).
const CONFINED: BoundedFile.Options = { confined: true }

/**
 * Run `body` with the file's directory pinned (no component a link; `create`: missing
 * directories made inside it), released afterwards.
 */
const pinned = <E, R>(
  root: string,
  file: Paths.Resolved,
  create: boolean,
  body: (file: Opened) => Effect.Effect<Tools.ToolResult, E, R>
): Effect.Effect<Tools.ToolResult, E, R> =>
  Effect.acquireUseRelease(
    Effect.sync(() => Confined.pin(root, file.lexical, create)),
    (pin) => "refused" in pin ? Effect.succeed(failure(pin.refused)) : body({ ...file, open: pin.file }),
    (pin) => Effect.sync(() => "refused" in pin ? undefined : pin.release())
  )

/** Resolve, then run `body` on an existing regular file (or explain why not). */
const withFile = (
  context: Tools.ToolContext,
  raw: string,
  body: (file: Opened) => Effect.Effect<Tools.ToolResult, HarnessError.HarnessError, FileEnv>
): Effect.Effect<Tools.ToolResult, HarnessError.HarnessError, FileEnv> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const resolved = yield* Paths.resolve(context.workspace, raw)
    if (Either.isLeft(resolved)) return failure(resolved.left)
    const file = resolved.right
    const info = yield* fs.stat(file.absolute).pipe(Effect.option)
    if (info._tag === "None") return failure(`${file.relative} does not exist; check the path (list it with shell)`)
    if (info.value.type === "Directory") return failure(`${file.relative} is a directory, not a file`)
    if (info.value.type !== "File") return failure(`${file.relative} is not a regular file`)
    return yield* pinned(yield* rootOf(context.workspace), file, false, body)
  })

const rootOf = (workspace: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.realPath(workspace)).pipe(Effect.orElseSucceed(() => workspace))

/** The largest file `read` and `edit` take (bytes): a larger one is refused before it is read. */
export const MAX_READ_BYTES = 16 * 1024 * 1024

// Bounded (issue 16): a FIFO or device swapped in after the stat is refused without blocking,
// and a file over the limit is never read whole; a refusal is a message the model can act on.
const refusal = (
  file: Paths.Resolved,
  result: BoundedFile.Refusal
): Effect.Effect<Tools.ToolResult, HarnessError.HarnessError> =>
  result._tag === "missing"
    ? Effect.succeed(failure(`${file.relative} does not exist; check the path (list it with shell)`))
    : result.reason === "io"
    ? Effect.fail(ioError(`reading ${file.relative}`)(result.message))
    : Effect.succeed(failure(
      result.reason === "too-large"
        ? `${result.message}; read a part of it with a shell tool (head, sed -n, grep)`
        : result.message
    ))

const fromRead = (
  file: Opened,
  result: BoundedFile.Read
): Effect.Effect<string | Tools.ToolResult, HarnessError.HarnessError> =>
  result._tag === "bytes" ? Effect.succeed(result.bytes.toString("utf8")) : refusal(file, result)

const readText = (file: Opened): Effect.Effect<string | Tools.ToolResult, HarnessError.HarnessError> =>
  Effect.suspend(() => fromRead(file, BoundedFile.read(file.open, MAX_READ_BYTES, file.relative, CONFINED)))

/**
 * The most a `read` of a file over `MAX_READ_BYTES` shows at once (bytes): whole lines within the
 * output budget, so the model pages through such a file without a line left out (ADR 0557).
 */
export const WINDOW_BYTES = outputLimit

/** `read` of a file over the limit: the window from `offset`, and how to read the next one. */
const readWindow = (
  file: Opened,
  input: { readonly offset?: number | undefined; readonly limit?: number | undefined }
): Effect.Effect<Tools.ToolResult, HarnessError.HarnessError> =>
  Effect.suspend(() => {
    const result = FileWindow.read(
      file.open,
      { fromLine: input.offset ?? 1, maxLines: input.limit, maxBytes: WINDOW_BYTES },
      file.relative,
      CONFINED
    )
    if (result._tag === "past-end") {
      return Effect.succeed(
        failure(`${file.relative} has ${result.lines} lines; offset ${input.offset} is past the end`)
      )
    }
    if (result._tag !== "window") return refusal(file, result)
    const over = `${file.relative} is ${BoundedFile.size(result.size)}, larger than the limit of ${
      BoundedFile.size(MAX_READ_BYTES)
    }`
    if (result.text.includes("\0")) {
      return Effect.succeed(failure(`${over}, and binary; read a part of it with a shell tool (head -c, od, strings)`))
    }
    const next = result.atEnd
      ? "that is the end of the file"
      : result.lineCut
      ? `line ${result.firstLine} is longer than ${WINDOW_BYTES} bytes and is cut there; read the rest of it with a shell tool (tail -c +${
        result.endByte + 1
      } | head -c ${WINDOW_BYTES})`
      : `read the next window with offset ${result.lastLine + 1}`
    return Effect.succeed({
      ok: true,
      output:
        `${result.text}\n[${over}, so it is read a window at a time: lines ${result.firstLine}–${result.lastLine} ` +
        `(bytes ${result.startByte}–${result.endByte}) shown; ${next}]`,
      ...(result.firstLine === 1 && result.atEnd ? {} : { truncated: true })
    })
  })

// A guarded write: never blocks on a FIFO at the target, never truncates a non-regular file.
const writeBody = (file: Opened, content: string) =>
  Effect.suspend(() => {
    const result = BoundedFile.write(file.open, content, file.relative, CONFINED)
    return Effect.succeed(result._tag === "written" ? undefined : failure(result.message))
  })

/** @internal */
export const readFields = {
  path: PathField,
  offset: Schema.optional(
    Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)).annotations({ description: "First line to return (1-based)" })
  ),
  limit: Schema.optional(
    Schema.Int.pipe(Schema.between(1, 20_000)).annotations({ description: "How many lines to return" })
  )
}

/** @internal */
export const read: Tools.Tool<typeof readFields, FileEnv> = {
  name: "read",
  description: "Read a text file in the workspace. Use offset and limit (lines) for a window of a large file. " +
    "A file over 16 MiB is read a window of whole lines at a time: the result says how to read the next one.",
  input: Schema.Struct(readFields),
  governance: (input, context) => ({ tool: "read", paths: [governed(context.workspace, input.path)] }),
  execute: (input, context) =>
    withFile(context, input.path, (file) =>
      Effect.gen(function*() {
        const whole = BoundedFile.read(file.open, MAX_READ_BYTES, file.relative, CONFINED)
        if (whole._tag === "refused" && whole.reason === "too-large") return yield* readWindow(file, input)
        const text = yield* fromRead(file, whole)
        if (typeof text !== "string") return text
        if (text.includes("\0")) return failure(`${file.relative} is a binary file; read it with a shell tool instead`)
        const lines = text.split("\n")
        const start = (input.offset ?? 1) - 1
        if (start > 0 && start >= lines.length) {
          return failure(`${file.relative} has ${lines.length} lines; offset ${input.offset} is past the end`)
        }
        const window = lines.slice(start, input.limit === undefined ? undefined : start + input.limit)
        const cut = start > 0 || start + window.length < lines.length
        const shown = bound(window.join("\n"))
        const note = cut ? `\n[lines ${start + 1}–${start + window.length} of ${lines.length}]` : ""
        return {
          ok: true,
          output: shown.text + note,
          ...(shown.truncated ? { truncated: true } : {})
        }
      }))
}

/** @internal */
export const writeFields = {
  path: PathField,
  content: Schema.String.pipe(Schema.maxLength(5_000_000)).annotations({ description: "The whole new file content" })
}

/** @internal */
export const write: Tools.Tool<typeof writeFields, FileEnv> = {
  name: "write",
  description: "Create a file in the workspace, or replace its whole content. Parent directories are created.",
  input: Schema.Struct(writeFields),
  governance: (input, context) => ({ tool: "write", paths: [governed(context.workspace, input.path)] }),
  execute: (input, context) =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const resolved = yield* Paths.resolve(context.workspace, input.path)
      if (Either.isLeft(resolved)) return failure(resolved.left)
      const file = resolved.right
      const info = yield* fs.stat(file.absolute).pipe(Effect.option)
      if (info._tag === "Some" && info.value.type !== "File") {
        return failure(`${file.relative} exists and is not a regular file; choose another path`)
      }
      // Parent directories are made inside the pinned walk: never through a link (ADR 0564).
      return yield* pinned(yield* rootOf(context.workspace), file, true, (opened) =>
        Effect.gen(function*() {
          const refused = yield* writeBody(opened, input.content)
          if (refused !== undefined) return refused
          const bytes = new TextEncoder().encode(input.content).length
          return {
            ok: true,
            output: `${info._tag === "Some" ? "replaced" : "created"} ${file.relative} (${bytes} bytes)`,
            filesTouched: [file.relative]
          } satisfies Tools.ToolResult
        }))
    })
}

/** @internal */
export const editFields = {
  path: PathField,
  oldString: Schema.String.pipe(Schema.maxLength(1_000_000)).annotations({
    description: "Exact text to replace, including whitespace and indentation"
  }),
  newString: Schema.String.pipe(Schema.maxLength(1_000_000)).annotations({ description: "Replacement text" }),
  replaceAll: Schema.optional(Schema.Boolean.annotations({ description: "Replace every occurrence" }))
}

const count = (haystack: string, needle: string): number => {
  let n = 0
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) n++
  return n
}

/** @internal */
export const edit: Tools.Tool<typeof editFields, FileEnv> = {
  name: "edit",
  description:
    "Replace exact text in an existing file. oldString must occur exactly once (add surrounding lines to make it unique) unless replaceAll is true.",
  input: Schema.Struct(editFields),
  governance: (input, context) => ({ tool: "write", paths: [governed(context.workspace, input.path)] }),
  execute: (input, context) =>
    withFile(context, input.path, (file) =>
      Effect.gen(function*() {
        if (input.oldString === "") {
          return failure(`oldString is empty; to create or replace ${file.relative} use write`)
        }
        if (input.oldString === input.newString) {
          return failure("oldString and newString are identical; nothing to change")
        }
        const text = yield* readText(file)
        if (typeof text !== "string") return text
        const found = count(text, input.oldString)
        if (found === 0) {
          return failure(
            `oldString was not found in ${file.relative}; read the file and copy the exact text (whitespace included)`
          )
        }
        if (found > 1 && input.replaceAll !== true) {
          return failure(
            `oldString occurs ${found} times in ${file.relative}; include more surrounding text to make it unique, or set replaceAll`
          )
        }
        const next = input.replaceAll === true
          ? text.split(input.oldString).join(input.newString)
          : text.replace(input.oldString, () => input.newString)
        const refused = yield* writeBody(file, next)
        if (refused !== undefined) return refused
        return {
          ok: true,
          output: `replaced ${found} occurrence${found === 1 ? "" : "s"} in ${file.relative}`,
          filesTouched: [file.relative]
        }
      }))
}
