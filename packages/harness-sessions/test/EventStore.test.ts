import { SqliteClient } from "@effect/sql-sqlite-node"
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { SqlBackends } from "@steward/testing"
import { Chunk, Effect, Fiber, Layer, Option, Stream, TestClock } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Event from "../src/Event.js"
import * as EventStore from "../src/EventStore.js"

const contract = (name: string, layer: () => Layer.Layer<EventStore.EventStore>, skip?: string) =>
  describe.skipIf(skip !== undefined)(name, () => {
    it.effect("one seq-ordered stream per session; a commit's events, step and revision land together", () =>
      Effect.gen(function*() {
        const store = yield* EventStore.EventStore
        yield* store.create("a", { workspace: "/w" })
        yield* store.create("b", {})
        const first = yield* store.commit("a", {
          events: [Event.make("a.r1", "run.start", { prompt: "hi" }), Event.make("a.r1", "message", { text: "x" })],
          step: { run: "a.r1", index: 0, result: { ok: 1 } }
        })
        assert.deepStrictEqual(first.map((e) => e.seq), [1, 2])
        yield* store.commit("b", { events: [Event.make(null, "note", {})] })
        const second = yield* store.commit("a", {
          events: [Event.make("a.r1", "host.custom_thing", { any: [1, 2] })],
          revision: { revision: 1, digest: "sha256:x", record: { r: 1 }, receipt: { d: 1 } },
          meta: { workspace: "/w", open: false }
        })
        assert.strictEqual(second[0]!.seq, 3)
        const events = yield* store.read("a")
        assert.deepStrictEqual(events.map((e) => [e.seq, e.type]), [[1, "run.start"], [2, "message"], [
          3,
          "host.custom_thing"
        ]])
        assert.deepStrictEqual(events[2]!.data, { any: [1, 2] })
        assert.deepStrictEqual((yield* store.read("a", { after: 1, limit: 1 })).map((e) => e.seq), [2])
        assert.deepStrictEqual(yield* store.step("a", "a.r1", 0), Option.some({ ok: 1 }))
        assert.isTrue(Option.isNone(yield* store.step("a", "a.r1", 1)))
        assert.deepStrictEqual((yield* store.revisions("a")).map((r) => r.revision), [1])
        assert.deepStrictEqual((yield* store.get("a")).meta, { workspace: "/w", open: false })
        assert.strictEqual((yield* store.get("a")).lastSeq, 3)
        assert.deepStrictEqual((yield* store.list).map((s) => s.id).sort(), ["a", "b"])
      }).pipe(Effect.provide(layer())))

    it.effect("a refused commit writes nothing: a step committed twice, a revision out of order", () =>
      Effect.gen(function*() {
        const store = yield* EventStore.EventStore
        yield* store.create("a", {})
        yield* store.commit("a", { events: [Event.make("r", "message", {})], step: { run: "r", index: 0, result: 1 } })
        const again = yield* Effect.flip(
          store.commit("a", { events: [Event.make("r", "message", {})], step: { run: "r", index: 0, result: 2 } })
        )
        assert.strictEqual(again.code, "STORE_FAILED")
        const gap = yield* Effect.flip(store.commit("a", {
          events: [Event.make("r", "run.settle", {})],
          revision: { revision: 2, digest: "sha256:x", record: {}, receipt: {} }
        }))
        assert.strictEqual(gap.code, "STORE_FAILED")
        assert.strictEqual((yield* store.read("a")).length, 1)
        assert.deepStrictEqual(yield* store.step("a", "r", 0), Option.some(1))
        assert.strictEqual((yield* store.get("a")).lastSeq, 1)
        const missing = yield* Effect.flip(store.read("nope"))
        assert.strictEqual(missing.code, "SESSION_NOT_FOUND")
        const dup = yield* Effect.flip(store.create("a", {}))
        assert.strictEqual(dup.code, "INVALID_INPUT")
      }).pipe(Effect.provide(layer())))

    it.effect("steps reads every stored step result of one run at once", () =>
      Effect.gen(function*() {
        const store = yield* EventStore.EventStore
        yield* store.create("a", {})
        for (
          const [run, index, result] of [["r1", 0, { a: 1 }], ["r1", 1, null], ["r2", 0, "x"], ["r1", 2, [2]]] as const
        ) {
          yield* store.commit("a", { events: [Event.make(run, "message", {})], step: { run, index, result } })
        }
        assert.deepStrictEqual([...(yield* store.steps("a", "r1"))].sort(([x], [y]) => x - y), [[0, { a: 1 }], [
          1,
          null
        ], [
          2,
          [2]
        ]])
        assert.deepStrictEqual([...(yield* store.steps("a", "r2"))], [[0, "x"]])
        assert.strictEqual((yield* store.steps("a", "r3")).size, 0)
        assert.deepStrictEqual((yield* store.read("a", { types: ["message"], after: 1, limit: 2 })).map((e) => e.seq), [
          2,
          3
        ])
        assert.deepStrictEqual(yield* store.read("a", { types: ["run.settle"] }), [])
        assert.deepStrictEqual(yield* store.read("a", { types: [] }), [])
        const bad = yield* Effect.flip(store.commit("a", { events: [Event.make("r1", "Bad Type", {})] }))
        assert.strictEqual(bad.code, "INVALID_INPUT")
        assert.strictEqual((yield* store.get("a")).lastSeq, 4)
      }).pipe(Effect.provide(layer())))

    it.live("follow replays the stored events and then tails new commits in order", () =>
      Effect.gen(function*() {
        const store = yield* EventStore.EventStore
        yield* store.create("a", {})
        yield* store.commit("a", { events: [Event.make(null, "message", { n: 1 })] })
        const fiber = yield* EventStore.follow("a").pipe(Stream.take(4), Stream.runCollect, Effect.fork)
        yield* Effect.sleep("20 millis")
        yield* store.commit("a", { events: [Event.make(null, "message", { n: 2 }), Event.make(null, "x.y", { n: 3 })] })
        yield* store.commit("a", { events: [Event.make(null, "run.settle", { n: 4 })] })
        const got = Chunk.toArray(yield* Fiber.join(fiber))
        assert.deepStrictEqual(got.map((e) => [e.seq, e.type]), [[1, "message"], [2, "message"], [3, "x.y"], [
          4,
          "run.settle"
        ]])
        const all = Chunk.toArray(yield* Stream.runCollect(EventStore.stream("a")))
        assert.strictEqual(all.length, 4)
      }).pipe(Effect.provide(layer())))

    // ADR 0567: deferred steps land with the step that commits them, or not at all.
    it.effect("a commit's deferred steps land with it; one already stored refuses the whole commit", () =>
      Effect.gen(function*() {
        const store = yield* EventStore.EventStore
        yield* store.create("s", {})
        yield* store.commit("s", {
          events: [Event.make("r1", "model.call", { n: 1 }), Event.make("r1", "tool.call", { callId: "c1" })],
          steps: [{ run: "r1", index: 0, result: { calls: 1 } }],
          step: { run: "r1", index: 1, result: { allowed: true } }
        })
        assert.deepStrictEqual([...(yield* store.steps("s", "r1"))], [[0, { calls: 1 }], [1, { allowed: true }]])
        const refused = yield* Effect.flip(store.commit("s", {
          events: [Event.make("r1", "heartbeat", {})],
          steps: [{ run: "r1", index: 2, result: 1 }, { run: "r1", index: 1, result: null }],
          step: { run: "r1", index: 3, result: null }
        }))
        assert.strictEqual(refused.code, "STORE_FAILED")
        assert.strictEqual((yield* store.read("s")).length, 2)
        assert.isTrue(Option.isNone(yield* store.step("s", "r1", 2)))
      }).pipe(Effect.provide(layer())))

    // ADR 0567: a commit a moment after its owner renewed checks the lease without renewing it.
    it.effect("an owner that released its lease writes nothing, even right after renewing it", () =>
      Effect.gen(function*() {
        const store = yield* EventStore.EventStore
        yield* store.create("s", {})
        const a = { id: "host-a pid 1", ttl: 3000 }
        yield* store.acquire("s", a)
        yield* store.commit("s", { events: [Event.make("r1", "note", { n: 1 })], owner: a })
        yield* store.release("s", a.id)
        const lost = yield* Effect.flip(store.commit("s", { events: [Event.make("r1", "note", { n: 2 })], owner: a }))
        assert.strictEqual(lost.code, "BUSY")
        assert.include(lost.message, "host-a pid 1 no longer holds its lease; nothing was written")
        assert.deepStrictEqual((yield* store.read("s")).map((e) => e.seq), [1])
      }).pipe(Effect.provide(layer())))

    // ADR 0558: one owner per session; every write of a run carries and checks its owner.
    it.effect("a lease: taken, refused to another owner while live, taken over once expired; a lost owner writes nothing", () =>
      Effect.gen(function*() {
        const store = yield* EventStore.EventStore
        yield* store.create("s", {})
        const a = { id: "host-a pid 1", ttl: 1000 }
        const b = { id: "host-b pid 2", ttl: 1000 }
        const taken = yield* store.acquire("s", a)
        assert.deepStrictEqual([taken.owner, taken.expires], [a.id, 1000])
        const refused = yield* Effect.flip(store.acquire("s", b))
        assert.strictEqual(refused.code, "BUSY")
        assert.include(
          refused.message,
          "session s is driven by host-a pid 1; its lease expires at 1970-01-01T00:00:01.000Z"
        )
        // a commit by the owner renews the lease in its transaction
        yield* TestClock.adjust("600 millis")
        yield* store.commit("s", { events: [Event.make("s.r1", "note", { n: 1 })], owner: a })
        assert.strictEqual(Option.getOrThrow(yield* store.lease("s")).expires, 1600)
        yield* TestClock.adjust("900 millis")
        assert.strictEqual((yield* Effect.flip(store.acquire("s", b))).code, "BUSY")
        yield* TestClock.adjust("200 millis")
        // expired: b takes over; a's next write is refused and writes nothing
        assert.strictEqual((yield* store.acquire("s", b)).owner, b.id)
        const lost = yield* Effect.flip(store.commit("s", { events: [Event.make("s.r1", "note", { n: 2 })], owner: a }))
        assert.strictEqual(lost.code, "BUSY")
        assert.include(lost.message, "host-a pid 1 no longer holds its lease (host-b pid 2 does")
        assert.strictEqual((yield* Effect.flip(store.renew("s", a))).code, "BUSY")
        assert.deepStrictEqual((yield* store.read("s")).map((e) => e.seq), [1])
        // releasing by a non-owner does nothing; by the owner frees the session
        yield* store.release("s", a.id)
        assert.isTrue(Option.isSome(yield* store.lease("s")))
        yield* store.release("s", b.id)
        assert.isTrue(Option.isNone(yield* store.lease("s")))
        assert.strictEqual((yield* store.acquire("s", a)).owner, a.id)
        assert.strictEqual((yield* Effect.flip(store.acquire("nope", a))).code, "SESSION_NOT_FOUND")
      }).pipe(Effect.provide(layer())))
  })

