/**
 * An event as one line of NDJSON: one JSON object, no line break inside, the fields of the
 * stored event (`session`, `seq`, `at`, `run`, `type`, `data`) as `Event.SessionEvent` encodes
 * them. What a host prints for `--json` while a run goes, and reads back line by line.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Event from "./Event.js"
import { HarnessError } from "./HarnessError.js"
import * as FrozenJson from "./internal/frozenJson.js"

/**
 * One event as one NDJSON line, without the trailing newline. `JSON.stringify` escapes every line
 * break inside strings, so the line never contains one. An event's data keeps its JSON text once
 * computed (ADR 0570), so printing a stored event does not serialise its data again.
 *
 * @since 0.1.0
 * @category encoding
 */
export const line = (e: Event.SessionEvent): string => {
  const head = JSON.stringify({ session: e.session, seq: e.seq, at: e.at, run: e.run, type: e.type })
  return `${head.slice(0, -1)},"data":${FrozenJson.text(e.data) ?? "null"}}`
}

const decode = Schema.decodeUnknown(Schema.parseJson(Event.SessionEvent))

/**
 * Read one NDJSON line back as an event. A line that is not JSON, or not an event, fails with
 * `INVALID_INPUT` naming what is wrong (and `where`, e.g. `stdin line 3`, when given).
 *
 * @since 0.1.0
 * @category decoding
 */
export const parse = (text: string, where = "NDJSON line"): Effect.Effect<Event.SessionEvent, HarnessError> =>
  decode(text).pipe(
    Effect.mapError((e) =>
      new HarnessError({
        code: "INVALID_INPUT",
        message: `${where}: not a session event: ${ParseResult.TreeFormatter.formatErrorSync(e)}`
      })
    )
  )
