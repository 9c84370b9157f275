/**
 * The SQLite client prepares a statement once (ADR 0568, a pnpm patch of
 * `@effect/sql-sqlite-node`): a transaction's `BEGIN`, `COMMIT` and `ROLLBACK` and every cached
 * statement are prepared on first use and reused, least recently used evicted past the cache's
 * size. Counting `Database.prototype.prepare` shows whether a later transaction prepared again:
 * against the published 0.53 every transaction prepares its `BEGIN` and `COMMIT` anew.
 */
import { SqliteClient } from "@effect/sql-sqlite-node"
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import * as Event from "../src/Event.js"
import * as EventStore from "../src/EventStore.js"
import * as FrozenJson from "../src/internal/frozenJson.js"
import * as SqlCommit from "../src/internal/sqlCommit.js"

// better-sqlite3 ships no types; only its prototype's `prepare` is needed here.
const Sqlite = createRequire(import.meta.url)("better-sqlite3") as {
  readonly prototype: { prepare: (this: unknown, source: string) => unknown }
}

/** Counts the SQL texts prepared while `body` runs. */
const countingPrepares = <A, E, R>(body: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const original = Sqlite.prototype.prepare
      const prepared: Array<string> = []
      Sqlite.prototype.prepare = function(this: unknown, source: string) {
        prepared.push(source)
        return original.call(this, source)
      }
      return { original, prepared }
    }),
    ({ prepared }) => Effect.map(body, (a) => [a, prepared] as const),
    ({ original }) => Effect.sync(() => void (Sqlite.prototype.prepare = original))
  )

const client = (prepareCacheSize?: number) =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "harness-sqlite-statements-"))),
      (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
    )
    return SqliteClient.layer({ filename: path.join(dir, "db.sqlite"), prepareCacheSize })
  }))

const setup = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE t (k TEXT PRIMARY KEY, n INTEGER NOT NULL)`
  yield* sql`INSERT INTO t (k, n) VALUES ('a', 0)`
  return sql
})

describe("SQLite statements", () => {
  it.effect("a transaction's BEGIN, COMMIT and statements are prepared once, not per transaction", () =>
    Effect.gen(function*() {
      const sql = yield* setup
      const bump = sql.withTransaction(sql`UPDATE t SET n = n + 1 WHERE k = ${"a"} RETURNING n`)
      const [, prepared] = yield* countingPrepares(Effect.repeatN(bump, 9))
      assert.deepStrictEqual([...prepared].sort(), [
        "BEGIN",
        "COMMIT",
        "UPDATE t SET n = n + 1 WHERE k = ? RETURNING n"
      ])
      const rows = yield* sql<{ n: number }>`SELECT n FROM t WHERE k = ${"a"}`
      assert.strictEqual(rows[0]?.n, 10)
    }).pipe(Effect.provide(client())))

  it.effect("a failed transaction rolls back through a prepared ROLLBACK, and the next one commits", () =>
    Effect.gen(function*() {
      const sql = yield* setup
      const failing = sql.withTransaction(
        sql`UPDATE t SET n = n + 1 WHERE k = ${"a"}`.pipe(Effect.zipRight(Effect.fail("stop" as const)))
      )
      const [, prepared] = yield* countingPrepares(
        Effect.gen(function*() {
          for (let i = 0; i < 3; i++) assert.strictEqual(yield* Effect.flip(failing), "stop")
          yield* sql.withTransaction(sql`UPDATE t SET n = n + 5 WHERE k = ${"a"}`)
        })
      )
      assert.strictEqual(prepared.filter((s) => s === "ROLLBACK").length, 1)
      const rows = yield* sql<{ n: number }>`SELECT n FROM t WHERE k = ${"a"}`
      assert.strictEqual(rows[0]?.n, 5)
    }).pipe(Effect.provide(client())))

  it.effect("past the cache's size the least recently used statement is evicted and prepared again", () =>
    Effect.gen(function*() {
      const sql = yield* setup
      const select = (column: string) => sql`SELECT ${sql(column)} FROM t`
      const [, prepared] = yield* countingPrepares(
        Effect.gen(function*() {
          yield* select("k") // cache: k
          yield* select("n") // cache: k, n
          yield* select("k") // hit; cache: n, k
          yield* select("rowid") // evicts n; cache: k, rowid
          yield* select("k") // hit
          yield* select("n") // prepared again
        })
      )
      assert.deepStrictEqual(prepared, [
        "SELECT \"k\" FROM t",
        "SELECT \"n\" FROM t",
        "SELECT \"rowid\" FROM t",
        "SELECT \"n\" FROM t"
      ])
    }).pipe(Effect.provide(client(2))))

  it.effect("a statement that does not prepare is a SqlError, and is not cached", () =>
    Effect.gen(function*() {
      const sql = yield* setup
      for (let i = 0; i < 2; i++) {
        const error = yield* Effect.flip(sql`SELECT nope FROM t`)
        assert.strictEqual(error._tag, "SqlError")
      }
    }).pipe(Effect.provide(client())))

  it.effect("the SQL store keeps frozen event data as it is and hands back a copy of any other", () =>
    Effect.gen(function*() {
      const store = yield* EventStore.EventStore
      yield* store.create("s", {})
      const frozen = Event.make("r", "note", { lines: ["a"] })
      const plain = { ...frozen, data: { lines: ["b"] } }
      const [kept, copied] = yield* store.commit("s", { events: [frozen, plain] })
      assert.isTrue(FrozenJson.isImmutable(frozen.data))
      assert.strictEqual(kept?.data, frozen.data)
      assert.notStrictEqual(copied?.data, plain.data)
      assert.deepStrictEqual(copied?.data, { lines: ["b"] })
      const read = yield* store.read("s")
      assert.deepStrictEqual(read.map((e) => e.data), [{ lines: ["a"] }, { lines: ["b"] }])
    }).pipe(Effect.provide(EventStore.layerSql.pipe(Layer.provide(client())))))
  // A commit numbers its events from the session's last seq. Read as a joined subquery, SQLite
  // aggregated MAX(seq) over every event of the session (a forward loop: `AggStep`, `Next`), so
  // each commit cost more the longer the session (ADR 0579); as a scalar subquery it seeks the
  // key's last entry (`SeekLE`, one `AggStep`, then out of the loop).
  it.effect("a commit reads the session's last seq by one seek, not by walking its events", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const fence = sql`AND EXISTS (SELECT 1 FROM harness_leases WHERE session = ${"s"} AND owner = ${"me"})`
      for (const tail of [sql``, fence]) {
        const [text, params] = SqlCommit.append(sql, "s", 0, [{ run: null, type: "note", data: "1" }], tail).compile()
        const program = yield* sql.unsafe<{ opcode: string }>(`EXPLAIN ${text}`, params)
        const ops = program.map((op) => op.opcode)
        const aggregated = ops.flatMap((op, i) => op === "AggStep" ? [ops[i + 1]] : [])
        assert.deepStrictEqual(aggregated, ["Goto"], ops.join(" "))
        assert.include(ops, "SeekLE")
      }
    }).pipe(Effect.provide(Layer.provideMerge(EventStore.layerSql, client()))))
})
