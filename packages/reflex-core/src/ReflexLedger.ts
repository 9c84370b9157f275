/**
 * The reflex ledger: parameter generations, observations (numbers, decisions and digests only,
 * never prompt or response text), labels, forward trials and certificates. `layerSql` runs over
 * the abstract `SqlClient` with its own migrations; `layerMemory` keeps everything in a `Ref`.
 * Every multi-row change is one transaction.
 *
 * @since 0.1.0
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { createHash } from "node:crypto"
import { FeaturesSchema } from "./Features.js"
import type { HeadLabel } from "./Labels.js"
import { replaces } from "./Labels.js"
import type { Example } from "./Learning.js"
import * as ReflexError from "./ReflexError.js"

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
export const MAX_OBSERVATIONS = 20_000

/**
 * Maximum generations kept per reflex (oldest inactive deleted first).
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_GENERATIONS = 256

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
  createHash("sha256").update(`xcb-reflex-import-v1\0${reflex}\0${head}\0${lineId}`, "utf8").digest("hex").slice(0, 32)

/**
 * Truncate to at most `n` code points.
 *
 * @since 0.1.0
 * @category constructors
 */
export const clip = (text: string, n: number): string => {
  const points = Array.from(text)
  return points.length <= n ? text : points.slice(0, n).join("")
}

/**
 * The ledger service.
 *
 * @since 0.1.0
 * @category tags
 */
export class ReflexLedger extends Context.Tag("@steward/reflex-core/ReflexLedger")<ReflexLedger, {
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
}>() {}

// ---------------------------------------------------------------------------------------------
// SQL
// ---------------------------------------------------------------------------------------------

/**
 * Embedded migrations (table `reflex_core_migrations`).
 *
 * @since 0.1.0
 * @category migrations
 */
export const migrations = Migrator.fromRecord({
  "0001_reflex_ledger": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE IF NOT EXISTS reflex_lock (id INTEGER PRIMARY KEY NOT NULL, n BIGINT NOT NULL)`
    yield* sql`CREATE TABLE IF NOT EXISTS reflex_generations (
      reflex TEXT NOT NULL, version INTEGER NOT NULL, active INTEGER NOT NULL, created_at BIGINT NOT NULL,
      payload TEXT NOT NULL, PRIMARY KEY (reflex, version))`
    yield* sql`CREATE TABLE IF NOT EXISTS reflex_observations (
      id TEXT PRIMARY KEY NOT NULL, reflex TEXT NOT NULL, subject TEXT NOT NULL, head TEXT NOT NULL,
      value TEXT NOT NULL, gate TEXT NOT NULL, score INTEGER NOT NULL, features TEXT NOT NULL,
      evidence TEXT NOT NULL, params_version INTEGER NOT NULL, program TEXT NOT NULL, receipt TEXT NOT NULL,
      at_ms BIGINT NOT NULL)`
    yield* sql`CREATE INDEX IF NOT EXISTS reflex_observations_subject ON reflex_observations (reflex, subject, at_ms)`
    yield* sql`CREATE TABLE IF NOT EXISTS reflex_labels (
      observation TEXT NOT NULL, reflex TEXT NOT NULL, head TEXT NOT NULL, label INTEGER NOT NULL,
      weight DOUBLE PRECISION NOT NULL, source TEXT NOT NULL, at_ms BIGINT NOT NULL, seq BIGINT NOT NULL,
      PRIMARY KEY (observation, head))`
    yield* sql`CREATE INDEX IF NOT EXISTS reflex_labels_seq ON reflex_labels (reflex, head, seq)`
    yield* sql`CREATE TABLE IF NOT EXISTS reflex_trials (
      reflex TEXT NOT NULL, head TEXT NOT NULL, candidate TEXT NOT NULL, started_at_ms BIGINT NOT NULL,
      fitted_through BIGINT NOT NULL, PRIMARY KEY (reflex, head))`
    yield* sql`CREATE TABLE IF NOT EXISTS reflex_certificates (
      reflex TEXT NOT NULL, head TEXT NOT NULL, payload TEXT NOT NULL, at_ms BIGINT NOT NULL,
      through BIGINT NOT NULL, PRIMARY KEY (reflex, head))`
  }),
  "0002_observation_counts": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE IF NOT EXISTS reflex_counts (reflex TEXT PRIMARY KEY NOT NULL, observations INTEGER NOT NULL)`
    // the table was created just above, so a plain insert cannot conflict (and reads in both dialects)
    yield* sql`INSERT INTO reflex_counts (reflex, observations)
      SELECT reflex, COUNT(*) FROM reflex_observations GROUP BY reflex`
    // labels take `seq = max(seq) + 1` globally: keep that an index lookup
    yield* sql`CREATE INDEX IF NOT EXISTS reflex_labels_global_seq ON reflex_labels (seq)`
  })
})

