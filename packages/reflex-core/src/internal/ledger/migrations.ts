/**
 * The ledger's embedded migrations (own table `reflex_core_migrations`).
 * @internal
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Former from "../formerHeads.js"

/** @internal */
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
  }),
  // Retention drops the oldest unlabeled observations: a flag kept with the labels and an index
  // that finds them in order, so a write at the cap costs what it drops (ADR 0407).
  "0003_retention_index": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`ALTER TABLE reflex_observations ADD COLUMN labeled INTEGER NOT NULL DEFAULT 0`
    yield* sql`UPDATE reflex_observations SET labeled = 1 WHERE id IN (SELECT observation FROM reflex_labels)`
    yield* sql`CREATE INDEX IF NOT EXISTS reflex_observations_retention ON reflex_observations (reflex, labeled, at_ms)`
    yield* sql`CREATE INDEX IF NOT EXISTS reflex_labels_observation ON reflex_labels (observation)`
  }),
  // A renamed head (settle's `unfinished` is `stopped_short`, ADR 0414): its rows and the head keys
  // of its stored documents move to the current name, so one name is read and written from here.
  "0004_renamed_heads": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    for (const [reflex, names] of Object.entries(Former.formerHeads)) {
      for (const [former, current] of Object.entries(names)) {
        for (const table of ["reflex_observations", "reflex_labels", "reflex_trials"]) {
          yield* sql`UPDATE ${sql(table)} SET head = ${current} WHERE reflex = ${reflex} AND head = ${former}`
        }
        const certificates = yield* sql<{ payload: string }>`SELECT payload FROM reflex_certificates
          WHERE reflex = ${reflex} AND head = ${former}`
        for (const row of certificates) {
          const payload = Former.renameField(row.payload, "head", names)
          yield* sql`UPDATE reflex_certificates SET head = ${current}, payload = ${payload}
            WHERE reflex = ${reflex} AND head = ${former}`
        }
      }
      const generations = yield* sql<{ version: number; payload: string }>`SELECT version, payload
        FROM reflex_generations WHERE reflex = ${reflex}`
      for (const row of generations) {
        const payload = Former.upgradeParamsText(row.payload)
        if (payload !== row.payload) {
          yield* sql`UPDATE reflex_generations SET payload = ${payload} WHERE reflex = ${reflex} AND version = ${row.version}`
        }
      }
    }
  })
})

/** @internal */
export const migrate = Migrator.make({})({ loader: migrations, table: "reflex_core_migrations" }).pipe(
  // Hosts opening one fresh PostgreSQL database at once race to create the migrations table; the
  // loser's retry finds it and waits on the migrator's table lock (ADR 0600).
  Effect.retry({ times: 2 })
)
