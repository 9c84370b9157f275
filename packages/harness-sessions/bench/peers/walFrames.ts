/**
 * Pages each commit of the SQLite store writes, by the tables they belong to (issue 38): a figure
 * that does not depend on the machine's load. `node --import tsx bench/peers/walFrames.ts [shape]
 * [warm] [measured]` runs Steward on the SQLite store (`steward.ts`, WAL at `synchronous=NORMAL`)
 * `warm` times, empties the WAL, runs `measured` times more and reads the WAL's frames: one frame
 * is one page written, and a frame with a database size set ends a commit. A reader holds its
 * snapshot meanwhile, so no checkpoint restarts the WAL under the count. Pages are named by
 * `dbstat` (`idx:` marks a table's key index).
 */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { callsOf, shapes } from "./shapes.js"
import * as Steward from "./steward.js"

// better-sqlite3 ships no types; this side connection needs only these.
interface SideDatabase {
  pragma(source: string): unknown
  exec(source: string): void
  prepare(source: string): { all(): Array<unknown> }
  close(): void
}
const Database = createRequire(import.meta.url)("better-sqlite3") as new(file: string) => SideDatabase

const [key = "default-tools", warm = "10", measured = "3"] = process.argv.slice(2)
const shape = shapes.find((s) => s.key === key)
if (shape === undefined) throw new Error(`no shape ${key}; one of ${shapes.map((s) => s.key).join(", ")}`)

const steward = Steward.runner(shape, "sqlite")
for (let i = 0; i < Number(warm); i++) await steward.run()
const file = path.join(steward.dir, Steward.sqliteFile)
const side = new Database(file)
side.pragma("wal_checkpoint(TRUNCATE)")
side.exec("BEGIN")
side.prepare("SELECT 1 FROM harness_sessions LIMIT 1").all()
for (let i = 0; i < Number(measured); i++) await steward.run()
side.exec("COMMIT")

// WAL: a 32-byte header (page size at 8, salts at 16 and 20), then frames of a 24-byte header
// (page number at 0, database size after a commit at 4, salts at 8 and 12) and the page.
const wal = fs.readFileSync(`${file}-wal`)
const pageSize = wal.readUInt32BE(8)
const names = new Map<number, string>()
for (const row of side.prepare("SELECT name, pageno FROM dbstat").all() as Array<{ name: string; pageno: number }>) {
  names.set(row.pageno, row.name.replace(/^sqlite_autoindex_(.*)_\d+$/, "idx:$1"))
}
const kinds = new Map<string, number>()
const perTable = new Map<string, number>()
let frames = 0, commits = 0, pending: Array<string> = []
for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
  if (wal.readUInt32BE(at + 8) !== wal.readUInt32BE(16) || wal.readUInt32BE(at + 12) !== wal.readUInt32BE(20)) break
  frames++
  const name = names.get(wal.readUInt32BE(at)) ?? "a free page"
  pending.push(name)
  perTable.set(name, (perTable.get(name) ?? 0) + 1)
  if (wal.readUInt32BE(at + 4) !== 0) {
    commits++
    const kind = [...new Set(pending)].sort().join(" + ")
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1)
    pending = []
  }
}
const calls = callsOf(shape) * Number(measured)
console.log(
  `${shape.key}: ${commits} commits, ${frames} pages of ${pageSize} B: ${(frames / commits).toFixed(2)} per commit, ${
    (frames / calls).toFixed(2)
  } per tool call`
)
console.log(
  `pages per commit by table: ${
    [...perTable].sort((a, b) => b[1] - a[1]).map(([name, n]) => `${name} ${(n / commits).toFixed(2)}`).join(", ")
  }`
)
console.log("commits by the tables they write:")
for (const [kind, n] of [...kinds].sort((a, b) => b[1] - a[1])) console.log(`${String(n).padStart(5)}  ${kind}`)
side.close()
await steward.dispose()