/**
 * Run the ledger migrations.
 *
 * @since 0.1.0
 * @category migrations
 */
export const migrate = Migrator.make({})({ loader: migrations, table: "reflex_core_migrations" })

const ObservationRow = Schema.Struct({
  id: Schema.String,
  reflex: Schema.String,
  subject: Schema.String,
  head: Schema.String,
  value: Schema.String,
  gate: Schema.String,
  score: Schema.Number,
  features: Schema.parseJson(FeaturesSchema),
  evidence: Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  params_version: Schema.Number,
  program: Schema.String,
  receipt: Schema.String,
  at_ms: Schema.Number
})
const decodeObservation = Schema.decodeUnknown(ObservationRow)

const ExampleRow = Schema.Struct({
  observation: Schema.String,
  label: Schema.Number,
  weight: Schema.Number,
  source: Schema.String,
  seq: Schema.Number,
  features: Schema.parseJson(FeaturesSchema)
})
const decodeExamples = Schema.decodeUnknown(Schema.Array(ExampleRow))

const GenerationRow = Schema.Struct({
  version: Schema.Number,
  active: Schema.Number,
  created_at: Schema.Number,
  payload: Schema.String
})
const decodeGenerations = Schema.decodeUnknown(Schema.Array(GenerationRow))

const ledgerError = (what: string) => (cause: unknown) =>
  ReflexError.make(
    "ledger",
    `reflex ledger: cannot ${what}: ${cause instanceof Error ? cause.message : String(cause)}`,
    undefined,
    cause
  )

const toObservation = (row: typeof ObservationRow.Type): Observation => ({
  id: row.id,
  reflex: row.reflex,
  subject: row.subject,
  head: row.head,
  value: row.value,
  gate: row.gate,
  score: row.score,
  features: row.features,
  evidence: row.evidence,
  paramsVersion: row.params_version,
  program: row.program,
  receipt: row.receipt,
  atMs: row.at_ms
})

