/**
 * Writing through the engine: a commit (bump, anchor, validate what changed, persist, append,
 * seal) and the observational appends that move no revision (refusals, leases, gates).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as AuditError from "../../AuditError.js"
import * as Events from "../../Events.js"
import * as State from "../../State.js"
import { type Seal, sha, type Snapshot, type Tx } from "./backend.js"
import type { EngineContext } from "./context.js"

/** Chain `events` onto `head`: the lines to store and the head they end at. */
const chain = (head: string, events: ReadonlyArray<Events.AuditEvent>) => {
  const lines: Array<{ line: string; head: string }> = []
  for (const e of events) {
    const l = Events.link(head, e)
    lines.push(l)
    head = l.head
  }
  return { lines, head }
}

/** Append events that change no revision (the head row records the new count), then seal. */
export const appendEvents = (
  ctx: EngineContext,
  tx: Tx,
  snap: Snapshot,
  events: ReadonlyArray<Events.AuditEvent>
) =>
  Effect.gen(function*() {
    const { head, lines } = chain(snap.head, events)
    yield* tx.append(snap.events, lines, true)
    const next: Snapshot = { ...snap, events: snap.events + lines.length, head }
    yield* tx.seal({ revision: next.revision, events: next.events, head })
    ctx.cache = next
    return next
  })

/**
 * Append events over a sealed store without its snapshot (ADR 0141): chained onto the seal's
 * head, then sealed again. The engine's cached snapshot, if any, is extended by its next read.
 */
export const appendSealed = (tx: Tx, seal: Seal, events: ReadonlyArray<Events.AuditEvent>) =>
  Effect.gen(function*() {
    const { head, lines } = chain(seal.head, events)
    yield* tx.append(seal.events, lines, true)
    yield* tx.seal({ revision: seal.revision, events: seal.events + lines.length, head })
  })

/**
 * The lease pair xcheck writes around every verb, refused ones included (its `audit/.lock`
 * acquisition and release; here the database transaction is the lock).
 */
export const lease = (snap: Pick<Snapshot, "head" | "events">, ts: string, sessionId: string | null, role: string) => {
  const nonce = sha(`lease:${snap.head}:${snap.events}:${ts}`).slice(0, 16)
  const at = (event: "lease_acquired" | "lease_released"): Events.AuditEvent => ({
    ts,
    event,
    session_id: sessionId,
    role,
    nonce
  })
  return { acquired: at("lease_acquired"), released: at("lease_released") }
}

/** How a commit frames its event. */
export interface CommitFrame {
  /** Events before the commit's own (a lease acquired, dispatches closed as crash). */
  readonly leading?: ReadonlyArray<Events.AuditEvent> | undefined
  /** Events after it (a lease released). */
  readonly trailing?: ReadonlyArray<Events.AuditEvent> | undefined
  /** Move the ledger anchor (`false`: xcheck's envelope store leaves it on the last verb's). */
  readonly anchor?: boolean | undefined
}

/** Bump, anchor, validate, persist, append, seal: one commit. */
export const commit = (
  ctx: EngineContext,
  tx: Tx,
  snap: Snapshot,
  nextDoc: State.StateDoc,
  event: (revision: number) => Events.AuditEvent,
  frame: CommitFrame = {}
) =>
  Effect.gen(function*() {
    const leading = frame.leading ?? []
    const revision = snap.revision + 1
    const txn = sha(`${snap.head}:${revision}:${snap.events}`).slice(0, 16)
    const commits = [...(snap.doc.ledger_commits ?? []).filter((c) => c !== txn), txn].slice(-64)
    const before = chain(snap.head, leading)
    const doc: State.StateDoc = {
      ...nextDoc,
      state_revision: revision,
      ...(frame.anchor !== false
        ? { ledger_anchor: { digest: before.head, events: snap.events + leading.length, state_revision: revision } }
        : {}),
      ledger_commits: commits
    }
    // snap.doc is valid (decoded or committed); check what this commit changed (ADR 0111)
    const problem = State.issueAfter(snap.doc, doc)
    if (problem !== undefined) {
      return yield* Effect.fail(
        AuditError.make("invalid-state", `refused: the resulting state would be invalid — ${problem}`)
      )
    }
    const ev = event(revision)
    const after = chain(before.head, [ev, ...(frame.trailing ?? [])])
    const lines = [...before.lines, ...after.lines]
    yield* tx.persist(snap.doc, doc, snap.events + lines.length)
    yield* tx.append(snap.events, lines, false)
    const next: Snapshot = { doc, revision, events: snap.events + lines.length, head: after.head, status: "intact" }
    yield* tx.seal({ revision, events: next.events, head: after.head })
    ctx.cache = next
    return { next, event: ev }
  })
