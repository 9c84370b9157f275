/**
 * The SQLite store's cost per tool call against the memory store's (issue 38: at most 1.5×).
 * `node --import tsx bench/peers/storeRatio.ts [shape] [rounds] [runs]` runs Steward on both stores
 * interleaved in one process (each round runs each store `runs` times in turn) and prints, per tool
 * call, the median of the rounds' wall time and CPU time (`process.cpuUsage`, user + system): on a
 * shared machine the CPU figure is the one other processes disturb least.
 */
import { callsOf, shapes } from "./shapes.js"
import * as Steward from "./steward.js"

const [key = "default-tools", rounds = "9", runs = "4"] = process.argv.slice(2)
const shape = shapes.find((s) => s.key === key)
if (shape === undefined) throw new Error(`no shape ${key}; one of ${shapes.map((s) => s.key).join(", ")}`)

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

const stores: ReadonlyArray<Steward.Store> = ["memory", "sqlite"]
const runners = stores.map((store) => Steward.runner(shape, store))
for (const r of runners) for (let i = 0; i < 10; i++) await r.run()
const samples = stores.map(() => ({ wall: [] as Array<number>, cpu: [] as Array<number> }))
for (let round = 0; round < Number(rounds); round++) {
  for (const [i, r] of runners.entries()) {
    const calls = callsOf(shape) * Number(runs)
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    for (let n = 0; n < Number(runs); n++) await r.run()
    const wall = performance.now() - t0
    const cpu = process.cpuUsage(cpu0)
    samples[i].wall.push((wall * 1000) / calls)
    samples[i].cpu.push((cpu.user + cpu.system) / calls)
  }
}
const [memory, sqlite] = samples.map((s) => ({ wall: median(s.wall), cpu: median(s.cpu) }))
console.log(`${shape.label}: ${rounds} rounds × ${runs} runs each, medians, µs per tool call`)
console.log(`memory  wall ${memory.wall.toFixed(0)}  cpu ${memory.cpu.toFixed(0)}`)
console.log(
  `sqlite  wall ${sqlite.wall.toFixed(0)} (${(sqlite.wall / memory.wall).toFixed(2)}×)  cpu ${sqlite.cpu.toFixed(0)} (${
    (sqlite.cpu / memory.cpu).toFixed(2)
  }×)`
)
for (const r of runners) await r.dispose()