/**
 * Build the SQL ledger (runs the migrations).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeSql = (options: LedgerOptions = {}) =>
  Effect.gen(function*() {
    const maxObservations = options.maxObservations ?? MAX_OBSERVATIONS
    const sql = yield* SqlClient.SqlClient
    yield* migrate.pipe(Effect.mapError(ledgerError("migrate")))

    // Ties at one millisecond go to the row inserted last: SQLite's rowid, PostgreSQL's tuple id
    // (observations are never updated, so it only moves when retention frees space — ADR 0600).
    const insertionOrder = sql.onDialectOrElse({ pg: () => sql.literal("ctid"), orElse: () => sql.literal("rowid") })

    // Begin every write transaction with a write, so the writer lock is taken up front.
    const lock = sql`INSERT INTO reflex_lock (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = reflex_lock.n + 1`
    const write = <A, R>(
      what: string,
      body: Effect.Effect<A, ReflexError.ReflexError | SqlError, R>,
      // a body whose first statement is already a write needs no lock statement
      startsWithWrite = false
    ) =>
      sql.withTransaction(startsWithWrite ? body : Effect.zipRight(lock, body)).pipe(
        Effect.mapError((e) => ReflexError.isReflexError(e) ? e : ledgerError(what)(e))
      )
    const read = <A>(what: string, body: Effect.Effect<A, unknown>) =>
      body.pipe(Effect.mapError((e) => ReflexError.isReflexError(e) ? e : ledgerError(what)(e)))

    const generations = (reflex: string) =>
      read(
        "read generations",
        sql`SELECT version, active, created_at, payload FROM reflex_generations WHERE reflex = ${reflex} ORDER BY version`
          .pipe(Effect.flatMap(decodeGenerations))
      ).pipe(Effect.map((rows) =>
        rows.map((r): StoredGeneration => ({
          version: r.version,
          active: r.active === 1,
          createdAt: r.created_at,
          payload: r.payload
        }))
      ))

    const activeGeneration = (reflex: string) =>
      read(
        "read the active generation",
        sql`SELECT version, active, created_at, payload FROM reflex_generations WHERE reflex = ${reflex} AND active = 1 LIMIT 1`
          .pipe(Effect.flatMap(decodeGenerations))
      ).pipe(Effect.map((rows) =>
        rows.length === 0
          ? Option.none()
          : Option.some<StoredGeneration>({
            version: rows[0]!.version,
            active: true,
            createdAt: rows[0]!.created_at,
            payload: rows[0]!.payload
          })
      ))

    const insertLabels = (reflex: string, observation: string, labels: ReadonlyArray<HeadLabel>, atMs: number) =>
      Effect.gen(function*() {
        const applied: Array<boolean> = []
        for (const l of labels) {
          const existing = yield* sql<{ label: number; weight: number; source: string }>`
          SELECT label, weight, source FROM reflex_labels WHERE observation = ${observation} AND head = ${l.head}`
          const stored = existing[0]
          if (
            stored !== undefined &&
            !replaces({ label: stored.label === 1, weight: stored.weight, source: stored.source }, l)
          ) {
            applied.push(false)
            continue
          }
          const [next] = yield* sql<{ seq: number }>`SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM reflex_labels`
          const seq = next!.seq
          const source = clip(l.source, 48)
          if (stored === undefined) {
            yield* sql`INSERT INTO reflex_labels (observation, reflex, head, label, weight, source, at_ms, seq)
            VALUES (${observation}, ${reflex}, ${l.head}, ${l.label ? 1 : 0}, ${l.weight}, ${source}, ${atMs}, ${seq})`
          } else {
            yield* sql`UPDATE reflex_labels SET label = ${l.label ? 1 : 0}, weight = ${l.weight}, source = ${source},
            at_ms = ${atMs}, seq = ${seq} WHERE observation = ${observation} AND head = ${l.head}`
          }
          applied.push(true)
        }
        return applied
      })

    const countLabels = (reflex: string) =>
      sql<{ n: number }>`SELECT COUNT(*) AS n FROM reflex_labels WHERE reflex = ${reflex}`.pipe(
        Effect.map((rows) => rows[0]?.n ?? 0)
      )

    // The per-reflex observation count lives in `reflex_counts` (kept in the same transactions), so
    // the retention check is one primary-key read instead of a scan.
    const retain = (reflex: string) =>
      Effect.gen(function*() {
        const [row] = yield* sql<{ n: number }>`SELECT observations AS n FROM reflex_counts WHERE reflex = ${reflex}`
        const excess = (row?.n ?? 0) - maxObservations
        if (excess <= 0) return
        yield* sql`DELETE FROM reflex_observations WHERE id IN (
        SELECT o.id FROM reflex_observations o
        WHERE o.reflex = ${reflex}
        ORDER BY EXISTS (SELECT 1 FROM reflex_labels l WHERE l.observation = o.id), o.at_ms
        LIMIT ${excess})`
        yield* sql`UPDATE reflex_counts SET observations = (SELECT COUNT(*) FROM reflex_observations WHERE reflex = ${reflex})
        WHERE reflex = ${reflex}`
        yield* sql`DELETE FROM reflex_labels WHERE reflex = ${reflex}
        AND observation NOT IN (SELECT id FROM reflex_observations)`
      })

    const insertObservation = (o: Observation) =>
      sql`INSERT INTO reflex_observations
      (id, reflex, subject, head, value, gate, score, features, evidence, params_version, program, receipt, at_ms)
      VALUES (${o.id}, ${o.reflex}, ${clip(o.subject, 200)}, ${o.head}, ${o.value}, ${clip(o.gate, 32)}, ${o.score},
        ${JSON.stringify(o.features)}, ${JSON.stringify(o.evidence)}, ${o.paramsVersion}, ${o.program}, ${o.receipt},
        ${o.atMs}) ON CONFLICT DO NOTHING RETURNING id`.pipe(
        Effect.map((inserted) => inserted.length > 0),
        Effect.tap((inserted) =>
          inserted
            ? sql`INSERT INTO reflex_counts (reflex, observations) VALUES (${o.reflex}, 1)
              ON CONFLICT (reflex) DO UPDATE SET observations = reflex_counts.observations + 1`
            : Effect.void
        )
      )

    return ReflexLedger.of({
      generations,
      activeGeneration,
      promote: (reflex, expectedActive, atMs, payload) =>
        write(
          "promote a generation",
          Effect.gen(function*() {
            const active = yield* sql<{ version: number }>`
            SELECT version FROM reflex_generations WHERE reflex = ${reflex} AND active = 1`
            const current = active[0]?.version ?? 0
            if (current !== expectedActive) {
              return yield* ReflexError.make("conflict", "reflex generation changed; train again")
            }
            const [max] = yield* sql<{ v: number }>`
            SELECT COALESCE(MAX(version), 0) AS v FROM reflex_generations WHERE reflex = ${reflex}`
            const version = (max?.v ?? 0) + 1
            yield* sql`UPDATE reflex_generations SET active = 0 WHERE reflex = ${reflex}`
            yield* sql`INSERT INTO reflex_generations (reflex, version, active, created_at, payload)
            VALUES (${reflex}, ${version}, 1, ${atMs}, ${payload(version, current)})`
            const [count] = yield* sql<
              { n: number }
            >`SELECT COUNT(*) AS n FROM reflex_generations WHERE reflex = ${reflex}`
            if ((count?.n ?? 0) > MAX_GENERATIONS) {
              yield* sql`DELETE FROM reflex_generations WHERE reflex = ${reflex} AND version = (
              SELECT MIN(version) FROM reflex_generations WHERE reflex = ${reflex} AND active = 0)`
            }
            return version
          })
        ),
      rollback: (reflex, version) =>
        write(
          "roll back",
          Effect.gen(function*() {
            if (version !== 0) {
              const found =
                yield* sql`SELECT 1 FROM reflex_generations WHERE reflex = ${reflex} AND version = ${version}`
              if (found.length === 0) {
                return yield* ReflexError.make("not-found", `reflex generation not found: ${reflex} ${version}`)
              }
            }
            yield* sql`UPDATE reflex_generations SET active = CASE WHEN version = ${version} THEN 1 ELSE 0 END
            WHERE reflex = ${reflex}`
            yield* sql`DELETE FROM reflex_trials WHERE reflex = ${reflex}`
          })
        ),
      record: (observation) =>
        write(
          "record an observation",
          Effect.gen(function*() {
            const inserted = yield* insertObservation(observation)
            if (inserted) yield* retain(observation.reflex)
            return inserted
          }),
          true
        ),
      observation: (id) =>
        read(
          "read an observation",
          sql`SELECT * FROM reflex_observations WHERE id = ${id}`.pipe(
            Effect.flatMap((rows) =>
              rows.length === 0
                ? Effect.succeed(Option.none<Observation>())
                : Effect.map(decodeObservation(rows[0]), (r) => Option.some(toObservation(r)))
            )
          )
        ),
      latest: (reflex, subject) =>
        read(
          "read the latest observation",
          sql`SELECT * FROM reflex_observations WHERE reflex = ${reflex}
          AND (subject = ${subject} OR substr(subject, 1, ${subject.length + 1}) = ${subject + "#"})
          ORDER BY at_ms DESC, ${insertionOrder} DESC LIMIT 1`.pipe(
            Effect.flatMap((rows) =>
              rows.length === 0
                ? Effect.succeed(Option.none<Observation>())
                : Effect.map(decodeObservation(rows[0]), (r) => Option.some(toObservation(r)))
            )
          )
        ),
      label: (reflex, observation, labels, atMs) =>
        write(
          "write labels",
          Effect.gen(function*() {
            const found = yield* sql`SELECT 1 FROM reflex_observations WHERE id = ${observation}`
            if (found.length === 0) {
              return yield* ReflexError.make("not-found", `no decision recorded for observation ${observation}`)
            }
            const before = yield* countLabels(reflex)
            const applied = yield* insertLabels(reflex, observation, labels, atMs)
            const after = yield* countLabels(reflex)
            return { before, after, written: applied.filter((x) => x).length, applied }
          })
        ),
      examples: (reflex, head, limit) =>
        read(
          "read labels",
          sql`SELECT l.observation AS observation, l.label AS label, l.weight AS weight, l.source AS source,
            l.seq AS seq, o.features AS features
          FROM reflex_labels l JOIN reflex_observations o ON o.id = l.observation
          WHERE l.reflex = ${reflex} AND l.head = ${head}
          ORDER BY l.seq DESC LIMIT ${limit}`.pipe(Effect.flatMap(decodeExamples))
        ).pipe(Effect.map((rows) =>
          rows.map((r): Example => ({
            observation: r.observation,
            features: r.features,
            label: r.label === 1,
            weight: r.weight,
            source: r.source,
            seq: r.seq
          })).reverse()
        )),
      stats: (reflex) =>
        read(
          "read label counts",
          sql<{ head: string; n: number; pos: number; seq: number }>`
          SELECT head, COUNT(*) AS n, SUM(label) AS pos, MAX(seq) AS seq FROM reflex_labels
          WHERE reflex = ${reflex} GROUP BY head`
        ).pipe(Effect.map((rows) => {
          const out: Record<string, HeadStats> = {}
          for (const r of rows) out[r.head] = { labels: r.n, positives: r.pos ?? 0, maxSeq: r.seq ?? 0 }
          return out
        })),
      counts: (reflex) =>
        read(
          "count observations",
          Effect.all([
            sql<{ n: number }>`SELECT COUNT(*) AS n FROM reflex_observations WHERE reflex = ${reflex}`,
            sql<{ n: number }>`SELECT COUNT(DISTINCT observation) AS n FROM reflex_labels WHERE reflex = ${reflex}`
          ])
        ).pipe(Effect.map(([o, l]) => ({ observed: o[0]?.n ?? 0, labeled: l[0]?.n ?? 0 }))),
      trial: (reflex, head) =>
        read(
          "read a trial",
          sql<{ candidate: string; started_at_ms: number; fitted_through: number }>`
          SELECT candidate, started_at_ms, fitted_through FROM reflex_trials WHERE reflex = ${reflex} AND head = ${head}`
        ).pipe(Effect.map((rows) =>
          rows.length === 0
            ? Option.none()
            : Option.some({
              candidate: rows[0]!.candidate,
              startedAtMs: rows[0]!.started_at_ms,
              fittedThrough: rows[0]!.fitted_through
            })
        )),
      putTrial: (reflex, head, trial) =>
        write(
          "start a trial",
          sql`INSERT INTO reflex_trials (reflex, head, candidate, started_at_ms, fitted_through)
          VALUES (${reflex}, ${head}, ${trial.candidate}, ${trial.startedAtMs}, ${trial.fittedThrough})
          ON CONFLICT (reflex, head) DO UPDATE SET candidate = excluded.candidate,
            started_at_ms = excluded.started_at_ms, fitted_through = excluded.fitted_through`
        ).pipe(Effect.asVoid),
      deleteTrial: (reflex, head) =>
        write("close a trial", sql`DELETE FROM reflex_trials WHERE reflex = ${reflex} AND head = ${head}`).pipe(
          Effect.asVoid
        ),
      certificate: (reflex, head) =>
        read(
          "read a certificate",
          sql<{ payload: string; at_ms: number; through: number }>`
          SELECT payload, at_ms, through FROM reflex_certificates WHERE reflex = ${reflex} AND head = ${head}`
        ).pipe(Effect.map((rows) =>
          rows.length === 0
            ? Option.none()
            : Option.some({ payload: rows[0]!.payload, atMs: rows[0]!.at_ms, through: rows[0]!.through })
        )),
      putCertificate: (reflex, head, c) =>
        write(
          "store a certificate",
          Effect.gen(function*() {
            const rows = yield* sql<{ through: number }>`
            SELECT through FROM reflex_certificates WHERE reflex = ${reflex} AND head = ${head}`
            if (rows.length > 0 && rows[0]!.through > c.through) return false
            yield* sql`INSERT INTO reflex_certificates (reflex, head, payload, at_ms, through)
            VALUES (${reflex}, ${head}, ${c.payload}, ${c.atMs}, ${c.through})
            ON CONFLICT (reflex, head) DO UPDATE SET payload = excluded.payload, at_ms = excluded.at_ms,
              through = excluded.through`
            return true
          })
        ),
      importRows: (reflex, rows, atMs) =>
        write(
          "import history",
          Effect.gen(function*() {
            // Batched: find the ids already stored, insert the new observations and their labels
            // in multi-row statements (a new observation has no labels yet).
            const chunk = 400
            const existing = new Set<string>()
            for (let i = 0; i < rows.length; i += chunk) {
              const ids = rows.slice(i, i + chunk).map((r) => r.observation.id)
              const found = yield* sql<{ id: string }>`SELECT id FROM reflex_observations WHERE ${sql.in("id", ids)}`
              for (const f of found) existing.add(f.id)
            }
            const fresh: Array<(typeof rows)[number]> = []
            for (const row of rows) {
              if (existing.has(row.observation.id)) continue
              existing.add(row.observation.id)
              fresh.push(row)
            }
            if (fresh.length > 0) {
              for (let i = 0; i < fresh.length; i += chunk) {
                const values = fresh.slice(i, i + chunk).map(({ observation: o }) => ({
                  id: o.id,
                  reflex: o.reflex,
                  subject: clip(o.subject, 200),
                  head: o.head,
                  value: o.value,
                  gate: clip(o.gate, 32),
                  score: o.score,
                  features: JSON.stringify(o.features),
                  evidence: JSON.stringify(o.evidence),
                  params_version: o.paramsVersion,
                  program: o.program,
                  receipt: o.receipt,
                  at_ms: o.atMs
                }))
                yield* sql`INSERT INTO reflex_observations ${sql.insert(values)}`
              }
              const [next] = yield* sql<{ seq: number }>`SELECT COALESCE(MAX(seq), 0) AS seq FROM reflex_labels`
              let seq = next?.seq ?? 0
              const labels = fresh.flatMap((row) =>
                row.labels.map((l) => ({
                  observation: row.observation.id,
                  reflex,
                  head: l.head,
                  label: l.label ? 1 : 0,
                  weight: l.weight,
                  source: clip(l.source, 48),
                  at_ms: atMs,
                  seq: ++seq
                }))
              )
              for (let i = 0; i < labels.length; i += chunk) {
                yield* sql`INSERT INTO reflex_labels ${sql.insert(labels.slice(i, i + chunk))}`
              }
              yield* sql`INSERT INTO reflex_counts (reflex, observations) VALUES (${reflex}, ${fresh.length})
              ON CONFLICT (reflex) DO UPDATE SET observations = reflex_counts.observations + ${fresh.length}`
            }
            yield* sql`DELETE FROM reflex_trials WHERE reflex = ${reflex}`
            if (fresh.length > 0) yield* retain(reflex)
            return fresh.length
          })
        )
    })
  })

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

// ---------------------------------------------------------------------------------------------
// memory
// ---------------------------------------------------------------------------------------------

interface MemoryLabel extends HeadLabel {
  readonly observation: string
  readonly reflex: string
  readonly atMs: number
  readonly seq: number
}

/**
 * Ledger options.
 *
 * @since 0.1.0
 * @category models
 */
