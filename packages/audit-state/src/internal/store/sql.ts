/**
 * The SQL backend over the abstract `SqlClient`: the head row, one row per record, the chained
 * event lines, the dispatch keys; a verb's transaction begins with a write so processes
 * serialize on the database lock.
 *
 * @internal
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as AuditError from "../../AuditError.js"
import * as State from "../../State.js"
import * as Json from "../json.js"
import { type Backend, staleViews, type Tx } from "./backend.js"

/** The tables a seal covers (ADR 0114). */
const SEALED_TABLES = ["audit_state_head", "audit_state_rows", "audit_state_events", "audit_state_dispatch_keys"]

/** The package's embedded migrations (table `audit_state_migrations`). @internal */
export const migrations = Migrator.fromRecord({
  "0001_audit_state": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE IF NOT EXISTS audit_state_head (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      revision BIGINT NOT NULL,
      events BIGINT NOT NULL,
      present TEXT NOT NULL,
      doc TEXT NOT NULL
    )`
    yield* sql`CREATE TABLE IF NOT EXISTS audit_state_rows (
      collection TEXT NOT NULL,
      pos INTEGER NOT NULL,
      doc TEXT NOT NULL,
      PRIMARY KEY (collection, pos)
    )`
    yield* sql`CREATE TABLE IF NOT EXISTS audit_state_events (
      seq INTEGER PRIMARY KEY,
      line TEXT NOT NULL,
      head TEXT NOT NULL
    )`
    yield* sql`CREATE TABLE IF NOT EXISTS audit_state_lock (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      n BIGINT NOT NULL
    )`
  }),
  "0002_audit_state_dispatch_keys": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE IF NOT EXISTS audit_state_dispatch_keys (
      session_id TEXT PRIMARY KEY,
      role TEXT NOT NULL,
      source_digest TEXT NOT NULL,
      charter_slice TEXT
    )`
  }),
  "0003_audit_state_seal": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // ADR 0114: `gen` counts every change to the tables below (triggers); a validated write sets
    // `sealed = gen` last (creating the row the first time). A process that opens the store trusts
    // rows whose seal is current. No row yet: nothing is sealed (and a copied database brings its own).
    yield* sql`CREATE TABLE IF NOT EXISTS audit_state_seal (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      gen BIGINT NOT NULL,
      sealed BIGINT NOT NULL,
      revision BIGINT NOT NULL,
      events BIGINT NOT NULL,
      head TEXT NOT NULL
    )`
    yield* sql`CREATE TABLE IF NOT EXISTS audit_state_view_marks (
      path TEXT PRIMARY KEY,
      mark TEXT NOT NULL
    )`
    yield* sql.onDialectOrElse({
      pg: () =>
        Effect.gen(function*() {
          yield* sql.unsafe(`CREATE OR REPLACE FUNCTION audit_state_touch() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN UPDATE audit_state_seal SET gen = gen + 1 WHERE id = 1; RETURN NULL; END $$`)
          for (const table of SEALED_TABLES) {
            yield* sql.unsafe(`CREATE OR REPLACE TRIGGER ${table}_touch
              AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table}
              FOR EACH STATEMENT EXECUTE FUNCTION audit_state_touch()`)
          }
        }),
      orElse: () =>
        Effect.forEach(
          SEALED_TABLES,
          (table) =>
            Effect.forEach(["INSERT", "UPDATE", "DELETE"], (op) =>
              sql.unsafe(`CREATE TRIGGER IF NOT EXISTS ${table}_touch_${op.toLowerCase()}
              AFTER ${op} ON ${table} FOR EACH ROW
              BEGIN UPDATE audit_state_seal SET gen = gen + 1 WHERE id = 1; END`)),
          { discard: true }
        )
    })
  })
})

const runMigrations = Migrator.make({})({ loader: migrations, table: "audit_state_migrations" }).pipe(
  // Processes starting at once on one PostgreSQL database can race to create the migrations table;
  // the loser's retry finds it and waits on the migrator's table lock (ADR 0600).
  Effect.retry({ times: 2 })
)

const storageError = (what: string) => (error: SqlError | Migrator.MigrationError) =>
  AuditError.make("storage", `audit state database: ${what} failed: ${error.message}`)

const chunks = <A>(xs: ReadonlyArray<A>, n: number): ReadonlyArray<ReadonlyArray<A>> =>
  Array.from({ length: Math.ceil(xs.length / n) }, (_, k) => xs.slice(k * n, k * n + n))

/**
 * A float written as `12.0` or `1e3` must keep its spelling: only the strict reader does. A JSON
 * number with a fraction or an exponent always has a digit, `.`/`e`/`E`, then a digit or sign.
 */
const MAYBE_FLOAT = /[0-9][.eE][-+0-9]/

