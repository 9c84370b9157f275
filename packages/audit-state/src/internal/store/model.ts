/**
 * The store's public models: what `apply`, dispatches and imports take and give back, and the
 * service shape. `AuditStore` re-exports them.
 *
 * @internal
 */
import type * as Effect from "effect/Effect"
import type * as AuditError from "../../AuditError.js"
import type * as Decision from "../../Decision.js"
import type * as Embargo from "../../Embargo.js"
import type * as Events from "../../Events.js"
import type * as State from "../../State.js"
import type * as Verbs from "../../Verbs.js"

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
  /** The subject's commit (git HEAD) the verb ran against: stored as `head_before`, as xcheck does. */
  readonly headBefore?: string | undefined
  /** Where Steward deliberately differs from xcheck (default: xcheck's behaviour). */
  readonly policy?: Verbs.VerbPolicy | undefined
  /**
   * A check run inside the transaction on the document the verb will see (the CLI's drift
   * check): a failure refuses the verb with that error, after the lease pair is recorded.
   * `viewMarks` reads the view marks of the given paths inside the same transaction.
   */
  readonly guard?:
    | ((
      doc: State.StateDoc,
      viewMarks: (paths: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, string>, AuditError.AuditError>
    ) => Effect.Effect<void, AuditError.AuditError>)
    | undefined
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
  readonly apply: (
    request: Verbs.VerbRequestText,
    options?: ApplyOptions
  ) => Effect.Effect<Applied, AuditError.AuditError>
  /** Store a new open dispatch envelope (closing an unfinalised one as `crash`). */
  readonly openDispatch: (input: DispatchOpen) => Effect.Effect<Applied, AuditError.AuditError>
  /** Finalise the open dispatch. */
  readonly finishDispatch: (input: DispatchFinish) => Effect.Effect<Applied, AuditError.AuditError>
  /**
   * Append an observational `gate_reached` event (no revision change). `known`: the revision the
   * decision was taken at and its open dispatch's session — when the store is still sealed at
   * that revision, the event is appended without reading the records (ADR 0141).
   */
  readonly recordGate: (
    decision: Decision.Decision,
    options?: {
      readonly dryRun?: boolean | undefined
      readonly known?: { readonly revision: number; readonly sessionId: string | null } | undefined
    }
  ) => Effect.Effect<Events.AuditEvent, AuditError.AuditError>
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
  /**
   * Fingerprints of generated views last seen to agree with state (relative path, or `LEDGER.md`,
   * → mark); a commit drops those of the records it changed (ADR 0115). `paths`: only these.
   */
  readonly viewMarks: (
    paths?: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyMap<string, string>, AuditError.AuditError>
  /**
   * Record view fingerprints observed against state revision `revision` (`undefined` drops one);
   * nothing is recorded when the state has moved past that revision.
   */
  readonly markViews: (
    revision: number,
    marks: ReadonlyArray<readonly [string, string | undefined]>
  ) => Effect.Effect<void, AuditError.AuditError>
  /**
   * The memo `name` (ADR 0141): text derived from the state at its revision, returned only while
   * the store is as that revision's validated write left it (`undefined` otherwise).
   */
  readonly memo: (name: string) => Effect.Effect<Memo | undefined, AuditError.AuditError>
  /** Record a memo derived at `memo.revision`; nothing is recorded when the state has moved past it. */
  readonly putMemo: (name: string, memo: Memo) => Effect.Effect<void, AuditError.AuditError>
}

/**
 * Text derived from the state at `revision` under `basis` (what else it was derived from, such
 * as the configuration), kept by {@link AuditStoreShape.putMemo} (ADR 0141).
 *
 * @since 0.3.0
 * @category models
 */
export interface Memo {
  readonly revision: number
  readonly basis: string
  readonly body: string
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
