/**
 * ADR 0414: settle's `unfinished` head is `stopped_short`. A ledger written by the previous
 * version (`fixtures/ledger.v0.sqlite`: the CLI at commit be77a8f imported
 * `settle.history-200.v0.jsonl`, decided T-7 and labeled it `unfinished`) migrates and reads
 * under the new name; old import lines and old label values are still accepted; new rows are
 * written under the new name only.
 */
import { SqliteClient } from "@effect/sql-sqlite-node"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { SqlBackends } from "@steward/testing"
import { Effect, Layer, Option, Schema } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Learning from "../src/Learning.js"
import * as Params from "../src/Params.js"
import * as Reflexes from "../src/Reflexes.js"
import * as ReflexLedger from "../src/ReflexLedger.js"

const fixture = (name: string) => path.join(__dirname, "fixtures", name)

const engine = (file: string) =>
  Reflexes.layer().pipe(
    Layer.provideMerge(ReflexLedger.layerSql),
    Layer.provideMerge(SqliteClient.layer({ filename: file }))
  )

const copyOfV0 = () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "reflex-v0-")), "steward.sqlite")
  fs.copyFileSync(fixture("ledger.v0.sqlite"), file)
  return file
}

describe("a ledger written before settle's head was renamed", () => {
  it.live("migrates: rows, certificates and generations read under stopped_short; nothing under unfinished", () => {
    const file = copyOfV0()
    return Effect.gen(function*() {
      const reflexes = yield* Reflexes.Reflexes
      const ledger = yield* ReflexLedger.ReflexLedger
      const sql = yield* SqlClient.SqlClient
      const status = yield* reflexes.status("settle")
      assert.deepStrictEqual(status.heads.map((h) => [h.head, h.labels]), [["stopped_short", 126], ["confirm", 76]])
      assert.strictEqual(status.generation.version, 1, "the stored generation decodes (else the prior, version 0)")
      const head = status.heads[0]!
      assert.deepInclude(head.certificate, { certified: true, threshold: 0.65, fired: 70 })
      assert.match(head.standing, /^auto: certified at 0\.65/)
      const certificate = yield* ledger.certificate("settle", "stopped_short")
      assert.strictEqual(
        Learning.decodeCertificatePayload(Option.getOrThrow(certificate).payload)?.head,
        "stopped_short"
      )
      for (const table of ["reflex_observations", "reflex_labels", "reflex_certificates", "reflex_trials"]) {
        const left = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM ${sql(table)} WHERE head = 'unfinished'`
        assert.strictEqual(Number(left[0]!.n), 0, table)
      }
      const [generation] = yield* ledger.generations("settle")
      assert.deepStrictEqual(Object.keys(JSON.parse(generation!.payload).heads).sort(), ["confirm", "stopped_short"])

      // the decision T-7 was recorded and labeled `unfinished` by the previous version
      const t7 = Option.getOrThrow(yield* ledger.latest("settle", "T-7"))
      assert.strictEqual(t7.head, "stopped_short")

      // re-importing the same (old-form) file adds nothing: import ids hash the head's first name
      const again = yield* reflexes.importHistory(
        "settle",
        fs.readFileSync(fixture("settle.history-200.v0.jsonl"), "utf8")
      )
      assert.strictEqual(again.inserted, 0)

      // an old label value is accepted and written under the new name
      const d = yield* reflexes.decide("settle", { text: "Parser updated. Next, I'll wire the CLI:", toolCalls: 40 }, {
        subject: "T-8"
      })
      if (d.skipped) return assert.fail("skipped")
      assert.deepInclude(d.decision, { category: "stopped_short", head: "stopped_short" })
      const labeled = yield* reflexes.label("settle", "T-8", "unfinished")
      assert.deepStrictEqual(labeled.labels.map((l) => [l.head, l.label]), [["stopped_short", true], [
        "confirm",
        false
      ]])
      const after = yield* reflexes.status("settle")
      assert.strictEqual(after.heads[0]!.labels, 127)
    }).pipe(Effect.provide(engine(file)))
  }, { timeout: 120_000 })

  it("an old-form generation document decodes with its heads and evidence under the current names", () => {
    // generation 1 as the previous version stored it, with promotion evidence keyed by the old name too
    const metrics = { n: 40, positives: 20, accuracy: 0.9, log_loss: 0.31 }
    const old = {
      ...JSON.parse(fs.readFileSync(fixture("settle.generation-1.v0.json"), "utf8")),
      evidence: {
        unfinished: {
          current: metrics,
          candidate: metrics,
          promoted: true,
          reason: "lower log-loss on held-out labels"
        }
      }
    }
    assert.property(old.heads, "unfinished")
    const decoded = Schema.decodeUnknownEither(Params.ParamsFromStored)(old)
    if (decoded._tag === "Left") return assert.fail(String(decoded.left))
    assert.deepStrictEqual(Object.keys(decoded.right.heads).sort(), ["confirm", "stopped_short"])
    assert.deepStrictEqual(Object.keys(decoded.right.evidence), ["stopped_short"])
    // a document of another reflex keeps a head that happens to be called unfinished
    const other = { ...old, reflex: "mine", evidence: {} }
    const kept = Schema.decodeUnknownEither(Params.ParamsFromStored)(other)
    if (kept._tag === "Left") return assert.fail(String(kept.left))
    assert.property(kept.right.heads, "unfinished")
  })
})

// The same migration on each backend, from rows inserted as the previous version wrote them.
for (const backend of SqlBackends.all) {
  describe.skipIf(backend.skip !== undefined)(`0004_renamed_heads on ${backend.name} ${backend.skip ?? ""}`, () => {
    it.effect(
      "moves settle's unfinished rows and documents to stopped_short, and no other reflex's",
      () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          // the schema as the previous version left it: migrations 1-3
          yield* Migrator.make({})({
            loader: Effect.map(ReflexLedger.migrations, (all) => all.filter(([id]) => id < 4)),
            table: "reflex_core_migrations"
          })
          const generation = fs.readFileSync(fixture("settle.generation-1.v0.json"), "utf8").trim()
          const certificate = JSON.stringify({ head: "unfinished", certified: false })
          for (const reflex of ["settle", "mine"]) {
            yield* sql`INSERT INTO reflex_observations (id, reflex, subject, head, value, gate, score, features, evidence,
            params_version, program, receipt, at_ms) VALUES (${`obs-${reflex}`}, ${reflex}, 't', 'unfinished', 'done',
            'head', 0, '{}', '{}', 0, 'p', 'r', 1)`
            yield* sql`INSERT INTO reflex_labels (observation, reflex, head, label, weight, source, at_ms, seq)
            VALUES (${`obs-${reflex}`}, ${reflex}, 'unfinished', 1, 1, 'explicit', 1, ${reflex === "settle" ? 1 : 2})`
            yield* sql`INSERT INTO reflex_certificates (reflex, head, payload, at_ms, through)
            VALUES (${reflex}, 'unfinished', ${certificate}, 1, 1)`
            yield* sql`INSERT INTO reflex_trials (reflex, head, candidate, started_at_ms, fitted_through)
            VALUES (${reflex}, 'unfinished', 'c', 1, 1)`
          }
          yield* sql`INSERT INTO reflex_generations (reflex, version, active, created_at, payload)
          VALUES ('settle', 1, 1, 1, ${generation})`
          yield* ReflexLedger.migrate
          for (const table of ["reflex_observations", "reflex_labels", "reflex_certificates", "reflex_trials"]) {
            const rows = yield* sql<{ reflex: string; head: string }>`SELECT reflex, head FROM ${
              sql(table)
            } ORDER BY reflex`
            assert.deepStrictEqual(rows.map((r) => [r.reflex, r.head]), [["mine", "unfinished"], [
              "settle",
              "stopped_short"
            ]], table)
          }
          const payloads = yield* sql<
            { reflex: string; payload: string }
          >`SELECT reflex, payload FROM reflex_certificates
          ORDER BY reflex`
          assert.deepStrictEqual(payloads.map((r) => JSON.parse(r.payload).head), ["unfinished", "stopped_short"])
          const [stored] = yield* sql<
            { payload: string }
          >`SELECT payload FROM reflex_generations WHERE reflex = 'settle'`
          assert.deepStrictEqual(Object.keys(JSON.parse(stored!.payload).heads).sort(), ["confirm", "stopped_short"])
          assert.isDefined(Params.decodeJsonOption(stored!.payload))
        }).pipe(Effect.provide(backend.layer())),
      { timeout: 60_000 }
    )
  })
}