contract("EventStore.layerMemory", () => EventStore.layerMemory)
contract(
  "EventStore.layerSql (SQLite)",
  () => EventStore.layerSql.pipe(Layer.provide(SqliteClient.layer({ filename: ":memory:" })), Layer.orDie)
)
// The same contract, unchanged, on PostgreSQL (a fresh database per layer build).
contract(
  `EventStore.layerSql (PostgreSQL) ${SqlBackends.postgresSkipReason ?? ""}`,
  () => EventStore.layerSql.pipe(Layer.provide(SqlBackends.postgresLayer()), Layer.orDie),
  SqlBackends.postgresSkipReason
)

describe.skipIf(SqlBackends.postgresSkipReason !== undefined)(
  "EventStore.layerSql (PostgreSQL): a session copied in",
  () => {
    it.effect("a session row written without last_seq (as `steward db copy` brings it from SQLite) numbers after its events", () =>
      Effect.gen(function*() {
        const store = yield* EventStore.EventStore
        const sql = yield* SqlClient.SqlClient
        yield* store.create("a", {})
        yield* store.commit("a", { events: [Event.make("r", "message", {}), Event.make("r", "message", {})] })
        // what a copy from SQLite writes: the session row without the column SQLite no longer has (0003)
        yield* sql`DELETE FROM harness_sessions WHERE id = 'a'`
        yield* sql`INSERT INTO harness_sessions (id, created_at, meta) VALUES ('a', 0, '{}')`
        const next = yield* store.commit("a", { events: [Event.make("r", "message", {})] })
        assert.deepStrictEqual(next.map((e) => e.seq), [3])
        assert.strictEqual((yield* store.get("a")).lastSeq, 3)
      }).pipe(Effect.provide(EventStore.layerSql.pipe(Layer.provideMerge(SqlBackends.postgresLayer()), Layer.orDie))))
  }
)

