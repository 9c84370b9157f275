import { SqliteClient } from "@effect/sql-sqlite-node"
import { assert, describe, it } from "@effect/vitest"
import { SqlBackends } from "@steward/testing"
import { Effect, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Params from "../src/Params.js"
import * as ReflexLedger from "../src/ReflexLedger.js"

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "reflex-ledger-"))

const sqlLayer = (file: string) => ReflexLedger.layerSql.pipe(Layer.provide(SqliteClient.layer({ filename: file })))

const obs = (
  reflex: string,
  subject: string,
  atMs: number,
  extra: Partial<ReflexLedger.Observation> = {}
): ReflexLedger.Observation => ({
  id: ReflexLedger.observationId(reflex, subject),
  reflex,
  subject,
  head: "stopped_short",
  value: "done",
  gate: "head",
  score: -356,
  features: { tools: 0.5, brief: 1 },
  evidence: { state: "idle", limit: 0, blocked: 0, done_claim: 0 },
  paramsVersion: 0,
  program: "sha256:" + "a".repeat(64),
  receipt: "sha256:" + "b".repeat(64),
  atMs,
  ...extra
})

const suite = (name: string, layer: () => Layer.Layer<ReflexLedger.ReflexLedger, any>, skip?: string) =>
  describe.skipIf(skip !== undefined)(`ReflexLedger (${name}) ${skip ?? ""}`, () => {
    it.effect("records observations idempotently per subject and finds the latest of a task", () =>
      Effect.gen(function*() {
        const ledger = yield* ReflexLedger.ReflexLedger
        assert.isTrue(yield* ledger.record(obs("settle", "t1#1", 10)))
        assert.isFalse(yield* ledger.record(obs("settle", "t1#1", 11)), "INSERT OR IGNORE")
        assert.isTrue(yield* ledger.record(obs("settle", "t1#2", 20)))
        assert.isTrue(yield* ledger.record(obs("settle", "t10#1", 30)))
        const latest = Option.getOrThrow(yield* ledger.latest("settle", "t1"))
        assert.strictEqual(latest.subject, "t1#2")
        assert.deepStrictEqual(latest.features, { tools: 0.5, brief: 1 })
        assert.isTrue(Option.isNone(yield* ledger.latest("route", "t1")))
        assert.deepStrictEqual(yield* ledger.counts("settle"), { observed: 3, labeled: 0 })
      }).pipe(Effect.provide(layer())))

    it.effect("labels: explicit beats inferred, seq bumps on replace, counts before/after", () =>
      Effect.gen(function*() {
        const ledger = yield* ReflexLedger.ReflexLedger
        const o = obs("settle", "t2", 1)
        yield* ledger.record(o)
        const w1 = yield* ledger.label("settle", o.id, [
          { head: "stopped_short", label: false, weight: 0.5, source: "user_other" },
          { head: "confirm", label: false, weight: 0.5, source: "user_other" }
        ], 5)
        assert.deepStrictEqual(w1, { before: 0, after: 2, written: 2, applied: [true, true] })
        const w2 = yield* ledger.label("settle", o.id, [{
          head: "stopped_short",
          label: true,
          weight: 1,
          source: "explicit"
        }], 6)
        assert.deepStrictEqual(w2, { before: 2, after: 2, written: 1, applied: [true] })
        const w3 = yield* ledger.label("settle", o.id, [{
          head: "stopped_short",
          label: false,
          weight: 0.5,
          source: "user_other"
        }], 7)
        assert.deepStrictEqual([w3.written, w3.applied], [0, [false]], "inferred never replaces explicit")
        const ex = yield* ledger.examples("settle", "stopped_short", 10)
        assert.strictEqual(ex.length, 1)
        assert.deepStrictEqual([ex[0]!.label, ex[0]!.weight, ex[0]!.source, ex[0]!.seq], [true, 1, "explicit", 3])
        const stats = yield* ledger.stats("settle")
        assert.deepStrictEqual(stats["stopped_short"], { labels: 1, positives: 1, maxSeq: 3 })
        const missing = yield* Effect.flip(ledger.label("settle", "obs_nope", [], 1))
        assert.strictEqual(missing.code, "not-found")
      }).pipe(Effect.provide(layer())))

    it.effect("generations: promote, optimistic conflict, rollback to any version and to the prior", () =>
      Effect.gen(function*() {
        const ledger = yield* ReflexLedger.ReflexLedger
        const payload = (v: number, parent: number) => Params.encodeJson({ ...Params.routePrior, version: v, parent })
        assert.strictEqual(yield* ledger.promote("route", 0, 1, payload), 1)
        assert.strictEqual(yield* ledger.promote("route", 1, 2, payload), 2)
        const conflict = yield* Effect.flip(ledger.promote("route", 1, 3, payload))
        assert.strictEqual(conflict.code, "conflict")
        assert.strictEqual(Option.getOrThrow(yield* ledger.activeGeneration("route")).version, 2)
        yield* ledger.rollback("route", 1)
        assert.strictEqual(Option.getOrThrow(yield* ledger.activeGeneration("route")).version, 1)
        yield* ledger.rollback("route", 0)
        assert.isTrue(Option.isNone(yield* ledger.activeGeneration("route")))
        const bad = yield* Effect.flip(ledger.rollback("route", 9))
        assert.strictEqual(bad.code, "not-found")
        const all = yield* ledger.generations("route")
        assert.deepStrictEqual(all.map((g) => [g.version, g.active]), [[1, false], [2, false]])
        assert.strictEqual(JSON.parse(all[1]!.payload).parent, 1)
      }).pipe(Effect.provide(layer())))

    it.effect("trials and certificates: a stale certificate never overwrites a newer one", () =>
      Effect.gen(function*() {
        const ledger = yield* ReflexLedger.ReflexLedger
        yield* ledger.putTrial("settle", "stopped_short", { candidate: "{}", startedAtMs: 1, fittedThrough: 16 })
        assert.strictEqual(Option.getOrThrow(yield* ledger.trial("settle", "stopped_short")).fittedThrough, 16)
        yield* ledger.deleteTrial("settle", "stopped_short")
        assert.isTrue(Option.isNone(yield* ledger.trial("settle", "stopped_short")))
        assert.isTrue(yield* ledger.putCertificate("settle", "stopped_short", { payload: "new", atMs: 1, through: 20 }))
        assert.isFalse(
          yield* ledger.putCertificate("settle", "stopped_short", { payload: "old", atMs: 2, through: 10 })
        )
        assert.strictEqual(Option.getOrThrow(yield* ledger.certificate("settle", "stopped_short")).payload, "new")
      }).pipe(Effect.provide(layer())))

    it.effect("import rows are atomic and idempotent, and drop open trials", () =>
      Effect.gen(function*() {
        const ledger = yield* ReflexLedger.ReflexLedger
        yield* ledger.putTrial("route", "plain", { candidate: "{}", startedAtMs: 1, fittedThrough: 1 })
        const rows = ["a", "b"].map((id) => ({
          observation: obs("route", `import:${id}`, 1, {
            id: ReflexLedger.importId("route", "plain", id),
            head: "plain",
            value: "imported",
            gate: "import",
            receipt: ""
          }),
          labels: [{ head: "plain", label: true, weight: 1, source: "import" }]
        }))
        assert.strictEqual(yield* ledger.importRows("route", rows, 1), 2)
        assert.strictEqual(yield* ledger.importRows("route", rows, 2), 0)
        assert.isTrue(Option.isNone(yield* ledger.trial("route", "plain")))
        assert.strictEqual((yield* ledger.examples("route", "plain", 10)).length, 2)
      }).pipe(Effect.provide(layer())))
  })

