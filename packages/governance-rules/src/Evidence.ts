/**
 * The evidence stream: every decision, answer and hook firing of a run, in one seq-ordered log.
 * `layerMemory` for tests and embedded use; `layerSql` persists through the abstract `SqlClient`
 * with its own migrations (table `governance_rules_migrations`). Events carry no wall-clock
 * value except `at` (from `Clock`), and command text is redacted before it is stored.
 *
 * @since 0.1.0
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as GovernanceError from "./GovernanceError.js"

/**
 * What an event records.
 *
 * - `decision`: a policy decision with its citation.
 * - `answer`: how an ask was resolved (by the `Responder`, or unanswered).
 * - `hook`: a hook fired (named, with its output).
 * - `hook_error`: a hook failed; the run continued (named, with the error).
 * - `progress`: a progress-model verdict.
 * - `note`: anything a host adds.
 *
 * @since 0.1.0
 * @category models
 */
export const EvidenceKind = Schema.Literal("decision", "answer", "hook", "hook_error", "progress", "note")

/**
 * @since 0.1.0
 * @category models
 */
export type EvidenceKind = typeof EvidenceKind.Type

/**
 * An event to append.
 *
 * @since 0.1.0
 * @category models
 */
export interface EvidenceInput {
  readonly kind: EvidenceKind
  readonly runId?: string | null
  readonly hook?: string | null
  readonly data: unknown
}

/**
 * A stored event.
 *
 * @since 0.1.0
 * @category models
 */
export class EvidenceEvent extends Schema.Class<EvidenceEvent>("@steward/governance-rules/EvidenceEvent")({
  seq: Schema.Int,
  at: Schema.Int,
  kind: EvidenceKind,
  runId: Schema.NullOr(Schema.String),
  hook: Schema.NullOr(Schema.String),
  data: Schema.Unknown
}) {}

/**
 * Options for reading the stream.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReadOptions {
  /** Only events with `seq` greater than this. */
  readonly after?: number
  readonly runId?: string
}

/**
 * The evidence log service.
 *
 * @since 0.1.0
 * @category tags
 */
export class EvidenceLog extends Context.Tag("@steward/governance-rules/EvidenceLog")<EvidenceLog, {
  /** Append one event; `seq` is assigned in order. */
  readonly append: (input: EvidenceInput) => Effect.Effect<EvidenceEvent, GovernanceError.GovernanceError>
  /** Stored events in `seq` order. */
  readonly stream: (options?: ReadOptions) => Stream.Stream<EvidenceEvent, GovernanceError.GovernanceError>
  /** Events appended through this service from now on (live). */
  readonly live: Stream.Stream<EvidenceEvent>
}>() {}

const SECRET_ASSIGNMENT =
  /\b([A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|PASS|API_?KEY|PRIVATE_?KEY|CREDENTIALS?|AUTH)[A-Za-z0-9_]*)=("[^"]*"|'[^']*'|\S+)/gi
const BEARER = /\b(Bearer|Basic|token)\s+[A-Za-z0-9._~+/=-]{8,}/gi
const URL_USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi
const SECRET_FLAG = /(--(?:password|passwd|token|secret|api-key|apikey|auth)[= ])("[^"]*"|'[^']*'|\S+)/gi
const KNOWN_TOKENS =
  /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{20,}|xox[abpr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|npm_[A-Za-z0-9]{30,})\b/g

/**
 * Redact secrets from command text before it becomes evidence: `*TOKEN*=…`, `*PASSWORD*=…`,
 * `Bearer …`, URL user-info, `--password …`, and well-known token shapes.
 *
 * @since 0.1.0
 * @category utils
 */
export const redact = (text: string): string =>
  text
    .replace(SECRET_ASSIGNMENT, (_, name: string) => `${name}=***`)
    .replace(BEARER, (_, scheme: string) => `${scheme} ***`)
    .replace(URL_USERINFO, (_, scheme: string) => `${scheme}***@`)
    .replace(SECRET_FLAG, (_, flag: string) => `${flag}***`)
    .replace(KNOWN_TOKENS, "***")

const jsonSafe = (data: unknown): unknown => {
  try {
    return JSON.parse(JSON.stringify(data ?? null)) as unknown
  } catch {
    return String(data)
  }
}

// What `EvidenceEvent`'s validating constructor checks of an appended input, written out: the
// memory log builds each event from checked input and its own seq and clock, without running the
// constructor's decoding on every append (issue 38 item 3). `test/Evidence.test.ts` holds this
// equal to the Schema with a property test.
const KINDS: ReadonlySet<unknown> = new Set(EvidenceKind.literals)
const nullOrString = (value: unknown): boolean => value === undefined || value === null || typeof value === "string"

/** Whether `EvidenceEvent` accepts an input's fields (the Schema's contract, without decoding). @internal */
export const appendable = (input: EvidenceInput): boolean =>
  KINDS.has(input.kind) && nullOrString(input.runId) && nullOrString(input.hook)

