/**
 * `AuditStore`: the only way audit state changes. Every verb is one transaction that validates
 * the whole next document, bumps `state_revision`, moves the ledger anchor and appends its
 * chained `state_transition` event together. `layerSql` needs only the abstract `SqlClient`
 * (own migrations, table `audit_state_migrations`); `layerMemory` keeps everything in memory.
 * The engine and both backends live in `internal/store/`.
 *
 * @since 0.1.0
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as AuditError from "./AuditError.js"
import { makeEngine } from "./internal/store/engine.js"
import { memoryBackend } from "./internal/store/memory.js"
import type * as Model from "./internal/store/model.js"
import * as Sql from "./internal/store/sql.js"

/**
 * The outcome of a committed change.
 *
 * @since 0.1.0
 * @category models
 */
export type Applied = Model.Applied

/**
 * Options of {@link AuditStoreShape.apply}.
 *
 * @since 0.1.0
 * @category models
 */
export type ApplyOptions = Model.ApplyOptions

/**
 * Opening a dispatch: the envelope's declared fields (§1.8).
 *
 * @since 0.1.0
 * @category models
 */
export type DispatchOpen = Model.DispatchOpen

/**
 * Finishing the open dispatch.
 *
 * @since 0.1.0
 * @category models
 */
export type DispatchFinish = Model.DispatchFinish

/**
 * The event stream's standing against the state's anchor.
 *
 * @since 0.1.0
 * @category models
 */
export type StreamStatus = Model.StreamStatus

/**
 * What an import stored.
 *
 * @since 0.1.0
 * @category models
 */
export type ImportReport = Model.ImportReport

/**
 * The store's operations.
 *
 * @since 0.1.0
 * @category models
 */
export type AuditStoreShape = Model.AuditStoreShape

/**
 * The embargo key recorded when a dispatch opens (xcheck's `dispatch_key` payload).
 *
 * @since 0.1.0
 * @category models
 */
export type DispatchKeyRecord = Model.DispatchKeyRecord

/**
 * Text derived from the state at a revision, kept by `putMemo` and returned by `memo` only
 * while the store is as that revision's validated write left it (ADR 0141).
 *
 * @since 0.3.0
 * @category models
 */
export type Memo = Model.Memo

/**
 * The audit state store.
 *
 * @since 0.1.0
 * @category tags
 */
export class AuditStore extends Context.Tag("@steward/audit-state/AuditStore")<AuditStore, AuditStoreShape>() {}

/**
 * An in-memory store (tests, embedded hosts that keep no file).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory: Layer.Layer<AuditStore> = Layer.effect(AuditStore, Effect.map(memoryBackend, makeEngine))

/**
 * The package's embedded migrations (table `audit_state_migrations`).
 *
 * @since 0.1.0
 * @category migrations
 */
export const migrations = Sql.migrations

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
  Effect.map(Sql.sqlBackend, makeEngine)
)
