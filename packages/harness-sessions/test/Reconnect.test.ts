/**
 * A lost database connection (issue 34 item 5, ADR 0562), with faults injected into a real SQLite
 * client's connection: statements fail as a lost PostgreSQL connection does, and the COMMIT can
 * be lost after or before it took effect. Whatever happens, a commit lands exactly once.
 * `packages/cli/test/session-reconnect.test.ts` restarts a real PostgreSQL server mid-run.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqliteClient } from "@effect/sql-sqlite-node"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import * as Event from "../src/Event.js"
import * as EventStore from "../src/EventStore.js"

interface Faults {
  /** Statements (any kind) that fail, before running, as if the server were down. */
  down: number
  /** What the next COMMIT does: lose the connection after it ran, or before. */
  commit: "after" | "before" | "ok"
  /** Statements that fail after the COMMIT's fault (the server still down when it is read back). */
  thenDown?: number
}

const lost = () =>
  new SqlError({
    cause: Object.assign(new Error("Connection terminated unexpectedly"), { code: "57P01" }),
    message: "Failed to execute statement"
  })

const faulty = (conn: SqlConnection.Connection, faults: Faults): SqlConnection.Connection => {
  const gate = <A>(run: () => Effect.Effect<A, SqlError>) =>
    Effect.suspend(() => {
      if (faults.down > 0) {
        faults.down--
        return Effect.fail(lost())
      }
      return run()
    })
  return new Proxy(conn, {
    get(target, prop) {
      const value = (target as unknown as Record<PropertyKey, unknown>)[prop]
      if (typeof value !== "function") return value
      if (prop === "executeUnprepared") {
        return (sql: string, params: ReadonlyArray<unknown>, transform: undefined) =>
          gate(() => {
            if (sql !== "COMMIT" || faults.commit === "ok") return target.executeUnprepared(sql, params, transform)
            const when = faults.commit
            faults.commit = "ok"
            faults.down = faults.thenDown ?? 0
            // A lost connection aborts an open transaction on the server: "before" rolls it back.
            const run = when === "after"
              ? target.executeUnprepared("COMMIT", [], undefined)
              : target.executeUnprepared("ROLLBACK", [], undefined)
            return Effect.zipRight(run, Effect.fail(lost()))
          })
      }
      // On SQLite a commit of events and steps is one statement (ADR 0582): it is its own COMMIT.
      if (prop === "execute") {
        return (sql: string, params: ReadonlyArray<unknown>, transform: undefined) =>
          gate(() => {
            if (!sql.startsWith("INSERT INTO harness_commit_rows") || faults.commit === "ok") {
              return target.execute(sql, params, transform)
            }
            const when = faults.commit
            faults.commit = "ok"
            faults.down = faults.thenDown ?? 0
            const run = when === "after" ? target.execute(sql, params, transform) : Effect.void
            return Effect.zipRight(run, Effect.fail(lost()))
          })
      }
      return (...args: Array<unknown>) =>
        gate(() => (value as (...a: Array<unknown>) => Effect.Effect<unknown, SqlError>).apply(target, args))
    }
  })
}

const layer = (faults: Faults, window = "2 seconds") =>
  EventStore.layerSql.pipe(
    Layer.provide(Layer.scoped(
      SqlClient.SqlClient,
      Effect.gen(function*() {
        const real = yield* SqlClient.SqlClient
        const acquirer = Effect.map(real.reserve, (conn) => faulty(conn, faults))
        return yield* SqlClient.make({ acquirer, compiler: Statement.makeCompilerSqlite(), spanAttributes: [] })
      })
    )),
    Layer.provide(Layer.mergeAll(SqliteClient.layer({ filename: ":memory:" }), Reactivity.layer)),
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["STEWARD_SESSION_RECONNECT", window]]))))
  )

const two = [Event.make("r", "message", { text: "a" }), Event.make("r", "message", { text: "b" })]

// Both ways a commit is written on SQLite: one statement (events and a step), or a transaction
// (here: one that also changes the session's meta).
const kinds = [
  { kind: "one statement", extra: {} },
  { kind: "transaction", extra: { meta: { changed: true } } }
] as const

