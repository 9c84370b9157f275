/**
 * `AuditStore`: the only way audit state changes. Every verb is one transaction that validates
 * the whole next document, bumps `state_revision`, moves the ledger anchor and appends its
 * chained `state_transition` event together. `layerSql` needs only the abstract `SqlClient`
 * (own migrations, table `audit_state_migrations`); `layerMemory` keeps everything in memory.
 *
 * @since 0.1.0
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { createHash } from "node:crypto"
import * as AuditError from "./AuditError.js"
import type * as Decision from "./Decision.js"
import * as Embargo from "./Embargo.js"
import * as Events from "./Events.js"
import * as Json from "./internal/json.js"
import * as State from "./State.js"
import * as Verbs from "./Verbs.js"
import { PATTERNS, PROVIDER_BY_EXECUTABLE, ROLES, SESSION_OUTCOMES } from "./Vocabulary.js"

/**
 * The outcome of a committed change.
 *
 * @since 0.1.0
 * @category models
 */
export interface Applied {
  readonly doc: State.StateDoc
  readonly revision: number
  readonly event: Events.AuditEvent
  readonly message: string
}

/**
 * Options of {@link AuditStoreShape.apply}.
 *
 * @since 0.1.0
 * @category models
 */
export interface ApplyOptions {
  /** Optimistic concurrency: refuse with `stale-revision` unless the stored revision equals this. */
  readonly expectRevision?: number | undefined
  /** Resolves `file-finding` locators against the audited material. */
  readonly subject?: Verbs.SubjectResolver | undefined
}

/**
 * Opening a dispatch: the envelope's declared fields (§1.8).
 *
 * @since 0.1.0
 * @category models
 */
export interface DispatchOpen {
  readonly role: string
  readonly executable: string
  readonly charter: string
  readonly prompt: string
  readonly agentModel?: string | undefined
  readonly provider?: string | undefined
  readonly executableVersion?: string | undefined
  readonly sandboxProfile?: string | undefined
  readonly headBefore?: string | undefined
  readonly sessionId?: string | undefined
  readonly concurrentGroup?: string | undefined
  readonly trustLevel?: string | undefined
}

/**
 * Finishing the open dispatch.
 *
 * @since 0.1.0
 * @category models
 */
export interface DispatchFinish {
  readonly sessionId?: string | undefined
  readonly outcome: string
  readonly exitStatus?: number | undefined
  readonly durationS?: number | undefined
  readonly headAfter?: string | undefined
  readonly logDigest?: string | undefined
  readonly tokens?: number | undefined
  readonly note?: string | undefined
}

/**
 * The event stream's standing against the state's anchor.
 *
 * @since 0.1.0
 * @category models
 */
export interface StreamStatus {
  readonly state: "intact" | "short" | "replaced" | "broken" | "unreadable"
  readonly events: number
  readonly head: string
  readonly detail?: string | undefined
}

/**
 * What an import stored.
 *
 * @since 0.1.0
 * @category models
 */
export interface ImportReport {
  readonly revision: number
  readonly records: number
  readonly events: number
  readonly legacyChained: number
}

/**
 * The store's operations.
 *
 * @since 0.1.0
 * @category models
 */
