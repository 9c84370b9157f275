/**
 * The SQL backend over the abstract `SqlClient`: the head row, one row per record, the chained
 * event lines, the dispatch keys, the seal and the view marks (schema in `sqlSchema.ts`, row
 * layout in `sqlRows.ts`); a verb's transaction begins with a write so processes serialize on
 * the database lock.
 *
 * @internal
 */
import type * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as AuditError from "../../AuditError.js"
import * as State from "../../State.js"
import { type Backend, staleViews, type Tx } from "./backend.js"
import {
  assembleDoc,
  assembleSealed,
  changedRows,
  chunks,
  decodeKeyRows,
  type HeadRow,
  headTexts,
  type RecordRow
} from "./sqlRows.js"
import { runMigrations } from "./sqlSchema.js"

export { migrations } from "./sqlSchema.js"

const storageError = (what: string) => (error: SqlError | Migrator.MigrationError) =>
  AuditError.make("storage", `audit state database: ${what} failed: ${error.message}`)

const wrap = <A>(what: string, e: Effect.Effect<A, SqlError>) => Effect.mapError(e, storageError(what))

/** The head row and the record rows: the document read and written. */
const documentQueries = (sql: SqlClient.SqlClient): Pick<Tx, "marker" | "loadDoc" | "persist"> => ({
  marker: wrap(
    "read",
    sql<{ revision: number; events: number }>`SELECT revision, events FROM audit_state_head WHERE id = 1`
  ).pipe(
    Effect.map((rows) => rows[0] === undefined ? undefined : { revision: rows[0].revision, events: rows[0].events })
  ),
  loadDoc: (trusted) =>
    Effect.gen(function*() {
      const heads = yield* wrap("read", sql<HeadRow>`SELECT present, doc FROM audit_state_head WHERE id = 1`)
      if (heads[0] === undefined) return undefined
      if (trusted) {
        // bare value rows, parsed one collection at a time (ADR 0134)
        const rows = yield* wrap(
          "read",
          sql`SELECT collection, doc FROM audit_state_rows ORDER BY collection, pos`.values
        )
        return yield* assembleSealed(heads[0], rows as ReadonlyArray<readonly [string, string]>)
      }
      const rows = yield* wrap(
        "read",
        sql<RecordRow>`SELECT collection, pos, doc FROM audit_state_rows ORDER BY collection, pos`
      )
      return yield* assembleDoc(heads[0], rows, trusted)
    }),
  persist: (prev, next, events) =>
    Effect.gen(function*() {
      const head = headTexts(next)
      yield* wrap(
        "write",
        sql`INSERT INTO audit_state_head (id, revision, events, present, doc)
            VALUES (1, ${next.state_revision}, ${events}, ${head.present}, ${head.doc})
            ON CONFLICT (id) DO UPDATE SET revision = excluded.revision, events = excluded.events,
              present = excluded.present, doc = excluded.doc`
      )
      for (const some of chunks(staleViews(prev, next))) {
        yield* wrap("write", sql`DELETE FROM audit_state_view_marks WHERE ${sql.in("path", some)}`)
      }
      for (const c of State.collections) {
        const changed = changedRows(prev, next, c)
        if (changed === undefined) continue
        for (const some of chunks(changed.upserts)) {
          yield* wrap(
            "write",
            sql`INSERT INTO audit_state_rows ${sql.insert(some)}
                ON CONFLICT (collection, pos) DO UPDATE SET doc = excluded.doc`
          )
        }
        if (changed.truncateAt !== undefined) {
          yield* wrap(
            "write",
            sql`DELETE FROM audit_state_rows WHERE collection = ${c} AND pos >= ${changed.truncateAt}`
          )
        }
      }
    })
})

/** The chained event lines. */
const eventQueries = (sql: SqlClient.SqlClient): Pick<Tx, "loadLines" | "append"> => ({
  loadLines: (from) =>
    wrap("read", sql<{ line: string }>`SELECT line FROM audit_state_events WHERE seq >= ${from} ORDER BY seq`).pipe(
      Effect.map((rows) => rows.map((r) => r.line))
    ),
  append: (start, lines, countInHead) =>
    Effect.gen(function*() {
      const rows = lines.map((l, k) => ({ seq: start + k, line: l.line, head: l.head }))
      for (const some of chunks(rows)) {
        yield* wrap("write", sql`INSERT INTO audit_state_events ${sql.insert(some)}`)
      }
      if (countInHead) {
        yield* wrap("write", sql`UPDATE audit_state_head SET events = ${start + lines.length} WHERE id = 1`)
      }
    })
})

/** The seal (ADR 0114): current while the triggers' change count equals the sealed one. */
const sealQueries = (sql: SqlClient.SqlClient): Pick<Tx, "sealed" | "seal"> => ({
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
    )
})

/**
 * Every view mark as one JSON array of `[path, mark]` pairs (ADR 0134): one row to read and one
 * native parse instead of one row object per view. The PostgreSQL driver hands `json` back
 * parsed; SQLite hands back its text.
 */
