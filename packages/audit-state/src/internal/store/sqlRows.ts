/**
 * How the SQL store lays a state document out in rows: the head row (every field but the record
 * collections, and which collections are present), one row per collection element, and the
 * codecs between those rows and values.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as AuditError from "../../AuditError.js"
import * as State from "../../State.js"
import * as Json from "../json.js"

/** Statements bind at most this many rows (SQLite's parameter limit, with room). */
export const CHUNK = 300

export const chunks = <A>(xs: ReadonlyArray<A>, n = CHUNK): ReadonlyArray<ReadonlyArray<A>> =>
  Array.from({ length: Math.ceil(xs.length / n) }, (_, k) => xs.slice(k * n, k * n + n))

/**
 * A float written as `12.0` or `1e3` must keep its spelling: only the strict reader does. In the
 * compact JSON this package writes, a number token follows `:`, `,` or `[` directly, and a float
 * token has a `.` or an exponent right after its leading digits; a string that happens to look
 * like one (`"ratio 3:1.5"`) only costs the strict parse, never a wrong value.
 */
const FLOAT_TOKEN = /[:,[]-?[0-9]+[.eE]/

/**
 * Parse a sealed text (ADR 0114) — a row or an event line this package wrote from a validated
 * value: the native parser reads it the same, unless it may hold a float spelling the strict
 * reader keeps.
 */
export const parseTrusted = (text: string): Json.Json | Json.JsonSyntaxError => {
  if (!FLOAT_TOKEN.test(text)) {
    try {
      return JSON.parse(text)
    } catch {
      // a spelling the native parser refuses (NaN, Infinity): the strict reader decides
    }
  }
  return Json.parse(text)
}

export const parseRow = (text: string, where: string, trusted = false): Effect.Effect<any, AuditError.AuditError> => {
  const v = trusted ? parseTrusted(text) : Json.parse(text)
  return v instanceof Json.JsonSyntaxError
    ? Effect.fail(AuditError.make("invalid-state", `stored ${where}: not valid JSON (${v.message})`))
    : Effect.succeed(v)
}

/** The stored head row. */
export interface HeadRow {
  readonly present: string
  readonly doc: string
}

/** One stored collection element (a type alias: `sql.insert` takes it as a record). */
export type RecordRow = {
  readonly collection: string
  readonly pos: number
  readonly doc: string
}

/** The head row's texts: the fields outside the collections, and the collections present. */
export const headTexts = (next: State.StateDoc) => {
  const rest: Record<string, unknown> = {}
  const present: Array<string> = []
  for (const [k, v] of Object.entries(next)) {
    if ((State.collections as ReadonlyArray<string>).includes(k)) {
      if (Array.isArray(v)) present.push(k)
    } else rest[k] = v
  }
  return { doc: Json.dumpsCompact(rest, false), present: JSON.stringify(present) }
}

/** The document the head row and the record rows (in collection, position order) make. */
export const assembleDoc = (head: HeadRow, rows: ReadonlyArray<RecordRow>, trusted: boolean) =>
  Effect.gen(function*() {
    const rest = (yield* parseRow(head.doc, "state head", trusted)) as Record<string, unknown>
    const present = (yield* parseRow(head.present, "state head", trusted)) as ReadonlyArray<string>
    const doc: Record<string, unknown> = { ...rest }
    for (const c of present) doc[c] = []
    for (const r of rows) {
      const arr = doc[r.collection] as Array<unknown> | undefined
      if (arr === undefined) {
        return yield* Effect.fail(
          AuditError.make("invalid-state", `stored row of unknown collection '${r.collection}'`)
        )
      }
      arr.push(yield* parseRow(r.doc, `${r.collection}[${r.pos}]`, trusted))
    }
    return doc as unknown as State.StateDoc
  })

/**
 * The document a sealed store holds (ADR 0114, ADR 0134), from `[collection, doc]` value rows in
 * collection, position order: a collection whose rows hold no float spelling is parsed as one
 * array text in one native call, instead of one row object and one parse per record.
 */
export const assembleSealed = (head: HeadRow, rows: ReadonlyArray<readonly [string, string]>) =>
  Effect.gen(function*() {
    const rest = (yield* parseRow(head.doc, "state head", true)) as Record<string, unknown>
    const present = (yield* parseRow(head.present, "state head", true)) as ReadonlyArray<string>
    const doc: Record<string, unknown> = { ...rest }
    for (const c of present) doc[c] = []
    let start = 0
    while (start < rows.length) {
      const c = rows[start]![0]
      let end = start
      let plain = true
      while (end < rows.length && rows[end]![0] === c) {
        if (plain && FLOAT_TOKEN.test(rows[end]![1])) plain = false
        end++
      }
      const arr = doc[c] as Array<unknown> | undefined
      if (arr === undefined) {
        return yield* Effect.fail(AuditError.make("invalid-state", `stored row of unknown collection '${c}'`))
      }
      const texts = rows.slice(start, end).map((r) => r[1])
      const whole = plain ? parseArray(texts) : undefined
      if (whole !== undefined) doc[c] = whole
      else for (let k = 0; k < texts.length; k++) arr.push(yield* parseRow(texts[k]!, `${c}[${k}]`, true))
      start = end
    }
    return doc as unknown as State.StateDoc
  })

/** Rows as one native parse of their array text; `undefined` when the native parser refuses it. */
const parseArray = (texts: ReadonlyArray<string>): Array<unknown> | undefined => {
  try {
    return JSON.parse("[" + texts.join(",") + "]")
  } catch {
    return undefined
  }
}

/**
 * The rows of collection `c` a commit from `prev` to `next` rewrites (elements are frozen and
 * kept by identity, so this compares pointers), and the length it cuts the collection to.
 */
export const changedRows = (prev: State.StateDoc | undefined, next: State.StateDoc, c: State.Collection) => {
  const before = (prev?.[c] ?? []) as ReadonlyArray<unknown>
  const after = (next[c] ?? []) as ReadonlyArray<unknown>
  if (before === after) return undefined
  const upserts: Array<RecordRow> = []
  for (let k = 0; k < after.length; k++) {
    if (before[k] !== after[k]) upserts.push({ collection: c, pos: k, doc: Json.dumpsCompact(after[k], false) })
  }
  return { upserts, truncateAt: before.length > after.length ? after.length : undefined }
}

export const decodeKeyRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({
  session_id: Schema.String,
  role: Schema.String,
  source_digest: Schema.String,
  charter_slice: Schema.NullOr(Schema.String)
})))
