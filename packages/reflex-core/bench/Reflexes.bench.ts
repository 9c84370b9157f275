import { SqliteClient } from "@effect/sql-sqlite-node"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, ManagedRuntime, Option } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, bench, describe } from "vitest"
import * as Features from "../src/Features.js"
import * as FitWorkers from "../src/FitWorkers.js"
import * as Learning from "../src/Learning.js"
import * as Params from "../src/Params.js"
import * as Reflexes from "../src/Reflexes.js"
import * as ReflexLedger from "../src/ReflexLedger.js"
import { referenceFit } from "../test/fitReference.js"

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reflex-bench-"))

const sqlite = (file: string) =>
  Layer.effectDiscard(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe("PRAGMA busy_timeout = 15000")
    })
  ).pipe(Layer.provideMerge(SqliteClient.layer({ filename: file })))

const runtime = ManagedRuntime.make(
  Reflexes.layer({
    config: { route: "active", settle: "auto", confirm: "auto", learn: false, promotion: "holdout", custom: {} }
  })
    .pipe(Layer.provideMerge(ReflexLedger.layerSql), Layer.provide(sqlite(path.join(dir, "bench.sqlite"))))
)
afterAll(() => runtime.dispose())

// A deterministic, varied corpus of finished turns.
const openings = [
  "Updated the parser.",
  "Fixed the flaky test.",
  "Refactored the store.",
  "Reviewed the diff.",
  "## Summary\n\nShipped the change."
]
const endings = [
  "Next, I'll wire the CLI:",
  "All tests pass and the PR is merged.",
  "Should I open the PR and merge it?",
  "I'm waiting on CI and will merge on green",
  "Let me know if you want anything else.",
  "Remaining: docs and the changelog.",
  "I can't reach the registry from this sandbox."
]
const turn = (i: number) => ({
  text: `${openings[i % openings.length]} ${"detail ".repeat(i % 37)}${endings[(i * 7 + 3) % endings.length]}`,
  toolCalls: (i * 13) % 90
})

let n = 0
describe("settle decision", () => {
  bench("decide settle end to end (features, ALGAL run, gates, SQLite ledger write)", async () => {
    const t = turn(n)
    await runtime.runPromise(
      Effect.flatMap(Reflexes.Reflexes, (r) => r.decide("settle", t, { subject: `bench-${n++}` }))
    )
  }, { time: 3000 })
})

const prior = Params.settlePrior.heads["unfinished"]!
const labeled: Array<Learning.Example> = Array.from({ length: 1500 }, (_, i) => {
  const t = turn(i)
  const f = Option.getOrThrow(Features.settleFeatures(t.text, Features.completedTurn, t.toolCalls))
  // noisy labels correlated with the prior
  const p = Params.probability(prior, f)
  const noise = ((i * 2654435761) % 1000) / 1000
  return {
    observation: `obs_${i}`,
    features: f,
    label: noise < Math.min(0.95, p + 0.1),
    weight: i % 3 === 0 ? 0.5 : 1,
    source: "user_continue",
    seq: i + 1
  }
})

const warm = Learning.makeReplayCache()
Learning.replay(prior, prior, labeled.slice(0, 1484), undefined, warm)

describe("certification", () => {
  bench("certify unfinished after 16 new labels over 1,500 (replay resumed from the previous pass)", () => {
    const cache: Learning.ReplayCache = { ...warm }
    Learning.certify({ head: "unfinished", prior, examples: labeled, floor: 0.75, actionable: () => true, cache })
  }, { iterations: 20, time: 0 })

  bench("certify unfinished over 1,500 labeled turns (prequential replay, retraining every 16 labels)", () => {
    Learning.certify({ head: "unfinished", prior, examples: labeled, floor: 0.75, actionable: () => true })
  }, { iterations: 5, time: 0 })
})