describe("EventStore.layerSql: faults named", () => {
  it.effect("SQLITE_FULL (simulated with SQLite's page limit) is STORE_FAILED naming the file whose disk is full", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "harness-full-")), "full.sqlite")
    return Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const store = yield* EventStore.EventStore
      yield* store.create("f", {})
      yield* sql.unsafe("PRAGMA max_page_count = 40")
      const big = "q".repeat(4000)
      const error = yield* Effect.flip(
        Effect.forEach(
          Array.from({ length: 200 }),
          () => store.commit("f", { events: [Event.make("f.r1", "note", { big })] }),
          { discard: true }
        )
      )
      assert.strictEqual(error.code, "STORE_FAILED")
      assert.include(error.message, `the disk holding ${file} is full`, error.message + JSON.stringify(error))
    }).pipe(Effect.provide(
      EventStore.layerSql.pipe(Layer.provideMerge(SqliteClient.layer({ filename: file })), Layer.orDie)
    ))
  })
})

describe("Event", () => {
  it("redacts governance-rules' secret patterns in every string of the data", () => {
    const e = Event.make("r", "message", {
      text: "run it with GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123 and --password hunter22",
      nested: [{ header: "Authorization: Bearer abcdefghijklmnop" }],
      n: Number.NaN,
      gone: undefined
    })
    const text = JSON.stringify(e.data)
    assert.notInclude(text, "ghp_abcdefghijklmnopqrstuvwxyz0123")
    assert.notInclude(text, "hunter22")
    assert.notInclude(text, "abcdefghijklmnop")
    assert.include(text, "GITHUB_TOKEN=***")
    assert.deepStrictEqual((e.data as any).n, null)
    assert.isFalse("gone" in (e.data as any))
  })
})

