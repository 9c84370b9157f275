import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { SqlBackends } from "@steward/testing"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as AuditStore from "../src/AuditStore.js"

export const fixture = (p: string) => fs.readFileSync(path.join(import.meta.dirname, "fixtures", p), "utf8")

export const A = "1111111111111111"
export const B = "2222222222222222"

/** xcheck's harness: N1, invariants, U01, limits {15, 8, 3, 2}, P-01 done with coverage, F-0001 reported. */
export const harness = (patch: (doc: any) => void = () => {}): string => {
  const doc = JSON.parse(fixture("state/harness-minimal.json"))
  doc.queue[0].done = true
  doc.queue[0].coverage = { report_path: "passes/P-01.md", findings: ["F-0001"], updated: "2026-08-14", status: "done" }
  patch(doc)
  return JSON.stringify(doc)
}

export const finding = (id: string, patch: Record<string, unknown> = {}) => ({
  attempts: 0,
  body_path: `findings/${id}.md`,
  dimension: "invariants",
  id,
  pass: "P-01",
  severity: "major",
  status: "reported",
  title: "a finding",
  unit: ["U01"],
  updated: "2026-08-14",
  ...patch
})

export const session = (id: string, patch: Record<string, unknown> = {}) => ({
  session_id: id,
  role: "Remediator",
  provider: "anthropic",
  agent_model: "opus",
  executable: "claude",
  executable_version: "unknown",
  charter_hash: "a".repeat(64),
  prompt_hash: "b".repeat(64),
  state_revision: 1,
  head_before: "unknown",
  sandbox_profile: "none",
  started: "2026-08-14T00:00:00+00:00",
  ...patch
})

export const sqliteMemory = SqliteClient.layer({ filename: ":memory:" })

export const layers = {
  memory: AuditStore.layerMemory,
  sql: AuditStore.layerSql.pipe(Layer.provide(sqliteMemory), Layer.orDie),
  // a fresh PostgreSQL database per build (only used where SqlBackends.postgresSkipReason is unset)
  postgres: AuditStore.layerSql.pipe(Layer.provide(SqlBackends.postgresLayer()), Layer.orDie)
} as const

/**
 * The backends the store suites run on: memory and SQLite always, PostgreSQL when a server is
 * configured (`describe.skipIf` on `skip` reports it as skipped otherwise).
 */
export const backends: ReadonlyArray<{ readonly name: keyof typeof layers; readonly skip: string | undefined }> = [
  { name: "memory", skip: undefined },
  { name: "sql", skip: undefined },
  { name: "postgres", skip: SqlBackends.postgresSkipReason }
]

/** A fresh store (per backend) holding `stateText`. */
export const withState = <A, E>(
  backend: keyof typeof layers,
  stateText: string,
  body: (store: AuditStore.AuditStoreShape) => Effect.Effect<A, E>
) =>
  Effect.gen(function*() {
    const store = yield* AuditStore.AuditStore
    yield* store.importState(stateText)
    return yield* body(store)
  }).pipe(Effect.provide(layers[backend]))
