/**
 * The audit CLI's own code path (argument parsing, store open, drift check, views, checks) at 100,
 * 1,000 and 10,000 findings, beside the library path (a warm store, no views). Issue 21's targets
 * at 10,000 through the CLI: a verb commit ≤ 100 ms, `next` ≤ 50 ms, metrics ≤ 100 ms, export
 * ≤ 200 ms. Run: `node ../../scripts/pnpm.mjs exec vitest bench --run bench/audit-cli.bench.ts`. After the
 * rows it prints each operation's growth from 100 to 10,000 findings and each CLI row's ratio to
 * the same-run library row.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { AuditStore, Decision, Metrics } from "@steward/audit-state"
import { AuditStates } from "@steward/testing"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, bench, describe } from "vitest"
import { main } from "../src/Main.js"

const state = AuditStates.withFindings

const silent: Console.Console = (() => {
  const none = () => Effect.void
  const unsafe = { ...globalThis.console, log: () => {}, info: () => {}, error: () => {}, warn: () => {} }
  return {
    [Console.TypeId]: Console.TypeId,
    unsafe,
    assert: none,
    clear: Effect.void,
    count: none,
    countReset: none,
    debug: none,
    dir: none,
    dirxml: none,
    error: none,
    group: none,
    groupEnd: Effect.void,
    info: none,
    log: none,
    table: none,
    time: none,
    timeEnd: none,
    timeLog: none,
    trace: none,
    warn: none
  } as unknown as Console.Console
})()

const cli = (...args: ReadonlyArray<string>) =>
  Effect.runPromise(
    main(["node", "steward", ...args]).pipe(Effect.withConsole(silent), Effect.provide(NodeContext.layer))
  ).then((code) => {
    if (code !== 0) throw new Error(`steward ${args.join(" ")} exited ${code}`)
  })

const projects = new Map<number, string>()
const project = async (n: number) => {
  let dir = projects.get(n)
  if (dir === undefined) {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), `audit-cli-bench-${n}-`))
    const file = path.join(dir, "in.json")
    fs.writeFileSync(file, state(n))
    await cli("audit", "--project", dir, "import-state", file)
    projects.set(n, dir)
  }
  return dir
}

const library = new Map<number, AuditStore.AuditStoreShape>()
const store = async (n: number) => {
  let s = library.get(n)
  if (s === undefined) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `audit-lib-bench-${n}-`))
    const runtime = ManagedRuntime.make(
      AuditStore.layerSql.pipe(Layer.provide(SqliteClient.layer({ filename: path.join(dir, "s.sqlite") })), Layer.orDie)
    )
    s = await runtime.runPromise(AuditStore.AuditStore)
    await Effect.runPromise(s.importState(state(n)))
    library.set(n, s)
  }
  return s
}

const options = { iterations: 5, warmupIterations: 1, time: 0 }

/**
 * The status the k-th set-status on a store of n findings moves its finding to: every finding
 * goes reported -> accepted first, then between disputed and accepted, so a bench that outruns n
 * still commits a legal move (a fast row runs far more often than `iterations` says: the library
 * row at 100 findings ran 101 times, and its 101st move, accepted -> accepted, was refused, so
 * the row had no figures).
 */
const statusFor = (k: number, n: number): "accepted" | "disputed" => {
  const visit = Math.floor(k / n)
  return visit % 2 === 1 ? "disputed" : "accepted"
}

const SIZES = [100, 1_000, 10_000] as const
const OPS = [
  "CLI verb commit",
  "CLI next --dry-run",
  "CLI metrics --json",
  "CLI export-state",
  "library verb commit",
  "library next + metrics"
] as const
type Op = typeof OPS[number]

/** Every measured run's duration (ms), per operation and size, for the growth report. */
const samples = new Map<string, Array<number>>()
const timed = (op: Op, n: number, f: () => Promise<void>) => async () => {
  const start = performance.now()
  await f()
  const key = `${op}@${n}`
  samples.set(key, [...(samples.get(key) ?? []), performance.now() - start])
}
const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

