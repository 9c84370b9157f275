/**
 * On SQLite a commit of events and steps is one statement (ADR 0582): one INSERT into the
 * `harness_commit_rows` view, whose trigger writes the events and steps and refuses the whole
 * statement on a missing session or a lost lease. Counted by wrapping better-sqlite3's statement
 * methods (what SQLite was asked to run), not timed.
 */
import { SqliteClient } from "@effect/sql-sqlite-node"
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { createRequire } from "node:module"
import * as Event from "../src/Event.js"
import * as EventStore from "../src/EventStore.js"

// better-sqlite3 ships no types; a statement's prototype (shared by every statement) is wrapped.
type Method = (this: { readonly source: string }, ...args: Array<unknown>) => unknown
const Sqlite = createRequire(import.meta.url)("better-sqlite3") as new(file: string) => {
  prepare(source: string): object
  close(): void
}
const statementPrototype = (() => {
  const db = new Sqlite(":memory:")
  const proto = Object.getPrototypeOf(db.prepare("SELECT 1")) as Record<string, Method>
  db.close()
  return proto
})()

/** The SQL texts SQLite ran while `body` runs, in order. */
const countingStatements = <A, E, R>(body: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const ran: Array<string> = []
      const originals = (["run", "all", "get", "iterate"] as const).map((name) => {
        const original = statementPrototype[name]!
        statementPrototype[name] = function(...args) {
          ran.push(this.source.replace(/\s+/g, " ").trim())
          return original.apply(this, args)
        }
        return [name, original] as const
      })
      return { ran, originals }
    }),
    ({ ran }) => Effect.map(Effect.exit(body), (exit) => [exit, ran] as const),
    ({ originals }) => Effect.sync(() => originals.forEach(([name, original]) => (statementPrototype[name] = original)))
  )

const layer = () =>
  EventStore.layerSql.pipe(Layer.provideMerge(SqliteClient.layer({ filename: ":memory:" })), Layer.orDie)

const owner = { id: "host-a pid 1", ttl: 60_000 }
const events = [Event.make("r", "tool.decision", { tool: "read" }), Event.make("r", "message", { text: "x" })]

describe("SQLite commit: one statement (ADR 0582)", () => {
  it.effect("a commit of events, steps and a fresh lease's fence runs one INSERT and no transaction", () =>
    Effect.gen(function*() {
      const store = yield* EventStore.EventStore
      yield* store.create("s", {})
      yield* store.acquire("s", owner)
      const [exit, ran] = yield* countingStatements(store.commit("s", {
        events,
        steps: [{ run: "r", index: 0, result: { reply: 1 } }],
        step: { run: "r", index: 1, result: { decided: "allow" } },
        owner
      }))
      // The seqs it hands back (from the statement's RETURNING) are the ones stored.
      assert.deepStrictEqual(exit._tag === "Success" ? exit.value.map((e) => e.seq) : [], [1, 2])
      assert.strictEqual(ran.length, 1)
      assert.match(ran[0]!, /^INSERT INTO harness_commit_rows /)
      assert.deepStrictEqual((yield* store.read("s")).map((e) => [e.seq, e.type]), [[1, "tool.decision"], [
        2,
        "message"
      ]])
      assert.deepStrictEqual(yield* store.step("s", "r", 0), Option.some({ reply: 1 }))
      assert.deepStrictEqual(yield* store.step("s", "r", 1), Option.some({ decided: "allow" }))
      // The next commit numbers after them.
      const next = yield* store.commit("s", { events: [Event.make("r", "tool.result", {})], owner })
      assert.deepStrictEqual(next.map((e) => e.seq), [3])
    }).pipe(Effect.provide(layer())))

  it.effect("a fenced commit whose lease another owner took writes none of its rows and fails BUSY", () =>
    Effect.gen(function*() {
      const store = yield* EventStore.EventStore
      const sql = yield* SqlClient.SqlClient
      yield* store.create("s", {})
      yield* store.acquire("s", owner)
      // Taken over behind this writer's back: its renewal is still fresh, so the commit is fenced.
      yield* sql`UPDATE harness_leases SET owner = 'host-b pid 2' WHERE session = 's'`
      const [exit, ran] = yield* countingStatements(Effect.flip(store.commit("s", {
        events,
        step: { run: "r", index: 0, result: 1 },
        owner
      })))
      assert.match(ran[0]!, /^INSERT INTO harness_commit_rows /)
      assert.isTrue(exit._tag === "Success" && exit.value.code === "BUSY")
      assert.include(exit._tag === "Success" ? exit.value.message : "", "host-a pid 1 no longer holds its lease")
      assert.deepStrictEqual(yield* store.read("s"), [])
      assert.isTrue(Option.isNone(yield* store.step("s", "r", 0)))
    }).pipe(Effect.provide(layer())))

  it.effect("a commit refused at its last row (a step already stored) leaves none of its events", () =>
    Effect.gen(function*() {
      const store = yield* EventStore.EventStore
      yield* store.create("s", {})
      yield* store.commit("s", { events: [Event.make("r", "note", {})], step: { run: "r", index: 0, result: 1 } })
      const [exit, ran] = yield* countingStatements(store.commit("s", {
        events,
        step: { run: "r", index: 0, result: 2 }
      }))
      assert.strictEqual(ran.length, 1)
      assert.isTrue(exit._tag === "Failure")
      assert.deepStrictEqual((yield* store.read("s")).map((e) => e.seq), [1])
      assert.deepStrictEqual(yield* store.step("s", "r", 0), Option.some(1))
    }).pipe(Effect.provide(layer())))

  it.effect("a commit to a missing session is SESSION_NOT_FOUND and writes nothing", () =>
    Effect.gen(function*() {
      const store = yield* EventStore.EventStore
      const sql = yield* SqlClient.SqlClient
      const error = yield* Effect.flip(store.commit("nope", { events, step: { run: "r", index: 0, result: 1 } }))
      assert.strictEqual(error.code, "SESSION_NOT_FOUND")
      const rows = yield* sql<{ n: number }>`SELECT (SELECT COUNT(*) FROM harness_events)
        + (SELECT COUNT(*) FROM harness_steps) AS n`
      assert.strictEqual(rows[0]?.n, 0)
    }).pipe(Effect.provide(layer())))
})
