/**
 * The SQL session store: tables `harness_*`, migrations table `harness_sessions_migrations`.
 * Each commit is one transaction that starts with a write (the session's `last_seq` bump), so
 * the writer lock is taken up front and concurrent processes wait on the busy timeout.
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Schema from "effect/Schema"
import type * as EventStore from "../EventStore.js"
import { HarnessError } from "../HarnessError.js"
import * as Rows from "./rows.js"
import * as SqlLease from "./sqlLease.js"

/** The embedded migrations. */
export const migrations = Migrator.fromRecord({
  "0001_harness_sessions": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE IF NOT EXISTS harness_sessions (
      id TEXT PRIMARY KEY NOT NULL,
      created_at BIGINT NOT NULL,
      meta TEXT NOT NULL,
      last_seq INTEGER NOT NULL
    )`
    yield* sql`CREATE TABLE IF NOT EXISTS harness_events (
      session TEXT NOT NULL,
      seq INTEGER NOT NULL,
      at BIGINT NOT NULL,
      run TEXT,
      type TEXT NOT NULL,
      data TEXT NOT NULL,
      PRIMARY KEY (session, seq)
    )`
    yield* sql`CREATE TABLE IF NOT EXISTS harness_steps (
      session TEXT NOT NULL,
      run TEXT NOT NULL,
      idx INTEGER NOT NULL,
      result TEXT NOT NULL,
      PRIMARY KEY (session, run, idx)
    )`
    yield* sql`CREATE TABLE IF NOT EXISTS harness_receipts (
      session TEXT NOT NULL,
      revision INTEGER NOT NULL,
      digest TEXT NOT NULL,
      record TEXT NOT NULL,
      payload TEXT NOT NULL,
      PRIMARY KEY (session, revision)
    )`
  }),
  // One owner per session (ADR 0558): taken, renewed and checked in the store's own transactions.
  "0002_harness_leases": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE IF NOT EXISTS harness_leases (
      session TEXT PRIMARY KEY NOT NULL,
      owner TEXT NOT NULL,
      heartbeat BIGINT NOT NULL,
      expires BIGINT NOT NULL
    )`
  })
})

const migrate = Migrator.make({})({ loader: migrations, table: "harness_sessions_migrations" }).pipe(
  // Processes starting at once on one PostgreSQL database can race to create the migrations table;
  // the loser's retry finds it and waits on the migrator's table lock (ADR 0600).
  Effect.retry({ times: 2 })
)

const failed = (what: string) => (error: { readonly message: string }) =>
  new HarnessError({ code: "STORE_FAILED", message: `session store: ${what} failed: ${error.message}` })

// PostgreSQL returns BIGINT columns as decimal strings unless the host's client parses int8
const DbInteger = Schema.Union(Schema.Number, Schema.NumberFromString)

const SessionDbRow = Schema.Struct({
  id: Schema.String,
  created_at: DbInteger,
  meta: Schema.parseJson(),
  last_seq: Schema.Number
})
const RevisionRow = Schema.Struct({
  revision: Schema.Number,
  digest: Schema.String,
  record: Schema.parseJson(),
  payload: Schema.parseJson()
})
const decodeSessions = Schema.decodeUnknown(Schema.Array(SessionDbRow))
const decodeRevisions = Schema.decodeUnknown(Schema.Array(RevisionRow))

// Rows per INSERT: 6 parameters each stays well under every engine's parameter limit.
const BATCH = 500

const json = (value: unknown): string => JSON.stringify(value ?? null)

