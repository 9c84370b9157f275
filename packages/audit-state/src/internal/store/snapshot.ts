/**
 * Reading the current snapshot: the cached one when the store has not moved, the cached one
 * extended by appended events, the sealed rows read without re-validation (ADR 0114), or the
 * rows decoded and the stream verified against the anchor.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as AuditError from "../../AuditError.js"
import * as Events from "../../Events.js"
import * as State from "../../State.js"
import { trustSealed } from "../state/validate.js"
import { isoSeconds, type Marker, type Snapshot, type Tx } from "./backend.js"
import type { EngineContext } from "./context.js"

/** The cached snapshot extended by events appended since (by this or another process), if they chain on. */
const extendCached = (tx: Tx, cache: Snapshot) =>
  Effect.map(tx.loadLines(cache.events), (more): Snapshot | undefined => {
    const v = Events.verify(more, { head: cache.head, chained: true, offset: cache.events })
    return Events.isDefect(v) ? undefined : { ...cache, events: cache.events + more.length, head: v.heads.at(-1)! }
  })

/**
 * A current seal: the rows are what a validated commit wrote and the chain ends at its head
 * (ADR 0114) — read them without re-validating them or re-hashing the stream. `null`: no current seal.
 */
const readSealed = (tx: Tx, m: Marker): Effect.Effect<Snapshot | undefined | null, AuditError.AuditError> =>
  Effect.gen(function*() {
    const seal = yield* tx.sealed
    if (seal === undefined || seal.revision !== Number(m.revision) || seal.events !== Number(m.events)) return null
    const sealed = yield* tx.loadDoc(true)
    if (sealed === undefined) return undefined
    const doc = trustSealed(State.normalize(sealed))
    return { doc, revision: doc.state_revision, events: seal.events, head: seal.head, status: "intact" }
  })

/** Decode the rows and verify the whole stream against the state's anchor. */
const readVerified = (tx: Tx): Effect.Effect<Snapshot | undefined, AuditError.AuditError> =>
  Effect.gen(function*() {
    const raw = yield* tx.loadDoc(false)
    if (raw === undefined) return undefined
    const doc = yield* State.decode(raw, "stored state")
    const lines = yield* tx.loadLines(0)
    const v = Events.verify(lines)
    if (Events.isDefect(v)) {
      return {
        doc,
        revision: doc.state_revision,
        events: lines.length,
        head: "",
        status: v.state,
        detail: v.message
      }
    }
    const status = Events.anchorStatus(doc.ledger_anchor, lines.length, (k) => v.heads[k])
    return {
      doc,
      revision: doc.state_revision,
      events: lines.length,
      head: v.heads.at(-1)!,
      status,
      detail: status === "short"
        ? `the stream holds ${lines.length} event(s), the state anchors ${doc.ledger_anchor!.events}`
        : status === "replaced"
        ? "the anchored prefix digest is not this stream's"
        : undefined
    }
  })

/** The current snapshot (`undefined`: no state yet), cached in the context. */
export const snapshot = (ctx: EngineContext, tx: Tx) =>
  Effect.gen(function*() {
    const m = yield* tx.marker
    if (m === undefined) {
      ctx.cache = undefined
      return undefined
    }
    const cache = ctx.cache
    if (cache !== undefined && cache.revision === m.revision && cache.events === m.events) return cache
    if (
      cache !== undefined && cache.revision === m.revision && m.events > cache.events && cache.status === "intact"
    ) {
      const extended = yield* extendCached(tx, cache)
      if (extended !== undefined) return (ctx.cache = extended)
    }
    const sealed = yield* readSealed(tx, m)
    const snap = sealed === null ? yield* readVerified(tx) : sealed
    if (snap !== undefined) ctx.cache = snap
    return snap
  })

/** The current snapshot, or `not-found` naming how to create one. */
export const requireSnapshot = (ctx: EngineContext, tx: Tx) =>
  Effect.flatMap(snapshot(ctx, tx), (snap) =>
    snap === undefined
      ? Effect.fail(
        AuditError.make(
          "not-found",
          "no audit state — run `steward audit init` (new audit) or `steward audit import-state FILE` (an xcheck state.json)"
        )
      )
      : Effect.succeed(snap))

/** Refuse a transition on a stream this tool cannot stand behind. */
export const requireIntact = (snap: Snapshot) =>
  snap.status === "intact" ? Effect.void : Effect.fail(
    AuditError.make(
      "ledger",
      `refusing the transition: the event stream is not a record this tool can stand behind (${snap.status})${
        snap.detail ? `: ${snap.detail}` : ""
      }`
    )
  )

/** The commit's timestamp (whole seconds, xcheck's spelling) and its day. */
export const now = Effect.map(
  Clock.currentTimeMillis,
  (ms) => ({ ts: isoSeconds(ms), today: isoSeconds(ms).slice(0, 10) })
)
