import { SqliteClient } from "@effect/sql-sqlite-node"
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Reflexes from "../src/Reflexes.js"
import * as ReflexLedger from "../src/ReflexLedger.js"

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "reflex-sqlite-"))
const repoRoot = path.resolve(__dirname, "../../..")
const tsx = path.join(repoRoot, "node_modules/tsx/dist/loader.mjs")

const sqlite = (file: string) =>
  Layer.effectDiscard(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe("PRAGMA busy_timeout = 15000")
    })
  ).pipe(Layer.provideMerge(SqliteClient.layer({ filename: file })))

const engine = (file: string) =>
  Reflexes.layer().pipe(Layer.provideMerge(ReflexLedger.layerSql), Layer.provideMerge(sqlite(file)))

const readAll = (file: string): Buffer =>
  Buffer.concat(
    [file, `${file}-wal`, `${file}-shm`, `${file}-journal`].filter((f) => fs.existsSync(f)).map((f) =>
      fs.readFileSync(f)
    )
  )

describe("SQLite ledger", () => {
  it.live("privacy: the ledger file never contains any substring of a decided or imported text", () => {
    const file = path.join(tmp(), "ledger.sqlite")
    const canary = "zq-CANARY-4f1e9b-vortex"
    return Effect.gen(function*() {
      const reflexes = yield* Reflexes.Reflexes
      yield* reflexes.decide("settle", { text: `Deployed ${canary}. Next, I'll wire the CLI:`, toolCalls: 3 }, {
        subject: "p1#1"
      })
      yield* reflexes.decide("route", { task: `refactor ${canary} module` }, { subject: "p1" })
      yield* reflexes.reply(`keep going ${canary}`, "p1")
      yield* reflexes.importHistory("settle", JSON.stringify({ id: "c1", text: `Next, ${canary} then:`, label: true }))
      yield* reflexes.importHistory("route", JSON.stringify({ id: "c2", text: `write ${canary}`, label: false }))
      yield* reflexes.train("settle")
    }).pipe(
      Effect.provide(engine(file)),
      Effect.andThen(() => {
        const bytes = readAll(file).toString("latin1")
        assert.isAbove(bytes.length, 0)
        for (const piece of ["zq-CANARY", "CANARY-4f1e9b", "4f1e9b-vortex", "vortex", "Deployed", "wire the CLI"]) {
          assert.notInclude(bytes, piece, `ledger contains ${piece}`)
        }
        // Still a real ledger: the decision and its digests are there.
        assert.include(bytes, "sha256:")
        assert.include(bytes, "user_continue")
      })
    )
  })

  it.live("two processes labeling and deciding against one SQLite ledger lose nothing", () => {
    const file = path.join(tmp(), "shared.sqlite")
    const count = 24
    return Effect.gen(function*() {
      // migrate once, then run two writers at the same time
      yield* Effect.provide(Reflexes.Reflexes, engine(file))
      const run = (name: string) =>
        Effect.async<{ code: number | null; stderr: string }>((resume) => {
          const child = spawn(process.execPath, [
            "--import",
            tsx,
            path.join(__dirname, "worker.ts"),
            file,
            name,
            String(count)
          ], {
            cwd: path.resolve(__dirname, ".."),
            stdio: ["ignore", "ignore", "pipe"]
          })
          let stderr = ""
          child.stderr.on("data", (d) => (stderr += String(d)))
          child.on("close", (code) => resume(Effect.succeed({ code, stderr })))
        })
      const [a, b] = yield* Effect.all([run("a"), run("b")], { concurrency: 2 })
      assert.strictEqual(a.code, 0, a.stderr)
      assert.strictEqual(b.code, 0, b.stderr)
      const check = Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const [obs] = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM reflex_observations WHERE reflex = 'settle'`
        const [labels] = yield* sql<
          { n: number; seqs: number }
        >`SELECT COUNT(*) AS n, COUNT(DISTINCT seq) AS seqs FROM reflex_labels`
        const [certs] = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM reflex_certificates`
        return { observations: obs!.n, labels: labels!.n, seqs: labels!.seqs, certificates: certs!.n }
      })
      const got = yield* Effect.provide(check, sqlite(file))
      assert.deepStrictEqual(got, { observations: 2 * count, labels: 4 * count, seqs: 4 * count, certificates: 2 })
    })
  }, 120_000)
})