const parseRow = (text: string, where: string, trusted = false): Effect.Effect<any, AuditError.AuditError> => {
  // a sealed row was written by this package from a validated value (ADR 0114): the native
  // parser reads it the same, unless it may hold a float spelling the strict reader keeps
  if (trusted && !MAYBE_FLOAT.test(text)) return Effect.succeed(JSON.parse(text))
  const v = Json.parse(text)
  return v instanceof Json.JsonSyntaxError
    ? Effect.fail(AuditError.make("invalid-state", `stored ${where}: not valid JSON (${v.message})`))
    : Effect.succeed(v)
}

const decodeKeyRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({
  session_id: Schema.String,
  role: Schema.String,
  source_digest: Schema.String,
  charter_slice: Schema.NullOr(Schema.String)
})))

export const sqlBackend = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* runMigrations.pipe(Effect.mapError(storageError("migration")))
  const wrap = <A>(what: string, e: Effect.Effect<A, SqlError>) => Effect.mapError(e, storageError(what))
  const tx: Tx = {
    marker: wrap(
      "read",
      sql<{ revision: number; events: number }>`SELECT revision, events FROM audit_state_head WHERE id = 1`
    ).pipe(
      Effect.map((rows) => rows[0] === undefined ? undefined : { revision: rows[0].revision, events: rows[0].events })
    ),
    loadDoc: (trusted) =>
      Effect.gen(function*() {
        const heads = yield* wrap(
          "read",
          sql<{ present: string; doc: string }>`SELECT present, doc FROM audit_state_head WHERE id = 1`
        )
        const head = heads[0]
        if (head === undefined) return undefined
        const rest = (yield* parseRow(head.doc, "state head", trusted)) as Record<string, unknown>
        const present = (yield* parseRow(head.present, "state head", trusted)) as ReadonlyArray<string>
        const rows = yield* wrap(
          "read",
          sql<
            { collection: string; pos: number; doc: string }
          >`SELECT collection, pos, doc FROM audit_state_rows ORDER BY collection, pos`
        )
        const doc: Record<string, unknown> = { ...rest }
        for (const c of present) doc[c] = []
        for (const r of rows) {
          const arr = doc[r.collection] as Array<unknown> | undefined
          if (arr === undefined) {
            return yield* Effect.fail(
              AuditError.make("invalid-state", `stored row of unknown collection '${r.collection}'`)
            )
          }
          arr.push(yield* parseRow(r.doc, `${r.collection}[${r.pos}]`, trusted))
        }
        return doc as unknown as State.StateDoc
      }),
    loadLines: (from) =>
      wrap("read", sql<{ line: string }>`SELECT line FROM audit_state_events WHERE seq >= ${from} ORDER BY seq`).pipe(
        Effect.map((rows) => rows.map((r) => r.line))
      ),
    persist: (prev, next, events) =>
      Effect.gen(function*() {
        const rest: Record<string, unknown> = {}
        const present: Array<string> = []
        for (const [k, v] of Object.entries(next)) {
          if ((State.collections as ReadonlyArray<string>).includes(k)) {
            if (Array.isArray(v)) present.push(k)
          } else rest[k] = v
        }
        const restText = Json.dumpsCompact(rest, false)
        const presentText = JSON.stringify(present)
        yield* wrap(
          "write",
          sql`INSERT INTO audit_state_head (id, revision, events, present, doc)
              VALUES (1, ${next.state_revision}, ${events}, ${presentText}, ${restText})
              ON CONFLICT (id) DO UPDATE SET revision = excluded.revision, events = excluded.events,
                present = excluded.present, doc = excluded.doc`
        )
        const unmark = staleViews(prev, next)
        for (let k = 0; k < unmark.length; k += 300) {
          yield* wrap(
            "write",
            sql`DELETE FROM audit_state_view_marks WHERE ${sql.in("path", unmark.slice(k, k + 300))}`
          )
        }
        for (const c of State.collections) {
          const before = (prev?.[c] ?? []) as ReadonlyArray<unknown>
          const after = (next[c] ?? []) as ReadonlyArray<unknown>
          if (before === after) continue
          const upserts: Array<{ collection: string; pos: number; doc: string }> = []
          for (let k = 0; k < after.length; k++) {
            if (before[k] !== after[k]) upserts.push({ collection: c, pos: k, doc: Json.dumpsCompact(after[k], false) })
          }
          for (let k = 0; k < upserts.length; k += 300) {
            const chunk = upserts.slice(k, k + 300)
            yield* wrap(
              "write",
              sql`INSERT INTO audit_state_rows ${sql.insert(chunk)}
                  ON CONFLICT (collection, pos) DO UPDATE SET doc = excluded.doc`
            )
          }
          if (before.length > after.length) {
            yield* wrap("write", sql`DELETE FROM audit_state_rows WHERE collection = ${c} AND pos >= ${after.length}`)
          }
        }
      }),
    append: (start, lines, countInHead) =>
      Effect.gen(function*() {
        const rows = lines.map((l, k) => ({ seq: start + k, line: l.line, head: l.head }))
        for (let k = 0; k < rows.length; k += 300) {
          yield* wrap("write", sql`INSERT INTO audit_state_events ${sql.insert(rows.slice(k, k + 300))}`)
        }
        if (countInHead) {
          yield* wrap("write", sql`UPDATE audit_state_head SET events = ${start + lines.length} WHERE id = 1`)
        }
      }),
    sealed: wrap(
      "read",
      sql<
        { gen: number; sealed: number; revision: number; events: number; head: string }
      >`SELECT gen, sealed, revision, events, head FROM audit_state_seal WHERE id = 1`
    ).pipe(Effect.map((rows) => {
      const s = rows[0]
      return s === undefined || Number(s.gen) !== Number(s.sealed)
        ? undefined
        : { revision: Number(s.revision), events: Number(s.events), head: s.head }
    })),
    seal: (s) =>
      wrap(
        "write",
        sql`INSERT INTO audit_state_seal (id, gen, sealed, revision, events, head)
            VALUES (1, 0, 0, ${s.revision}, ${s.events}, ${s.head})
            ON CONFLICT (id) DO UPDATE SET sealed = audit_state_seal.gen, revision = excluded.revision,
              events = excluded.events, head = excluded.head`
      ),
    viewMarks: (paths) =>
      (paths === undefined
        ? wrap("read", sql<{ path: string; mark: string }>`SELECT path, mark FROM audit_state_view_marks`)
        : paths.length === 0
        ? Effect.succeed([])
        : Effect.map(
          Effect.forEach(chunks(paths, 300), (some) =>
            wrap(
              "read",
              sql<{ path: string; mark: string }>`SELECT path, mark FROM audit_state_view_marks
                WHERE ${sql.in("path", some)}`
            )),
          (rows) => rows.flat()
        )).pipe(Effect.map((rows) => new Map(rows.map((r) => [r.path, r.mark])))),
    putViewMarks: (marks) =>
      Effect.gen(function*() {
        const drop = marks.filter(([, mark]) => mark === undefined).map(([path]) => path)
        const put = marks.flatMap(([path, mark]) => mark === undefined ? [] : [{ path, mark }])
        for (const some of chunks(drop, 300)) {
          yield* wrap("write", sql`DELETE FROM audit_state_view_marks WHERE ${sql.in("path", some)}`)
        }
        // one path once per statement (ON CONFLICT cannot touch a row twice): the last mark wins
        const last = [...new Map(put.map((m) => [m.path, m])).values()]
        for (const some of chunks(last, 300)) {
          yield* wrap(
            "write",
            sql`INSERT INTO audit_state_view_marks ${sql.insert(some)}
                ON CONFLICT (path) DO UPDATE SET mark = excluded.mark`
          )
        }
      }),
    putKey: (key) =>
      wrap(
        "write",
        sql`INSERT INTO audit_state_dispatch_keys (session_id, role, source_digest, charter_slice)
            VALUES (${key.session_id}, ${key.role}, ${key.source_digest}, ${key.charter_slice})
            ON CONFLICT (session_id) DO UPDATE SET role = excluded.role, source_digest = excluded.source_digest,
              charter_slice = excluded.charter_slice`
      ),
    loadKeys: wrap(
      "read",
      sql`SELECT session_id, role, source_digest, charter_slice FROM audit_state_dispatch_keys ORDER BY session_id`
    ).pipe(
      Effect.flatMap((rows) => decodeKeyRows(rows)),
      Effect.mapError((e) =>
        e instanceof AuditError.AuditError
          ? e
          : AuditError.make("invalid-state", `stored dispatch key: ${e.message}`)
      )
    ),
    reset: Effect.gen(function*() {
      yield* wrap("write", sql`DELETE FROM audit_state_view_marks`)
      yield* wrap("write", sql`DELETE FROM audit_state_dispatch_keys`)
      yield* wrap("write", sql`DELETE FROM audit_state_rows`)
      yield* wrap("write", sql`DELETE FROM audit_state_events`)
      yield* wrap("write", sql`DELETE FROM audit_state_head`)
    })
  }
  const takeLock = wrap(
    "lock",
    sql`INSERT INTO audit_state_lock (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = audit_state_lock.n + 1`
  )
  const backend: Backend = {
    transact: (write, f) =>
      sql.withTransaction(write ? Effect.zipRight(takeLock, f(tx)) : f(tx)).pipe(
        Effect.catchTag("SqlError", (e) => Effect.fail(storageError("transaction")(e)))
      )
  }
  return backend
})