export interface AuditStoreShape {
  /** Create an empty state at revision 0 (refused when a state exists). */
  readonly init: (generatedBy: string) => Effect.Effect<State.StateDoc, AuditError.AuditError>
  /** The validated current document (`not-found` when there is none). */
  readonly load: Effect.Effect<State.StateDoc, AuditError.AuditError>
  /** Run one write verb as one transaction. */
  readonly apply: (request: Verbs.VerbRequest, options?: ApplyOptions) => Effect.Effect<Applied, AuditError.AuditError>
  /** Store a new open dispatch envelope (closing an unfinalised one as `crash`). */
  readonly openDispatch: (input: DispatchOpen) => Effect.Effect<Applied, AuditError.AuditError>
  /** Finalise the open dispatch. */
  readonly finishDispatch: (input: DispatchFinish) => Effect.Effect<Applied, AuditError.AuditError>
  /** Append an observational `gate_reached` event (no revision change). */
  readonly recordGate: (decision: Decision.Decision) => Effect.Effect<Events.AuditEvent, AuditError.AuditError>
  /** Import xcheck's `state.json` (+ optional `events.jsonl`) into an empty store. */
  readonly importState: (stateText: string, eventsText?: string) => Effect.Effect<ImportReport, AuditError.AuditError>
  /** The canonical `state.json` bytes. */
  readonly exportState: Effect.Effect<string, AuditError.AuditError>
  /** The chained `events.jsonl` text. */
  readonly exportEvents: Effect.Effect<string, AuditError.AuditError>
  /** Every event (verified). */
  readonly events: Effect.Effect<ReadonlyArray<Events.AuditEvent>, AuditError.AuditError>
  /** The stream status against the anchor. */
  readonly streamStatus: Effect.Effect<StreamStatus, AuditError.AuditError>
  /**
   * The embargo history (§4.3): the verified events plus the dispatch keys Steward recorded when
   * each dispatch opened, as `dispatch_key` events (ADR 0109).
   */
  readonly embargoHistory: Effect.Effect<ReadonlyArray<Embargo.HistoryEvent>, AuditError.AuditError>
}

/**
 * The embargo key recorded when a dispatch opens (xcheck's `dispatch_key` payload).
 *
 * @since 0.1.0
 * @category models
 */
export interface DispatchKeyRecord {
  readonly session_id: string
  readonly role: string
  readonly source_digest: string
  readonly charter_slice: string | null
}

/**
 * The audit state store.
 *
 * @since 0.1.0
 * @category tags
 */
export class AuditStore extends Context.Tag("@steward/audit-state/AuditStore")<AuditStore, AuditStoreShape>() {}

// ---------------------------------------------------------------------------------------------
// backend abstraction

interface Marker {
  readonly revision: number
  readonly events: number
}

interface Tx {
  readonly marker: Effect.Effect<Marker | undefined, AuditError.AuditError>
  readonly loadDoc: Effect.Effect<State.StateDoc | undefined, AuditError.AuditError>
  readonly loadLines: (from: number) => Effect.Effect<ReadonlyArray<string>, AuditError.AuditError>
  /** Write the changed rows; `events` = the event count the head row records after this commit. */
  readonly persist: (
    prev: State.StateDoc | undefined,
    next: State.StateDoc,
    events: number
  ) => Effect.Effect<void, AuditError.AuditError>
  /** Append chained lines; `countInHead`: also record the new count on the head row. */
  readonly append: (
    start: number,
    lines: ReadonlyArray<{ readonly line: string; readonly head: string }>,
    countInHead: boolean
  ) => Effect.Effect<void, AuditError.AuditError>
  readonly reset: Effect.Effect<void, AuditError.AuditError>
  /** Record the embargo key of a dispatch. */
  readonly putKey: (key: DispatchKeyRecord) => Effect.Effect<void, AuditError.AuditError>
  /** Every recorded dispatch key. */
  readonly loadKeys: Effect.Effect<ReadonlyArray<DispatchKeyRecord>, AuditError.AuditError>
}

interface Backend {
  readonly transact: <A>(
    write: boolean,
    f: (tx: Tx) => Effect.Effect<A, AuditError.AuditError>
  ) => Effect.Effect<A, AuditError.AuditError>
}

interface Snapshot {
  readonly doc: State.StateDoc
  readonly revision: number
  readonly events: number
  readonly head: string
  readonly status: StreamStatus["state"]
  readonly detail?: string | undefined
}

const isoSeconds = (ms: number) => new Date(ms).toISOString().slice(0, 19) + "+00:00"
const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex")

// ---------------------------------------------------------------------------------------------
// the engine (shared by both layers)

