/**
 * The reflex ledger: parameter generations, observations (numbers, decisions and digests only,
 * never prompt or response text), labels, forward trials and certificates. `layerSql` runs over
 * the abstract `SqlClient` with its own migrations; `layerMemory` keeps everything in a `Ref`.
 * Every multi-row change is one transaction.
 *
 * @since 0.1.0
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import { createHash } from "node:crypto"
import { hashName } from "./internal/formerHeads.js"
import * as Common from "./internal/ledger/common.js"
import * as Memory from "./internal/ledger/memory.js"
import * as Migrations from "./internal/ledger/migrations.js"
import * as Sql from "./internal/ledger/sql.js"
import type { HeadLabel } from "./Labels.js"
import type { Example } from "./Learning.js"
import type * as ReflexError from "./ReflexError.js"

/**
 * A recorded decision.
 *
 * @since 0.1.0
 * @category models
 */
export interface Observation {
  readonly id: string
  readonly reflex: string
  readonly subject: string
  readonly head: string
  readonly value: string
  readonly gate: string
  /** logit × 1000, rounded. */
  readonly score: number
  readonly features: Readonly<Record<string, number>>
  /** Typed, text-free evidence the program received (booleans, enums, numbers). */
  readonly evidence: Readonly<Record<string, unknown>>
  readonly paramsVersion: number
  /** Manifest digest of the program. */
  readonly program: string
  /** Receipt digest of the run ("" for imports). */
  readonly receipt: string
  readonly atMs: number
}

/**
 * A stored generation (payload is the JSON of `Params`; decoded by the caller, who knows the heads).
 *
 * @since 0.1.0
 * @category models
 */
export interface StoredGeneration {
  readonly version: number
  readonly active: boolean
  readonly createdAt: number
  readonly payload: string
}

/**
 * An open forward trial.
 *
 * @since 0.1.0
 * @category models
 */
export interface Trial {
  readonly candidate: string
  readonly startedAtMs: number
  readonly fittedThrough: number
}

/**
 * A stored certificate.
 *
 * @since 0.1.0
 * @category models
 */
export interface StoredCertificate {
  readonly payload: string
  readonly atMs: number
  readonly through: number
}

/**
 * Label counts of one head.
 *
 * @since 0.1.0
 * @category models
 */
export interface HeadStats {
  readonly labels: number
  readonly positives: number
  readonly maxSeq: number
}

/**
 * The result of writing labels: label rows of the reflex before and after (for the every-16 cadence).
 *
 * @since 0.1.0
 * @category models
 */
export interface LabelWrite {
  readonly before: number
  readonly after: number
  readonly written: number
  /** Per incoming label: whether it was stored (false when a stored label wins). */
  readonly applied: ReadonlyArray<boolean>
}

/**
 * Maximum observations kept per reflex (oldest unlabeled deleted first).
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_OBSERVATIONS: number = Common.MAX_OBSERVATIONS

/**
 * Maximum generations kept per reflex (oldest inactive deleted first).
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_GENERATIONS: number = Common.MAX_GENERATIONS

/**
 * Observation id of a decided subject: idempotent per (reflex, subject).
 *
 * @since 0.1.0
 * @category constructors
 */
export const observationId = (reflex: string, subject: string): string =>
  "obs_" + createHash("sha256").update(`xcb-reflex-obs-v1\0${reflex}\0${subject}`, "utf8").digest("hex").slice(0, 32)

/**
 * Observation id of an imported line.
 *
 * @since 0.1.0
 * @category constructors
 */
export const importId = (reflex: string, head: string, lineId: string): string =>
  "obs_" +
  createHash("sha256").update(`xcb-reflex-import-v1\0${reflex}\0${hashName(head, reflex)}\0${lineId}`, "utf8").digest(
    "hex"
  ).slice(0, 32)

/**
 * Truncate to at most `n` code points.
 *
 * @since 0.1.0
 * @category constructors
 */
export const clip: (text: string, n: number) => string = Common.clip