const allMarks = (sql: SqlClient.SqlClient) =>
  wrap(
    "read",
    sql.onDialectOrElse({
      pg: () =>
        sql<{ marks: unknown }>`SELECT json_agg(json_build_array(path, mark)) AS marks FROM audit_state_view_marks`,
      orElse: () =>
        sql<{ marks: unknown }>`SELECT json_group_array(json_array(path, mark)) AS marks FROM audit_state_view_marks`
    })
  ).pipe(Effect.map((rows): ReadonlyMap<string, string> => {
    const v = rows[0]?.marks
    const pairs = typeof v === "string" ? JSON.parse(v) : v
    return new Map(Array.isArray(pairs) ? pairs as ReadonlyArray<readonly [string, string]> : [])
  }))

/** The view marks (ADR 0115). */
const markQueries = (sql: SqlClient.SqlClient): Pick<Tx, "viewMarks" | "putViewMarks"> => ({
  viewMarks: (paths) =>
    paths === undefined ? allMarks(sql) : (paths.length === 0
      ? Effect.succeed([])
      : Effect.map(
        Effect.forEach(chunks(paths), (some) =>
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
      for (const some of chunks(drop)) {
        yield* wrap("write", sql`DELETE FROM audit_state_view_marks WHERE ${sql.in("path", some)}`)
      }
      // one path once per statement (ON CONFLICT cannot touch a row twice): the last mark wins
      const last = [...new Map(put.map((m) => [m.path, m])).values()]
      for (const some of chunks(last)) {
        yield* wrap(
          "write",
          sql`INSERT INTO audit_state_view_marks ${sql.insert(some)}
              ON CONFLICT (path) DO UPDATE SET mark = excluded.mark`
        )
      }
    })
})

/** The memos (ADR 0141): one is returned, or recorded, only while the seal is current at its revision. */
const memoQueries = (
  sql: SqlClient.SqlClient,
  seals: Pick<Tx, "marker" | "sealed">
): Pick<Tx, "memo" | "putMemo"> => ({
  memo: (name) =>
    wrap(
      "read",
      sql<{ revision: number; basis: string; body: string }>`SELECT m.revision, m.basis, m.body
        FROM audit_state_memo m, audit_state_seal s, audit_state_head h
        WHERE m.name = ${name} AND s.id = 1 AND h.id = 1 AND s.gen = s.sealed
          AND s.revision = m.revision AND h.revision = m.revision AND s.events = h.events`
    ).pipe(Effect.map((rows) => {
      const r = rows[0]
      return r === undefined ? undefined : { revision: Number(r.revision), basis: r.basis, body: r.body }
    })),
  putMemo: (name, memo) =>
    Effect.gen(function*() {
      const m = yield* seals.marker
      const seal = yield* seals.sealed
      if (
        m === undefined || seal === undefined || Number(m.revision) !== memo.revision ||
        seal.revision !== memo.revision || seal.events !== Number(m.events)
      ) return
      const [{ gen }] = yield* wrap("read", sql<{ gen: number }>`SELECT gen FROM audit_state_seal WHERE id = 1`)
      yield* wrap(
        "write",
        sql`INSERT INTO audit_state_memo (name, revision, basis, body)
          VALUES (${name}, ${memo.revision}, ${memo.basis}, ${memo.body})
          ON CONFLICT (name) DO UPDATE SET revision = excluded.revision, basis = excluded.basis, body = excluded.body`
      )
      // the memo table is sealed too (an edit outside the store unseals it): seal what this wrote,
      // counting it as one change whatever the dialect's triggers counted (SQLite counts rows,
      // PostgreSQL statements), so a copied database and its source stay identical after one `next`
      const after = Number(gen) + 1
      yield* wrap("write", sql`UPDATE audit_state_seal SET gen = ${after}, sealed = ${after} WHERE id = 1`)
    })
})

/** The dispatch keys (ADR 0109). */
const keyQueries = (sql: SqlClient.SqlClient): Pick<Tx, "putKey" | "loadKeys"> => ({
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
  )
})

/** Empty every table but the seal (an import replaces what was there). */
const resetQuery = (sql: SqlClient.SqlClient): Tx["reset"] =>
  Effect.gen(function*() {
    yield* wrap("write", sql`DELETE FROM audit_state_view_marks`)
    yield* wrap("write", sql`DELETE FROM audit_state_memo`)
    yield* wrap("write", sql`DELETE FROM audit_state_dispatch_keys`)
    yield* wrap("write", sql`DELETE FROM audit_state_rows`)
    yield* wrap("write", sql`DELETE FROM audit_state_events`)
    yield* wrap("write", sql`DELETE FROM audit_state_head`)
  })

export const sqlBackend = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* runMigrations.pipe(Effect.mapError(storageError("migration")))
  const documents = documentQueries(sql)
  const seals = sealQueries(sql)
  const tx: Tx = {
    ...documents,
    ...eventQueries(sql),
    ...seals,
    ...markQueries(sql),
    ...keyQueries(sql),
    ...memoQueries(sql, { marker: documents.marker, sealed: seals.sealed }),
    reset: resetQuery(sql)
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