const makeEngine = (backend: Backend): AuditStoreShape => {
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
      const raw = yield* tx.loadDoc
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

  const appendEvent = (tx: Tx, snap: Snapshot, event: Events.AuditEvent) =>
    Effect.gen(function*() {
      const linked = Events.link(snap.head, event)
      yield* tx.append(snap.events, [linked], true)
      const next: Snapshot = { ...snap, events: snap.events + 1, head: linked.head }
      cache = next
      return next
    })

  /** Bump, anchor, validate, persist, append: one commit. */
  const commit = (
    tx: Tx,
    snap: Snapshot,
    nextDoc: State.StateDoc,
    event: (revision: number) => Events.AuditEvent,
    extraEvents: ReadonlyArray<Events.AuditEvent> = []
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
        ledger_anchor: { digest: head, events: eventsBefore, state_revision: revision },
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
      const l = Events.link(head, ev)
      lines.push(l)
      yield* tx.persist(snap.doc, doc, snap.events + lines.length)
      yield* tx.append(snap.events, lines, false)
      const next: Snapshot = { doc, revision, events: snap.events + lines.length, head: l.head, status: "intact" }
      cache = next
      return { next, event: ev }
    })

  const apply: AuditStoreShape["apply"] = (request, options = {}) =>
    backend.transact(true, (tx) =>
      Effect.gen(function*() {
        const snap = yield* requireSnapshot(tx)
        yield* requireIntact(snap)
        if (options.expectRevision !== undefined && options.expectRevision !== snap.revision) {
          return yield* Effect.fail(
            AuditError.make(
              "stale-revision",
              `stale revision: expected state revision ${options.expectRevision}, the state is at ${snap.revision}`,
              { expected: options.expectRevision, actual: snap.revision }
            )
          )
        }
        const { today, ts } = yield* now
        const open = State.openDispatch(snap.doc)
        const denied = Verbs.authorize(snap.doc, request)
        if (denied !== undefined) {
          const event: Events.AuditEvent = {
            ts,
            event: "write_refused",
            session_id: open?.session_id ?? null,
            verb: request.verb,
            role: denied.role,
            target: denied.target,
            reason: denied.reason
          }
          yield* appendEvent(tx, snap, event)
          return {
            _tag: "denied" as const,
            error: AuditError.make("unauthorized", `${request.verb}: ${denied.reason}`)
          }
        }
        const out = Verbs.apply(snap.doc, request, { today, subject: options.subject })
        if (Verbs.isRefusal(out)) return { _tag: "denied" as const, error: AuditError.make(out.code, out.message) }
        const summary = out.message.split("\n")[0]!
        const { event, next } = yield* commit(tx, snap, out.doc, (revision) => ({
          ts,
          event: "state_transition",
          session_id: open?.session_id ?? null,
          verb: request.verb,
          target: out.target,
          state_revision: revision,
          from_status: out.fromStatus,
          to_status: out.toStatus,
          summary,
          ...(out.extras ?? {})
        }))
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
        cache = { doc, revision: 0, events: 0, head: Events.GENESIS, status: "intact" }
        return doc
      }))
  })

  const load: AuditStoreShape["load"] = backend.transact(false, (tx) => Effect.map(requireSnapshot(tx), (s) => s.doc))
    .pipe(Effect.withSpan("AuditStore.load"))

  const openDispatch: AuditStoreShape["openDispatch"] = Effect.fn("AuditStore.openDispatch")(
    function*(input: DispatchOpen) {
      if (!(ROLES as ReadonlyArray<string>).includes(input.role)) {
        return yield* Effect.fail(
          AuditError.make("invalid-input", `--role '${input.role}' is not a role (${ROLES.join(", ")})`)
        )
      }
      if (input.sessionId !== undefined && !PATTERNS.hex16.test(input.sessionId)) {
        return yield* Effect.fail(
          AuditError.make("invalid-input", `--session '${input.sessionId}' is not a canonical 16-hex session id`)
        )
      }
      return yield* backend.transact(true, (tx) =>
        Effect.gen(function*() {
          const snap = yield* requireSnapshot(tx)
          yield* requireIntact(snap)
          const { ts } = yield* now
          const base = input.executable.split("/").pop() ?? input.executable
          const provider = input.provider ?? PROVIDER_BY_EXECUTABLE[base] ?? "unknown"
          const sessionId = input.sessionId ??
            sha(`${snap.head}:${snap.revision}:${input.role}:${input.charter}:${ts}`).slice(0, 16)
          if ((snap.doc.sessions ?? []).some((s) => s.session_id === sessionId)) {
            return yield* Effect.fail(AuditError.make("refused", `session ${sessionId} is already recorded`))
          }
          const extra: Array<Events.AuditEvent> = []
          const sessions = (snap.doc.sessions ?? []).map((s) => {
            const isOpen = s.outcome === undefined || s.outcome === null
            const sameGroup = input.concurrentGroup !== undefined && s.concurrent_group === input.concurrentGroup
            if (!isOpen || sameGroup) return s
            extra.push({ ts, event: "session_abandoned", session_id: s.session_id, role: s.role })
            return {
              ...s,
              outcome: "crash",
              note: "the orchestrator was never able to finalise this dispatch (a new dispatch was opened over it)"
            }
          })
          const envelope: State.Session = {
            session_id: sessionId,
            role: input.role,
            provider,
            agent_model: input.agentModel ?? "unknown",
            executable: input.executable,
            executable_version: input.executableVersion ?? "unknown",
            charter_hash: sha(input.charter),
            prompt_hash: sha(input.prompt),
            state_revision: snap.revision,
            head_before: input.headBefore ?? "unknown",
            sandbox_profile: input.sandboxProfile ?? "unknown",
            started: ts,
            ...(input.concurrentGroup !== undefined ? { concurrent_group: input.concurrentGroup } : {}),
            ...(input.trustLevel !== undefined ? { trust_level: input.trustLevel } : {})
          }
          // the key the embargo compares (§4.3; ADR 0109), taken on the state the session starts from;
          // kept beside the stream (not in it), in the same transaction
          yield* tx.putKey({
            session_id: sessionId,
            ...Embargo.dispatchKeyPayload(snap.doc, input.role, input.charter)
          })
          const { event, next } = yield* commit(
            tx,
            snap,
            { ...snap.doc, sessions: [...sessions, envelope] },
            (revision) => ({
              ts,
              event: "session_dispatched",
              session_id: sessionId,
              state_revision: revision,
              ...eventEnvelope(envelope)
            }),
            extra
          )
          return {
            doc: next.doc,
            revision: next.revision,
            event,
            message: `dispatch ${sessionId} opened (${input.role}, provider ${provider})${
              extra.length > 0 ? `; ${extra.length} unfinalised dispatch(es) closed as crash` : ""
            }`
          }
        }))
    }
  )

  const finishDispatch: AuditStoreShape["finishDispatch"] = Effect.fn("AuditStore.finishDispatch")(
    function*(input: DispatchFinish) {
      if (!(SESSION_OUTCOMES as ReadonlyArray<string>).includes(input.outcome)) {
        return yield* Effect.fail(
          AuditError.make(
            "invalid-input",
            `--outcome '${input.outcome}' is not an outcome (${SESSION_OUTCOMES.join(", ")})`
          )
        )
      }
      return yield* backend.transact(true, (tx) =>
        Effect.gen(function*() {
          const snap = yield* requireSnapshot(tx)
          yield* requireIntact(snap)
          const { ts } = yield* now
          const sessions = snap.doc.sessions ?? []
          const idx = sessions.findIndex((s) =>
            (s.outcome === undefined || s.outcome === null) &&
            (input.sessionId === undefined || s.session_id === input.sessionId)
          )
          if (idx < 0) {
            return yield* Effect.fail(
              AuditError.make(
                "refused",
                input.sessionId === undefined
                  ? "no dispatch is open"
                  : `no open dispatch ${input.sessionId} (open: ${
                    sessions.filter((s) => s.outcome === undefined).map((s) => s.session_id).join(", ") || "none"
                  })`
              )
            )
          }
          const s = sessions[idx]!
          const finished: State.Session = {
            ...s,
            outcome: input.outcome,
            ...(input.exitStatus !== undefined ? { exit_status: input.exitStatus } : {}),
            ...(input.durationS !== undefined ? { duration_s: input.durationS } : {}),
            ...(input.headAfter !== undefined ? { head_after: input.headAfter } : {}),
            ...(input.logDigest !== undefined ? { log_digest: input.logDigest } : {}),
            ...(input.tokens !== undefined ? { tokens: input.tokens } : {}),
            ...(input.note !== undefined ? { note: input.note } : {})
          }
          const arr = [...sessions]
          arr[idx] = finished
          const { event, next } = yield* commit(tx, snap, { ...snap.doc, sessions: arr }, (revision) => ({
            ts,
            event: "session_finished",
            session_id: s.session_id,
            state_revision: revision,
            ...eventEnvelope(finished)
          }))
          return {
            doc: next.doc,
            revision: next.revision,
            event,
            message: `dispatch ${s.session_id} finished: ${input.outcome}`
          }
        }))
    }
  )

  const recordGate: AuditStoreShape["recordGate"] = Effect.fn("AuditStore.recordGate")(
    function*(decision: Decision.Decision) {
      return yield* backend.transact(true, (tx) =>
        Effect.gen(function*() {
          const snap = yield* requireSnapshot(tx)
          yield* requireIntact(snap)
          const { ts } = yield* now
          const event: Events.AuditEvent = {
            ts,
            event: "gate_reached",
            session_id: State.openDispatch(snap.doc)?.session_id ?? null,
            gate: decision.kind,
            detail: decision.detail
          }
          yield* appendEvent(tx, snap, event)
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
    embargoHistory
  }
}

const ENVELOPE_EVENT_FIELDS = [
  "role",
  "provider",
  "agent_model",
  "executable_version",
  "policy_digest",
  "sandbox_profile",
  "trust_level",
  "subject_commit",
  "subject_manifest",
  "sandbox_seed",
  "controller_commit",
  "capsule_digest",
  "charter_hash",
  "prompt_hash",
  "head_before",
  "head_after",
  "duration_s",
  "exit_status",
  "outcome",
  "log_digest",
  "tokens"
]

const eventEnvelope = (s: State.Session): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const k of ENVELOPE_EVENT_FIELDS) {
    const v = s[k]
    if (v !== undefined && v !== null) out[k] = v
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// memory backend

interface MemoryData {
  doc: State.StateDoc | undefined
  lines: Array<string>
  keys: ReadonlyArray<DispatchKeyRecord>
}

const memoryBackend = Effect.gen(function*() {
  const semaphore = yield* Effect.makeSemaphore(1)
  let data: MemoryData = { doc: undefined, lines: [], keys: [] }
  const backend: Backend = {
    transact: (_write, f) =>
      semaphore.withPermits(1)(Effect.suspend(() => {
        const staged: MemoryData = { doc: data.doc, lines: data.lines, keys: data.keys }
        let linesCopied = false
        const tx: Tx = {
          marker: Effect.sync(() =>
            staged.doc === undefined ? undefined : { revision: staged.doc.state_revision, events: staged.lines.length }
          ),
          loadDoc: Effect.sync(() => staged.doc),
          loadLines: (from) => Effect.sync(() => staged.lines.slice(from)),
          persist: (_prev, next) => Effect.sync(() => void (staged.doc = next)),
          append: (start, lines, _countInHead) =>
            Effect.sync(() => {
              if (!linesCopied) {
                staged.lines = staged.lines.slice(0, start)
                linesCopied = true
              }
              for (const l of lines) staged.lines.push(l.line)
            }),
          reset: Effect.sync(() => {
            staged.doc = undefined
            staged.lines = []
            staged.keys = []
            linesCopied = true
          }),
          putKey: (key) => Effect.sync(() => void (staged.keys = [...staged.keys, key])),
          loadKeys: Effect.sync(() => staged.keys)
        }
        return Effect.tap(f(tx), () => Effect.sync(() => void (data = staged)))
      }))
  }
  return backend
})

/**
 * An in-memory store (tests, embedded hosts that keep no file).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory: Layer.Layer<AuditStore> = Layer.effect(AuditStore, Effect.map(memoryBackend, makeEngine))

// ---------------------------------------------------------------------------------------------
// SQL backend

/**
 * The package's embedded migrations (table `audit_state_migrations`).
 *
 * @since 0.1.0
 * @category migrations
 */
export const migrations = Migrator.fromRecord({
  "0001_audit_state": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE IF NOT EXISTS audit_state_head (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      revision INTEGER NOT NULL,
      events INTEGER NOT NULL,
      present TEXT NOT NULL,
      doc TEXT NOT NULL
    )`
    yield* sql`CREATE TABLE IF NOT EXISTS audit_state_rows (
      collection TEXT NOT NULL,
      pos INTEGER NOT NULL,
      doc TEXT NOT NULL,
      PRIMARY KEY (collection, pos)
    )`
    yield* sql`CREATE TABLE IF NOT EXISTS audit_state_events (
      seq INTEGER PRIMARY KEY,
      line TEXT NOT NULL,
      head TEXT NOT NULL
    )`
    yield* sql`CREATE TABLE IF NOT EXISTS audit_state_lock (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      n INTEGER NOT NULL
    )`
  }),
  "0002_audit_state_dispatch_keys": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE IF NOT EXISTS audit_state_dispatch_keys (
      session_id TEXT PRIMARY KEY,
      role TEXT NOT NULL,
      source_digest TEXT NOT NULL,
      charter_slice TEXT
    )`
  })
})

const runMigrations = Migrator.make({})({ loader: migrations, table: "audit_state_migrations" })

const storageError = (what: string) => (error: SqlError | Migrator.MigrationError) =>
  AuditError.make("storage", `audit state database: ${what} failed: ${error.message}`)

const parseRow = (text: string, where: string): Effect.Effect<any, AuditError.AuditError> => {
  const v = Json.parse(text)
  return v instanceof Json.JsonSyntaxError
    ? Effect.fail(AuditError.make("invalid-state", `stored ${where}: not valid JSON (${v.message})`))
    : Effect.succeed(v)
}

const decodeKeyRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({
  session_id: Schema.String,
  role: Schema.String,
  source_digest: Schema.String,
  charter_slice: Schema.NullOr(Schema.String)
})))