export interface LedgerOptions {
  /** Observations kept per reflex (default `MAX_OBSERVATIONS`). */
  readonly maxObservations?: number
}

/**
 * Build an in-memory ledger (same semantics as SQL). State is private to the closure and every
 * operation is one synchronous step, so each multi-row change is atomic.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory = (options: LedgerOptions = {}) =>
  Effect.sync(() => {
    const maxObservations = options.maxObservations ?? MAX_OBSERVATIONS
    const generations: Array<{ readonly reflex: string } & StoredGeneration> = []
    const observations = new Map<string, Observation>()
    const labels = new Map<string, MemoryLabel>()
    const trials = new Map<string, Trial>()
    const certificates = new Map<string, StoredCertificate>()
    let seq = 0
    const key = (a: string, b: string) => `${a}\0${b}`

    const applyLabels = (reflex: string, observation: string, incoming: ReadonlyArray<HeadLabel>, atMs: number) => {
      const applied: Array<boolean> = []
      for (const l of incoming) {
        const k = key(observation, l.head)
        const stored = labels.get(k)
        if (stored !== undefined && !replaces(stored, l)) {
          applied.push(false)
          continue
        }
        seq++
        labels.set(k, { ...l, source: clip(l.source, 48), observation, reflex, atMs, seq })
        applied.push(true)
      }
      return applied
    }

    const retain = (reflex: string) => {
      const mine = [...observations.values()].filter((o) => o.reflex === reflex)
      const excess = mine.length - maxObservations
      if (excess <= 0) return
      const labeled = new Set([...labels.values()].map((l) => l.observation))
      const order = mine.sort((a, b) => (Number(labeled.has(a.id)) - Number(labeled.has(b.id))) || a.atMs - b.atMs)
      for (const o of order.slice(0, excess)) observations.delete(o.id)
      for (const [k, l] of labels) if (!observations.has(l.observation)) labels.delete(k)
    }

    const insert = (o: Observation): boolean => {
      if (observations.has(o.id)) return false
      observations.set(o.id, { ...o, subject: clip(o.subject, 200), gate: clip(o.gate, 32) })
      retain(o.reflex)
      return true
    }

    const countLabels = (reflex: string) => {
      let n = 0
      for (const l of labels.values()) if (l.reflex === reflex) n++
      return n
    }

    const dropTrials = (reflex: string) => {
      for (const k of [...trials.keys()]) if (k.startsWith(`${reflex}\0`)) trials.delete(k)
    }

    return ReflexLedger.of({
      generations: (reflex) =>
        Effect.sync(() =>
          generations.filter((g) => g.reflex === reflex).sort((a, b) => a.version - b.version).map((
            { reflex: _, ...g }
          ) => g)
        ),
      activeGeneration: (reflex) =>
        Effect.sync(() => {
          const g = generations.find((x) => x.reflex === reflex && x.active)
          return g === undefined
            ? Option.none()
            : Option.some<StoredGeneration>({
              version: g.version,
              active: true,
              createdAt: g.createdAt,
              payload: g.payload
            })
        }),
      promote: (reflex, expectedActive, atMs, payload) =>
        Effect.suspend(() => {
          const mine = generations.filter((g) => g.reflex === reflex)
          const current = mine.find((g) => g.active)?.version ?? 0
          if (current !== expectedActive) {
            return Effect.fail(ReflexError.make("conflict", "reflex generation changed; train again"))
          }
          const version = mine.reduce((m, g) => Math.max(m, g.version), 0) + 1
          const text = payload(version, current)
          for (let i = 0; i < generations.length; i++) {
            if (generations[i]!.reflex === reflex) generations[i] = { ...generations[i]!, active: false }
          }
          generations.push({ reflex, version, active: true, createdAt: atMs, payload: text })
          if (mine.length + 1 > MAX_GENERATIONS) {
            const oldest = generations.filter((g) =>
              g.reflex === reflex && !g.active
            ).sort((a, b) => a.version - b.version)[0]
            if (oldest !== undefined) generations.splice(generations.indexOf(oldest), 1)
          }
          return Effect.succeed(version)
        }),
      rollback: (reflex, version) =>
        Effect.suspend(() => {
          if (version !== 0 && !generations.some((g) => g.reflex === reflex && g.version === version)) {
            return Effect.fail(ReflexError.make("not-found", `reflex generation not found: ${reflex} ${version}`))
          }
          for (let i = 0; i < generations.length; i++) {
            const g = generations[i]!
            if (g.reflex === reflex) generations[i] = { ...g, active: g.version === version }
          }
          dropTrials(reflex)
          return Effect.void
        }),
      record: (observation) => Effect.sync(() => insert(observation)),
      observation: (id) => Effect.sync(() => Option.fromNullable(observations.get(id))),
      latest: (reflex, subject) =>
        Effect.sync(() => {
          let best: Observation | undefined
          for (const o of observations.values()) {
            if (o.reflex !== reflex || !(o.subject === subject || o.subject.startsWith(subject + "#"))) continue
            if (best === undefined || o.atMs >= best.atMs) best = o
          }
          return Option.fromNullable(best)
        }),
      label: (reflex, observation, incoming, atMs) =>
        Effect.suspend(() => {
          if (!observations.has(observation)) {
            return Effect.fail(ReflexError.make("not-found", `no decision recorded for observation ${observation}`))
          }
          const before = countLabels(reflex)
          const applied = applyLabels(reflex, observation, incoming, atMs)
          return Effect.succeed({
            before,
            after: countLabels(reflex),
            written: applied.filter((x) => x).length,
            applied
          })
        }),
      examples: (reflex, head, limit) =>
        Effect.sync(() => {
          const rows = [...labels.values()]
            .filter((l) => l.reflex === reflex && l.head === head && observations.has(l.observation))
            .sort((a, b) => a.seq - b.seq)
          return rows.slice(Math.max(0, rows.length - limit)).map((l): Example => ({
            observation: l.observation,
            features: observations.get(l.observation)!.features,
            label: l.label,
            weight: l.weight,
            source: l.source,
            seq: l.seq
          }))
        }),
      stats: (reflex) =>
        Effect.sync(() => {
          const out: Record<string, HeadStats> = {}
          for (const l of labels.values()) {
            if (l.reflex !== reflex) continue
            const cur = out[l.head] ?? { labels: 0, positives: 0, maxSeq: 0 }
            out[l.head] = {
              labels: cur.labels + 1,
              positives: cur.positives + (l.label ? 1 : 0),
              maxSeq: Math.max(cur.maxSeq, l.seq)
            }
          }
          return out
        }),
      counts: (reflex) =>
        Effect.sync(() => ({
          observed: [...observations.values()].filter((o) => o.reflex === reflex).length,
          labeled: new Set([...labels.values()].filter((l) => l.reflex === reflex).map((l) => l.observation)).size
        })),
      trial: (reflex, head) => Effect.sync(() => Option.fromNullable(trials.get(key(reflex, head)))),
      putTrial: (reflex, head, trial) => Effect.sync(() => void trials.set(key(reflex, head), trial)),
      deleteTrial: (reflex, head) => Effect.sync(() => void trials.delete(key(reflex, head))),
      certificate: (reflex, head) => Effect.sync(() => Option.fromNullable(certificates.get(key(reflex, head)))),
      putCertificate: (reflex, head, c) =>
        Effect.sync(() => {
          const stored = certificates.get(key(reflex, head))
          if (stored !== undefined && stored.through > c.through) return false
          certificates.set(key(reflex, head), c)
          return true
        }),
      importRows: (reflex, rows, atMs) =>
        Effect.sync(() => {
          let inserted = 0
          for (const row of rows) {
            if (!insert(row.observation)) continue
            inserted++
            applyLabels(reflex, row.observation.id, row.labels, atMs)
          }
          dropTrials(reflex)
          return inserted
        })
    })
  })

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
