/**
 * The audit CLI's own code path (argument parsing, store open, drift check, views, checks) at 100,
 * 1,000 and 10,000 findings, beside the library path (a warm store, no views). Issue 21's targets
 * at 10,000 through the CLI: a verb commit ≤ 100 ms, `next` ≤ 50 ms, metrics ≤ 100 ms, export
 * ≤ 200 ms. Run: `node ../../scripts/pnpm.mjs exec vitest bench --run bench/audit-cli.bench.ts`.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { AuditStore, Decision, Metrics } from "@steward/audit-state"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { bench, describe } from "vitest"
import { main } from "../src/Main.js"

const state = (n: number): string =>
  JSON.stringify({
    schema_version: 1,
    state_revision: 1,
    generated_by: "bench",
    catalogs: {
      norms: [{ id: "N1", source: "README.md", scope: "all" }],
      dimensions: [{ key: "invariants", catches: "broken invariants", norms: ["N1"] }],
      units: [{ id: "U01", material: "src/", size: "1k", responsibility: "core" }]
    },
    limits: {},
    queue: [{ id: "P-01", dimension: "invariants", units: ["U01"], charter: "c", stop: "s", done: false }],
    findings: Array.from({ length: n }, (_, k) => ({
      attempts: 0,
      body_path: `findings/F-${String(k).padStart(4, "0")}.md`,
      dimension: "invariants",
      id: `F-${String(k).padStart(4, "0")}`,
      pass: "P-01",
      severity: k % 10 === 0 ? "minor" : "major",
      status: "reported",
      title: `finding number ${k}`,
      unit: ["U01"],
      updated: "2026-08-14"
    }))
  })

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

for (const n of [100, 1_000, 10_000]) {
  describe(`audit at ${n} findings`, () => {
    let k = 0
    bench(`CLI verb commit (set-status, views + drift check) — n=${n} findings`, async () => {
      const dir = await project(n)
      const id = `F-${String(k++ % n).padStart(4, "0")}`
      await cli("audit", "--project", dir, "set-status", id, "accepted")
    }, { ...options, setup: async () => void (await project(n)) })
    bench(`CLI next --dry-run — n=${n} findings`, async () => {
      await cli("audit", "--project", await project(n), "next", "--dry-run")
    }, options)
    bench(`CLI metrics --json — n=${n} findings`, async () => {
      await cli("audit", "--project", await project(n), "metrics", "--json")
    }, options)
    bench(`CLI export-state — n=${n} findings`, async () => {
      const dir = await project(n)
      await cli("audit", "--project", dir, "export-state", path.join(dir, "out.json"))
    }, options)
    let j = 0
    bench(`library verb commit (warm store, no views) — n=${n} findings`, async () => {
      const s = await store(n)
      const id = `F-${String(j++ % n).padStart(4, "0")}`
      await Effect.runPromise(s.apply({ verb: "set-status", id, status: "accepted" }))
    }, options)
    bench(`library next + metrics (warm store) — n=${n} findings`, async () => {
      const s = await store(n)
      const doc = await Effect.runPromise(s.load)
      Decision.stateAndDecision(doc)
      Metrics.metrics(doc, await Effect.runPromise(s.events), "/p")
    }, options)
  })
}
