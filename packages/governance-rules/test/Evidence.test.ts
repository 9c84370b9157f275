import { SqliteClient } from "@effect/sql-sqlite-node"
import { assert, describe, it } from "@effect/vitest"
import { SqlBackends } from "@steward/testing"
import { Chunk, Effect, Fiber, Layer, Stream, TestClock } from "effect"
import fc from "fast-check"
import * as path from "node:path"
import { Evidence } from "../src/index.js"
import { tempWorkspace } from "./helpers.js"

const contract = (name: string, make: () => Layer.Layer<Evidence.EvidenceLog>, skip?: string) =>
  describe.skipIf(skip !== undefined)(name, () => {
    it.effect("appends in seq order with Clock time, reads back by run and from a seq", () =>
      Effect.gen(function*() {
        const log = yield* Evidence.EvidenceLog
        yield* TestClock.adjust("1 second")
        const a = yield* log.append({ kind: "decision", runId: "r1", data: { decision: "allow" } })
        const b = yield* log.append({ kind: "hook", runId: "r2", hook: "audit_pretool", data: { command: "ls" } })
        const c = yield* log.append({ kind: "hook_error", runId: "r1", hook: "x", data: { error: "boom" } })
        assert.deepStrictEqual([a.seq, b.seq, c.seq], [1, 2, 3])
        assert.strictEqual(a.at, 1000)
        const all = Chunk.toReadonlyArray(yield* Stream.runCollect(log.stream()))
        assert.deepStrictEqual(all.map((e) => e.kind), ["decision", "hook", "hook_error"])
        assert.deepStrictEqual(all[1]!.data, { command: "ls" })
        assert.strictEqual(all[1]!.hook, "audit_pretool")
        const r1 = Chunk.toReadonlyArray(yield* Stream.runCollect(log.stream({ runId: "r1" })))
        assert.deepStrictEqual(r1.map((e) => e.seq), [1, 3])
        const after = Chunk.toReadonlyArray(yield* Stream.runCollect(log.stream({ after: 1 })))
        assert.deepStrictEqual(after.map((e) => e.seq), [2, 3])
      }).pipe(Effect.provide(make())))

    it.scoped("concurrent appends get distinct, gap-free seqs; live subscribers see them", () =>
      Effect.gen(function*() {
        const log = yield* Evidence.EvidenceLog
        const live = yield* log.live.pipe(Stream.take(20), Stream.runCollect, Effect.fork)
        yield* Effect.yieldNow()
        yield* Effect.forEach(
          Array.from({ length: 20 }, (_, i) => i),
          (i) => log.append({ kind: "note", data: { i } }),
          { concurrency: 8 }
        )
        const seqs = Chunk.toReadonlyArray(yield* Stream.runCollect(log.stream())).map((e) => e.seq)
        assert.deepStrictEqual(seqs, Array.from({ length: 20 }, (_, i) => i + 1))
        const seen = Chunk.toReadonlyArray(yield* Fiber.join(live))
        assert.strictEqual(seen.length, 20)
      }).pipe(Effect.provide(make())))

    it.effect("values that are not JSON are stored as JSON-safe data", () =>
      Effect.gen(function*() {
        const log = yield* Evidence.EvidenceLog
        const cyclic: any = { a: 1 }
        cyclic.self = cyclic
        const event = yield* log.append({ kind: "note", data: cyclic })
        assert.strictEqual(typeof event.data, "string")
        const undef = yield* log.append({ kind: "note", data: undefined })
        assert.isNull(undef.data)
      }).pipe(Effect.provide(make())))
  })

contract("Evidence.layerMemory", () => Evidence.layerMemory)

