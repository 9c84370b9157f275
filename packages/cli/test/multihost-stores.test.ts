/**
 * Multi-host proof at the library level (issue 19 item 6): several separate OS processes share one
 * database — PostgreSQL, and a SQLite file where the same guarantee applies — and write audit verbs
 * on one project and events to one harness session at once. Afterwards nothing is lost, revisions
 * and seqs are gap-free, the audit chain verifies and the contested verb was won exactly once.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import type * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import * as AuditStore from "@steward/audit-state/AuditStore"
import * as Events from "@steward/audit-state/Events"
import * as EventStore from "@steward/harness-sessions/EventStore"
import { SqlBackends } from "@steward/testing"
import { Effect, Layer, Redacted } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const repoRoot = path.resolve(import.meta.dirname, "../../..")
const worker = path.join(import.meta.dirname, "stores-pg-worker.ts")

/** Run one worker to completion; its stdout parsed as JSON. */
const runWorker = (args: ReadonlyArray<string>) =>
  Effect.async<any, Error>((resume) => {
    const child = spawn(process.execPath, ["--import", "tsx", worker, ...args], { cwd: repoRoot })
    let out = ""
    let err = ""
    child.stdout.on("data", (d) => (out += d))
    child.stderr.on("data", (d) => (err += d))
    child.on("close", (code) =>
      resume(
        code === 0
          ? Effect.try({ try: () => JSON.parse(out), catch: () => new Error(`worker ${args[2]} printed ${out}`) })
          : Effect.fail(new Error(`worker ${args[2]} exited ${code}: ${err}`))
      ))
  })

/** A database several processes can open: a SQLite file, or a fresh PostgreSQL database. */
const sharedDatabase = (backend: SqlBackends.SqlBackend) =>
  backend.name === "SQLite"
    ? Effect.sync(() => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "multihost-")), "state.sqlite"))
    : SqlBackends.freshPostgresDatabase()

const reopen = (backend: SqlBackends.SqlBackend, database: string): Layer.Layer<SqlClient.SqlClient, unknown> =>
  backend.name === "SQLite"
    ? SqliteClient.layer({ filename: database })
    : PgClient.layer({ url: Redacted.make(database), maxConnections: 2 })

/** A small audit state with one finding (F-0001, reported) the workers contest. */
const auditState = (): string =>
  JSON.stringify({
    schema_version: 1,
    state_revision: 1,
    generated_by: "multihost",
    catalogs: {
      norms: [{ id: "N1", source: "README.md", scope: "all" }],
      dimensions: [{ key: "invariants", catches: "broken invariants", norms: ["N1"] }],
      units: [{ id: "U01", material: "src/", size: "1k", responsibility: "core" }]
    },
    limits: { class_threshold: 3, max_findings_per_pass: 15, remediation_batch_size: 8, reopen_limit: 2 },
    queue: [{ id: "P-01", dimension: "invariants", units: ["U01"], charter: "c", stop: "s", done: false }],
    findings: [{
      attempts: 0,
      body_path: "findings/F-0001.md",
      dimension: "invariants",
      id: "F-0001",
      pass: "P-01",
      severity: "major",
      status: "reported",
      title: "a finding",
      unit: ["U01"],
      updated: "2026-08-14"
    }]
  })

const names = ["a", "b", "c", "d"]

