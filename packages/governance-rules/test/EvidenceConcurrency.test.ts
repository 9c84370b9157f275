import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import type * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { SqlBackends } from "@steward/testing"
import { Chunk, Effect, Layer, Redacted, Stream } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Evidence from "../src/Evidence.js"

const repoRoot = path.resolve(import.meta.dirname, "../../..")
const worker = path.join(import.meta.dirname, "evidence-worker.ts")

const runWorker = (database: string, name: string, count: number) =>
  Effect.async<ReadonlyArray<number>, Error>((resume) => {
    const child = spawn(process.execPath, ["--import", "tsx", worker, database, name, String(count)], { cwd: repoRoot })
    let out = ""
    let err = ""
    child.stdout.on("data", (d) => (out += d))
    child.stderr.on("data", (d) => (err += d))
    child.on(
      "close",
      (code) =>
        resume(
          code === 0 ? Effect.succeed(JSON.parse(out)) : Effect.fail(new Error(`worker ${name} exited ${code}: ${err}`))
        )
    )
  })

/** A database several processes can open: a SQLite file, or a fresh PostgreSQL database. */
const sharedDatabase = (backend: SqlBackends.SqlBackend) =>
  backend.name === "SQLite"
    ? Effect.sync(() => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "evidence-conc-")), "state.sqlite"))
    : SqlBackends.freshPostgresDatabase()

for (const backend of SqlBackends.all) {
  describe.skipIf(backend.skip !== undefined)(
    `Evidence across processes (${backend.name}) ${backend.skip ?? ""}`,
    () => {
      it.live(
        "four processes appending at once: every seq once, gap-free, each writer's in order",
        () =>
          Effect.scoped(Effect.gen(function*() {
            const database = yield* sharedDatabase(backend)
            const n = 25
            const results = yield* Effect.all(
              ["a", "b", "c", "d"].map((name) => runWorker(database, name, n)),
              { concurrency: "unbounded" }
            )
            const all = results.flat().sort((x, y) => x - y)
            assert.deepStrictEqual(all, Array.from({ length: 4 * n }, (_, k) => k + 1), "every seq exactly once")
            for (const seqs of results) for (let k = 1; k < seqs.length; k++) assert.isAbove(seqs[k]!, seqs[k - 1]!)
            const events = yield* Effect.flatMap(Evidence.EvidenceLog, (log) => Stream.runCollect(log.stream())).pipe(
              Effect.provide(Evidence.layerSql.pipe(Layer.provide(reopen(backend, database)), Layer.orDie))
            )
            assert.strictEqual(Chunk.size(events), 4 * n)
          })),
        { timeout: 120_000 }
      )
    }
  )
}

const reopen = (backend: SqlBackends.SqlBackend, database: string): Layer.Layer<SqlClient.SqlClient, unknown> =>
  backend.name === "SQLite"
    ? SqliteClient.layer({ filename: database })
    : PgClient.layer({ url: Redacted.make(database) })