describe("Evidence.layerMemory ordering", () => {
  it.scoped("concurrent appends reach live subscribers in seq order, with Clock time", () =>
    Effect.gen(function*() {
      const log = yield* Evidence.EvidenceLog
      const live = yield* log.live.pipe(Stream.take(50), Stream.runCollect, Effect.fork)
      yield* Effect.yieldNow()
      yield* TestClock.adjust("3 seconds")
      yield* Effect.forEach(
        Array.from({ length: 50 }, (_, i) => i),
        (i) => Effect.yieldNow().pipe(Effect.zipRight(log.append({ kind: "note", data: { i } }))),
        { concurrency: "unbounded" }
      )
      const seen = Chunk.toReadonlyArray(yield* Fiber.join(live))
      assert.deepStrictEqual(seen.map((e) => e.seq), Array.from({ length: 50 }, (_, i) => i + 1))
      assert.isTrue(seen.every((e) => e.at === 3000))
    }).pipe(Effect.provide(Evidence.layerMemory)))
})
contract(
  "Evidence.layerSql (SQLite)",
  () => Evidence.layerSql.pipe(Layer.provide(SqliteClient.layer({ filename: ":memory:" })), Layer.orDie)
)
for (const backend of SqlBackends.all.filter((b) => b.name === "PostgreSQL")) {
  contract(
    `Evidence.layerSql (${backend.name}) ${backend.skip ?? ""}`,
    () => Evidence.layerSql.pipe(Layer.provide(backend.layer()), Layer.orDie),
    backend.skip
  )
}

describe("Evidence.layerSql persistence", () => {
  it.live("events survive reopening the database; migrations run once", () =>
    Effect.gen(function*() {
      const file = path.join(tempWorkspace(), "evidence.sqlite")
      const layer = () => Evidence.layerSql.pipe(Layer.provide(SqliteClient.layer({ filename: file })), Layer.orDie)
      yield* Effect.flatMap(Evidence.EvidenceLog, (log) => log.append({ kind: "note", data: { n: 1 } })).pipe(
        Effect.provide(layer())
      )
      const events = yield* Effect.flatMap(Evidence.EvidenceLog, (log) =>
        Effect.zipRight(log.append({ kind: "note", data: { n: 2 } }), Stream.runCollect(log.stream()))).pipe(
          Effect.provide(layer())
        )
      assert.deepStrictEqual(Chunk.toReadonlyArray(events).map((e) => [e.seq, (e.data as any).n]), [[1, 1], [2, 2]])
    }))

  it.effect("a corrupt stored row is a typed evidence-store error", () =>
    Effect.gen(function*() {
      const log = yield* Evidence.EvidenceLog
      yield* log.append({ kind: "note", data: 1 })
      const { SqlClient } = yield* Effect.promise(() => import("@effect/sql"))
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE governance_evidence SET data = '{not json' WHERE seq = 1`.pipe(Effect.orDie)
      const error = yield* Effect.flip(Stream.runCollect(log.stream()))
      assert.strictEqual(error.code, "evidence-store")
    }).pipe(Effect.provide(
      Evidence.layerSql.pipe(Layer.provideMerge(SqliteClient.layer({ filename: ":memory:" })), Layer.orDie)
    )))
})

// Issue 38 item 3: the memory log builds events without the class's validating constructor; the
// check it runs instead accepts exactly what the Schema accepts.
describe("appendable is the EvidenceEvent Schema's contract", () => {
  const schemaAccepts = (input: Evidence.EvidenceInput): boolean => {
    try {
      new Evidence.EvidenceEvent({
        seq: 1,
        at: 1,
        kind: input.kind,
        runId: input.runId ?? null,
        hook: input.hook ?? null,
        data: input.data
      })
      return true
    } catch {
      return false
    }
  }
  const field = fc.oneof(
    fc.string(),
    fc.constant(null),
    fc.constant(undefined),
    fc.integer(),
    fc.boolean(),
    fc.object()
  )
  const kind = fc.oneof(
    fc.constantFrom("decision", "answer", "hook", "hook_error", "progress", "note"),
    fc.string(),
    fc.integer(),
    fc.constant(null)
  )

  it("for random inputs, appendable and the Schema agree", () => {
    fc.assert(
      fc.property(kind, field, field, fc.anything(), (k, runId, hook, data) => {
        const input = { kind: k, runId, hook, data } as unknown as Evidence.EvidenceInput
        assert.strictEqual(Evidence.appendable(input), schemaAccepts(input), JSON.stringify({ k, runId, hook }))
      }),
      { numRuns: 2000 }
    )
  })

  it.effect("an input the Schema refuses is a typed error from the memory log, nothing appended", () =>
    Effect.gen(function*() {
      const log = yield* Evidence.makeMemory
      const bad = { kind: "nope", data: null } as unknown as Evidence.EvidenceInput
      const error = yield* Effect.flip(log.append(bad))
      assert.strictEqual(error.code, "input-invalid")
      assert.strictEqual(Chunk.size(yield* Stream.runCollect(log.stream())), 0)
    }))
})
