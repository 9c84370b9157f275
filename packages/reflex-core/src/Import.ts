/**
 * Import JSONL history: one object per non-blank line (at most 4,096), unknown fields rejected,
 * every error naming its line. Parsing is pure; `Reflexes.importHistory` stores atomically.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { Judge } from "./Features.js"
import type { ImportExample, ReflexDefinition } from "./Reflex.js"
import * as ReflexError from "./ReflexError.js"

/**
 * Maximum lines in one import.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_LINES = 4096

/**
 * One import line.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ImportLine = Schema.Struct({
  id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)),
  text: Schema.String,
  label: Schema.Boolean,
  weight: Schema.optional(
    Schema.Number.pipe(Schema.filter((w) => (Number.isFinite(w) && w > 0 && w <= 1) || "a weight in (0, 1]"))
  ),
  judge: Schema.optional(Schema.Struct({
    difficulty: Judge.fields.difficulty,
    scope: Judge.fields.scope,
    ambiguity: Judge.fields.ambiguity,
    stakes: Judge.fields.stakes,
    frontier: Judge.fields.frontier
  })),
  head: Schema.optional(Schema.String),
  tool_calls: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.between(0, 4294967295)))
})

/**
 * @since 0.1.0
 * @category models
 */
export type ImportLine = typeof ImportLine.Type

/**
 * A parsed line with the features its reflex reads.
 *
 * @since 0.1.0
 * @category models
 */
export interface ParsedLine extends ImportExample {
  readonly line: number
  readonly id: string
  readonly label: boolean
  readonly weight: number
}

const decodeLine = Schema.decodeUnknownEither(ImportLine, { onExcessProperty: "error" })

/**
 * Parse an import file for a reflex. Fails with `invalid-import` naming the first bad line.
 *
 * @since 0.1.0
 * @category constructors
 */
export const parse = Effect.fn("Import.parse")(function*(
  definition: ReflexDefinition<any>,
  text: string,
  file: string = "import"
) {
  const toLine = definition.importExample
  if (toLine === undefined) {
    return yield* ReflexError.make("invalid-import", `reflex ${definition.name} does not accept imports`)
  }
  const out: Array<ParsedLine> = []
  const lines = text.split("\n")
  let count = 0
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim()
    if (raw.length === 0) continue
    count++
    const where = `${file}:${i + 1}`
    if (count > MAX_LINES) {
      return yield* ReflexError.make("invalid-import", `${where}: more than ${MAX_LINES} lines`, { line: i + 1 })
    }
    let json: unknown
    try {
      json = JSON.parse(raw)
    } catch (error) {
      return yield* ReflexError.make("invalid-import", `${where}: not valid JSON (${(error as Error).message})`, {
        line: i + 1
      })
    }
    const decoded = decodeLine(json)
    if (Either.isLeft(decoded)) {
      const issue = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)[0]
      const path = issue === undefined || issue.path.length === 0 ? "" : ` ${issue.path.map(String).join(".")}:`
      return yield* ReflexError.make(
        "invalid-import",
        `${where}:${path} ${issue?.message ?? "invalid line"}`,
        { line: i + 1 }
      )
    }
    const line = decoded.right
    const example = toLine({ text: line.text, head: line.head, toolCalls: line.tool_calls, judge: line.judge })
    if (Either.isLeft(example)) {
      return yield* ReflexError.make("invalid-import", `${where}: ${example.left}`, { line: i + 1 })
    }
    out.push({ ...example.right, line: i + 1, id: line.id, label: line.label, weight: line.weight ?? 1 })
  }
  return out
})