/**
 * In-memory evidence log.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory = Effect.gen(function*() {
  // An append is one synchronous block (clock read, seq, store, publish): concurrent appends
  // cannot interleave, so seqs stay gap-free and in publish order without a lock.
  const events: Array<EvidenceEvent> = []
  const hub = yield* PubSub.unbounded<EvidenceEvent>()
  return EvidenceLog.of({
    append: (input) =>
      appendable(input)
        ? Effect.clockWith((clock) =>
          Effect.sync(() => {
            // checked above; seq and time are the log's own integers
            const event = new EvidenceEvent({
              seq: events.length + 1,
              at: clock.unsafeCurrentTimeMillis(),
              kind: input.kind,
              runId: input.runId ?? null,
              hook: input.hook ?? null,
              data: jsonSafe(input.data)
            }, true)
            events.push(event)
            hub.unsafeOffer(event)
            return event
          })
        )
        : GovernanceError.make(
          "input-invalid",
          `evidence input: kind, runId or hook is not what EvidenceEvent accepts`
        ),
    stream: (options = {}) =>
      Stream.fromIterableEffect(Effect.sync(() => events.slice())).pipe(
        Stream.filter((e) => e.seq > (options.after ?? 0) && (options.runId === undefined || e.runId === options.runId))
      ),
    live: Stream.fromPubSub(hub)
  })
})

/**
 * In-memory evidence log layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory: Layer.Layer<EvidenceLog> = Layer.effect(EvidenceLog, makeMemory)

/**
 * The embedded migrations (table `governance_rules_migrations`).
 *
 * @since 0.1.0
 * @category migrations
 */
export const migrations = Migrator.fromRecord({
  "0001_governance_evidence": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE IF NOT EXISTS governance_evidence (
      seq INTEGER PRIMARY KEY,
      at BIGINT NOT NULL,
      kind TEXT NOT NULL,
      run_id TEXT,
      hook TEXT,
      data TEXT NOT NULL
    )`
    yield* sql`CREATE INDEX IF NOT EXISTS governance_evidence_run ON governance_evidence (run_id, seq)`
  })
})

const runMigrations = Migrator.make({})({ loader: migrations, table: "governance_rules_migrations" }).pipe(
  // Two processes migrating one PostgreSQL database at once can race to create the migrations
  // table; the loser's retry finds it and waits on the migrator's table lock.
  Effect.retry({ times: 2 })
)

const storeError = (what: string) => (error: SqlError | Migrator.MigrationError | { readonly message: string }) =>
  GovernanceError.make("evidence-store", `evidence store: ${what} failed: ${error.message}`)

// PostgreSQL drivers return `bigint` columns as decimal strings unless told otherwise; a store
// must read its rows whichever client the host configured.
const DbInteger = Schema.Union(Schema.Number, Schema.NumberFromString)

const Row = Schema.Struct({
  seq: DbInteger,
  at: DbInteger,
  kind: EvidenceKind,
  run_id: Schema.NullOr(Schema.String),
  hook: Schema.NullOr(Schema.String),
  data: Schema.parseJson()
})

const decodeRow = Schema.decodeUnknown(Row)

const PAGE = 500

/** The advisory-lock key appends serialize on under PostgreSQL (any fixed 64-bit number). */
const APPEND_LOCK = 0x5374_6577_4576

/**
 * SQL-backed evidence log (needs only the abstract `SqlClient`; runs its own migrations).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeSql = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* runMigrations.pipe(Effect.mapError(storeError("migration")))
  const hub = yield* PubSub.unbounded<EvidenceEvent>()
  const toEvent = (row: unknown) =>
    decodeRow(row).pipe(
      Effect.map((r) =>
        new EvidenceEvent({ seq: r.seq, at: r.at, kind: r.kind, runId: r.run_id, hook: r.hook, data: r.data })
      ),
      Effect.mapError(storeError("decoding a stored event"))
    )
  const page = (after: number, runId: string | undefined) =>
    (runId === undefined
      ? sql`SELECT seq, at, kind, run_id, hook, data FROM governance_evidence WHERE seq > ${after} ORDER BY seq LIMIT ${PAGE}`
      : sql`SELECT seq, at, kind, run_id, hook, data FROM governance_evidence WHERE seq > ${after} AND run_id = ${runId} ORDER BY seq LIMIT ${PAGE}`)
      .pipe(Effect.mapError(storeError("read")), Effect.flatMap((rows) => Effect.forEach(rows, toEvent)))
  return EvidenceLog.of({
    append: Effect.fn("Evidence.append")(function*(input: EvidenceInput) {
      const at = yield* Clock.currentTimeMillis
      const data = JSON.stringify(jsonSafe(input.data))
      const runId = input.runId ?? null
      const hook = input.hook ?? null
      // One statement: the next seq is computed and written atomically (under SQLite the writer
      // lock is taken by the insert itself). On PostgreSQL, concurrent writers would compute the
      // same next seq, so appends first take a transaction-scoped advisory lock: seqs stay
      // gap-free and no writer has to retry.
      const insert = sql`INSERT INTO governance_evidence (seq, at, kind, run_id, hook, data)
        SELECT COALESCE(MAX(seq), 0) + 1, ${at}, ${input.kind}, ${runId}, ${hook}, ${data} FROM governance_evidence
        RETURNING seq, at, kind, run_id, hook, data`
      const rows = yield* sql.onDialectOrElse({
        pg: () => sql.withTransaction(sql`SELECT pg_advisory_xact_lock(${APPEND_LOCK})`.pipe(Effect.zipRight(insert))),
        orElse: () => insert
      }).pipe(Effect.mapError(storeError("append")))
      const event = yield* toEvent(rows[0])
      yield* PubSub.publish(hub, event)
      return event
    }),
    stream: (options = {}) =>
      Stream.paginateChunkEffect(options.after ?? 0, (after) =>
        page(after, options.runId).pipe(
          Effect.map((events) => {
            const last = events[events.length - 1]
            return [
              Chunk.fromIterable(events),
              events.length < PAGE || last === undefined ? Option.none() : Option.some(last.seq)
            ] as const
          })
        )),
    live: Stream.fromPubSub(hub)
  })
})

/**
 * SQL-backed evidence log layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSql: Layer.Layer<EvidenceLog, GovernanceError.GovernanceError, SqlClient.SqlClient> = Layer.effect(
  EvidenceLog,
  makeSql
)
