/**
 * The SQL ledger over the abstract `SqlClient` (SQLite and PostgreSQL): every write is one
 * transaction that takes the writer lock first; retention costs what it drops (see `retain`).
 * @internal
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { FeaturesSchema } from "../../Features.js"
import type { HeadLabel } from "../../Labels.js"
import { replaces } from "../../Labels.js"
import type { Example } from "../../Learning.js"
import * as ReflexError from "../../ReflexError.js"
import type { HeadStats, LedgerOptions, Observation, Service, StoredGeneration } from "../../ReflexLedger.js"
import { clip, importConflict, MAX_GENERATIONS, MAX_OBSERVATIONS, type StoredImport } from "./common.js"
import { migrate } from "./migrations.js"

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

/** Build the SQL ledger (runs the migrations). @internal */
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
        // retention never drops a labeled observation: the flag keeps that an index lookup
        if (applied.includes(true)) {
          yield* sql`UPDATE reflex_observations SET labeled = 1 WHERE id = ${observation} AND labeled = 0`
        }
        return applied
      })

    const countLabels = (reflex: string) =>
      sql<{ n: number }>`SELECT COUNT(*) AS n FROM reflex_labels WHERE reflex = ${reflex}`.pipe(
        Effect.map((rows) => rows[0]?.n ?? 0)
      )

    // The per-reflex observation count lives in `reflex_counts` (kept in the same transactions), so
    // the retention check is one primary-key read instead of a scan.
    // Past the cap, drop the oldest unlabeled observations down to the low-water mark in one batch
    // (1% under the cap), found through the (reflex, labeled, at_ms) index: a write costs what it
    // drops, not a sort of the ledger. Labeled observations are never dropped, nor the one just
    // recorded (ADR 0407).
    const retain = (reflex: string, keep = "") =>
      Effect.gen(function*() {
        const [row] = yield* sql<{ n: number }>`SELECT observations AS n FROM reflex_counts WHERE reflex = ${reflex}`
        const count = Number(row?.n ?? 0)
        if (count <= maxObservations) return
        const target = maxObservations - Math.floor(maxObservations / 100)
        const dropped = yield* sql<{ id: string }>`SELECT id FROM reflex_observations
          WHERE reflex = ${reflex} AND labeled = 0 AND id <> ${keep}
          ORDER BY at_ms, ${insertionOrder} LIMIT ${count - target}`
        if (dropped.length === 0) return
        for (let i = 0; i < dropped.length; i += 400) {
          const ids = dropped.slice(i, i + 400).map((d) => d.id)
          yield* sql`DELETE FROM reflex_observations WHERE ${sql.in("id", ids)}`
        }
        yield* sql`UPDATE reflex_counts SET observations = reflex_counts.observations - ${dropped.length}
          WHERE reflex = ${reflex}`
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

    const service: Service = {
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
            if (inserted) yield* retain(observation.reflex, observation.id)
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
            // in multi-row statements (a new observation has no labels yet). A stored id is
            // idempotent only when it is the same example; a different one is refused.
            const chunk = 400
            const existing = new Set<string>()
            for (let i = 0; i < rows.length; i += chunk) {
              const part = rows.slice(i, i + chunk)
              const found = yield* sql<StoredImport>`SELECT o.id AS id, o.features AS features, l.label AS label,
                l.weight AS weight, l.source AS source
                FROM reflex_observations o LEFT JOIN reflex_labels l ON l.observation = o.id AND l.head = o.head
                WHERE ${sql.in("o.id", part.map((r) => r.observation.id))}`
              const byId = new Map(found.map((f) => [f.id, f]))
              for (const row of part) {
                const stored = byId.get(row.observation.id)
                if (stored === undefined) continue
                const conflict = importConflict(row, stored)
                if (conflict !== undefined) return yield* conflict
                existing.add(stored.id)
              }
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
                  at_ms: o.atMs,
                  labeled: 1
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
    }
    return service
  })
