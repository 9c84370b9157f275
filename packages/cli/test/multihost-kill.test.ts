/**
 * A writer killed with SIGKILL in the middle of a transaction leaves nothing partial (issue 19
 * item 6): a worker starts one harness commit of many events and is killed while its transaction
 * is open (on PostgreSQL: once the server reports it in a transaction); afterwards the session
 * holds all of the commit or none of it, its `last_seq` agrees, and the next commit continues.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import type * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import * as Event from "@steward/harness-sessions/Event"
import * as EventStore from "@steward/harness-sessions/EventStore"
import { SqlBackends } from "@steward/testing"
import { Effect, Layer, Redacted } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const repoRoot = path.resolve(import.meta.dirname, "../../..")
const worker = path.join(import.meta.dirname, "stores-pg-worker.ts")

const reopen = (backend: SqlBackends.SqlBackend, database: string): Layer.Layer<SqlClient.SqlClient, unknown> =>
  backend.name === "SQLite"
    ? SqliteClient.layer({ filename: database })
    : PgClient.layer({ url: Redacted.make(database), maxConnections: 2 })

/** On PostgreSQL: wait until another connection to `database` is inside a transaction. */
const inTransaction = (database: string) =>
  Effect.gen(function*() {
    const sql = yield* PgClient.PgClient
    for (let k = 0; k < 400; k++) {
      const rows = yield* sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL`
      if (Number(rows[0]?.n ?? 0) > 0) return true
      yield* Effect.sleep("10 millis")
    }
    return false
  }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(database), maxConnections: 1 })), Effect.orDie)

for (const backend of SqlBackends.all) {
  describe.skipIf(backend.skip !== undefined)(`SIGKILL mid-commit (${backend.name}) ${backend.skip ?? ""}`, () => {
    it.live(
      "a commit of many events killed while open leaves all or none, and the next commit continues",
      () =>
        Effect.scoped(Effect.gen(function*() {
          const database = backend.name === "SQLite"
            ? path.join(fs.mkdtempSync(path.join(os.tmpdir(), "multihost-kill-")), "state.sqlite")
            : yield* SqlBackends.freshPostgresDatabase()
          const layer = EventStore.layerSql.pipe(Layer.provide(reopen(backend, database)), Layer.orDie)
          yield* Effect.flatMap(EventStore.EventStore, (s) => s.create("victim", {})).pipe(Effect.provide(layer))
          const count = 20_000
          const child = spawn(process.execPath, [
            "--import",
            "tsx",
            worker,
            "bigcommit",
            database,
            "k",
            String(count),
            "victim"
          ], {
            cwd: repoRoot
          })
          let out = ""
          const ready = Effect.async<void>((resume) => {
            child.stdout.on("data", (d) => {
              out += d
              if (out.includes("ready")) resume(Effect.void)
            })
          })
          const exited = Effect.async<number | null>((resume) => {
            child.on("close", (code) => resume(Effect.succeed(code)))
          })
          yield* ready
          if (backend.name === "PostgreSQL") {
            assert.isTrue(yield* inTransaction(database), "the commit's transaction opened")
          }
          child.kill("SIGKILL")
          yield* exited
          const finished = out.includes("committed")
          yield* Effect.gen(function*() {
            const store = yield* EventStore.EventStore
            const stored = yield* store.read("victim")
            const session = yield* store.get("victim")
            assert.include([0, count], stored.length, "all or none of the commit")
            assert.strictEqual(session.lastSeq, stored.length, "last_seq agrees with the events")
            if (backend.name === "PostgreSQL") {
              assert.isFalse(finished)
            }
            if (!finished) assert.strictEqual(stored.length, 0, "an unfinished commit left nothing")
            const next = yield* store.commit("victim", { events: [Event.make(null, "note", { after: true })] })
            assert.deepStrictEqual(next.map((e) => e.seq), [stored.length + 1])
          }).pipe(Effect.provide(layer))
        })),
      { timeout: 60_000 }
    )
  })
}
