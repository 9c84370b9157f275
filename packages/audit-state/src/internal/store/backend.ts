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
import type { DispatchKeyRecord, StreamStatus } from "./model.js"
export interface Marker {
  readonly revision: number
  readonly events: number
}

export interface Tx {
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
