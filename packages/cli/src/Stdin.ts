/**
 * `-` as an argument: read a JSON value from standard input, bounded like a file
 * (`BoundedFile`): at most `maxBytes`, valid UTF-8, strict JSON.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as BoundedFile from "./BoundedFile.js"
import type { CommandFailure } from "./CliError.js"

/**
 * Where standard input comes from. The process's stdin unless a test provides text.
 *
 * @since 0.1.0
 * @category tags
 */
export class Stdin extends Context.Tag("@steward/cli/Stdin")<Stdin, {
  readonly read: (maxBytes: number) => Effect.Effect<Uint8Array, BoundedFile.FileRefused>
}>() {}

/**
 * The largest JSON value read from stdin.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxBytes = 16 * 1024 * 1024

const tooLarge = (limit: number) =>
  new BoundedFile.FileRefused({
    file: "stdin",
    reason: "too-large",
    message: `stdin: larger than the limit of ${limit} bytes`,
    limit
  })

const fromProcess = (limit: number): Effect.Effect<Uint8Array, BoundedFile.FileRefused> =>
  Effect.async<Uint8Array, BoundedFile.FileRefused>((resume) => {
    const chunks: Array<Buffer> = []
    let total = 0
    const onData = (chunk: Buffer) => {
      total += chunk.length
      if (total > limit) {
        cleanup()
        resume(Effect.fail(tooLarge(limit)))
      } else {
        chunks.push(chunk)
      }
    }
    const onEnd = () => {
      cleanup()
      resume(Effect.succeed(new Uint8Array(Buffer.concat(chunks))))
    }
    const onError = (error: Error) => {
      cleanup()
      resume(
        Effect.fail(new BoundedFile.FileRefused({ file: "stdin", reason: "io", message: `stdin: ${error.message}` }))
      )
    }
    const cleanup = () => {
      process.stdin.off("data", onData).off("end", onEnd).off("error", onError)
      process.stdin.pause()
    }
    process.stdin.on("data", onData).on("end", onEnd).on("error", onError)
    return Effect.sync(cleanup)
  })

/**
 * A layer giving fixed text as stdin (tests).
 *
 * @since 0.1.0
 * @category layers
 */
export const fromText = (text: string) =>
  Stdin.of({
    read: (limit) => {
      const bytes = new TextEncoder().encode(text)
      return bytes.length > limit ? Effect.fail(tooLarge(limit)) : Effect.succeed(bytes)
    }
  })

/**
 * Read standard input's bytes, at most `maxBytes` (for a command that parses the text itself).
 *
 * @since 0.1.0
 * @category io
 */
export const readBytes: Effect.Effect<Uint8Array, BoundedFile.FileRefused> = Effect.flatMap(
  Effect.serviceOption(Stdin),
  (source) => Option.match(source, { onNone: () => fromProcess(maxBytes), onSome: (s) => s.read(maxBytes) })
)

/**
 * Read one JSON value from stdin; `what` names it in errors ("config value", "--args").
 *
 * @since 0.1.0
 * @category io
 */
export const readJson = (what: string): Effect.Effect<unknown, CommandFailure> =>
  Effect.gen(function*() {
    const source = yield* Effect.serviceOption(Stdin)
    const read = Option.match(source, { onNone: () => fromProcess, onSome: (s) => s.read })
    const bytes = yield* read(maxBytes)
    const text = yield* Effect.try({
      try: () => new TextDecoder("utf-8", { fatal: true }).decode(bytes),
      catch: () =>
        new BoundedFile.FileRefused({ file: "stdin", reason: "invalid-utf8", message: "stdin: not valid UTF-8" })
    })
    return yield* BoundedFile.parseJson(text, `stdin (${what})`)
  }).pipe(Effect.mapError((error) => BoundedFile.toFailure(error)))
