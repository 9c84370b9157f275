import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { SqlBackends } from "@steward/testing"
import { Effect, Layer, Option } from "effect"
import * as BlobStore from "../src/BlobStore.js"
import * as Canonical from "../src/Canonical.js"
import * as SlotStore from "../src/SlotStore.js"

const sqlStores = (backend: SqlBackends.SqlBackend) =>
  // a fresh database that cannot migrate is a broken test environment
  Layer.mergeAll(BlobStore.layerSql, SlotStore.layerSql).pipe(Layer.provideMerge(backend.layer()), Layer.orDie)

// One suite, unchanged, on every backend: a behaviour difference between them is a failing test.
const backends = [
  { name: "memory", skip: undefined, stores: () => Layer.mergeAll(BlobStore.layerMemory, SlotStore.layerMemory) },
  ...SqlBackends.all.map((backend) => ({ name: backend.name, skip: backend.skip, stores: () => sqlStores(backend) }))
]

for (const { name, skip, stores } of backends) {
  const both = () => stores()
  describe.skipIf(skip !== undefined)(`stores (${name}) ${skip ?? ""}`, () => {
    it.effect("blobs are content-addressed: put returns the canonical digest, equal values share one ref", () =>
      Effect.gen(function*() {
        const blobs = yield* BlobStore.BlobStore
        const ref = yield* blobs.put({ b: 1, a: [true, null] })
        assert.strictEqual(ref, Canonical.digestText(`{"a":[true,null],"b":1}`))
        assert.strictEqual(yield* blobs.put({ a: [true, null], b: 1 }), ref)
        assert.deepStrictEqual(yield* blobs.get(ref), Option.some({ a: [true, null], b: 1 }))
        assert.isTrue(yield* blobs.has(ref))
        assert.isFalse(yield* blobs.has("sha256:" + "0".repeat(64)))
        assert.deepStrictEqual(yield* blobs.get("sha256:" + "0".repeat(64)), Option.none())
      }).pipe(Effect.provide(both())))

    it.effect("a value with no canonical form is a typed PARSE_FAILED and nothing is stored", () =>
      Effect.gen(function*() {
        const blobs = yield* BlobStore.BlobStore
        const slots = yield* SlotStore.SlotStore
        const error = yield* Effect.flip(blobs.put({ n: Number.NaN } as any))
        assert.strictEqual(error.code, "PARSE_FAILED")
        const slotError = yield* Effect.flip(slots.set("x", "\uD800"))
        assert.strictEqual(slotError.code, "PARSE_FAILED")
        assert.deepStrictEqual(yield* slots.get("x"), Option.none())
      }).pipe(Effect.provide(both())))

    it.effect("slots: get/set/overwrite by name", () =>
      Effect.gen(function*() {
        const slots = yield* SlotStore.SlotStore
        assert.deepStrictEqual(yield* slots.get("counter"), Option.none())
        yield* slots.set("counter", 1)
        yield* slots.set("counter", { n: 2 })
        assert.deepStrictEqual(yield* slots.get("counter"), Option.some({ n: 2 }))
      }).pipe(Effect.provide(both())))
  })
}

for (const backend of SqlBackends.all) {
  describe.skipIf(backend.skip !== undefined)(`SQL stores (${backend.name}) ${backend.skip ?? ""}`, () => {
    it.effect("corrupt rows are IO_FAILED, not a crash; migrations are idempotent across layers", () =>
      Effect.gen(function*() {
        const blobs = yield* BlobStore.BlobStore
        const slots = yield* SlotStore.SlotStore
        const client = yield* SqlClient.SqlClient
        yield* client`INSERT INTO algal_blobs (ref, body, bytes) VALUES (${
          "sha256:" + "1".repeat(64)
        }, ${"{not json"}, 9)`
        yield* client`INSERT INTO algal_slots (name, body) VALUES (${"bad"}, ${"[1e999]"})`
        const blobError = yield* Effect.flip(blobs.get("sha256:" + "1".repeat(64)))
        assert.strictEqual(blobError.code, "IO_FAILED")
        const slotError = yield* Effect.flip(slots.get("bad"))
        assert.strictEqual(slotError.code, "IO_FAILED")
        const applied = yield* client<{ n: number }>`SELECT COUNT(*) AS n FROM algal_runtime_migrations`
        assert.strictEqual(applied[0]!.n, 1)
      }).pipe(Effect.provide(sqlStores(backend))))

    it.effect("a closed/absent database surfaces as IO_FAILED from the store", () =>
      Effect.gen(function*() {
        const client = yield* SqlClient.SqlClient
        const slots = yield* SlotStore.SlotStore
        yield* client`DROP TABLE algal_slots`
        const error = yield* Effect.flip(slots.set("x", 1))
        assert.strictEqual(error.code, "IO_FAILED")
        assert.include(error.message, "slot store write")
      }).pipe(Effect.provide(sqlStores(backend))))
  })
}
