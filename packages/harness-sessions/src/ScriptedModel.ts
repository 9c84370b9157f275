/**
 * A scripted `LanguageModel` for tests and demos: JSONL, one model turn per line, served in
 * order. A line is `{"text"?, "toolCalls"?: [{"name","input"}], "usage"?: {"input","cachedInput",
 * "output"}, "for"?: "agent" | "checker", "invalid"?: true}`; lines `for: "checker"` answer the
 * goal loop's separate checker calls (`Goal.Checker`), the others the run's own calls. Blank lines
 * and lines starting with `//` are skipped. A call past the last line fails the model call and
 * uses no turn. Each tool's input schema: `Tools.describe()` (`steward session tools`).
 *
 * A failed call does not use up its turn (ADR 0574): when the harness refused every call of a
 * turn as invalid (an unknown tool, an input its schema refuses), the next model call fails
 * naming the turn and the harness's message, and the turn stays the next one to serve — fix the
 * line and continue the session (`position` counts the turns a stored session used). A turn marked
 * `"invalid": true` says its calls are meant to be refused (a test of the harness's answer): it is
 * used up like any other, and the next line is served.
 *
 * @example
 * ```ts
 * import { ScriptedModel } from "@steward/harness-sessions"
 *
 * const ModelLive = ScriptedModel.layerFromText([
 *   `{"toolCalls":[{"name":"shell","input":{"command":"ls"}}]}`,
 *   `{"text":"Done: the listing is above.","usage":{"input":120,"output":8}}`
 * ].join("\n"))
 * ```
 *
 * @since 0.1.0
 */
import * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Goal from "./Goal.js"
import { HarnessError } from "./HarnessError.js"
import * as BoundedFile from "./internal/boundedFile.js"
import * as StrictJson from "./internal/strictJson.js"

/**
 * The largest script file read (bytes); a larger one is refused before it is read.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_SCRIPT_BYTES = 16 * 1024 * 1024

/**
 * How deep one line of a script may nest.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_DEPTH = 64

/**
 * One scripted turn.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Turn = Schema.Struct({
  text: Schema.optional(Schema.String),
  toolCalls: Schema.optional(Schema.Array(Schema.Struct({
    name: Schema.String.pipe(Schema.minLength(1)),
    input: Schema.optionalWith(Schema.Unknown, { default: () => ({}) })
  }))),
  usage: Schema.optional(Schema.Struct({
    input: Schema.optional(Schema.NonNegativeInt),
    cachedInput: Schema.optional(Schema.NonNegativeInt),
    output: Schema.optional(Schema.NonNegativeInt)
  })),
  for: Schema.optionalWith(Schema.Literal("agent", "checker"), { default: () => "agent" as const }),
  invalid: Schema.optional(Schema.Literal(true))
})

/**
 * @since 0.1.0
 * @category models
 */
export type Turn = typeof Turn.Type

const decodeTurn = Schema.decodeUnknownEither(Turn, { onExcessProperty: "error" })

/**
 * Parse a script (typed `INVALID_INPUT` naming the line and the field). `file` names the source.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (text: string, file = "script"): Effect.Effect<ReadonlyArray<Turn>, HarnessError> =>
  Effect.suspend(() => {
    const turns: Array<Turn> = []
    const lines = text.split(/\r?\n/)
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.trim()
      if (line === "" || line.startsWith("//")) continue
      const where = `${file}:${i + 1}`
      let json: unknown
      try {
        json = JSON.parse(line)
      } catch (error) {
        return Effect.fail(invalid(`${where}: not JSON (${(error as Error).message})`))
      }
      // duplicate keys (JSON.parse keeps the last) and nesting past the bound are refused (issue 16)
      const problem = StrictJson.firstProblem(line, MAX_DEPTH)
      if (problem !== undefined) {
        return Effect.fail(invalid(
          problem.kind === "duplicate-key"
            ? `${where}: duplicate key "${problem.key}"`
            : `${where}: nested deeper than ${problem.limit} levels`
        ))
      }
      const turn = decodeTurn(json)
      if (turn._tag === "Left") {
        return Effect.fail(invalid(`${where}: ${ParseResult.TreeFormatter.formatErrorSync(turn.left)}`))
      }
      if (turn.right.text === undefined && (turn.right.toolCalls ?? []).length === 0) {
        return Effect.fail(invalid(`${where}: a turn needs text or toolCalls`))
      }
      turns.push(turn.right)
    }
    if (turns.length === 0) return Effect.fail(invalid(`${file}: the script has no turns`))
    return Effect.succeed(turns)
  })

const invalid = (message: string) => new HarnessError({ code: "INVALID_INPUT", message })

const parts = (turn: Turn, n: number): Array<Response.PartEncoded> => {
  const calls = turn.toolCalls ?? []
  const out: Array<Response.PartEncoded> = []
  if (turn.text !== undefined) out.push({ type: "text", text: turn.text })
  calls.forEach((call, i) =>
    out.push({ type: "tool-call", id: `call_${n}_${i + 1}`, name: call.name, params: call.input })
  )
  const input = turn.usage?.input
  const output = turn.usage?.output
  out.push({
    type: "finish",
    reason: calls.length > 0 ? "tool-calls" : "stop",
    usage: {
      inputTokens: input,
      outputTokens: output,
      totalTokens: input === undefined && output === undefined ? undefined : (input ?? 0) + (output ?? 0),
      reasoningTokens: undefined,
      cachedInputTokens: turn.usage?.cachedInput
    }
  })
  return out
}

const toStream = (encoded: Array<Response.PartEncoded>): Array<Response.StreamPartEncoded> =>
  encoded.flatMap((part): Array<Response.StreamPartEncoded> =>
    part.type === "text"
      ? [
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: part.text },
        { type: "text-end", id: "t" }
      ]
      : [part as Response.StreamPartEncoded]
  )

/**
 * What a failed model call says when the turn before it made only invalid calls: the marker
 * `position` reads back from a stored session (the turn was not used up).
 *
 * @since 0.1.0
 * @category constants
 */