for (const backend of SqlBackends.all) {
  describe.skipIf(backend.skip !== undefined)(
    `several processes, one ${backend.name} database ${backend.skip ?? ""}`,
    () => {
      it.live(
        "audit verbs on one project from four processes: no lost update, revisions gap-free, chain verifies, one winner",
        () =>
          Effect.scoped(Effect.gen(function*() {
            const database = yield* sharedDatabase(backend)
            const layer = AuditStore.layerSql.pipe(Layer.provide(reopen(backend, database)), Layer.orDie)
            // import (and migrate) once, before the writers race
            yield* Effect.flatMap(AuditStore.AuditStore, (s) => s.importState(auditState())).pipe(Effect.provide(layer))
            const n = 6
            const results: ReadonlyArray<{ revisions: Array<number>; won: number; refused: Array<string> }> =
              yield* Effect
                .all(names.map((name) => runWorker(["audit", database, name, String(n)])), { concurrency: "unbounded" })
            const contests = names.length * Math.ceil(n / 5)
            assert.strictEqual(results.reduce((s, r) => s + r.won, 0), 1, "the contested verb is won exactly once")
            const refused = results.flatMap((r) => r.refused)
            assert.strictEqual(refused.length, contests - 1)
            for (const code of refused) assert.strictEqual(code, "refused")
            const applied = names.length * n + 1
            const all = results.flatMap((r) => r.revisions).sort((x, y) => x - y)
            assert.deepStrictEqual(all, Array.from({ length: applied }, (_, k) => k + 2), "every revision exactly once")
            for (const { revisions } of results) {
              for (let k = 1; k < revisions.length; k++) assert.isAbove(revisions[k]!, revisions[k - 1]!)
            }
            yield* Effect.gen(function*() {
              const store = yield* AuditStore.AuditStore
              const doc = yield* store.load
              assert.strictEqual(doc.state_revision, 1 + applied)
              assert.strictEqual(doc.catalogs!.units!.length, 1 + names.length * n, "no unit lost")
              assert.strictEqual((doc.findings as Array<any>).find((f) => f.id === "F-0001").status, "accepted")
              assert.strictEqual((yield* store.streamStatus).state, "intact")
              // each verb writes its transition between a lease pair: one transition per revision
              const transitions = (yield* store.events).filter((e) => e.event === "state_transition")
              assert.deepStrictEqual(transitions.map((e) => e.state_revision), all)
              const verified = Events.verify((yield* store.exportEvents).trimEnd().split("\n"))
              assert.isFalse(Events.isDefect(verified), JSON.stringify(verified))
            }).pipe(Effect.provide(layer))
          })),
        { timeout: 90_000 }
      )

      it.live(
        "event appends to one harness session from four processes: seqs gap-free, each writer's in order, nothing lost",
        () =>
          Effect.scoped(Effect.gen(function*() {
            const database = yield* sharedDatabase(backend)
            const layer = EventStore.layerSql.pipe(Layer.provide(reopen(backend, database)), Layer.orDie)
            yield* Effect.flatMap(EventStore.EventStore, (s) => s.create("shared", {})).pipe(Effect.provide(layer))
            const n = 15
            const results: ReadonlyArray<Array<number>> = yield* Effect.all(
              names.map((name) => runWorker(["events", database, name, String(n), "shared"])),
              { concurrency: "unbounded" }
            )
            const total = names.length * n * 3
            const all = results.flat().sort((x, y) => x - y)
            assert.deepStrictEqual(all, Array.from({ length: total }, (_, k) => k + 1), "every seq exactly once")
            for (const seqs of results) for (let k = 1; k < seqs.length; k++) assert.isAbove(seqs[k]!, seqs[k - 1]!)
            yield* Effect.gen(function*() {
              const store = yield* EventStore.EventStore
              const stored = yield* store.read("shared")
              assert.deepStrictEqual(stored.map((e) => e.seq), all)
              assert.strictEqual((yield* store.get("shared")).lastSeq, total)
              // each commit's three events are contiguous: a commit is never interleaved with another
              for (let k = 0; k < stored.length; k += 3) {
                const [x, y, z] = [stored[k]!, stored[k + 1]!, stored[k + 2]!]
                assert.strictEqual(x.run, y.run)
                assert.strictEqual(y.run, z.run)
                assert.deepStrictEqual([x, y, z].map((e) => (e.data as any).i), [0, 1, 2])
              }
              for (const name of names) {
                const mine = stored.filter((e) => e.run === name).map((e) => (e.data as any).k)
                assert.strictEqual(mine.length, n * 3, `all of ${name}'s events`)
              }
            }).pipe(Effect.provide(layer))
          })),
        { timeout: 90_000 }
      )
    }
  )
}
