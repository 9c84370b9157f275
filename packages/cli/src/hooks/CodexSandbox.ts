/**
 * Codex's own sandbox for the turn a hook decides in. Codex runs every shell command of
 * `read-only` and `workspace-write` inside its own OS sandbox (bubblewrap on Linux), in which
 * Steward's sandbox cannot start a second one: a command rewritten into `steward sandbox` does
 * not run there. Codex does not put its mode in the hook's input, but its transcript (the
 * rollout file the input names) opens every turn with a `turn_context` record carrying
 * `sandbox_policy`. That record is read here, from the end of the file, bounded (ADR 0007).
 *
 * @since 0.3.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"

/**
 * Codex's sandbox for this turn: `contained` — Codex confines the command (writes only to the
 * workspace and the temp directories, or nowhere at `read-only`; no network); `open` — Codex's
 * sandbox stands but lets the network through, so neither boundary contains the command; `none` —
 * no sandbox of Codex's (`danger-full-access`, `--dangerously-bypass-approvals-and-sandbox`), so
 * Steward's own can run; `unknown` — the transcript does not say.
 *
 * @since 0.3.0
 * @category models
 */
export type Mode =
  | { readonly _tag: "contained"; readonly policy: "read-only" | "workspace-write" }
  | { readonly _tag: "open"; readonly policy: string }
  | { readonly _tag: "none"; readonly policy: string }
  | { readonly _tag: "unknown"; readonly why: string }

/** The most of the transcript's end that is read to find the turn's context. */
const MAX_TAIL_BYTES = 8 * 1024 * 1024
const CHUNK_BYTES = 256 * 1024

const TurnContext = Schema.parseJson(Schema.Struct({
  type: Schema.Literal("turn_context"),
  payload: Schema.Struct({
    turn_id: Schema.optional(Schema.String),
    sandbox_policy: Schema.Struct({
      type: Schema.String,
      network_access: Schema.optional(Schema.Boolean)
    })
  })
}))
const decodeContext = Schema.decodeUnknownEither(TurnContext)

/**
 * What one `sandbox_policy` means for a command.
 *
 * @since 0.3.0
 * @category constructors
 */
export const fromPolicy = (policy: { readonly type: string; readonly network_access?: boolean | undefined }): Mode => {
  switch (policy.type) {
    case "read-only":
      return { _tag: "contained", policy: "read-only" }
    case "workspace-write":
      return policy.network_access === true
        ? { _tag: "open", policy: "workspace-write with network access" }
        : { _tag: "contained", policy: "workspace-write" }
    case "danger-full-access":
      return { _tag: "none", policy: policy.type }
    default:
      // A mode this build does not know: neither claimed as a boundary nor assumed absent.
      return { _tag: "unknown", why: `Codex's sandbox policy "${policy.type}" is not one Steward knows` }
  }
}

/**
 * The turn contexts in `text` (whole lines), newest first: the mode of the turn `turn` when one
 * names it, and the newest mode of any turn.
 *
 * @since 0.3.0
 * @category reading
 */
export const fromLines = (
  text: string,
  turn: string | undefined
): { readonly turn: Mode | undefined; readonly newest: Mode | undefined } => {
  let newest: Mode | undefined
  const lines = text.split("\n")
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!
    if (!line.includes("\"turn_context\"")) continue
    const record = decodeContext(line)
    if (Either.isLeft(record)) continue
    const mode = fromPolicy(record.right.payload.sandbox_policy)
    newest ??= mode
    if (turn !== undefined && record.right.payload.turn_id === turn) return { turn: mode, newest }
  }
  return { turn: undefined, newest }
}

/**
 * Read the turn's mode from the end of `transcript`, at most 8 MiB back: the context naming the
 * turn, else the newest one read (Codex writes each turn's context as the turn starts).
 *
 * @since 0.3.0
 * @category reading
 */
export const read = (transcript: string | undefined, turn: string | undefined) =>
  Effect.gen(function*() {
    if (transcript === undefined) return { _tag: "unknown", why: "the hook input names no transcript" } as Mode
    const fs = yield* FileSystem.FileSystem
    return yield* Effect.scoped(Effect.gen(function*() {
      const file = yield* fs.open(transcript, { flag: "r" })
      const size = Number((yield* file.stat).size)
      let end = size
      // The cut first line of the part already read: completed by the next (older) chunk.
      let carry = Buffer.alloc(0)
      let newest: Mode | undefined
      while (end > 0 && size - end < MAX_TAIL_BYTES) {
        const start = Math.max(0, end - CHUNK_BYTES)
        yield* file.seek(start, "start")
        const chunk = Buffer.alloc(end - start)
        let got = 0
        while (got < chunk.length) {
          const n = Number(yield* file.read(chunk.subarray(got)))
          if (n === 0) break
          got += n
        }
        let bytes = Buffer.concat([chunk.subarray(0, got), carry])
        end = start
        if (start > 0) {
          const cut = bytes.indexOf(10)
          carry = cut === -1 ? bytes : bytes.subarray(0, cut)
          bytes = cut === -1 ? Buffer.alloc(0) : bytes.subarray(cut + 1)
        }
        const found = fromLines(bytes.toString("utf8"), turn)
        newest ??= found.newest
        if (found.turn !== undefined) return found.turn
        if (turn === undefined && newest !== undefined) return newest
      }
      return newest ??
        ({ _tag: "unknown", why: `no turn context in the last ${MAX_TAIL_BYTES} bytes of ${transcript}` } as Mode)
    }))
  }).pipe(
    Effect.catchAll((e) =>
      Effect.succeed<Mode>({ _tag: "unknown", why: `cannot read Codex's transcript: ${e.message}` })
    )
  )
