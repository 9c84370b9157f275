import { SqliteClient } from "@effect/sql-sqlite-node"
import { assert, describe, it } from "@effect/vitest"
import { SqlBackends } from "@steward/testing"
import { Effect, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as ReflexLedger from "../src/ReflexLedger.js"

// Retention at the cap (issues 16 and 17): labeled history is never evicted, the observation just
// recorded is never the one dropped, and past the cap the oldest unlabeled go in one batch.
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "reflex-retention-"))

const obs = (subject: string, atMs: number): ReflexLedger.Observation => ({
  id: ReflexLedger.observationId("settle", subject),
  reflex: "settle",
  subject,
  head: "stopped_short",
  value: "done",
  gate: "head",
  score: -356,
  features: { tools: 0.5 },
  evidence: { state: "idle" },
  paramsVersion: 0,
  program: "sha256:" + "a".repeat(64),
  receipt: "sha256:" + "b".repeat(64),
  atMs
})

const label = { head: "stopped_short", label: true, weight: 1, source: "explicit" } as const
const postgres = SqlBackends.all.find((backend) => backend.name === "PostgreSQL")!

for (
  const [name, layer, skip] of [
    ["memory", (cap: number) => ReflexLedger.layerMemoryWith({ maxObservations: cap }), undefined],
    ["sqlite", (cap: number) =>
      ReflexLedger.layerSqlWith({ maxObservations: cap }).pipe(
        Layer.provide(SqliteClient.layer({ filename: path.join(tmp(), "r.sqlite") }))
      ), undefined],
    [
      "PostgreSQL",
      (cap: number) => ReflexLedger.layerSqlWith({ maxObservations: cap }).pipe(Layer.provide(postgres.layer())),
      postgres.skip
    ]
  ] as const
) {
  describe.skipIf(skip !== undefined)(`ReflexLedger retention keeps labels (${name})`, () => {
    it.effect("labeled observations are never evicted, even past the cap", () =>
      Effect.gen(function*() {
        const ledger = yield* ReflexLedger.ReflexLedger
        const reflex = `settle`
        for (let i = 0; i < 30; i++) {
          const o = obs(`${name}-labeled-${i}`, i)
          yield* ledger.record(o)
          yield* ledger.label(reflex, o.id, [label], i)
        }
        for (let i = 0; i < 40; i++) yield* ledger.record(obs(`${name}-plain-${i}`, 100 + i))
        const counts = yield* ledger.counts(reflex)
        assert.strictEqual(counts.labeled, 30)
        // the cap holds only labeled history and the decision recorded last
        assert.strictEqual(counts.observed, 31)
        assert.isTrue(Option.isSome(yield* ledger.observation(ReflexLedger.observationId(reflex, `${name}-plain-39`))))
        assert.isTrue(Option.isNone(yield* ledger.observation(ReflexLedger.observationId(reflex, `${name}-plain-38`))))
        for (let i = 0; i < 30; i++) {
          const id = ReflexLedger.observationId(reflex, `${name}-labeled-${i}`)
          assert.isTrue(Option.isSome(yield* ledger.observation(id)), `labeled ${i} kept`)
        }
        assert.strictEqual((yield* ledger.examples(reflex, "stopped_short", 100)).length, 30)
        // a cap full of labeled history still keeps the decision just recorded, so a reply can label it
        const latest = obs(`${name}-latest`, 1000)
        assert.isTrue(yield* ledger.record(latest))
        assert.isTrue(Option.isSome(yield* ledger.observation(latest.id)))
        yield* ledger.label(reflex, latest.id, [label], 1001)
        assert.strictEqual((yield* ledger.counts(reflex)).labeled, 31)
        assert.strictEqual((yield* ledger.counts(reflex)).observed, 31, "the unlabeled one before it went")
      }).pipe(Effect.provide(layer(30))))

    it.effect("past the cap the oldest unlabeled go in one batch, down to 1% under it", () =>
      Effect.gen(function*() {
        const ledger = yield* ReflexLedger.ReflexLedger
        for (let i = 0; i < 200; i++) yield* ledger.record(obs(`${name}-b-${i}`, i))
        assert.strictEqual((yield* ledger.counts("settle")).observed, 200)
        yield* ledger.record(obs(`${name}-b-200`, 200))
        // 201 > 200: one batch down to 198, the oldest first
        assert.strictEqual((yield* ledger.counts("settle")).observed, 198)
        for (const i of [0, 1, 2]) {
          const id = ReflexLedger.observationId("settle", `${name}-b-${i}`)
          assert.isTrue(Option.isNone(yield* ledger.observation(id)), `oldest ${i} dropped`)
        }
        assert.isTrue(Option.isSome(yield* ledger.observation(ReflexLedger.observationId("settle", `${name}-b-3`))))
        yield* ledger.record(obs(`${name}-b-201`, 201))
        yield* ledger.record(obs(`${name}-b-202`, 202))
        assert.strictEqual((yield* ledger.counts("settle")).observed, 200, "no deletes until the cap is passed again")
      }).pipe(Effect.provide(layer(200))))
  })
}
