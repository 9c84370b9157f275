/**
 * Every store's main operation on the embedded SQLite default beside PostgreSQL, in the same run
 * (issue 19): a settle decision with its ledger write, an audit verb commit on a state of 10,000
 * findings, event appends batched per step, and concurrent writers at 1, 4 and 16. SQLite is the
 * host's own configuration (WAL, busy timeout); PostgreSQL is the throw-away server of
 * `scripts/postgres.sh`, over TCP on 127.0.0.1. Without `STEWARD_TEST_DATABASE_URL` only the SQLite
 * rows run. Run: `node ../../scripts/pnpm.mjs exec vitest bench --run bench/StoreBackends.bench.ts`.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import { AuditStore } from "@steward/audit-state"
import * as Event from "@steward/harness-sessions/Event"
import * as EventStore from "@steward/harness-sessions/EventStore"
import * as Reflexes from "@steward/reflex-core/Reflexes"
import * as ReflexLedger from "@steward/reflex-core/ReflexLedger"
import { AuditStates, SqlBackends } from "@steward/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, bench, describe } from "vitest"
import * as HostSql from "../src/HostSql.js"

const FINDINGS = 10_000
const EVENTS_PER_STEP = 50

type Stores = Reflexes.Reflexes | AuditStore.AuditStore | EventStore.EventStore

const stores = (client: Layer.Layer<SqlClient.SqlClient, unknown>): Layer.Layer<Stores, unknown> =>
  Layer.mergeAll(
    Reflexes.layer({
      config: { route: "active", settle: "auto", confirm: "auto", learn: false, promotion: "holdout", custom: {} }
    }).pipe(Layer.provide(ReflexLedger.layerSql)),
    AuditStore.layerSql,
    EventStore.layerSql
  ).pipe(Layer.provide(client))

const sqliteFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "steward-backends-bench-")), "steward.sqlite")
const backends: ReadonlyArray<
  { readonly name: string; readonly runtime: ManagedRuntime.ManagedRuntime<Stores, unknown> }
> = [
  { name: "SQLite", runtime: ManagedRuntime.make(stores(HostSql.layerFile(sqliteFile))) },
  ...(SqlBackends.postgresUrl === undefined
    ? []
    : [{ name: "PostgreSQL", runtime: ManagedRuntime.make(stores(SqlBackends.postgresLayer())) }])
]
if (backends.length === 1) {
  console.warn("StoreBackends.bench: STEWARD_TEST_DATABASE_URL is unset; the PostgreSQL rows are skipped")
}

// set up every store once per backend: the 10,000-finding audit state and the writers' sessions
for (const { runtime } of backends) {
  await runtime.runPromise(Effect.gen(function*() {
    yield* Effect.flatMap(AuditStore.AuditStore, (store) => store.importState(AuditStates.withFindings(FINDINGS)))
    const events = yield* EventStore.EventStore
    for (let w = 0; w < 16; w++) yield* events.create(`writer-${w}`, {})
    yield* events.create("append", {})
  }))
}
afterAll(() => Promise.all(backends.map((b) => b.runtime.dispose())))

const turn = (i: number) => ({
  text: `Updated the parser. ${"detail ".repeat(i % 37)}Next, I'll wire the CLI:`,
  toolCalls: (i * 13) % 90
})

const step = (session: string, k: number, size: number) =>
  Effect.flatMap(EventStore.EventStore, (store) =>
    store.commit(session, {
      events: Array.from({ length: size }, (_, i) => Event.make("bench", "tool.result", { k, i, ok: true }))
    }))

const options = { time: 1500, warmupTime: 500 } as const
let k = 0

describe("settle decision with its ledger write, by backend", () => {
  for (const { name, runtime } of backends) {
    bench(`decide settle with its write — ${name}`, async () => {
      const i = k++
      await runtime.runPromise(
        Effect.flatMap(Reflexes.Reflexes, (r) => r.decide("settle", turn(i), { subject: `bench-${name}-${i}` }))
      )
    }, options)
  }
})

describe(`audit verb commit on ${FINDINGS.toLocaleString("en")} findings (library path), by backend`, () => {
  for (const { name, runtime } of backends) {
    bench(`update-catalog verb commit — ${name}`, async () => {
      const i = k++
      await runtime.runPromise(
        Effect.flatMap(AuditStore.AuditStore, (store) =>
          store.apply({
            verb: "update-catalog",
            kind: "unit",
            key: `U-${name}-${i}`,
            material: "src/",
            size: "1k",
            responsibility: "bench"
          }))
      )
    }, options)
  }
})

describe(`event append, ${EVENTS_PER_STEP} events per step (events/s = hz × ${EVENTS_PER_STEP}), by backend`, () => {
  for (const { name, runtime } of backends) {
    bench(`commit one step of ${EVENTS_PER_STEP} events — ${name}`, async () => {
      await runtime.runPromise(step("append", k++, EVENTS_PER_STEP))
    }, options)
  }
})

// Each writer commits 5 steps of 10 events to its own session, all writers at once: an iteration
// is 50 × n events, so events/s = hz × 50 × n. SQLite serializes writers on its file lock;
// PostgreSQL runs them on separate connections.
describe("concurrent writers (each 5 steps of 10 events; events/s = hz × 50 × n), by backend", () => {
  for (const { name, runtime } of backends) {
    for (const writers of [1, 4, 16]) {
      bench(`${name} concurrent writers — n=${writers}`, async () => {
        const i = k++
        await runtime.runPromise(
          Effect.all(
            Array.from(
              { length: writers },
              (_, w) => Effect.forEach([0, 1, 2, 3, 4], (s) => step(`writer-${w}`, i * 5 + s, 10), { discard: true })
            ),
            { concurrency: "unbounded", discard: true }
          )
        )
      }, options)
    }
  }
})
