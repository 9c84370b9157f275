/**
 * The append-only event stream with xcheck's hash chain (spec §5.3): each line is the event plus
 * `v: 1` and `prev` (the running digest), `digest_{n+1} = sha256(digest_n + encode(event_n))`.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import * as Json from "./internal/json.js"
import type { LedgerAnchor } from "./State.js"
import { EVENT_KINDS } from "./Vocabulary.js"

/**
 * The chain's starting digest.
 *
 * @since 0.1.0
 * @category chain
 */
export const GENESIS = "0".repeat(64)

/**
 * An event as emitted (without `v`/`prev`): `ts`, `event`, `session_id` and its payload.
 *
 * @since 0.1.0
 * @category models
 */
export interface AuditEvent {
  readonly ts: string
  readonly event: string
  readonly session_id: string | null
  readonly [key: string]: unknown
}

/**
 * The canonical encoding the chain hashes: sorted keys, compact separators, ASCII-escaped.
 *
 * @since 0.1.0
 * @category chain
 */
export const encode = (event: AuditEvent): string => Json.dumpsCompact(event, true)

/**
 * The outbox idempotency key: `sha256(encode(event))[:16]`.
 *
 * @since 0.1.0
 * @category chain
 */
export const eventId = (event: AuditEvent): string => sha256(encode(event)).slice(0, 16)

const sha256 = (s: string): string => createHash("sha256").update(s, "utf8").digest("hex")

/**
 * The digest after appending `event` to a chain whose head is `head`.
 *
 * @since 0.1.0
 * @category chain
 */
export const advance = (head: string, event: AuditEvent): string => sha256(head + encode(event))

/**
 * Link an event onto the chain: its stored line and the new head.
 *
 * @since 0.1.0
 * @category chain
 */
export const link = (head: string, event: AuditEvent): { readonly line: string; readonly head: string } => ({
  line: Json.dumpsCompact({ ...event, v: 1, prev: head }, true),
  head: advance(head, event)
})

/**
 * A stream that could not be read as a record (line numbers are 1-based).
 *
 * @since 0.1.0
 * @category models
 */
export interface StreamDefect {
  readonly state: "broken" | "unreadable"
  readonly line: number
  readonly message: string
}

/**
 * A stream read and verified line by line (`heads` relative to the seed when one was given).
 *
 * @since 0.1.0
 * @category models
 */
export interface VerifiedStream {
  readonly events: ReadonlyArray<AuditEvent>
  /** `heads[k]` = digest after the first `k` events (`heads[0]` = genesis). */
  readonly heads: ReadonlyArray<string>
  /** How many leading lines were legacy (unchained). */
  readonly legacy: number
}

/**
 * Read a stream strictly: invalid JSON, a non-object, a missing `ts`/`event`, an unknown kind,
 * an unknown `v` or a broken `prev` are refused by line number. Lines before the first chained
 * line are a legacy prefix that seeds the chain.
 *
 * @since 0.1.0
 * @category chain
 */
export const verify = (
  lines: ReadonlyArray<string>,
  seed: { readonly head: string; readonly chained: boolean; readonly offset: number } = {
    head: GENESIS,
    chained: false,
    offset: 0
  }
): VerifiedStream | StreamDefect => {
  const events: Array<AuditEvent> = []
  const heads: Array<string> = [seed.head]
  let head = seed.head
  let chained = seed.chained
  let legacy = 0
  for (let k = 0; k < lines.length; k++) {
    const n = seed.offset + k + 1
    const raw = lines[k]!
    const parsed = Json.parse(raw)
    if (parsed instanceof Json.JsonSyntaxError) {
      return { state: "broken", line: n, message: `line ${n}: not valid JSON (${parsed.message})` }
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed) || parsed instanceof Json.PyFloat) {
      return { state: "broken", line: n, message: `line ${n}: expected a JSON object` }
    }
    const obj = { ...(parsed as Record<string, unknown>) }
    if (typeof obj.ts !== "string" || typeof obj.event !== "string") {
      return { state: "broken", line: n, message: `line ${n}: missing 'ts' or 'event'` }
    }
    if (!EVENT_KINDS.has(obj.event)) {
      return { state: "broken", line: n, message: `line ${n}: unknown event kind '${obj.event}'` }
    }
    if ("v" in obj) {
      if (obj.v !== 1) {
        return { state: "broken", line: n, message: `line ${n}: unknown stream version v=${String(obj.v)}` }
      }
      if (obj.prev !== head) {
        return {
          state: "broken",
          line: n,
          message: `line ${n}: 'prev' does not match the running digest — the chain breaks HERE`
        }
      }
      chained = true
      delete obj.v
      delete obj.prev
    } else if (chained) {
      return {
        state: "broken",
        line: n,
        message: `line ${n}: an unchained line after the chain began — the chain breaks HERE`
      }
    } else {
      legacy++
    }
    const event = obj as unknown as AuditEvent
    head = advance(head, event)
    events.push(event)
    heads.push(head)
  }
  return { events, heads, legacy }
}

/**
 * Whether a value is a {@link StreamDefect}.
 *
 * @since 0.1.0
 * @category guards
 */
export const isDefect = (u: VerifiedStream | StreamDefect): u is StreamDefect => "state" in u

/**
 * The stream's status against the state's anchor: `short` (fewer events than anchored),
 * `replaced` (the anchored prefix digest is not this stream's), else `intact`.
 *
 * @since 0.1.0
 * @category chain
 */
export const anchorStatus = (
  anchor: LedgerAnchor | undefined,
  count: number,
  headAt: (k: number) => string | undefined
): "intact" | "short" | "replaced" => {
  if (anchor === undefined) return "intact"
  if (count < anchor.events) return "short"
  return headAt(anchor.events) === anchor.digest ? "intact" : "replaced"
}
