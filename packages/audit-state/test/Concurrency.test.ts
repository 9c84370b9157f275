import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as AuditStore from "../src/AuditStore.js"
import * as Events from "../src/Events.js"
import { harness } from "./helpers.js"

const repoRoot = path.resolve(import.meta.dirname, "../../..")
const worker = path.join(import.meta.dirname, "concurrency-worker.ts")

const run = (database: string, name: string, count: number) =>
  Effect.async<ReadonlyArray<number>, Error>((resume) => {
    const child = spawn(process.execPath, ["--import", "tsx", worker, database, name, String(count)], { cwd: repoRoot })
    let out = ""
    let err = ""
    child.stdout.on("data", (d) => (out += d))
    child.stderr.on("data", (d) => (err += d))
    child.on("close", (code) =>
      resume(
        code === 0 ? Effect.succeed(JSON.parse(out)) : Effect.fail(new Error(`worker ${name} exited ${code}: ${err}`))
      ))
  })

describe("AuditStore.layerSql under real concurrency", () => {
  it.live(
    "two processes issuing verbs at once: no lost update, strictly increasing revisions, chain intact",
    () =>
      Effect.gen(function*() {
        const database = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "audit-conc-")), "state.sqlite")
        const layer = AuditStore.layerSql.pipe(Layer.provide(SqliteClient.layer({ filename: database })), Layer.orDie)
        yield* Effect.flatMap(AuditStore.AuditStore, (s) => s.importState(harness())).pipe(Effect.provide(layer))
        const n = 40
        const [a, b] = yield* Effect.all([run(database, "a", n), run(database, "b", n)], { concurrency: 2 })
        const all = [...a!, ...b!].sort((x, y) => x - y)
        assert.deepStrictEqual(
          all,
          Array.from({ length: 2 * n }, (_, k) => k + 2),
          "every revision once: no lost update"
        )
        for (const revs of [a!, b!]) for (let k = 1; k < revs.length; k++) assert.isAbove(revs[k]!, revs[k - 1]!)
        yield* Effect.gen(function*() {
          const store = yield* AuditStore.AuditStore
          const doc = yield* store.load
          assert.strictEqual(doc.state_revision, 1 + 2 * n)
          assert.strictEqual(doc.catalogs!.units!.length, 1 + 2 * n)
          const status = yield* store.streamStatus
          assert.strictEqual(status.state, "intact")
          const events = yield* store.events
          // each verb: lease_acquired, its transition, lease_released (xcheck's lease pair)
          const transitions = events.filter((e) => e.event === "state_transition")
          assert.deepStrictEqual(
            transitions.map((e) => e.state_revision),
            Array.from({ length: 2 * n }, (_, k) => k + 2)
          )
          assert.strictEqual(events.length, 3 * 2 * n)
          const lines = (yield* store.exportEvents).trimEnd().split("\n")
          const verified = Events.verify(lines)
          assert.isFalse(Events.isDefect(verified))
        }).pipe(Effect.provide(layer))
      }),
    { timeout: 120_000 }
  )
})