// The fit kernel alone, against the previous kernel (same inputs, same heads: ADR 0450).
const window = labeled.slice(0, 1500)
describe("fit", () => {
  bench("fit the stopped_short head on 1,500 labeled turns (600 iterations)", () => {
    Learning.fit(prior, window)
  }, { iterations: 10, time: 0 })
  bench("same fit with the previous kernel (test/fitReference.ts)", () => {
    referenceFit(prior, window)
  }, { iterations: 10, time: 0 })
})

let batch = 0
const history = (b: number) =>
  Array.from({ length: 4096 }, (_, i) => {
    const t = turn(i)
    return JSON.stringify({
      id: `b${b}-${i}`,
      text: t.text,
      label: i % 3 !== 0,
      tool_calls: t.toolCalls,
      head: i % 4 === 0 ? "confirm" : "unfinished"
    })
  }).join("\n")

describe("import", () => {
  bench("import 4,096 settle lines into SQLite (parse, validate, features, one transaction)", async () => {
    const text = history(batch++)
    await runtime.runPromise(
      Effect.flatMap(Reflexes.Reflexes, (r) => r.importHistory("settle", text, { learn: false }))
    )
  }, { iterations: 5, time: 0 })
})

// The user-visible import (what `steward reflex import settle FILE` runs): store, replay from the
// active generation and adopt won heads, certify both heads. Each sample gets its own ledger,
// prepared before timing starts, so every sample measures the same import:
// - into an empty ledger (generation 0: the adoption replays are the certification replays);
// - onto a ledger that already adopted a generation from an earlier 4,096-line import (the
//   certification replays, from the prior, reuse the adoption replays' fits).
// Fit workers run the built entry as a user's install does (`pnpm bench` builds first; without a
// build the import fits on the calling thread).
const fitWorkers = FitWorkers.layerNode({ entry: new URL("../dist/internal/fitWorker.js", import.meta.url) })
const freshRuntime = (name: string) =>
  ManagedRuntime.make(
    Reflexes.layer({
      config: { route: "active", settle: "auto", confirm: "auto", learn: false, promotion: "holdout", custom: {} }
    }).pipe(
      Layer.provideMerge(ReflexLedger.layerSql),
      Layer.provide(sqlite(path.join(dir, `${name}.sqlite`))),
      Layer.provide(fitWorkers)
    )
  )
const importWithLearning = (rt: ReturnType<typeof freshRuntime>, text: string) =>
  rt.runPromise(Effect.flatMap(Reflexes.Reflexes, (r) => r.importHistory("settle", text)))
const SAMPLES = 3
const empty = Array.from({ length: SAMPLES }, (_, i) => freshRuntime(`empty-${i}`))
const adopted = Array.from({ length: SAMPLES }, (_, i) => freshRuntime(`adopted-${i}`))
let emptyAt = 0
let adoptedAt = 0
let adoptedReady = false
afterAll(() => Promise.all([...empty, ...adopted].map((rt) => rt.dispose())))

describe("import with learning", () => {
  bench("import 4,096 settle lines into an empty ledger, then replay-adopt and certify both heads", async () => {
    await importWithLearning(empty[emptyAt++ % SAMPLES]!, history(batch++))
  }, {
    iterations: SAMPLES,
    warmupIterations: 0,
    warmupTime: 0,
    time: 0,
    // build each ledger (open, migrate) before timing: a sample is the import alone
    setup: () => Promise.all(empty.map((rt) => rt.runPromise(Effect.void))).then(() => undefined)
  })
})

describe("import with learning onto an adopted generation", () => {
  bench("import 4,096 settle lines onto an adopted generation (adoption and certification replays)", async () => {
    await importWithLearning(adopted[adoptedAt++ % SAMPLES]!, history(batch++))
  }, {
    iterations: SAMPLES,
    warmupIterations: 0,
    warmupTime: 0,
    time: 0,
    setup: async () => {
      if (adoptedReady) return
      adoptedReady = true
      for (const rt of adopted) {
        const report = await importWithLearning(rt, history(batch++))
        if (report.adoptedVersion === null) throw new Error("the first import adopted no generation")
      }
    }
  })
})
