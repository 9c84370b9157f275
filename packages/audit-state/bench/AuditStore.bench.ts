import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { Effect, Layer, ManagedRuntime } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, bench, describe } from "vitest"
import * as AuditStore from "../src/AuditStore.js"
import * as Decision from "../src/Decision.js"
import * as Metrics from "../src/Metrics.js"

const N = 10_000

const bigState = (): string => {
  const findings = Array.from({ length: N }, (_, k) => ({
    attempts: 0,
    body_path: `findings/F-${String(k).padStart(4, "0")}.md`,
    dimension: "invariants",
    id: `F-${String(k).padStart(4, "0")}`,
    pass: "P-01",
    severity: k % 10 === 0 ? "minor" : "major",
    status: "reported",
    title: `finding number ${k} — проверка`,
    unit: ["U01"],
    updated: "2026-08-14"
  }))
  return JSON.stringify({
    schema_version: 1,
    state_revision: 1,
    generated_by: "bench",
    catalogs: {
      norms: [{ id: "N1", source: "README.md", scope: "all" }],
      dimensions: [{ key: "invariants", catches: "broken invariants", norms: ["N1"] }],
      units: [{ id: "U01", material: "src/", size: "1k", responsibility: "core" }]
    },
    limits: { class_threshold: 3, max_findings_per_pass: 15, remediation_batch_size: 8, reopen_limit: 2 },
    queue: [{ id: "P-01", dimension: "invariants", units: ["U01"], charter: "c", stop: "s", done: false }],
    findings
  })
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "audit-bench-"))
const open = async (file: string) => {
  const runtime = ManagedRuntime.make(
    AuditStore.layerSql.pipe(Layer.provide(SqliteClient.layer({ filename: path.join(dir, file) })), Layer.orDie)
  )
  const store = await runtime.runPromise(AuditStore.AuditStore)
  await runtime.runPromise(store.importState(bigState()))
  return { runtime, store }
}
// the commit bench writes to its own file, so the read benches below see the same history (import + 250
// commits) however many commits the machine manages in its time budget
const writer = await open("commit.sqlite")
const { runtime, store } = await open("state.sqlite")
for (let k = 0; k < 250; k++) {
  const id = `F-${String(N - 1 - k).padStart(4, "0")}`
  await runtime.runPromise(store.apply({ verb: "set-status", id, status: "accepted" }))
}
afterAll(async () => {
  await writer.runtime.dispose()
  await runtime.dispose()
})

// enough samples for a stable median on a shared machine
const options = { time: 2_000, warmupTime: 300 }

let next = 0
describe(`audit-state with ${N} findings (SQLite file)`, () => {
  bench("one verb commit (set-status, one transaction)", async () => {
    const id = `F-${String(next++ % N).padStart(4, "0")}`
    await writer.runtime.runPromise(
      writer.store.apply({ verb: "set-status", id, status: next <= N ? "accepted" : "rejected" }).pipe(Effect.ignore)
    )
  }, options)

  bench("next (load + state_and_decision)", async () => {
    await runtime.runPromise(Effect.map(store.load, (doc) => Decision.stateAndDecision(doc)))
  }, options)

  bench("metrics (load + events + metrics report)", async () => {
    await runtime.runPromise(
      Effect.flatMap(store.load, (doc) => Effect.map(store.events, (events) => Metrics.metrics(doc, events, "/bench")))
    )
  }, options)

  bench("export (canonical state.json bytes)", async () => {
    await runtime.runPromise(store.exportState)
  }, options)
})
