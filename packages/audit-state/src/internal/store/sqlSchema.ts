/**
 * The SQL store's schema: its embedded migrations (table `audit_state_migrations`) — the head
 * row, one row per record, the chained event lines, the lock row, the dispatch keys, the seal
 * with the triggers that keep it honest (ADR 0114), and the memos (ADR 0141).
 *
 * @internal
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** The tables a seal covers (ADR 0114). */
const SEALED_TABLES = ["audit_state_head", "audit_state_rows", "audit_state_events", "audit_state_dispatch_keys"]

/** The triggers that count every change to `tables` in the seal's `gen` (ADR 0114). */
const touchTriggers = (tables: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.onDialectOrElse({
      pg: () =>
        Effect.forEach(tables, (table) =>
          sql.unsafe(`CREATE OR REPLACE TRIGGER ${table}_touch
              AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table}
              FOR EACH STATEMENT EXECUTE FUNCTION audit_state_touch()`), { discard: true }),
      orElse: () =>
        Effect.forEach(
          tables,
          (table) =>
            Effect.forEach(["INSERT", "UPDATE", "DELETE"], (op) =>
              sql.unsafe(`CREATE TRIGGER IF NOT EXISTS ${table}_touch_${op.toLowerCase()}
              AFTER ${op} ON ${table} FOR EACH ROW
              BEGIN UPDATE audit_state_seal SET gen = gen + 1 WHERE id = 1; END`)),
          { discard: true }
        )
    }))

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
        sql.unsafe(`CREATE OR REPLACE FUNCTION audit_state_touch() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN UPDATE audit_state_seal SET gen = gen + 1 WHERE id = 1; RETURN NULL; END $$`),
      orElse: () => Effect.void
    })
    yield* touchTriggers(SEALED_TABLES)
  }),
  "0004_audit_state_memo": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // ADR 0141: derived text (next's decision) kept against a revision; sealed like the state, so
    // an edit of a memo outside the store unseals it and the memo is not believed
    yield* sql`CREATE TABLE IF NOT EXISTS audit_state_memo (
      name TEXT PRIMARY KEY,
      revision BIGINT NOT NULL,
      basis TEXT NOT NULL,
      body TEXT NOT NULL
    )`
    yield* touchTriggers(["audit_state_memo"])
  })
})

export const runMigrations = Migrator.make({})({ loader: migrations, table: "audit_state_migrations" }).pipe(
  // Processes starting at once on one PostgreSQL database can race to create the migrations table;
  // the loser's retry finds it and waits on the migrator's table lock (ADR 0600).
  Effect.retry({ times: 2 })
)
