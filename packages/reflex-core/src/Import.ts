/**
 * Import JSONL history: one object per non-blank line (at most 4,096), unknown fields rejected,
 * every error naming its line. Each line is bounded before it is parsed (at most 1 MiB, nested at
 * most 32 deep, no repeated key), its strings must be well-formed UTF-16, and an id repeated in
 * one file must repeat the same example. Parsing is pure; `Reflexes.importHistory` stores
 * atomically.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { Judge } from "./Features.js"
import * as StrictJson from "./internal/strictJson.js"
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
 * Maximum bytes (UTF-8) of one import line, checked before it is parsed.
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_LINE_BYTES = 1024 * 1024

/**
 * Maximum nesting of one import line (objects and arrays), checked before it is parsed.
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_DEPTH = 32

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

const wellFormed = <S extends Schema.Schema.Any>(schema: S) =>
  schema.pipe(
    Schema.filter((s) => !loneSurrogate.test(s as string) || "is not well-formed UTF-16 (a lone surrogate)")
  )

/**
 * One import line.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ImportLine = Schema.Struct({
  id: wellFormed(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))),
  text: wellFormed(Schema.String),
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
  head: Schema.optional(wellFormed(Schema.String)),
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

const sameExample = (a: ParsedLine, b: ParsedLine): boolean =>
  a.label === b.label && a.weight === b.weight && JSON.stringify(a.features) === JSON.stringify(b.features) &&
  JSON.stringify(a.evidence) === JSON.stringify(b.evidence)

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
  const seen = new Map<string, ParsedLine>()
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
    const bytes = Buffer.byteLength(raw, "utf8")
    if (bytes > MAX_LINE_BYTES) {
      return yield* ReflexError.make(
        "invalid-import",
        `${where}: line is ${bytes} bytes; at most ${MAX_LINE_BYTES} (refused before parsing)`,
        { line: i + 1, limit: MAX_LINE_BYTES }
      )
    }
    const problem = StrictJson.scan(raw, MAX_DEPTH)
    if (problem !== undefined) {
      return yield* ReflexError.make(
        "invalid-import",
        problem._tag === "Depth"
          ? `${where}: nested deeper than ${problem.limit} levels`
          : `${where}: duplicate key ${JSON.stringify(problem.key)}`,
        { line: i + 1 }
      )
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
    const parsed: ParsedLine = {
      ...example.right,
      line: i + 1,
      id: line.id,
      label: line.label,
      weight: line.weight ?? 1
    }
    // An id names one example per head: repeating it is idempotent only when nothing differs.
    const key = `${parsed.head}\0${parsed.id}`
    const first = seen.get(key)
    if (first !== undefined) {
      if (sameExample(first, parsed)) continue
      return yield* ReflexError.make(
        "invalid-import",
        `${where}: id ${JSON.stringify(parsed.id)} repeats line ${first.line} with a different example`,
        { line: i + 1, first: first.line }
      )
    }
    seen.set(key, parsed)
    out.push(parsed)
  }
  return out
})