describe("EventStore.layerSql persistence", () => {
  it.effect("a reopened database has every committed event, step and revision", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "harness-store-"))
      const file = path.join(dir, "s.sqlite")
      const layer = () => EventStore.layerSql.pipe(Layer.provide(SqliteClient.layer({ filename: file })), Layer.orDie)
      yield* Effect.gen(function*() {
        const store = yield* EventStore.EventStore
        yield* store.create("a", { w: 1 })
        yield* store.commit("a", {
          events: Array.from({ length: 1200 }, (_, i) => Event.make("r", "heartbeat", { i })),
          step: { run: "r", index: 0, result: "x" },
          revision: { revision: 1, digest: "sha256:d", record: { a: 1 }, receipt: { b: 2 } }
        })
      }).pipe(Effect.provide(layer()))
      yield* Effect.gen(function*() {
        const store = yield* EventStore.EventStore
        const events = yield* store.read("a")
        assert.strictEqual(events.length, 1200)
        assert.deepStrictEqual(events.map((e) => e.seq), Array.from({ length: 1200 }, (_, i) => i + 1))
        assert.deepStrictEqual(yield* store.step("a", "r", 0), Option.some("x"))
        assert.deepStrictEqual(yield* store.revisions("a"), [{
          revision: 1,
          digest: "sha256:d",
          record: { a: 1 },
          receipt: { b: 2 }
        }])
      }).pipe(Effect.provide(layer()))
    }))
})