describe.each(kinds)("a lost connection ($kind)", ({ extra }) => {
  it.live("a COMMIT lost after it took effect is read back, not written again", () => {
    const faults: Faults = { down: 0, commit: "ok" }
    return Effect.gen(function*() {
      const store = yield* EventStore.EventStore
      yield* store.create("s", {})
      faults.commit = "after"
      const written = yield* store.commit("s", { events: two, step: { run: "r", index: 0, result: 1 }, ...extra })
      assert.deepStrictEqual(written.map((e) => e.seq), [1, 2])
      assert.strictEqual(faults.commit, "ok")
      const next = yield* store.commit("s", { events: [Event.make("r", "message", { text: "c" })] })
      assert.deepStrictEqual(next.map((e) => e.seq), [3])
      const events = yield* store.read("s")
      assert.deepStrictEqual(events.map((e) => [e.seq, (e.data as { text: string }).text]), [[1, "a"], [2, "b"], [
        3,
        "c"
      ]])
      assert.strictEqual((yield* store.get("s")).lastSeq, 3)
    }).pipe(Effect.provide(layer(faults)))
  })

  it.live("a COMMIT lost before it took effect is written again, once", () => {
    const faults: Faults = { down: 0, commit: "ok" }
    return Effect.gen(function*() {
      const store = yield* EventStore.EventStore
      yield* store.create("s", {})
      faults.commit = "before"
      const written = yield* store.commit("s", { events: two, step: { run: "r", index: 0, result: 1 }, ...extra })
      assert.deepStrictEqual(written.map((e) => e.seq), [1, 2])
      assert.strictEqual(faults.commit, "ok")
      assert.deepStrictEqual((yield* store.read("s")).map((e) => e.seq), [1, 2])
    }).pipe(Effect.provide(layer(faults)))
  })

  it.live("the read-back itself waits for the server: a landed commit stays one copy", () => {
    const faults: Faults = { down: 0, commit: "ok" }
    return Effect.gen(function*() {
      const store = yield* EventStore.EventStore
      yield* store.create("s", {})
      // The COMMIT lands and the connection is lost; then the server refuses the next 5 statements.
      faults.commit = "after"
      faults.thenDown = 5
      const written = yield* store.commit("s", { events: two, step: { run: "r", index: 0, result: 1 }, ...extra })
      assert.strictEqual(faults.down, 0)
      assert.deepStrictEqual(written.map((e) => e.seq), [1, 2])
      assert.deepStrictEqual((yield* store.read("s")).map((e) => e.seq), [1, 2])
    }).pipe(Effect.provide(layer(faults)))
  })

  it.live("a server down for a while: statements and commits wait within the window", () => {
    const faults: Faults = { down: 0, commit: "ok" }
    return Effect.gen(function*() {
      const store = yield* EventStore.EventStore
      yield* store.create("s", {})
      faults.down = 6
      const written = yield* store.commit("s", { events: two, step: { run: "r", index: 0, result: 1 }, ...extra })
      assert.deepStrictEqual(written.map((e) => e.seq), [1, 2])
      faults.down = 4
      assert.deepStrictEqual((yield* store.read("s")).map((e) => e.seq), [1, 2])
    }).pipe(Effect.provide(layer(faults)))
  })

  it.live("past the window: STORE_FAILED naming the lost connection, nothing written", () => {
    const faults: Faults = { down: 0, commit: "ok" }
    return Effect.gen(function*() {
      const store = yield* EventStore.EventStore
      yield* store.create("s", {})
      faults.down = 1_000_000
      const error = yield* Effect.flip(
        store.commit("s", { events: two, step: { run: "r", index: 0, result: 1 }, ...extra })
      )
      assert.strictEqual(error.code, "STORE_FAILED")
      assert.include(error.message, "connection to the database was lost")
      assert.include(error.message, "Connection terminated unexpectedly")
      faults.down = 0
      assert.deepStrictEqual(yield* store.read("s"), [])
    }).pipe(Effect.provide(layer(faults, "300 millis")))
  })
})
