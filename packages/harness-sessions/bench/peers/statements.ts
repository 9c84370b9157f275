/**
 * What the SQLite store executes per tool call (issue 38), counted rather than timed so the load
 * does not blur it: `node --import tsx bench/peers/statements.ts [shape] [runs]` wraps
 * better-sqlite3's statement methods, runs Steward on SQLite, and prints statements and
 * transactions (`BEGIN`s) per tool call, and the most frequent statements' first words.
 */
import { createRequire } from "node:module"
import { callsOf, shapes } from "./shapes.js"
import * as Steward from "./steward.js"

// better-sqlite3 ships no types; only a statement's prototype is needed here.
type Run = (this: { source: string }, ...args: Array<unknown>) => unknown
interface Statements {
  prepare(source: string): object
  close(): void
}
const Database = createRequire(import.meta.url)("better-sqlite3") as new(file: string) => Statements

const [key = "default-tools", runs = "5"] = process.argv.slice(2)
const shape = shapes.find((s) => s.key === key)
if (shape === undefined) throw new Error(`no shape ${key}; one of ${shapes.map((s) => s.key).join(", ")}`)

const probe = new Database(":memory:")
const proto = Object.getPrototypeOf(probe.prepare("SELECT 1")) as Record<string, Run>
probe.close()
const counts = new Map<string, number>()
let counting = false
const times = new Map<string, Array<number>>()
for (const method of ["run", "all", "get", "iterate"]) {
  const original = proto[method]
  proto[method] = function(...args) {
    if (!counting) return original.apply(this, args)
    const head = this.source.replace(/\s+/g, " ").trim().slice(0, 60)
    counts.set(head, (counts.get(head) ?? 0) + 1)
    const t0 = performance.now()
    const out = original.apply(this, args)
    const ms = performance.now() - t0
    times.set(head, [...(times.get(head) ?? []), ms])
    return out
  }
}

const r = Steward.runner(shape, "sqlite")
for (let i = 0; i < 3; i++) await r.run()
counting = true
for (let i = 0; i < Number(runs); i++) await r.run()
counting = false
const calls = callsOf(shape) * Number(runs)
const total = [...counts.values()].reduce((a, b) => a + b, 0)
console.log(
  `${shape.label}: ${(total / calls).toFixed(2)} statements and ${
    ((counts.get("BEGIN") ?? 0) / calls).toFixed(2)
  } transactions per tool call`
)
const quantile = (xs: ReadonlyArray<number>, q: number) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * q)]
console.log("  per call   µs per call   p50 µs   p90 µs   max ms   statement")
for (const [head, n] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, 12)) {
  const ts = times.get(head) ?? []
  const sum = ts.reduce((a, b) => a + b, 0)
  console.log(
    `${(n / calls).toFixed(2).padStart(10)}${((sum * 1000) / calls).toFixed(0).padStart(14)}${
      (quantile(ts, 0.5) * 1000).toFixed(0).padStart(9)
    }${(quantile(ts, 0.9) * 1000).toFixed(0).padStart(9)}${Math.max(...ts).toFixed(1).padStart(9)}   ${head}`
  )
}
await r.dispose()
