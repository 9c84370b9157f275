import { assert, describe, it } from "@effect/vitest"
import { SqlBackends } from "@steward/testing"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { freePort, kill9Pid, lines, signalPid, start, waitFor } from "./support/processes.js"

const pid = (line: string) => Number(line.split(" ")[1])

/**
 * Two socket runners on a fresh database and a client-only process that submits the run and
 * follows it; returns once the second activity has begun, naming the runner that holds the run.
 */
const teamRun = Effect.gen(function*() {
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "cluster-team-"))),
    (d) => Effect.sync(() => fs.rmSync(d, { recursive: true, force: true }))
  )
  const databaseUrl = yield* SqlBackends.freshPostgresDatabase()
  const file = path.join(dir, "lines.log")
  const result = path.join(dir, "result")
  const run = { databaseUrl, id: "run-1", file, pauseMillis: 3000 }
  // one runner after the other (the first creates the tables), both up before the run starts,
  // so the shards are not rebalanced under it
  const up = (name: string) =>
    Effect.gen(function*() {
      const listen = `127.0.0.1:${yield* freePort}`
      const child = yield* start({ ...run, role: "team", stateDirectory: path.join(dir, name), listen, submit: false })
      yield* waitFor(`runner ${name} to start`, 120, () => {
        if (child.exitCode !== null) {
          throw new Error(`runner ${name} exited ${child.exitCode}: ${child.stderrText()}`)
        }
        return fs.existsSync(path.join(dir, name, "ready")) || undefined
      }, child.stderrText)
      return child
    })
  const a = yield* up("a")
  const b = yield* up("b")
  yield* start({ ...run, role: "client", stateDirectory: path.join(dir, "client"), submit: true, result })

  yield* waitFor("the second activity to begin", 120, () => lines(`${file}.attempts`)[0])
  const holder = pid(lines(`${file}.attempts`).at(-1)!)
  const survivor = holder === a.pid ? b : a
  const finished = waitFor(
    "the client to see the run finish",
    120,
    () => fs.existsSync(result) ? fs.readFileSync(result, "utf8") : undefined,
    survivor.stderrText
  )
  return { runners: [a, b], holder, survivor, file, finished } as const
})

describe.skipIf(SqlBackends.postgresSkipReason !== undefined)(
  `team runners on PostgreSQL, in child processes ${SqlBackends.postgresSkipReason ?? ""}`,
  () => {
    it.scopedLive(
      "two socket runners and a client-only process: kill -9 the holder after the first activity, the other finishes the run",
      () =>
        Effect.gen(function*() {
          const { file, finished, holder, runners, survivor } = yield* teamRun
          yield* kill9Pid(runners, holder)

          assert.strictEqual(yield* finished, "Success:done", survivor.stderrText())
          const written = lines(file)
          // the finished first activity ran once; the in-flight second ran again on the survivor
          assert.deepStrictEqual(written.map((l) => l.split(" ")[0]), ["first", "second"])
          assert.strictEqual(pid(written[1]!), survivor.pid)
          assert.strictEqual(pid(lines(`${file}.attempts`).at(-1)!), survivor.pid)
        }),
      { timeout: 300_000 }
    )

    // ADR 0580: with table shard locks a hung holder loses its shards when its lock expires
    it.scopedLive(
      "SIGSTOP the holder during the second activity: the other takes the run over and finishes it; the resumed holder also finishes its in-flight activity (at least once)",
      () =>
        Effect.gen(function*() {
          const { file, finished, holder, runners, survivor } = yield* teamRun
          yield* signalPid(runners, holder, "SIGSTOP")

          assert.strictEqual(yield* finished, "Success:done", survivor.stderrText())
          const taken = lines(file)
          assert.deepStrictEqual(taken.map((l) => l.split(" ")[0]), ["first", "second"])
          assert.strictEqual(pid(taken[1]!), survivor.pid)

          // the resumed zombie's paused activity completes too: upstream activities run at least
          // once, and nothing fences the write (Steward's intent rule, ADR 0576 slices 1–3, turns
          // this into `outcome unknown`)
          yield* signalPid(runners, holder, "SIGCONT")
          const zombie = yield* waitFor("the resumed holder's second line", 60, () => lines(file)[2])
          assert.strictEqual(zombie, `second ${holder}`)
        }),
      { timeout: 300_000 }
    )
  }
)