/** Build the SQL store. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* migrate.pipe(Effect.mapError(failed("migration")))
  const hub = yield* PubSub.unbounded<string>()
  const toRow = (r: typeof SessionDbRow.Type): EventStore.SessionRow => ({
    id: r.id,
    createdAt: r.created_at,
    meta: r.meta,
    lastSeq: r.last_seq
  })
  const find = (id: string) =>
    sql`SELECT id, created_at, meta, last_seq FROM harness_sessions WHERE id = ${id}`.pipe(
      Effect.flatMap(decodeSessions),
      Effect.mapError(failed("reading a session")),
      Effect.flatMap((rows) =>
        rows[0] === undefined
          ? Effect.fail(new HarnessError({ code: "SESSION_NOT_FOUND", message: `no session ${id}` }))
          : Effect.succeed(toRow(rows[0]))
      )
    )
  const { currentLease, renewLease } = SqlLease.make(sql, failed)
  const leased = (take: boolean) => (id: string, owner: EventStore.Owner) =>
    Effect.gen(function*() {
      yield* find(id)
      const now = yield* Clock.currentTimeMillis
      return yield* renewLease(id, owner, now, take).pipe(sql.withTransaction)
    }).pipe(Effect.catchTag("SqlError", (error) => Effect.fail(failed("taking the session's lease")(error))))
  const store: EventStore.EventStore["Type"] = {
    create: (id, meta) =>
      Effect.gen(function*() {
        const at = yield* Clock.currentTimeMillis
        const inserted = yield* sql`INSERT INTO harness_sessions (id, created_at, meta, last_seq)
          VALUES (${id}, ${at}, ${json(meta)}, 0) ON CONFLICT (id) DO NOTHING RETURNING id`.pipe(
          Effect.mapError(failed("creating a session"))
        )
        if (inserted.length === 0) {
          return yield* new HarnessError({ code: "INVALID_INPUT", message: `session ${id} already exists` })
        }
        return { id, createdAt: at, meta: JSON.parse(json(meta)) as unknown, lastSeq: 0 }
      }),
    get: find,
    list: sql`SELECT id, created_at, meta, last_seq FROM harness_sessions ORDER BY created_at, id`.pipe(
      Effect.flatMap(decodeSessions),
      Effect.map((rows) => rows.map(toRow)),
      Effect.mapError(failed("listing sessions"))
    ),
    // Every event is checked before the transaction starts: a bad one writes nothing.
    commit: (id, commit) =>
      Effect.zipRight(
        Rows.checkInputs(commit.events),
        Effect.gen(function*() {
          const at = commit.at ?? (yield* Clock.currentTimeMillis)
          // The lease first: the writer lock is taken by this write, and a lost lease writes nothing.
          if (commit.owner !== undefined) yield* renewLease(id, commit.owner, yield* Clock.currentTimeMillis, false)
          const n = commit.events.length
          const data = commit.events.map((e) => json(e.data))
          const bumped = yield* (commit.meta === undefined
            ? sql`UPDATE harness_sessions SET last_seq = last_seq + ${n} WHERE id = ${id} RETURNING last_seq`
            : sql`UPDATE harness_sessions SET last_seq = last_seq + ${n}, meta = ${
              json(commit.meta)
            } WHERE id = ${id} RETURNING last_seq`)
          const last = bumped[0]?.["last_seq"]
          if (typeof last !== "number") {
            return yield* new HarnessError({ code: "SESSION_NOT_FOUND", message: `no session ${id}` })
          }
          const first = last - n + 1
          const rows = commit.events.map((e, i) => ({
            session: id,
            seq: first + i,
            at,
            run: e.run,
            type: e.type,
            data: data[i]!
          }))
          for (let i = 0; i < rows.length; i += BATCH) {
            yield* sql`INSERT INTO harness_events ${sql.insert(rows.slice(i, i + BATCH))}`
          }
          if (commit.step !== undefined) {
            const { index, result, run } = commit.step
            yield* sql`INSERT INTO harness_steps (session, run, idx, result)
            VALUES (${id}, ${run}, ${index}, ${json(result)})`
          }
          if (commit.revision !== undefined) {
            const r = commit.revision
            const top = yield* sql`SELECT COALESCE(MAX(revision), 0) AS top FROM harness_receipts WHERE session = ${id}`
            if (Number(top[0]?.["top"] ?? 0) + 1 !== r.revision) {
              return yield* new HarnessError({
                code: "STORE_FAILED",
                message: `revision ${r.revision} does not follow ${String(top[0]?.["top"])}`
              })
            }
            yield* sql`INSERT INTO harness_receipts (session, revision, digest, record, payload)
            VALUES (${id}, ${r.revision}, ${r.digest}, ${json(r.record)}, ${json(r.receipt)})`
          }
          return commit.events.map((e, i) => Rows.written(id, first + i, at, e, JSON.parse(data[i]!)))
        }).pipe(
          sql.withTransaction,
          Effect.catchTag("SqlError", (error) => Effect.fail(failed("commit")(error))),
          Effect.tap(() => PubSub.publish(hub, id))
        )
      ),
    read: (id, options = {}) =>
      Effect.gen(function*() {
        const after = options.after ?? 0
        if (options.types !== undefined && options.types.length === 0) return yield* Effect.as(find(id), [])
        const typed = options.types === undefined ? sql`` : sql`AND type IN ${sql.in(options.types)}`
        const rows = yield* (options.limit === undefined
          ? sql`SELECT seq, at, run, type, data FROM harness_events
              WHERE session = ${id} AND seq > ${after} ${typed} ORDER BY seq`
          : sql`SELECT seq, at, run, type, data FROM harness_events
              WHERE session = ${id} AND seq > ${after} ${typed} ORDER BY seq LIMIT ${options.limit}`).pipe(
            Effect.mapError(failed("reading events"))
          )
        if (rows.length === 0) yield* find(id)
        return yield* Rows.decodeAll(id, rows)
      }),
    steps: (id, run) =>
      sql`SELECT idx, result FROM harness_steps WHERE session = ${id} AND run = ${run}`.pipe(
        Effect.mapError(failed("reading steps")),
        Effect.flatMap((rows) => Rows.decodeSteps(rows))
      ),
    step: (id, run, index) =>
      sql`SELECT idx, result FROM harness_steps WHERE session = ${id} AND run = ${run} AND idx = ${index}`.pipe(
        Effect.mapError(failed("reading a step")),
        Effect.flatMap((rows) => Rows.decodeSteps(rows)),
        Effect.map((steps) => steps.has(index) ? Option.some(steps.get(index)) : Option.none())
      ),
    revisions: (id) =>
      sql`SELECT revision, digest, record, payload FROM harness_receipts WHERE session = ${id} ORDER BY revision`.pipe(
        Effect.flatMap(decodeRevisions),
        Effect.map((rows) =>
          rows.map((r) => ({ revision: r.revision, digest: r.digest, record: r.record, receipt: r.payload }))
        ),
        Effect.mapError(failed("reading revisions"))
      ),
    acquire: leased(true),
    renew: leased(false),
    release: (id, owner) =>
      sql`DELETE FROM harness_leases WHERE session = ${id} AND owner = ${owner}`.pipe(
        Effect.asVoid,
        Effect.mapError(failed("releasing the session's lease"))
      ),
    lease: (id) =>
      currentLease(id).pipe(Effect.map(Option.fromNullable), Effect.mapError(failed("reading the session's lease"))),
    subscribe: PubSub.subscribe(hub)
  }
  return store
})
