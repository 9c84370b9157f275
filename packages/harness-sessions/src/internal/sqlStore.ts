/**
 * The SQL session store: tables `harness_*`, migrations table `harness_sessions_migrations`.
 * Each commit is one transaction that starts with a write (on SQLite the events' INSERT, which
 * numbers them; on PostgreSQL the session's `last_seq` bump), so the writer lock is taken up
 * front and concurrent processes wait on the busy timeout.
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
import * as Reconnect from "./reconnect.js"
import * as Rows from "./rows.js"
import * as SqlCommit from "./sqlCommit.js"
import * as SqlLease from "./sqlLease.js"
import * as StoreFault from "./storeFault.js"

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
  }),
  // SQLite: a session's last seq is its events' highest key, not a column every commit rewrites
  // (ADR 0577: one page less per commit). PostgreSQL keeps the column: its bump is the row lock
  // that queues a session's writers.
  "0003_harness_sessions_seq_from_events": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql.onDialectOrElse({
      sqlite: () => sql`ALTER TABLE harness_sessions DROP COLUMN last_seq`,
      orElse: () => Effect.void
    })
  }),
  // PostgreSQL: `last_seq` defaults to 0, so a session copied in from SQLite (which no longer has the
  // column, 0003) can be written; its first commit numbers after its events (sqlCommit's bump).
  "0004_harness_sessions_last_seq_default": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql.onDialectOrElse({
      pg: () => sql`ALTER TABLE harness_sessions ALTER COLUMN last_seq SET DEFAULT 0`,
      orElse: () => Effect.void
    })
  }),
  // SQLite: a commit of events and steps is one INSERT into this view (ADR 0582); its trigger writes
  // each row where it belongs and refuses the whole statement when the session is missing or the
  // lease is not the writer's. PostgreSQL commits in its own transaction and has no such view.
  "0005_harness_sessions_commit_rows": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql.onDialectOrElse({
      sqlite: () => Effect.all(SqlCommit.commitRowsSchema.map((statement) => sql.unsafe(statement)), { discard: true }),
      orElse: () => Effect.void
    })
  })
})

const migrate = Migrator.make({})({ loader: migrations, table: "harness_sessions_migrations" }).pipe(
  // Processes starting at once on one PostgreSQL database can race to create the migrations table;
  // the loser's retry finds it and waits on the migrator's table lock (ADR 0600).
  Effect.retry({ times: 2 })
)

const toRow = (r: typeof SessionDbRow.Type): EventStore.SessionRow => ({
  id: r.id,
  createdAt: r.created_at,
  meta: r.meta,
  lastSeq: r.last_seq
})

// Where the database lives, for messages: the SQLite file, or PostgreSQL's data directory's disk.
const locate = (sql: SqlClient.SqlClient) =>
  sql<{ file: string }>`SELECT file FROM pragma_database_list WHERE name = 'main'`.pipe(
    Effect.map((rows) => rows[0]?.file === undefined || rows[0].file === "" ? undefined : rows[0].file),
    Effect.orElseSucceed(() => "the PostgreSQL database")
  )

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

const json = (value: unknown): string => JSON.stringify(value ?? null)

/** Build the SQL store; `migrate: false` for a reader that must not write (a read-only database). */
export const make = (options: { readonly migrate: boolean }) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const failed = StoreFault.failed(yield* locate(sql))
    // A reader migrates only a database without the session tables (nothing stored to change).
    const bare = options.migrate || (yield* Effect.isFailure(sql`SELECT 1 FROM harness_sessions LIMIT 0`))
    if (bare) yield* migrate.pipe(Effect.mapError(failed("migration")))
    const hub = yield* PubSub.unbounded<string>()
    const window = yield* Reconnect.window.pipe(
      Effect.mapError((e) =>
        new HarnessError({ code: "INVALID_INPUT", message: `STEWARD_SESSION_RECONNECT: ${e.message}` })
      )
    )
    // A statement that lost its connection is tried again within the window (ADR 0562).
    const io = (what: string) => <A, E extends { readonly message: string }, R>(self: Effect.Effect<A, E, R>) =>
      self.pipe(
        Reconnect.retrying(window),
        Effect.mapError((error) => error instanceof HarnessError ? error : failed(what)(error))
      )
    const appendOnly = sql.onDialectOrElse({ sqlite: () => true, orElse: () => false })
    // A session's last seq is its events' highest (on PostgreSQL also its `last_seq` column).
    const lastSeq = sql`(SELECT COALESCE(MAX(seq), 0) FROM harness_events WHERE session = s.id) AS last_seq`
    const find = (id: string) =>
      sql`SELECT id, created_at, meta, ${lastSeq} FROM harness_sessions s WHERE id = ${id}`.pipe(
        Effect.flatMap(decodeSessions),
        io("reading a session"),
        Effect.flatMap((rows) =>
          rows[0] === undefined
            ? Effect.fail(new HarnessError({ code: "SESSION_NOT_FOUND", message: `no session ${id}` }))
            : Effect.succeed(toRow(rows[0]))
        )
      )
    const { readLease, renewLease } = SqlLease.make(sql, failed)
    const renewals = SqlLease.renewals()
    const leased = (take: boolean) => (id: string, owner: EventStore.Owner) =>
      Effect.gen(function*() {
        yield* find(id)
        const now = yield* Clock.currentTimeMillis
        // Taking or renewing one's own lease twice is harmless: a COMMIT lost with the connection is retried.
        return yield* SqlCommit.transaction(sql)(renewLease(id, owner, now, take)).pipe(
          Effect.catchTag("CommitUnknown", ({ error }) => Effect.fail(error)),
          io("taking the session's lease"),
          Effect.tap(() => renewals.set(id, owner.id, now))
        )
      })
    const store: EventStore.EventStore["Type"] = {
      create: (id, meta) =>
        Effect.gen(function*() {
          const at = yield* Clock.currentTimeMillis
          const inserted = yield* (appendOnly
            ? sql`INSERT INTO harness_sessions (id, created_at, meta)
          VALUES (${id}, ${at}, ${json(meta)}) ON CONFLICT (id) DO NOTHING RETURNING id`
            : sql`INSERT INTO harness_sessions (id, created_at, meta, last_seq)
          VALUES (${id}, ${at}, ${json(meta)}, 0) ON CONFLICT (id) DO NOTHING RETURNING id`).pipe(
              Effect.mapError(failed("creating a session"))
            )
          if (inserted.length === 0) {
            return yield* new HarnessError({ code: "INVALID_INPUT", message: `session ${id} already exists` })
          }
          return { id, createdAt: at, meta: JSON.parse(json(meta)) as unknown, lastSeq: 0 }
        }),
      get: find,
      list: sql`SELECT id, created_at, meta, ${lastSeq} FROM harness_sessions s ORDER BY created_at, id`.pipe(
        Effect.flatMap(decodeSessions),
        Effect.map((rows) => rows.map(toRow)),
        io("listing sessions")
      ),
      // Every event is checked before the transaction starts: a bad one writes nothing.
      commit: (id, commit) =>
        Effect.zipRight(
          Rows.checkInputs(commit.events),
          SqlCommit.commit({ sql, renewLease, renewals, now: Clock.currentTimeMillis, window, failed, appendOnly })(
            id,
            commit
          )
            .pipe(
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
              io("reading events")
            )
          if (rows.length === 0) yield* find(id)
          return yield* Rows.decodeAll(id, rows)
        }),
      steps: (id, run) =>
        sql`SELECT idx, result FROM harness_steps WHERE session = ${id} AND run = ${run}`.pipe(
          io("reading steps"),
          Effect.flatMap((rows) => Rows.decodeSteps(rows))
        ),
      step: (id, run, index) =>
        sql`SELECT idx, result FROM harness_steps WHERE session = ${id} AND run = ${run} AND idx = ${index}`.pipe(
          io("reading a step"),
          Effect.flatMap((rows) => Rows.decodeSteps(rows)),
          Effect.map((steps) => steps.has(index) ? Option.some(steps.get(index)) : Option.none())
        ),
      revisions: (id) =>
        sql`SELECT revision, digest, record, payload FROM harness_receipts WHERE session = ${id} ORDER BY revision`
          .pipe(
            Effect.flatMap(decodeRevisions),
            Effect.map((rows) =>
              rows.map((r) => ({ revision: r.revision, digest: r.digest, record: r.record, receipt: r.payload }))
            ),
            io("reading revisions")
          ),
      acquire: leased(true),
      renew: leased(false),
      release: (id, owner) =>
        sql`DELETE FROM harness_leases WHERE session = ${id} AND owner = ${owner}`.pipe(
          Effect.asVoid,
          io("releasing the session's lease")
        ),
      lease: (id) => readLease(id, !options.migrate),
      subscribe: PubSub.subscribe(hub)
    }
    return store
  })
