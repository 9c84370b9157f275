/**
 * The store's reads — the document, its exports, the verified events, the embargo history, the
 * stream's standing — and the view marks (ADR 0115).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as AuditError from "../../AuditError.js"
import type * as Embargo from "../../Embargo.js"
import * as Events from "../../Events.js"
import * as State from "../../State.js"
import type { EngineContext } from "./context.js"
import type { AuditStoreShape } from "./model.js"
import { requireSnapshot } from "./snapshot.js"
import { parseTrusted } from "./sqlRows.js"

/**
 * The events of a sealed stream (ADR 0114, ADR 0140): the lines validated commits appended and
 * nothing changed since, so each is parsed (natively unless it may hold a float spelling) and
 * stripped of its chain fields, as {@link Events.verify} would return it, without re-hashing the
 * chain. `undefined` when a line is not an event object (then `verify` reads the stream and says why).
 */
const trustedEvents = (lines: ReadonlyArray<string>): ReadonlyArray<Events.AuditEvent> | undefined => {
  const events: Array<Events.AuditEvent> = []
  for (let k = 0; k < lines.length; k++) {
    const parsed = parseTrusted(lines[k]!)
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed) || !("event" in parsed)) {
      return undefined
    }
    const event = parsed as Record<string, unknown>
    delete event.v
    delete event.prev
    events.push(event as unknown as Events.AuditEvent)
  }
  return events
}

type Reads = Pick<
  AuditStoreShape,
  | "load"
  | "exportState"
  | "exportEvents"
  | "events"
  | "embargoHistory"
  | "streamStatus"
  | "viewMarks"
  | "markViews"
  | "memo"
  | "putMemo"
>

export const makeReads = (ctx: EngineContext): Reads => {
  const { backend } = ctx
  const load: AuditStoreShape["load"] = backend.transact(
    false,
    (tx) => Effect.map(requireSnapshot(ctx, tx), (s) => s.doc)
  ).pipe(Effect.withSpan("AuditStore.load"))

  const readLines = backend.transact(false, (tx) =>
    Effect.gen(function*() {
      yield* requireSnapshot(ctx, tx)
      return yield* tx.loadLines(0)
    }))

  /** The lines, and whether a current seal covers exactly them (ADR 0114). */
  const readStream = backend.transact(false, (tx) =>
    Effect.gen(function*() {
      const snap = yield* requireSnapshot(ctx, tx)
      const lines = yield* tx.loadLines(0)
      const seal = yield* tx.sealed
      const sealed = seal !== undefined && snap.status === "intact" && seal.revision === snap.revision &&
        seal.events === lines.length && snap.events === lines.length
      return { lines, sealed }
    }))

  const events: AuditStoreShape["events"] = Effect.flatMap(readStream, ({ lines, sealed }) => {
    // a sealed stream is the chain validated commits appended: read it without re-hashing it
    const trusted = sealed ? trustedEvents(lines) : undefined
    if (trusted !== undefined) return Effect.succeed(trusted)
    const v = Events.verify(lines)
    return Events.isDefect(v)
      ? Effect.fail(AuditError.make("ledger", `the event stream is ${v.state}: ${v.message}`))
      : Effect.succeed(v.events)
  })

  return {
    load,
    exportState: Effect.map(load, State.encode).pipe(Effect.withSpan("AuditStore.exportState")),
    exportEvents: Effect.map(readLines, (lines) => lines.map((l) => l + "\n").join("")),
    events,
    embargoHistory: Effect.gen(function*() {
      const evs = yield* events
      const keys = yield* backend.transact(false, (tx) => tx.loadKeys)
      const out: Array<Embargo.HistoryEvent> = [...evs]
      for (const k of keys) out.push({ event: "dispatch_key", ...k })
      return out
    }).pipe(Effect.withSpan("AuditStore.embargoHistory")),
    streamStatus: backend.transact(false, (tx) =>
      Effect.map(requireSnapshot(ctx, tx), (s) => ({
        state: s.status,
        events: s.events,
        head: s.head,
        ...(s.detail !== undefined ? { detail: s.detail } : {})
      }))),
    viewMarks: (paths) => backend.transact(false, (tx) => tx.viewMarks(paths)),
    markViews: (revision, marks) =>
      marks.length === 0 ? Effect.void : backend.transact(true, (tx) =>
        Effect.gen(function*() {
          // marks observed against an older revision may describe rows a later commit replaced
          const m = yield* tx.marker
          if (m === undefined || Number(m.revision) !== revision) return
          yield* tx.putViewMarks(marks)
        })),
    memo: (name) => backend.transact(false, (tx) => tx.memo(name)),
    putMemo: (name, memo) => backend.transact(true, (tx) => tx.putMemo(name, memo))
  }
}