/**
 * The ledger's operations.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  readonly generations: (reflex: string) => Effect.Effect<ReadonlyArray<StoredGeneration>, ReflexError.ReflexError>
  readonly activeGeneration: (reflex: string) => Effect.Effect<Option.Option<StoredGeneration>, ReflexError.ReflexError>
  /** Append `payload(version, parent)` as the only active generation, iff the active version is still `expectedActive`. */
  readonly promote: (
    reflex: string,
    expectedActive: number,
    atMs: number,
    payload: (version: number, parent: number) => string
  ) => Effect.Effect<number, ReflexError.ReflexError>
  readonly rollback: (reflex: string, version: number) => Effect.Effect<void, ReflexError.ReflexError>
  /** Insert or ignore (idempotent per id); applies retention. True when inserted. */
  readonly record: (observation: Observation) => Effect.Effect<boolean, ReflexError.ReflexError>
  readonly observation: (id: string) => Effect.Effect<Option.Option<Observation>, ReflexError.ReflexError>
  /** The latest observation whose subject is `subject` or starts with `subject#`. */
  readonly latest: (
    reflex: string,
    subject: string
  ) => Effect.Effect<Option.Option<Observation>, ReflexError.ReflexError>
  readonly label: (
    reflex: string,
    observation: string,
    labels: ReadonlyArray<HeadLabel>,
    atMs: number
  ) => Effect.Effect<LabelWrite, ReflexError.ReflexError>
  /** Newest `limit` labels of a head in arrival order, joined with their features. */
  readonly examples: (
    reflex: string,
    head: string,
    limit: number
  ) => Effect.Effect<ReadonlyArray<Example>, ReflexError.ReflexError>
  readonly stats: (reflex: string) => Effect.Effect<Readonly<Record<string, HeadStats>>, ReflexError.ReflexError>
  readonly counts: (
    reflex: string
  ) => Effect.Effect<{ readonly observed: number; readonly labeled: number }, ReflexError.ReflexError>
  readonly trial: (reflex: string, head: string) => Effect.Effect<Option.Option<Trial>, ReflexError.ReflexError>
  readonly putTrial: (reflex: string, head: string, trial: Trial) => Effect.Effect<void, ReflexError.ReflexError>
  readonly deleteTrial: (reflex: string, head: string) => Effect.Effect<void, ReflexError.ReflexError>
  readonly certificate: (
    reflex: string,
    head: string
  ) => Effect.Effect<Option.Option<StoredCertificate>, ReflexError.ReflexError>
  /** Upsert only if `through` ≥ the stored one (a stale pass never overwrites a newer certificate). */
  readonly putCertificate: (
    reflex: string,
    head: string,
    certificate: StoredCertificate
  ) => Effect.Effect<boolean, ReflexError.ReflexError>
  /** Insert imported observations with their labels in one transaction; deletes open trials. */
  readonly importRows: (
    reflex: string,
    rows: ReadonlyArray<{ readonly observation: Observation; readonly labels: ReadonlyArray<HeadLabel> }>,
    atMs: number
  ) => Effect.Effect<number, ReflexError.ReflexError>
}

/**
 * The ledger service.
 *
 * @since 0.1.0
 * @category tags
 */
export class ReflexLedger extends Context.Tag("@steward/reflex-core/ReflexLedger")<ReflexLedger, Service>() {}

/**
 * Ledger options.
 *
 * @since 0.1.0
 * @category models
 */
export interface LedgerOptions {
  /** Observations kept per reflex (default `MAX_OBSERVATIONS`; labeled observations are always kept). */
  readonly maxObservations?: number
}

/**
 * Embedded migrations (table `reflex_core_migrations`).
 *
 * @since 0.1.0
 * @category migrations
 */
export const migrations = Migrations.migrations

/**
 * Run the ledger migrations.
 *
 * @since 0.1.0
 * @category migrations
 */
export const migrate = Migrations.migrate

/**
 * Build the SQL ledger (runs the migrations).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeSql = (options: LedgerOptions = {}) => Effect.map(Sql.makeSql(options), ReflexLedger.of)

/**
 * The ledger over the abstract `SqlClient`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSql: Layer.Layer<ReflexLedger, ReflexError.ReflexError, SqlClient.SqlClient> = Layer.effect(
  ReflexLedger,
  makeSql()
)

/**
 * The SQL ledger with options.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSqlWith = (
  options: LedgerOptions
): Layer.Layer<ReflexLedger, ReflexError.ReflexError, SqlClient.SqlClient> =>
  Layer.effect(ReflexLedger, makeSql(options))

/**
 * Build an in-memory ledger (same semantics as SQL).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory = (options: LedgerOptions = {}) => Effect.map(Memory.makeMemory(options), ReflexLedger.of)

/**
 * An in-memory ledger.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory: Layer.Layer<ReflexLedger> = Layer.effect(ReflexLedger, makeMemory())

/**
 * An in-memory ledger with options.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemoryWith = (options: LedgerOptions): Layer.Layer<ReflexLedger> =>
  Layer.effect(ReflexLedger, makeMemory(options))