// Issue 21: how each cost grows from 100 to 10,000 findings (the slope of log time over log
// findings: 0 is flat, 1 is linear), and each CLI row beside the same-run library row.
afterAll(() => {
  const med = (op: Op, n: number) => median(samples.get(`${op}@${n}`) ?? [Number.NaN])
  for (const op of OPS) {
    const ms = SIZES.map((n) => med(op, n))
    const xs = SIZES.map(Math.log)
    const ys = ms.map(Math.log)
    const mx = xs.reduce((a, b) => a + b) / xs.length
    const my = ys.reduce((a, b) => a + b) / ys.length
    const slope = xs.reduce((a, x, i) => a + (x - mx) * (ys[i]! - my), 0) / xs.reduce((a, x) => a + (x - mx) ** 2, 0)
    const shape = slope <= 0.25 ? "flat" : slope <= 1.1 ? "at most linear" : "WORSE THAN LINEAR"
    console.log(
      `[audit growth, ${op}] ${SIZES.map((n, i) => `${n}: ${ms[i]!.toFixed(2)} ms`).join(", ")}; 10,000/100 = ${
        (ms[2]! / ms[0]!).toFixed(2)
      }×; growth exponent ${slope.toFixed(2)} (${shape})`
    )
  }
  const targets: ReadonlyArray<readonly [Op, Op, number]> = [
    ["CLI verb commit", "library verb commit", 100],
    ["CLI next --dry-run", "library next + metrics", 50],
    ["CLI metrics --json", "library next + metrics", 100],
    ["CLI export-state", "library next + metrics", 200]
  ]
  for (const [op, reference, target] of targets) {
    const cliMs = med(op, 10_000)
    const refMs = med(reference, 10_000)
    console.log(
      `[audit at 10,000, ${op}] median ${cliMs.toFixed(2)} ms (target ≤ ${target} ms${
        cliMs <= target ? ", met" : ", NOT met"
      }); ${(cliMs / refMs).toFixed(1)}× the same-run "${reference}" row (${refMs.toFixed(2)} ms)`
    )
  }
})

for (const n of SIZES) {
  describe(`audit at ${n} findings`, () => {
    let k = 0
    bench(
      `CLI verb commit (set-status, views + drift check) — n=${n} findings`,
      timed("CLI verb commit", n, async () => {
        const dir = await project(n)
        const id = `F-${String(k % n).padStart(4, "0")}`
        await cli("audit", "--project", dir, "set-status", id, statusFor(k++, n))
      }),
      { ...options, setup: async () => void (await project(n)) }
    )
    bench(
      `CLI next --dry-run — n=${n} findings`,
      timed("CLI next --dry-run", n, async () => {
        await cli("audit", "--project", await project(n), "next", "--dry-run")
      }),
      options
    )
    bench(
      `CLI metrics --json — n=${n} findings`,
      timed("CLI metrics --json", n, async () => {
        await cli("audit", "--project", await project(n), "metrics", "--json")
      }),
      options
    )
    bench(
      `CLI export-state — n=${n} findings`,
      timed("CLI export-state", n, async () => {
        const dir = await project(n)
        await cli("audit", "--project", dir, "export-state", path.join(dir, "out.json"))
      }),
      options
    )
    let j = 0
    bench(
      `library verb commit (warm store, no views) — n=${n} findings`,
      timed("library verb commit", n, async () => {
        const s = await store(n)
        const id = `F-${String(j % n).padStart(4, "0")}`
        await Effect.runPromise(s.apply({ verb: "set-status", id, status: statusFor(j++, n) }))
      }),
      options
    )
    bench(
      `library next + metrics (warm store) — n=${n} findings`,
      timed("library next + metrics", n, async () => {
        const s = await store(n)
        const doc = await Effect.runPromise(s.load)
        Decision.stateAndDecision(doc)
        Metrics.metrics(doc, await Effect.runPromise(s.events), "/p")
      }),
      options
    )
  })
}
