/**
 * The store engine shared by both backends: a cached snapshot of the validated document and the
 * chain head, and `commit` — bump, anchor, validate what changed, persist, append — as one
 * transaction.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as AuditError from "../../AuditError.js"
import type * as Decision from "../../Decision.js"
import type * as Embargo from "../../Embargo.js"
import * as Events from "../../Events.js"
import * as State from "../../State.js"
import * as Verbs from "../../Verbs.js"
import { trustSealed } from "../state/validate.js"
import { type Backend, isoSeconds, sha, type Snapshot, type Tx } from "./backend.js"
import { makeDispatch } from "./dispatch.js"
import type { AuditStoreShape } from "./model.js"

export const makeEngine = (backend: Backend): AuditStoreShape => {
  let cache: Snapshot | undefined

  const snapshot = (tx: Tx) =>
    Effect.gen(function*() {
      const m = yield* tx.marker
      if (m === undefined) {
        cache = undefined
        return undefined
      }
      if (cache !== undefined && cache.revision === m.revision && cache.events === m.events) return cache
      if (
        cache !== undefined && cache.revision === m.revision && m.events > cache.events && cache.status === "intact"
      ) {
        const more = yield* tx.loadLines(cache.events)
        const v = Events.verify(more, { head: cache.head, chained: true, offset: cache.events })
        if (!Events.isDefect(v)) {
          cache = { ...cache, events: cache.events + more.length, head: v.heads[v.heads.length - 1]! }
          return cache
        }
      }
      // a current seal: the rows are what a validated commit wrote and the chain ends at its head
      // (ADR 0114) — read them without re-validating them or re-hashing the stream
      const seal = yield* tx.sealed
      if (seal !== undefined && seal.revision === Number(m.revision) && seal.events === Number(m.events)) {
        const sealed = yield* tx.loadDoc(true)
        if (sealed === undefined) return undefined
        const doc = trustSealed(State.normalize(sealed))
        cache = { doc, revision: doc.state_revision, events: seal.events, head: seal.head, status: "intact" }
        return cache
      }
      const raw = yield* tx.loadDoc(false)
      if (raw === undefined) return undefined
      const doc = yield* State.decode(raw, "stored state")
      const lines = yield* tx.loadLines(0)
      const v = Events.verify(lines)
      let snap: Snapshot
      if (Events.isDefect(v)) {
        snap = { doc, revision: doc.state_revision, events: lines.length, head: "", status: v.state, detail: v.message }
      } else {
        const status = Events.anchorStatus(doc.ledger_anchor, lines.length, (k) => v.heads[k])
        snap = {
          doc,
          revision: doc.state_revision,
          events: lines.length,
          head: v.heads[v.heads.length - 1]!,
          status,
          detail: status === "short"
            ? `the stream holds ${lines.length} event(s), the state anchors ${doc.ledger_anchor!.events}`
            : status === "replaced"
            ? "the anchored prefix digest is not this stream's"
            : undefined
        }
      }
      cache = snap
      return snap
    })

  const requireSnapshot = (tx: Tx) =>
    Effect.flatMap(snapshot(tx), (snap) =>
      snap === undefined
        ? Effect.fail(
          AuditError.make(
            "not-found",
            "no audit state — run `steward audit init` (new audit) or `steward audit import-state FILE` (an xcheck state.json)"
          )
        )
        : Effect.succeed(snap))

  const requireIntact = (snap: Snapshot) =>
    snap.status === "intact" ? Effect.void : Effect.fail(
      AuditError.make(
        "ledger",
        `refusing the transition: the event stream is not a record this tool can stand behind (${snap.status})${
          snap.detail ? `: ${snap.detail}` : ""
        }`
      )
    )

  const now = Effect.map(Clock.currentTimeMillis, (ms) => ({ ts: isoSeconds(ms), today: isoSeconds(ms).slice(0, 10) }))

  const appendEvents = (tx: Tx, snap: Snapshot, events: ReadonlyArray<Events.AuditEvent>) =>
    Effect.gen(function*() {
      let head = snap.head
      const lines = events.map((e) => {
        const l = Events.link(head, e)
        head = l.head
        return l
      })
      yield* tx.append(snap.events, lines, true)
      const next: Snapshot = { ...snap, events: snap.events + lines.length, head }
      yield* tx.seal({ revision: next.revision, events: next.events, head })
      cache = next
      return next
    })

  /**
   * The lease pair xcheck writes around every verb, refused ones included (its `audit/.lock`
   * acquisition and release; here the database transaction is the lock).
   */
  const lease = (snap: Snapshot, ts: string, sessionId: string | null, role: string) => {
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

  /** Bump, anchor, validate, persist, append: one commit. */
  const commit = (
    tx: Tx,
    snap: Snapshot,
    nextDoc: State.StateDoc,
    event: (revision: number) => Events.AuditEvent,
    extraEvents: ReadonlyArray<Events.AuditEvent> = [],
    trailingEvents: ReadonlyArray<Events.AuditEvent> = [],
    anchor = true
  ) =>
    Effect.gen(function*() {
      const revision = snap.revision + 1
      const txn = sha(`${snap.head}:${revision}:${snap.events}`).slice(0, 16)
      const commits = [...(snap.doc.ledger_commits ?? []).filter((c) => c !== txn), txn].slice(-64)
      const eventsBefore = snap.events + extraEvents.length
      let head = snap.head
      const lines: Array<{ line: string; head: string }> = []
      for (const e of extraEvents) {
        const l = Events.link(head, e)
        lines.push(l)
        head = l.head
      }
      const doc: State.StateDoc = {
        ...nextDoc,
        state_revision: revision,
        // xcheck's envelope store bumps the revision but leaves the anchor on the last verb's
        ...(anchor ? { ledger_anchor: { digest: head, events: eventsBefore, state_revision: revision } } : {}),
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
      for (const e of [ev, ...trailingEvents]) {
        const l = Events.link(head, e)
        lines.push(l)
        head = l.head
      }
      yield* tx.persist(snap.doc, doc, snap.events + lines.length)
      yield* tx.append(snap.events, lines, false)
      const next: Snapshot = { doc, revision, events: snap.events + lines.length, head, status: "intact" }
      yield* tx.seal({ revision, events: next.events, head })
      cache = next
      return { next, event: ev }
    })

  const apply: AuditStoreShape["apply"] = (request, options = {}) =>
    backend.transact(true, (tx) =>
      Effect.gen(function*() {
        const snap = yield* requireSnapshot(tx)
        yield* requireIntact(snap)
        const { today, ts } = yield* now
        const open = State.openDispatch(snap.doc)
        const sessionId = open?.session_id ?? null
        // xcheck's order: authorize (before the lock), lock, load + drift, expected revision, verb
        const denied = Verbs.authorize(snap.doc, request)
        if (denied !== undefined) {
          yield* appendEvents(tx, snap, [{
            ts,
            event: "write_refused",
            session_id: sessionId,
            verb: request.verb,
            role: denied.role,
            target: denied.target,
            reason: denied.reason
          }])
          return {
            _tag: "denied" as const,
            error: AuditError.make("unauthorized", `${request.verb}: ${denied.reason}`)
          }
        }
        const { acquired, released } = lease(snap, ts, sessionId, "write")
        const refused = (error: AuditError.AuditError) =>
          Effect.as(appendEvents(tx, snap, [acquired, released]), { _tag: "denied" as const, error })
        if (options.guard !== undefined) {
          const guarded = yield* Effect.either(options.guard(snap.doc, tx.viewMarks))
          if (guarded._tag === "Left") return yield* refused(guarded.left)
        }
        if (options.expectRevision !== undefined && options.expectRevision !== snap.revision) {
          return yield* refused(AuditError.make(
            "stale-revision",
            `stale revision: expected state revision ${options.expectRevision}, the state is at ${snap.revision}`,
            { expected: options.expectRevision, actual: snap.revision }
          ))
        }
        const out = Verbs.apply(snap.doc, request, { today, subject: options.subject, policy: options.policy })
        if (Verbs.isRefusal(out)) return yield* refused(AuditError.make(out.code, out.message))
        const summary = out.message.split("\n")[0]!
        const nextDoc = options.headBefore === undefined ? out.doc : { ...out.doc, head_before: options.headBefore }
        const committed = yield* Effect.either(commit(
          tx,
          snap,
          nextDoc,
          (revision) => ({
            ts,
            event: "state_transition",
            session_id: sessionId,
            verb: request.verb,
            target: out.target,
            state_revision: revision,
            from_status: out.fromStatus,
            to_status: out.toStatus,
            summary,
            ...(out.extras ?? {})
          }),
          [acquired],
          [released]
        ))
        // a commit that fails validation wrote nothing; its lease pair still lands (xcheck's does)
        if (committed._tag === "Left") {
          if (committed.left.code !== "invalid-state") return yield* Effect.fail(committed.left)
          return yield* refused(committed.left)
        }
        const { event, next } = committed.right
        return {
          _tag: "applied" as const,
          applied: { doc: next.doc, revision: next.revision, event, message: out.message }
        }
      })).pipe(
        Effect.flatMap((r) => r._tag === "denied" ? Effect.fail(r.error) : Effect.succeed(r.applied)),
        Effect.withSpan("AuditStore.apply", { attributes: { verb: request.verb } })
      )

  const init: AuditStoreShape["init"] = Effect.fn("AuditStore.init")(function*(generatedBy: string) {
    return yield* backend.transact(true, (tx) =>
      Effect.gen(function*() {
        const m = yield* tx.marker
        if (m !== undefined) {
          return yield* Effect.fail(
            AuditError.make(
              "refused",
              `an audit state already exists (revision ${m.revision}); init refuses to overwrite it`
            )
          )
        }
        const doc = State.empty(generatedBy)
        yield* tx.persist(undefined, doc, 0)
        yield* tx.seal({ revision: 0, events: 0, head: Events.GENESIS })
        cache = { doc, revision: 0, events: 0, head: Events.GENESIS, status: "intact" }
        return doc
      }))
  })

  const load: AuditStoreShape["load"] = backend.transact(false, (tx) => Effect.map(requireSnapshot(tx), (s) => s.doc))
    .pipe(Effect.withSpan("AuditStore.load"))

  const recordGate: AuditStoreShape["recordGate"] = Effect.fn("AuditStore.recordGate")(
    function*(decision: Decision.Decision, options?: { readonly dryRun?: boolean | undefined }) {
      return yield* backend.transact(true, (tx) =>
        Effect.gen(function*() {
          const snap = yield* requireSnapshot(tx)
          yield* requireIntact(snap)
          const { ts } = yield* now
          const sessionId = State.openDispatch(snap.doc)?.session_id ?? null
          const event: Events.AuditEvent = {
            ts,
            event: "gate_reached",
            session_id: sessionId,
            gate: decision.kind,
            detail: decision.detail
          }
          // `next` holds the lock as the orchestrator while it decides; `--dry-run` takes no lock
          // but still records the gate it reached (xcheck)
          const { acquired, released } = lease(snap, ts, sessionId, "orchestrator")
          yield* appendEvents(tx, snap, options?.dryRun === true ? [event] : [acquired, event, released])
          return event
        }))
    }
  )

  const importState: AuditStoreShape["importState"] = Effect.fn("AuditStore.importState")(
    function*(stateText: string, eventsText?: string) {
      const doc = yield* State.decodeText(stateText, "import state.json")
      const rawLines = eventsText === undefined ? [] : eventsText.split("\n").filter((l) => l.trim().length > 0)
      const v = Events.verify(rawLines)
      if (Events.isDefect(v)) {
        return yield* Effect.fail(AuditError.make("ledger", `import events.jsonl: ${v.message} (${v.state})`))
      }
      const status = Events.anchorStatus(doc.ledger_anchor, rawLines.length, (k) => v.heads[k])
      if (status !== "intact") {
        return yield* Effect.fail(
          AuditError.make(
            "ledger",
            `import: the event stream does not match the state's ledger_anchor (${status}) — import the events.jsonl the state was written with`
          )
        )
      }
      let head = Events.GENESIS
      const lines = v.events.map((e) => {
        const l = Events.link(head, e)
        head = l.head
        return l
      })
      return yield* backend.transact(true, (tx) =>
        Effect.gen(function*() {
          const m = yield* tx.marker
          if (m !== undefined) {
            return yield* Effect.fail(
              AuditError.make(
                "refused",
                `an audit state already exists (revision ${m.revision}); import refuses to overwrite it`
              )
            )
          }
          yield* tx.reset
          yield* tx.persist(undefined, doc, lines.length)
          if (lines.length > 0) yield* tx.append(0, lines, false)
          yield* tx.seal({ revision: doc.state_revision, events: lines.length, head })
          cache = { doc, revision: doc.state_revision, events: lines.length, head, status: "intact" }
          return {
            revision: doc.state_revision,
            records: State.records(doc).length,
            events: lines.length,
            legacyChained: v.legacy
          }
        }))
    }
  )

  const exportState: AuditStoreShape["exportState"] = Effect.map(load, State.encode).pipe(
    Effect.withSpan("AuditStore.exportState")
  )

  const readLines = backend.transact(false, (tx) =>
    Effect.gen(function*() {
      yield* requireSnapshot(tx)
      return yield* tx.loadLines(0)
    }))

  const exportEvents: AuditStoreShape["exportEvents"] = Effect.map(
    readLines,
    (lines) => lines.map((l) => l + "\n").join("")
  )

  const events: AuditStoreShape["events"] = Effect.flatMap(readLines, (lines) => {
    const v = Events.verify(lines)
    return Events.isDefect(v)
      ? Effect.fail(AuditError.make("ledger", `the event stream is ${v.state}: ${v.message}`))
      : Effect.succeed(v.events)
  })

  const embargoHistory: AuditStoreShape["embargoHistory"] = Effect.gen(function*() {
    const evs = yield* events
    const keys = yield* backend.transact(false, (tx) => tx.loadKeys)
    const out: Array<Embargo.HistoryEvent> = [...evs]
    for (const k of keys) out.push({ event: "dispatch_key", ...k })
    return out
  }).pipe(Effect.withSpan("AuditStore.embargoHistory"))

  const streamStatus: AuditStoreShape["streamStatus"] = backend.transact(
    false,
    (tx) =>
      Effect.map(requireSnapshot(tx), (s) => ({
        state: s.status,
        events: s.events,
        head: s.head,
        ...(s.detail !== undefined ? { detail: s.detail } : {})
      }))
  )

  const viewMarks: AuditStoreShape["viewMarks"] = (paths) => backend.transact(false, (tx) => tx.viewMarks(paths))

  const markViews: AuditStoreShape["markViews"] = (revision, marks) =>
    marks.length === 0 ? Effect.void : backend.transact(true, (tx) =>
      Effect.gen(function*() {
        // marks observed against an older revision may describe rows a later commit replaced
        const m = yield* tx.marker
        if (m === undefined || Number(m.revision) !== revision) return
        yield* tx.putViewMarks(marks)
      }))

  const { finishDispatch, openDispatch } = makeDispatch({ backend, commit, now, requireIntact, requireSnapshot })

  return {
    init,
    load,
    apply,
    openDispatch,
    finishDispatch,
    recordGate,
    importState,
    exportState,
    exportEvents,
    events,
    streamStatus,
    embargoHistory,
    viewMarks,
    markViews
  }
}
