/**
 * What the engine needs from a storage backend: one transaction at a time over the state rows,
 * the event lines and the dispatch keys. The memory and SQL backends implement it.
 *
 * @internal
 */
import type * as Effect from "effect/Effect"
import { createHash } from "node:crypto"
import type * as AuditError from "../../AuditError.js"
import type * as State from "../../State.js"
import type { DispatchKeyRecord, Memo, StreamStatus } from "./model.js"
export interface Marker {
  readonly revision: number
  readonly events: number
}

/**
 * What the last validated write left: the store's tables are exactly as it wrote them while no
 * change has been made since (ADR 0114). The SQL backend keeps it with triggers that count every
 * change to the state, event and key tables; the seal holds the count the engine saw last.
 */
export interface Seal {
  readonly revision: number
  readonly events: number
  readonly head: string
}

export interface Tx {
  /**
   * The memo `name`, only while the store is as the validated write of the memo's revision left
   * it (the SQL backend: the seal is current at that revision); `undefined` otherwise.
   */
  readonly memo: (name: string) => Effect.Effect<Memo | undefined, AuditError.AuditError>
  /**
   * Record a memo, only over a store still as the validated write of `memo.revision` left it
   * (the SQL backend: sealed at that revision, and sealed again after, so nothing unchecked is
   * sealed with it). Called in a write transaction.
   */
  readonly putMemo: (name: string, memo: Memo) => Effect.Effect<void, AuditError.AuditError>
  readonly marker: Effect.Effect<Marker | undefined, AuditError.AuditError>
  /**
   * The stored document. `trusted`: the rows are sealed (written by a validated commit and
   * untouched since), so they are parsed natively and not re-validated.
   */
  readonly loadDoc: (trusted: boolean) => Effect.Effect<State.StateDoc | undefined, AuditError.AuditError>
  /** The seal, when nothing changed the tables since it was written (`undefined` otherwise). */
  readonly sealed: Effect.Effect<Seal | undefined, AuditError.AuditError>
  /** Seal what this transaction leaves (called last, after every other write). */
  readonly seal: (seal: Seal) => Effect.Effect<void, AuditError.AuditError>
  /** The recorded view fingerprints (relative path → mark); a commit drops those of what it changed. */
  readonly viewMarks: (
    paths?: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyMap<string, string>, AuditError.AuditError>
  /** Record view fingerprints (`undefined` removes one). */
  readonly putViewMarks: (
    marks: ReadonlyArray<readonly [string, string | undefined]>
  ) => Effect.Effect<void, AuditError.AuditError>
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

export interface Backend {
  readonly transact: <A>(
    write: boolean,
    f: (tx: Tx) => Effect.Effect<A, AuditError.AuditError>
  ) => Effect.Effect<A, AuditError.AuditError>
}

export interface Snapshot {
  readonly doc: State.StateDoc
  readonly revision: number
  readonly events: number
  readonly head: string
  readonly status: StreamStatus["state"]
  readonly detail?: string | undefined
}

export const isoSeconds = (ms: number) => new Date(ms).toISOString().slice(0, 19) + "+00:00"
export const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex")

/** The key of `LEDGER.md` among the view marks. */
export const LEDGER_MARK = "LEDGER.md"

/**
 * The view marks a commit from `prev` to `next` makes stale: `LEDGER.md` and the body of every
 * record whose row changed (rows are frozen and kept by identity, so this compares pointers).
 */
export const staleViews = (prev: State.StateDoc | undefined, next: State.StateDoc): ReadonlyArray<string> => {
  const out = new Set<string>([LEDGER_MARK])
  changedBodies(prev?.findings ?? [], next.findings ?? [], out)
  changedBodies(prev?.class_findings ?? [], next.class_findings ?? [], out)
  return [...out]
}

/**
 * Adds to `out` the body paths of the rows that differ between two versions of one collection.
 * A verb replaces rows in place and appends new ones, so the rows are compared position by
 * position first: a commit costs pointer comparisons, not a map of every record. Rows that moved
 * (an id at a different position) fall back to matching by id.
 */
const changedBodies = (
  before: ReadonlyArray<State.Finding>,
  after: ReadonlyArray<State.Finding>,
  out: Set<string>
): void => {
  if (before === after) return
  const common = Math.min(before.length, after.length)
  for (let i = 0; i < common; i++) {
    const old = before[i]!
    const row = after[i]!
    if (old === row) continue
    if (old.id !== row.id) return changedById(before, after, out)
    out.add(row.body_path)
    out.add(old.body_path)
  }
  for (let i = common; i < before.length; i++) out.add(before[i]!.body_path)
  for (let i = common; i < after.length; i++) out.add(after[i]!.body_path)
}

const changedById = (
  before: ReadonlyArray<State.Finding>,
  after: ReadonlyArray<State.Finding>,
  out: Set<string>
): void => {
  const byId = new Map<string, State.Finding>()
  for (const r of before) byId.set(r.id, r)
  for (const r of after) {
    const old = byId.get(r.id)
    if (old !== r) {
      out.add(r.body_path)
      if (old !== undefined) out.add(old.body_path)
    }
    byId.delete(r.id)
  }
  for (const r of byId.values()) out.add(r.body_path)
}