export const NOT_USED_UP = "the turn is not used up"

// How the harness answers a call it could not take as made (`tool.error`).
const INVALID_ANSWER = /^(invalid call to |unknown tool |invalid tool name )/

// The harness's answers to turn `n`'s calls in the prompt, when every one refused the call as
// invalid: the first answer's text; else undefined.
const refusedAsInvalid = (prompt: Prompt.Prompt, n: number): string | undefined => {
  const answers = prompt.content.flatMap((m) =>
    m.role === "tool"
      ? m.content.filter((p) => p.type === "tool-result" && p.id.startsWith(`call_${n}_`))
      : []
  ) as ReadonlyArray<{ readonly isFailure: boolean; readonly result: unknown }>
  const invalid = answers.every((a) => a.isFailure && INVALID_ANSWER.test(String(a.result)))
  return answers.length > 0 && invalid ? String(answers[0]!.result) : undefined
}

const failure = (description: string) =>
  Effect.fail(new AiError.UnknownError({ module: "ScriptedModel", method: "generateText", description }))

/**
 * A `LanguageModel` serving `turns` in order, starting after the first `offset` (a resumed
 * session skips the turns its stored steps already hold; `position` counts them). A turn whose
 * calls were all refused as invalid is not used up (see the module's doc).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeModel = (turns: ReadonlyArray<Turn>, offset = 0) =>
  Effect.suspend(() => {
    let next = offset
    const serve = (prompt: Prompt.Prompt) =>
      Effect.suspend(() => {
        const last = next - 1
        const refused = last >= offset && turns[last]?.invalid !== true ? refusedAsInvalid(prompt, last + 1) : undefined
        if (refused !== undefined) {
          next = last
          return failure(
            `script turn ${last + 1}: the harness refused its call(s) as invalid (${refused}); ` +
              `${NOT_USED_UP} — fix it and continue, or mark it "invalid": true`
          )
        }
        const n = next
        const turn = turns[n]
        if (turn === undefined) return failure(`the script has ${turns.length} turns; call ${n + 1} has none`)
        next++
        return Effect.succeed(parts(turn, n + 1))
      })
    return LanguageModel.make({
      generateText: (options) => serve(options.prompt),
      streamText: (options) =>
        Stream.flatMap(serve(options.prompt), (encoded) => Stream.fromIterable(toStream(encoded)))
    })
  })

/**
 * The turns a stored session used of each queue (the offsets a later `continue`, `approve` or
 * `reject` serves from): every model call that was served a turn; a call that failed — past the
 * script's end, or after a turn whose calls were all refused as invalid (that turn is not used
 * up) — serves none.
 *
 * @since 0.1.0
 * @category layers
 */
export const position = (
  events: ReadonlyArray<{ readonly type: string; readonly data: unknown }>
): { readonly agent: number; readonly checker: number } => {
  let agent = 0
  let checker = 0
  for (const e of events) {
    if (e.type !== "model.call") continue
    const d = (e.data ?? {}) as { readonly for?: unknown; readonly error?: unknown }
    const served = d.error === undefined ? 1 : String(d.error).includes(NOT_USED_UP) ? -1 : 0
    if (d.for === "checker") checker += served
    else agent += served
  }
  return { agent: Math.max(0, agent), checker: Math.max(0, checker) }
}

/**
 * Offsets into the two queues (turns already served, e.g. by a stored session).
 *
 * @since 0.1.0
 * @category models
 */
export interface Offsets {
  readonly agent?: number
  readonly checker?: number
}

/**
 * The `LanguageModel` (agent lines) and the goal `Checker` (checker lines) of a parsed script.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  turns: ReadonlyArray<Turn>,
  offsets: Offsets = {}
): Layer.Layer<LanguageModel.LanguageModel | Goal.Checker> =>
  Layer.merge(
    Layer.effect(LanguageModel.LanguageModel, makeModel(turns.filter((t) => t.for === "agent"), offsets.agent)),
    Layer.effect(
      Goal.Checker,
      Effect.map(makeModel(turns.filter((t) => t.for === "checker"), offsets.checker), (model) => ({ model }))
    )
  )

/**
 * The layers of a script's text (fails with `INVALID_INPUT` naming the line).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFromText = (
  text: string,
  offsets: Offsets = {},
  file?: string
): Layer.Layer<LanguageModel.LanguageModel | Goal.Checker, HarnessError> =>
  Layer.unwrapEffect(Effect.map(parse(text, file), (turns) => layer(turns, offsets)))

/**
 * The layers of a script file, read bounded: a FIFO, device or socket is refused without
 * blocking, a file over `MAX_SCRIPT_BYTES` is refused before it is read, and the text must be
 * valid UTF-8 (`INVALID_INPUT` naming the file and the limit).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFromFile = (
  file: string,
  offsets: Offsets = {}
): Layer.Layer<LanguageModel.LanguageModel | Goal.Checker, HarnessError> =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const result = BoundedFile.read(file, MAX_SCRIPT_BYTES)
    if (result._tag === "missing") return yield* invalid(`cannot read script ${file}: no such file`)
    if (result._tag === "refused") return yield* invalid(`cannot read script ${result.message}`)
    const text = yield* Effect.try({
      try: () => new TextDecoder("utf-8", { fatal: true }).decode(result.bytes),
      catch: () => invalid(`cannot read script ${file}: not valid UTF-8`)
    })
    return layerFromText(text, offsets, file)
  }))
