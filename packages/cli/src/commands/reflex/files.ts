/**
 * What `steward reflex` reads from disk: custom organisms from the state directory, programs to
 * check, and import files — each a regular file, size-checked before it is read; imports are
 * streamed and refused at the first line past the line bound.
 *
 * @since 0.2.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Import from "@steward/reflex-core/Import"
import type * as Reflexes from "@steward/reflex-core/Reflexes"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as BoundedFile from "../../BoundedFile.js"
import { cannotRun } from "../../CliError.js"

/**
 * Largest organism file read (`check`, custom programs).
 *
 * @since 0.2.0
 * @category constants
 */
export const maxProgramBytes = 64 * 1024

/**
 * Largest import file read.
 *
 * @since 0.2.0
 * @category constants
 */
export const maxImportBytes = 64 * 1024 * 1024

/**
 * Read `<state>/reflexes/<name>.algal.json` for each reflex: a regular file (no symlink, no FIFO)
 * of at most 64 KiB. Absent ⇒ not listed (the shipped program runs silently).
 *
 * @since 0.1.0
 * @category io
 */
export const readCustomPrograms = Effect.fn("reflex.readCustomPrograms")(function*(
  dir: string,
  names: ReadonlyArray<string>
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const out: Record<string, Reflexes.CustomSource> = {}
  for (const name of names) {
    const file = path.join(dir, "reflexes", `${name}.algal.json`)
    const link = yield* fs.readLink(file).pipe(Effect.option)
    if (Option.isSome(link)) {
      out[name] = { file, text: Either.left(`${file} is a symbolic link`) }
      continue
    }
    const info = yield* fs.stat(file).pipe(Effect.option)
    if (Option.isNone(info)) continue
    if (info.value.type !== "File") {
      out[name] = { file, text: Either.left(`${file} is not a regular file`) }
      continue
    }
    if (Number(info.value.size) > maxProgramBytes) {
      out[name] = { file, text: Either.left(`${file} is larger than ${maxProgramBytes} bytes`) }
      continue
    }
    // read boundedly: the file could have been swapped for a FIFO or grown since the stat
    const text = yield* BoundedFile.readText(file, { maxBytes: maxProgramBytes }).pipe(Effect.either)
    out[name] = { file, text: Either.mapLeft(text, (e) => e.message) }
  }
  return out
})

/**
 * Read a small text file whole through `BoundedFile`: a regular file of at most `max` bytes (a
 * FIFO or device refused unopened, the size checked before reading), valid UTF-8.
 *
 * @since 0.2.0
 * @category io
 */
export const readText = (file: string, max: number) =>
  BoundedFile.readText(file, { maxBytes: max }).pipe(Effect.mapError((e) => BoundedFile.toFailure(e)))

/**
 * Read an import file boundedly: a regular file of at most 64 MiB (kind and size checked on the
 * path first), then read from the descriptor `BoundedFile.foldOpened` opened without blocking and
 * `fstat`-checked — so a FIFO or device swapped in after the check is refused, not waited on — in
 * 64 KiB chunks, refused as soon as one line runs past `Import.MAX_LINE_BYTES`, before that line
 * (or the rest of the file) is read, decoded or parsed.
 *
 * @since 0.2.0
 * @category io
 */
export const readImport = (file: string) =>
  Effect.zipRight(
    BoundedFile.check(file, { maxBytes: maxImportBytes }).pipe(Effect.mapError((e) => BoundedFile.toFailure(e))),
    readImportOpened(file)
  )

/**
 * The part of `readImport` after the check: open, `fstat`, stream with the line bound, decode.
 *
 * @internal
 */
export const readImportOpened = (file: string) =>
  Effect.suspend(() => {
    // decoded as it arrives: the bytes are not kept beside the text (a 60 MB history once held
    // its chunks, their concatenation and the decoded string at the same time)
    const decoder = new TextDecoder("utf-8", { fatal: true })
    const parts: Array<string> = []
    const invalid = () => cannotRun("invalid-input", `${file}: not valid UTF-8`, { file })
    let line = 1
    let run = 0
    const onChunk = (chunk: Uint8Array) =>
      Effect.suspend(() => {
        let at = 0
        for (;;) {
          const nl = chunk.indexOf(10, at)
          run += (nl < 0 ? chunk.length : nl) - at
          if (run > Import.MAX_LINE_BYTES) {
            return Effect.fail(cannotRun(
              "invalid-import",
              `${file}:${line}: line is longer than ${Import.MAX_LINE_BYTES} bytes (refused before parsing)`,
              { file, line, limit: Import.MAX_LINE_BYTES }
            ))
          }
          if (nl < 0) break
          line++
          run = 0
          at = nl + 1
        }
        return Effect.try({ try: () => void parts.push(decoder.decode(chunk, { stream: true })), catch: invalid })
      })
    return BoundedFile.foldOpened(file, { maxBytes: maxImportBytes }, onChunk).pipe(
      Effect.mapError((e) => e instanceof BoundedFile.FileRefused ? BoundedFile.toFailure(e) : e),
      Effect.flatMap(() =>
        Effect.try({
          try: () => {
            parts.push(decoder.decode())
            return parts.join("")
          },
          catch: invalid
        })
      )
    )
  })
