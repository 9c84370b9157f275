/**
 * Stored event rows, both ways. On write every event input is checked against the event schema
 * (a typed `INVALID_INPUT`, before anything is written); on read a row of our own table is
 * decoded by a fast path that performs the same checks as the Schema decoder with plain type
 * tests and builds the event without validating it a second time. A row the fast path does not
 * accept goes through the Schema decoder, so a damaged row fails exactly as it always did. The
 * differential test (`test/Rows.test.ts`) holds the two decoders equal on arbitrary rows.
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Event from "../Event.js"
import { HarnessError } from "../HarnessError.js"
import * as Limits from "../Limits.js"
import * as EventType from "./eventType.js"

// PostgreSQL returns BIGINT columns as decimal strings unless the host's client parses int8.
const DbInteger = Schema.Union(Schema.Number, Schema.NumberFromString)

/** An event row as the Schema decoder reads it. */
export const EventRow = Schema.Struct({
  seq: Schema.Number,
  at: DbInteger,
  run: Schema.NullOr(Schema.String),
  type: Schema.String,
  data: Schema.parseJson()
})

const decodeRow = Schema.decodeUnknownEither(EventRow)
// The class's own field checks (what its validating constructor runs).
const validEvent = Schema.validateEither(Schema.Struct(Event.SessionEvent.fields))

// A damaged row, named by its session and seq, with the first problem on one line.
const damaged = (session: string, row: unknown) => (error: ParseResult.ParseError) => {
  const seq = (row as { readonly seq?: unknown } | null)?.seq
  const at = typeof seq === "number" && Number.isInteger(seq) ? seq : null
  const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  const where = issue === undefined || issue.path.length === 0 ? "" : `${issue.path.map(String).join(".")}: `
  return new HarnessError({
    code: "STORE_FAILED",
    message: `session store: reading events failed: session ${session}: the stored event seq ${
      at ?? "?"
    } is damaged: ${where}${Limits.cut((issue?.message ?? error.message).replace(/\s+/g, " "), 300)}`,
    damaged: { session, seq: at }
  })
}

/** The reference decoder: the row through its Schema, then the event's own validation. */
export const decodeSchema = (session: string, row: unknown): Either.Either<Event.SessionEvent, HarnessError> =>
  Either.flatMap(
    Either.mapLeft(decodeRow(row), damaged(session, row)),
    (r) =>
      Either.mapLeft(
        validEvent({ session, seq: r.seq, at: r.at, run: r.run, type: r.type, data: r.data }),
        damaged(session, row)
      ).pipe(Either.map((props) => new Event.SessionEvent(props, true)))
  )

const DECIMAL = /^-?[0-9]+$/
const isEventType = EventType.is

/**
 * The fast path: the same checks as `decodeSchema` as plain tests (`seq` and `at` integers,
 * `at` also as a PostgreSQL decimal string, `run` a string or null, `type` an event type, `data`
 * JSON text), then the event built without a second validation. Anything else falls back to
 * `decodeSchema`, which produces the error.
 */
export const decode = (session: string, row: unknown): Either.Either<Event.SessionEvent, HarnessError> => {
  if (typeof row === "object" && row !== null) {
    const r = row as Record<string, unknown>
    const seq = r["seq"]
    const rawAt = r["at"]
    const at = typeof rawAt === "number"
      ? rawAt
      : typeof rawAt === "string" && DECIMAL.test(rawAt)
      ? Number(rawAt)
      : NaN
    const run = r["run"]
    const type = r["type"]
    const data = r["data"]
    if (
      Number.isInteger(seq) && Number.isInteger(at) && (run === null || typeof run === "string") && isEventType(type) &&
      typeof data === "string"
    ) {
      let parsed: unknown
      try {
        parsed = JSON.parse(data)
      } catch {
        return decodeSchema(session, row)
      }
      return Either.right(
        new Event.SessionEvent({ session, seq: seq as number, at, run, type, data: parsed }, true)
      )
    }
  }
  return decodeSchema(session, row)
}

/** Decode rows in order; the first bad row fails the read. */
export const decodeAll = (
  session: string,
  rows: ReadonlyArray<unknown>
): Either.Either<Array<Event.SessionEvent>, HarnessError> => {
  const out = new Array<Event.SessionEvent>(rows.length)
  for (let i = 0; i < rows.length; i++) {
    const event = decode(session, rows[i])
    if (Either.isLeft(event)) return Either.left(event.left)
    out[i] = event.right
  }
  return Either.right(out)
}

/** A stored step row (`harness_steps`): its index and its result as JSON text. */
export const StepRow = Schema.Struct({ idx: Schema.compose(DbInteger, Schema.Int), result: Schema.parseJson() })
const decodeStepRows = Schema.decodeUnknownEither(Schema.Array(StepRow))

/** A run's stored step results by index; a damaged row is a typed `STORE_FAILED`. */
export const decodeSteps = (rows: ReadonlyArray<unknown>): Either.Either<Map<number, unknown>, HarnessError> =>
  Either.match(decodeStepRows(rows), {
    onLeft: (e) =>
      Either.left(
        new HarnessError({ code: "STORE_FAILED", message: `session store: reading steps failed: ${e.message}` })
      ),
    onRight: (steps) => Either.right(new Map(steps.map((r) => [r.idx, r.result])))
  })

// What `commit` checks of an event before writing it, as a Schema (the property test holds
// `checkInputs` to it).
/** @internal */
export const CheckedInput = Schema.Struct({ ...Event.EventInput.fields, type: Event.EventType })

/** Check events before they are written: a well-formed type, a run id or null. */
export const checkInputs = (events: ReadonlyArray<Event.EventInput>): Either.Either<void, HarnessError> => {
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!
    if (!isEventType(e.type)) {
      return Either.left(
        new HarnessError({
          code: "INVALID_INPUT",
          message: `event ${i}: the type ${
            JSON.stringify(e.type)
          } is not a lower-case dotted name of at most 64 characters`
        })
      )
    }
    if (e.run !== null && typeof e.run !== "string") {
      return Either.left(new HarnessError({ code: "INVALID_INPUT", message: `event ${i}: the run is not a string` }))
    }
  }
  return Either.right(undefined)
}

/** A stored event the store itself just wrote (its fields were checked by `checkInputs`). */
export const written = (session: string, seq: number, at: number, input: Event.EventInput, data: unknown) =>
  new Event.SessionEvent({ session, seq, at, run: input.run, type: input.type, data }, true)
