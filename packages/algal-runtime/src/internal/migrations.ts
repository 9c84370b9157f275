/**
 * Embedded migrations of the algal-runtime stores (own table `algal_runtime_migrations`).
 *
 * @internal
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as AlgalError from "../AlgalError.js"

const loader = Migrator.fromRecord({
  "0001_algal_stores": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE IF NOT EXISTS algal_blobs (
      ref TEXT PRIMARY KEY NOT NULL,
      body TEXT NOT NULL,
      bytes INTEGER NOT NULL
    )`
    yield* sql`CREATE TABLE IF NOT EXISTS algal_slots (
      name TEXT PRIMARY KEY NOT NULL,
      body TEXT NOT NULL
    )`
  })
})

/** @internal */
export const migrate = Migrator.make({})({ loader, table: "algal_runtime_migrations" }).pipe(
  // Two stores (or two processes) migrating one PostgreSQL database at once can race to create
  // the migrations table; the loser's retry finds it and waits on the migrator's table lock.
  Effect.retry({ times: 2 }),
  Effect.mapError((error) => AlgalError.make("IO_FAILED", `algal-runtime migrations failed: ${error.message}`))
)
