/**
 * The events of a session's one ordered stream: what a run did, in `seq` order, as the host and
 * the CLI read it. Types the harness writes are listed in `types`; any other well-formed type (a
 * host's own note, a newer harness's event) is stored and relayed in order like the rest.
 *
 * Every string in an event's data passes governance-rules' secret redaction before it is stored,
 * so prompt secrets never enter the stream.
 *
 * @since 0.1.0
 */
import * as Evidence from "@steward/governance-rules/Evidence"
import * as Schema from "effect/Schema"
import * as EventTypeShape from "./internal/eventType.js"
import * as FrozenJson from "./internal/frozenJson.js"

/**
 * The event types the harness writes.
 *
 * - `run.start`: a run began (its prompt, trigger, slice limits).
 * - `message`: a message of the conversation (`role` user | assistant | system notice).
 * - `model.call`: one model call (usage: input, cached input, output tokens; finish reason).
 * - `tool.call` / `tool.result`: a governed tool call and its outcome.
 * - `tool.refused`: a call governance denied or nobody approved, with the citation.
 * - `tool.error`: a call the harness could not take as made (an unknown tool, an invalid name, an
 *   input its schema refuses or over the size bound): the tool, the field, what was expected, and
 *   the one-line message the model is answered with.
 * - `approval`: how an ask was answered (rule, person with time, or reviewer).
 * - `hook`: a lifecycle hook's evidence (pre/post tool, failure, guardrail, completion).
 * - `checkpoint`: the harness-written summary at a boundary or a settle.
 * - `heartbeat`: steps, elapsed time, last tool, slice, call budget, tokens.
 * - `notice`: something the person should know (a slice boundary, a budget, a rule saved).
 * - `reflex.decision`: a turn-end reflex decision and what the harness did with it.
 * - `goal`: the goal's state changes and the checker's verdicts.
 * - `run.pause`: the run stopped at an ask nobody could answer (ADR 0573): the call, its input and
 *   citation, and the `scope` approve-and-remember would save; the run waits for a person's
 *   answer (`Sessions.approve` / `Sessions.reject`) and goes on from that call.
 * - `run.settle`: how the run ended.
 *
 * @since 0.1.0
 * @category models
 */
export const types = [
  "run.start",
  "message",
  "model.call",
  "tool.call",
  "tool.result",
  "tool.refused",
  "tool.error",
  "approval",
  "hook",
  "checkpoint",
  "heartbeat",
  "notice",
  "reflex.decision",
  "goal",
  "run.pause",
  "run.settle"
] as const

/**
 * @since 0.1.0
 * @category models
 */
export type KnownType = typeof types[number]

/**
 * An event type: a known one or any lower-case dotted name (≤ 64 characters).
 *
 * @since 0.1.0
 * @category schemas
 */
export const EventType = Schema.String.pipe(
  Schema.pattern(EventTypeShape.pattern),
  Schema.maxLength(EventTypeShape.maxLength)
)

/**
 * An event to append (the store assigns `seq` and `at`). The store accepts it when its `type` is
 * an `EventType` (`EventStore.commit` checks that before writing).
 *
 * @since 0.1.0
 * @category schemas
 */
export const EventInput = Schema.Struct({
  run: Schema.NullOr(Schema.String),
  type: Schema.String,
  data: Schema.Unknown
})

/**
 * @since 0.1.0
 * @category models
 */
export type EventInput = typeof EventInput.Type

/**
 * A stored event.
 *
 * @since 0.1.0
 * @category models
 */
export class SessionEvent extends Schema.Class<SessionEvent>("@steward/harness-sessions/SessionEvent")({
  session: Schema.String,
  seq: Schema.Int,
  at: Schema.Int,
  run: Schema.NullOr(Schema.String),
  type: EventType,
  data: Schema.Unknown
}) {}

/**
 * Whether a type is one the harness writes.
 *
 * @since 0.1.0
 * @category utils
 */
export const isKnown = (type: string): type is KnownType => (types as ReadonlyArray<string>).includes(type)

// Short strings redaction left unchanged, so a repeated one (a tool's name, a rule id, a
// decision: 46 distinct strings in 11,820 on the eight-tool peer shape) is not scanned again.
// Only strings that held nothing to redact are kept (no secret stays in memory for it), bounded.
const clean = new Set<string>()
const CLEAN_MAX = 4096
const CLEAN_LENGTH = 256

const redactString = (text: string): string => {
  if (clean.has(text)) return text
  const out = Evidence.redact(text)
  if (out === text && text.length <= CLEAN_LENGTH) {
    if (clean.size >= CLEAN_MAX) clean.clear()
    clean.add(text)
  }
  return out
}

/**
 * Redact every string in a JSON-like value (keys are kept; values pass `Evidence.redact`), and
 * make it JSON-safe (functions and `undefined` dropped, non-finite numbers to `null`). The result
 * is fresh and deeply frozen, so stores keep it without a defensive copy.
 *
 * @since 0.1.0
 * @category utils
 */
export const redact = (value: unknown): unknown => {
  const seen = new Set<unknown>()
  const go = (v: unknown, depth: number): unknown => {
    if (typeof v === "string") return redactString(v)
    if (typeof v === "number") return Number.isFinite(v) ? v : null
    if (v === null || typeof v === "boolean") return v
    if (typeof v !== "object" || depth > 64 || seen.has(v)) return null
    seen.add(v)
    try {
      if (Array.isArray(v)) return FrozenJson.freeze(v.map((x) => go(x, depth + 1) ?? null))
      const out: Record<string, unknown> = {}
      for (const [key, x] of Object.entries(v)) {
        if (x === undefined || typeof x === "function") continue
        out[key] = go(x, depth + 1)
      }
      return FrozenJson.freeze(out)
    } finally {
      seen.delete(v)
    }
  }
  const out = go(value, 0)
  return typeof out === "object" && out !== null ? FrozenJson.seal(out) : out
}

/**
 * Make an event input (data redacted).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (run: string | null, type: string, data: unknown): EventInput => ({
  run,
  type,
  data: redact(data)
})
