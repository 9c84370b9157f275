/**
 * Failover after kill -9: two socket runners on PostgreSQL (STEWARD_TEST_DATABASE_URL, a fresh
 * database each round) and a client-only process submit the test workflow; when the second
 * activity has begun, the holder is killed with -9; failover = the time until the survivor begins
 * that activity again. Median of `rounds` (default 5), with `uptime` beside it.
 *
 *   node --import tsx bench/failover.ts [rounds=5]
 */
import { NodeRuntime } from "@effect/platform-node"
import { SqlBackends } from "@steward/testing"
import { Clock, Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { freePort, kill9Pid, lines, start, waitFor } from "../test/support/processes.js"

const rounds = Number(process.argv[2] ?? 5)
const pid = (line: string) => Number(line.split(" ")[1])

const failover = Effect.gen(function*() {
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "cluster-failover-"))),
    (d) => Effect.sync(() => fs.rmSync(d, { recursive: true, force: true }))
  )
  const file = path.join(dir, "lines.log")
  const run = { databaseUrl: yield* SqlBackends.freshPostgresDatabase(), id: "run-1", file, pauseMillis: 3000 }
  const up = (name: string) =>
    Effect.gen(function*() {
      const listen = `127.0.0.1:${yield* freePort}`
      const child = yield* start({ ...run, role: "team", stateDirectory: path.join(dir, name), listen, submit: false })
      yield* waitFor(`runner ${name} to start`, 120, () => fs.existsSync(path.join(dir, name, "ready")) || undefined)
      return child
    })
  const runners = [yield* up("a"), yield* up("b")]
  yield* start({ ...run, role: "client", stateDirectory: path.join(dir, "client"), submit: true })
  yield* waitFor("the second activity to begin", 120, () => lines(`${file}.attempts`)[0])
  const holder = pid(lines(`${file}.attempts`)[0]!)
  const killed = yield* Clock.currentTimeMillis
  yield* kill9Pid(runners, holder)
  yield* waitFor("the survivor to begin it again", 120, () => lines(`${file}.attempts`)[1])
  return ((yield* Clock.currentTimeMillis) - killed) / 1000
}).pipe(Effect.scoped)

const program = Effect.gen(function*() {
  if (SqlBackends.postgresUrl === undefined) return yield* Effect.dieMessage("set STEWARD_TEST_DATABASE_URL")
  const seconds: Array<number> = []
  for (let round = 0; round < rounds; round++) {
    seconds.push(yield* failover)
    console.log(`round ${round + 1}: ${seconds.at(-1)!.toFixed(1)} s`)
  }
  const sorted = [...seconds].sort((a, b) => a - b)
  const median = sorted.length % 2 === 1
    ? sorted[(sorted.length - 1) / 2]!
    : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2
  console.log(`failover after kill -9 (kill → survivor resumes), median of ${rounds}: ${median.toFixed(1)} s`)
  console.log(`uptime: ${execFileSync("uptime", { encoding: "utf8" }).trim()}`)
})

NodeRuntime.runMain(program.pipe(Effect.scoped))
