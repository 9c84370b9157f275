/**
 * What the SQLite store's WAL checkpoints and connection settings cost per tool call (issue 38).
 * `node --import tsx bench/peers/walCheckpoint.ts [shape] [rounds] [runs]` runs Steward on the
 * memory store and on SQLite files (WAL, `synchronous=NORMAL`) with different pragmas, each on its
 * own file, interleaved: every round runs each variant `runs` times in turn. Per tool call it prints
 * the median of the rounds' wall time, user CPU (the JS, SQLite's own CPU) and system CPU (the
 * `pwrite`s, locks and `fsync`s the kernel does; an `fsync`'s wait for the disk is wall, not CPU).
 * The `timed checkpoint` variant runs with automatic checkpoints off and checkpoints from a side
 * connection every `ceil(1000 / pages per run)` runs, timing each: what one automatic checkpoint
 * (every 1000 WAL pages, SQLite's default) costs, counted apart from the runs.
 */
import { createRequire } from "node:module"
import * as path from "node:path"
import { callsOf, shapes } from "./shapes.js"
import * as Steward from "./steward.js"

// better-sqlite3 ships no types; the side connection needs only this.
interface SideDatabase {
  pragma(source: string): Array<{ busy: number; log: number; checkpointed: number }>
  close(): void
}
const Database = createRequire(import.meta.url)("better-sqlite3") as new(file: string) => SideDatabase

const [key = "default-tools", rounds = "9", runs = "8"] = process.argv.slice(2)
const shape = shapes.find((s) => s.key === key)
if (shape === undefined) throw new Error(`no shape ${key}; one of ${shapes.map((s) => s.key).join(", ")}`)

/** Pages one run of the eight-tool shape writes to the WAL (ADR 0577: 13.12 per call). */
const pagesPerRun = 13.12 * callsOf(shape)
const checkpointEvery = Math.ceil(1000 / pagesPerRun)

const variants: ReadonlyArray<{ label: string; store: Steward.Store; pragmas: ReadonlyArray<string>; timed?: true }> = [
  { label: "memory store", store: "memory", pragmas: [] },
  { label: "sqlite, autocheckpoint 1000 (default)", store: "sqlite", pragmas: [] },
  { label: "sqlite, autocheckpoint 10000", store: "sqlite", pragmas: ["wal_autocheckpoint = 10000"] },
  { label: "sqlite, autocheckpoint off", store: "sqlite", pragmas: ["wal_autocheckpoint = 0"] },
  { label: "sqlite, off + timed checkpoint", store: "sqlite", pragmas: ["wal_autocheckpoint = 0"], timed: true },
  {
    label: "sqlite, cache 16 MiB + mmap 256 MiB + temp in memory",
    store: "sqlite",
    pragmas: ["cache_size = -16384", "mmap_size = 268435456", "temp_store = MEMORY"]
  }
]

const median = (xs: ReadonlyArray<number>) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

const runners = variants.map((v) => Steward.runner(shape, v.store, v.pragmas))
for (const r of runners) for (let i = 0; i < 10; i++) await r.run()
const samples = variants.map(() => ({
  wall: [] as Array<number>,
  user: [] as Array<number>,
  system: [] as Array<number>
}))
const checkpoints: Array<{ ms: number; pages: number }> = []
const sides = runners.map((r, i) =>
  variants[i].timed === true ? new Database(path.join(r.dir, Steward.sqliteFile)) : undefined
)
let timedRuns = 0

for (let round = 0; round < Number(rounds); round++) {
  for (const [i, r] of runners.entries()) {
    const calls = callsOf(shape) * Number(runs)
    let wall = 0
    const cpu0 = process.cpuUsage()
    for (let n = 0; n < Number(runs); n++) {
      const t0 = performance.now()
      await r.run()
      wall += performance.now() - t0
      const side = sides[i]
      if (side !== undefined && ++timedRuns % checkpointEvery === 0) {
        const c0 = performance.now()
        const [result] = side.pragma("wal_checkpoint(PASSIVE)")
        checkpoints.push({ ms: performance.now() - c0, pages: result.checkpointed })
      }
    }
    const cpu = process.cpuUsage(cpu0)
    samples[i].wall.push((wall * 1000) / calls)
    samples[i].user.push(cpu.user / calls)
    samples[i].system.push(cpu.system / calls)
  }
}

const memory = median(samples[0].wall)
console.log(`${shape.label}: ${rounds} rounds × ${runs} runs each, medians of the rounds, µs per tool call`)
for (const [i, v] of variants.entries()) {
  const wall = median(samples[i].wall)
  console.log(
    `${v.label.padEnd(52)} wall ${wall.toFixed(0).padStart(6)} (${(wall / memory).toFixed(2)}× memory)  user ${
      median(samples[i].user).toFixed(0).padStart(5)
    }  system ${median(samples[i].system).toFixed(0).padStart(5)}`
  )
}
if (checkpoints.length > 0) {
  const ms = median(checkpoints.map((c) => c.ms))
  const pages = median(checkpoints.map((c) => c.pages))
  console.log(
    `timed checkpoints: ${checkpoints.length}, median ${
      ms.toFixed(2)
    } ms for ${pages} pages, one per ${checkpointEvery} runs: ${
      ((ms * 1000) / (checkpointEvery * callsOf(shape))).toFixed(0)
    } µs per tool call amortised`
  )
}
for (const side of sides) side?.close()
for (const r of runners) await r.dispose()