suite("memory", () => ReflexLedger.layerMemory)
suite("sql", () => sqlLayer(path.join(tmp(), "ledger.sqlite")))
// The same suite, unchanged, on PostgreSQL: a behaviour difference between backends fails here.
const postgres = SqlBackends.all.find((backend) => backend.name === "PostgreSQL")!
suite("PostgreSQL", () => ReflexLedger.layerSql.pipe(Layer.provide(postgres.layer())), postgres.skip)

for (
  const [name, layer] of [
    ["memory", () => ReflexLedger.layerMemoryWith({ maxObservations: 50 })],
    ["sql", () =>
      ReflexLedger.layerSqlWith({ maxObservations: 50 }).pipe(
        Layer.provide(SqliteClient.layer({ filename: path.join(tmp(), "r.sqlite") }))
      )],
    [
      `PostgreSQL ${postgres.skip ?? ""}`,
      () => ReflexLedger.layerSqlWith({ maxObservations: 50 }).pipe(Layer.provide(postgres.layer()))
    ]
  ] as const
) {
  describe.skipIf(name.startsWith("PostgreSQL") && postgres.skip !== undefined)(
    `ReflexLedger retention (${name})`,
    () => {
      it.effect("keeps at most the cap, deleting the oldest unlabeled first, then orphan labels", () =>
        Effect.gen(function*() {
          const ledger = yield* ReflexLedger.ReflexLedger
          const first = obs("settle", "keep", 0)
          yield* ledger.record(first)
          yield* ledger.label(
            "settle",
            first.id,
            [{ head: "stopped_short", label: true, weight: 1, source: "explicit" }],
            0
          )
          for (let i = 1; i <= 60; i++) yield* ledger.record(obs("settle", `s${i}`, i))
          const counts = yield* ledger.counts("settle")
          assert.strictEqual(counts.observed, 50)
          assert.strictEqual(counts.labeled, 1)
          assert.isTrue(Option.isSome(yield* ledger.observation(first.id)), "labeled observation kept")
          assert.isTrue(
            Option.isNone(yield* ledger.observation(ReflexLedger.observationId("settle", "s1"))),
            "oldest unlabeled dropped"
          )
          assert.isTrue(Option.isSome(yield* ledger.observation(ReflexLedger.observationId("settle", "s60"))))
        }).pipe(Effect.provide(layer())))
    }
  )
}