const sqlBackend = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* runMigrations.pipe(Effect.mapError(storageError("migration")))
  const wrap = <A>(what: string, e: Effect.Effect<A, SqlError>) => Effect.mapError(e, storageError(what))
  const tx: Tx = {
    marker: wrap(
      "read",
      sql<{ revision: number; events: number }>`SELECT revision, events FROM audit_state_head WHERE id = 1`
    ).pipe(
      Effect.map((rows) => rows[0] === undefined ? undefined : { revision: rows[0].revision, events: rows[0].events })
    ),
    loadDoc: Effect.gen(function*() {
      const heads = yield* wrap(
        "read",
        sql<{ present: string; doc: string }>`SELECT present, doc FROM audit_state_head WHERE id = 1`
      )
      const head = heads[0]
      if (head === undefined) return undefined
      const rest = (yield* parseRow(head.doc, "state head")) as Record<string, unknown>
      const present = (yield* parseRow(head.present, "state head")) as ReadonlyArray<string>
      const rows = yield* wrap(
        "read",
        sql<
          { collection: string; pos: number; doc: string }
        >`SELECT collection, pos, doc FROM audit_state_rows ORDER BY collection, pos`
      )
      const doc: Record<string, unknown> = { ...rest }
      for (const c of present) doc[c] = []
      for (const r of rows) {
        const arr = doc[r.collection] as Array<unknown> | undefined
        if (arr === undefined) {
          return yield* Effect.fail(
            AuditError.make("invalid-state", `stored row of unknown collection '${r.collection}'`)
          )
        }
        arr.push(yield* parseRow(r.doc, `${r.collection}[${r.pos}]`))
      }
      return doc as unknown as State.StateDoc
    }),
    loadLines: (from) =>
      wrap("read", sql<{ line: string }>`SELECT line FROM audit_state_events WHERE seq >= ${from} ORDER BY seq`).pipe(
        Effect.map((rows) => rows.map((r) => r.line))
      ),
    persist: (prev, next, events) =>
      Effect.gen(function*() {
        const rest: Record<string, unknown> = {}
        const present: Array<string> = []
        for (const [k, v] of Object.entries(next)) {
          if ((State.collections as ReadonlyArray<string>).includes(k)) {
            if (Array.isArray(v)) present.push(k)
          } else rest[k] = v
        }
        const restText = Json.dumpsCompact(rest, false)
        const presentText = JSON.stringify(present)
        yield* wrap(
          "write",
          sql`INSERT INTO audit_state_head (id, revision, events, present, doc)
              VALUES (1, ${next.state_revision}, ${events}, ${presentText}, ${restText})
              ON CONFLICT (id) DO UPDATE SET revision = excluded.revision, events = excluded.events,
                present = excluded.present, doc = excluded.doc`
        )
        for (const c of State.collections) {
          const before = (prev?.[c] ?? []) as ReadonlyArray<unknown>
          const after = (next[c] ?? []) as ReadonlyArray<unknown>
          if (before === after) continue
          const upserts: Array<{ collection: string; pos: number; doc: string }> = []
          for (let k = 0; k < after.length; k++) {
            if (before[k] !== after[k]) upserts.push({ collection: c, pos: k, doc: Json.dumpsCompact(after[k], false) })
          }
          for (let k = 0; k < upserts.length; k += 300) {
            const chunk = upserts.slice(k, k + 300)
            yield* wrap(
              "write",
              sql`INSERT INTO audit_state_rows ${sql.insert(chunk)}
                  ON CONFLICT (collection, pos) DO UPDATE SET doc = excluded.doc`
            )
          }
          if (before.length > after.length) {
            yield* wrap("write", sql`DELETE FROM audit_state_rows WHERE collection = ${c} AND pos >= ${after.length}`)
          }
        }
      }),
    append: (start, lines, countInHead) =>
      Effect.gen(function*() {
        const rows = lines.map((l, k) => ({ seq: start + k, line: l.line, head: l.head }))
        for (let k = 0; k < rows.length; k += 300) {
          yield* wrap("write", sql`INSERT INTO audit_state_events ${sql.insert(rows.slice(k, k + 300))}`)
        }
        if (countInHead) {
          yield* wrap("write", sql`UPDATE audit_state_head SET events = ${start + lines.length} WHERE id = 1`)
        }
      }),
    putKey: (key) =>
      wrap(
        "write",
        sql`INSERT INTO audit_state_dispatch_keys (session_id, role, source_digest, charter_slice)
            VALUES (${key.session_id}, ${key.role}, ${key.source_digest}, ${key.charter_slice})
            ON CONFLICT (session_id) DO UPDATE SET role = excluded.role, source_digest = excluded.source_digest,
              charter_slice = excluded.charter_slice`
      ),
    loadKeys: wrap(
      "read",
      sql`SELECT session_id, role, source_digest, charter_slice FROM audit_state_dispatch_keys ORDER BY session_id`
    ).pipe(
      Effect.flatMap((rows) => decodeKeyRows(rows)),
      Effect.mapError((e) =>
        e instanceof AuditError.AuditError
          ? e
          : AuditError.make("invalid-state", `stored dispatch key: ${e.message}`)
      )
    ),
    reset: Effect.gen(function*() {
      yield* wrap("write", sql`DELETE FROM audit_state_dispatch_keys`)
      yield* wrap("write", sql`DELETE FROM audit_state_rows`)
      yield* wrap("write", sql`DELETE FROM audit_state_events`)
      yield* wrap("write", sql`DELETE FROM audit_state_head`)
    })
  }
  const takeLock = wrap(
    "lock",
    sql`INSERT INTO audit_state_lock (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = n + 1`
  )
  const backend: Backend = {
    transact: (write, f) =>
      sql.withTransaction(write ? Effect.zipRight(takeLock, f(tx)) : f(tx)).pipe(
        Effect.catchTag("SqlError", (e) => Effect.fail(storageError("transaction")(e)))
      )
  }
  return backend
})

/**
 * The SQL store: needs only the abstract `SqlClient`; runs its own migrations when built.
 * Every verb is one transaction that begins with a write (so concurrent processes serialize on
 * the database lock) and writes the state rows and the event together.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSql: Layer.Layer<AuditStore, AuditError.AuditError, SqlClient.SqlClient> = Layer.effect(
  AuditStore,
  Effect.map(sqlBackend, makeEngine)
)
