// Retention at the cap (issue 17 item 1): a settle decision with its SQLite ledger write, on
// ledgers already holding 200 … 100,000 unlabeled observations at their cap, so every write is a
// write at the cap. Flat across 500× of ledger size means retention costs what it drops.
import { SqliteClient } from "@effect/sql-sqlite-node"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, ManagedRuntime } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, bench, describe } from "vitest"
import * as Reflexes from "../src/Reflexes.js"
import * as ReflexLedger from "../src/ReflexLedger.js"

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reflex-retention-bench-"))
const sizes = [200, 2_000, 20_000, 50_000, 100_000] as const
// the small-ledger reference: 200 observations under a 20,000 cap (no retention at all)
const reference = 1

const fill = (n: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql.unsafe(`WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ${n})
      INSERT INTO reflex_observations (id, reflex, subject, head, value, gate, score, features, evidence,
        params_version, program, receipt, at_ms, labeled)
      SELECT 'obs_fill_' || i, 'settle', 'fill-' || i, 'unfinished', 'done', 'head', 0, '{"tools":0.5}', '{}', 0,
        '', '', i, 0 FROM seq`)
    yield* sql.unsafe(`INSERT INTO reflex_counts (reflex, observations) VALUES ('settle', ${n})
      ON CONFLICT (reflex) DO UPDATE SET observations = ${n}`)
  })

const runtimes = new Map<number, ManagedRuntime.ManagedRuntime<Reflexes.Reflexes | SqlClient.SqlClient, unknown>>()
for (const n of [reference, ...sizes]) {
  const client = SqliteClient.layer({ filename: path.join(dir, `ledger-${n}.sqlite`) })
  const runtime = ManagedRuntime.make(
    Reflexes.layer({
      config: { route: "active", settle: "auto", confirm: "auto", learn: false, promotion: "holdout", custom: {} }
    }).pipe(
      Layer.provideMerge(ReflexLedger.layerSqlWith({ maxObservations: n === reference ? 20_000 : n })),
      Layer.provideMerge(client)
    )
  )
  await runtime.runPromise(Effect.zipRight(Reflexes.Reflexes, fill(n === reference ? 200 : n)))
  runtimes.set(n, runtime)
}
afterAll(() => Promise.all([...runtimes.values()].map((r) => r.dispose())))

const turn = (i: number) => ({
  text: `Updated the parser. ${"detail ".repeat(i % 37)}Next, I'll wire the CLI:`,
  toolCalls: (i * 13) % 90
})

let k = 0
describe("settle decision at the ledger cap", () => {
  bench("decide settle with its write, 200 stored observations under a 20,000 cap (reference)", async () => {
    const i = k++
    await runtimes.get(reference)!.runPromise(
      Effect.flatMap(Reflexes.Reflexes, (r) => r.decide("settle", turn(i), { subject: `ref-${i}` }))
    )
  }, { time: 1500, warmupTime: 1000 })
  for (const n of sizes) {
    bench(`decide settle with its write at the cap — n=${n} stored observations (expect n^0)`, async () => {
      const i = k++
      await runtimes.get(n)!.runPromise(
        Effect.flatMap(Reflexes.Reflexes, (r) => r.decide("settle", turn(i), { subject: `cap-${i}` }))
      )
    }, { time: 1500, warmupTime: 1000 })
  }
})
