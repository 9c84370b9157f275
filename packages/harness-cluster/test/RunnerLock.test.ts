import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as RunnerLock from "../src/RunnerLock.js"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "runner-lock-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

const lockFile = (dir: string) => path.join(dir, RunnerLock.fileName)
const holder = (dir: string) => JSON.parse(fs.readFileSync(lockFile(dir), "utf8")) as RunnerLock.LockRecord

/** The pid of a process that has exited (and been reaped). */
const deadPid = () => spawnSync(process.execPath, ["-e", ""]).pid!

/** A live process of someone else's for the test's duration. */
const liveProcess = Effect.acquireRelease(
  Effect.sync(() => spawn("sleep", ["60"], { stdio: "ignore" })),
  (child) => Effect.sync(() => child.kill("SIGKILL"))
)

describe("RunnerLock", () => {
  it.scoped("a live holder refuses a second runner with BUSY naming its pid; nothing is written", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const other = yield* liveProcess
      const record = { pid: other.pid!, address: "127.0.0.1:4000", token: "theirs" }
      fs.writeFileSync(lockFile(dir), JSON.stringify(record))
      const error = yield* Effect.flip(RunnerLock.acquire(dir, "127.0.0.1:4001"))
      assert.strictEqual(error.code, "BUSY")
      assert.strictEqual(error.pid, other.pid)
      assert.include(error.message, String(other.pid))
      assert.deepStrictEqual(holder(dir), record)
      assert.deepStrictEqual(fs.readdirSync(dir), [RunnerLock.fileName])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("held by this process: a second acquire is BUSY; closing the scope removes the lock", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const scope = yield* Scope.make()
      const held = yield* RunnerLock.acquire(dir, "127.0.0.1:4000").pipe(Scope.extend(scope))
      assert.deepStrictEqual(holder(dir), held.record)
      assert.strictEqual(held.record.pid, process.pid)
      const error = yield* Effect.flip(RunnerLock.acquire(dir, "127.0.0.1:4001"))
      assert.deepStrictEqual([error.code, error.pid], ["BUSY", process.pid])
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(fs.existsSync(lockFile(dir)))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a dead pid's lock is stale and taken over", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const pid = deadPid()
      fs.writeFileSync(lockFile(dir), JSON.stringify({ pid, address: "127.0.0.1:4000", token: "gone" }))
      const held = yield* RunnerLock.acquire(dir, "127.0.0.1:4001")
      assert.deepStrictEqual(holder(dir), held.record)
      assert.deepStrictEqual(fs.readdirSync(dir), [RunnerLock.fileName])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a half-written or empty lock (killed mid-write) is stale and taken over, never a crash", () =>
    Effect.gen(function*() {
      for (const text of [`{"pid": ${process.pid}, "addr`, "", "\u0000\u0000", "[]", `{"pid": -1}`]) {
        const dir = yield* tempDir
        fs.writeFileSync(lockFile(dir), text)
        const scope = yield* Scope.make()
        const held = yield* RunnerLock.acquire(dir, "127.0.0.1:4001").pipe(Scope.extend(scope))
        assert.deepStrictEqual(holder(dir), held.record, JSON.stringify(text))
        yield* Scope.close(scope, Exit.void)
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("eight takers race for one stale lock: exactly one holds it, the others are BUSY", () =>
    Effect.gen(function*() {
      for (let round = 0; round < 5; round++) {
        const dir = yield* tempDir
        fs.writeFileSync(lockFile(dir), JSON.stringify({ pid: deadPid(), address: "127.0.0.1:4000", token: "gone" }))
        const scope = yield* Scope.make()
        const outcomes = yield* Effect.all(
          Array.from({ length: 8 }, (_, i) =>
            RunnerLock.acquire(dir, `127.0.0.1:${4001 + i}`).pipe(
              Scope.extend(scope),
              Effect.map((held) => held.record),
              Effect.catchTag("ClusterError", (e) => Effect.succeed(e.code))
            )),
          { concurrency: "unbounded" }
        )
        const winners = outcomes.filter((o) => typeof o !== "string")
        assert.strictEqual(winners.length, 1, JSON.stringify(outcomes))
        assert.deepStrictEqual(outcomes.filter((o) => o === "BUSY").length, 7)
        assert.deepStrictEqual(holder(dir), winners[0])
        assert.deepStrictEqual(fs.readdirSync(dir), [RunnerLock.fileName])
        yield* Scope.close(scope, Exit.void)
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a takeover guard left by a taker that died mid-takeover is stale too", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      fs.writeFileSync(lockFile(dir), JSON.stringify({ pid: deadPid(), address: "127.0.0.1:4000", token: "gone" }))
      fs.writeFileSync(`${lockFile(dir)}.takeover`, JSON.stringify({ pid: deadPid(), address: "x:1", token: "died" }))
      const held = yield* RunnerLock.acquire(dir, "127.0.0.1:4001")
      assert.deepStrictEqual(holder(dir), held.record)
      assert.deepStrictEqual(fs.readdirSync(dir), [RunnerLock.fileName])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("release leaves a lock that is no longer ours", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const scope = yield* Scope.make()
      yield* RunnerLock.acquire(dir, "127.0.0.1:4000").pipe(Scope.extend(scope))
      const successor = { pid: process.pid, address: "127.0.0.1:4002", token: "successor" }
      fs.writeFileSync(lockFile(dir), JSON.stringify(successor))
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(holder(dir), successor)
    }).pipe(Effect.provide(NodeContext.layer)))
})

const hasProc = fs.existsSync("/proc/sys/kernel/random/boot_id")

describe.skipIf(!hasProc)("RunnerLock on Linux: the pid's boot and start time", () => {
  const bootId = () => fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()
  // field 22 of /proc/<pid>/stat, counted after the command name's closing parenthesis
  const startedOf = (pid: number) => {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]!
  }

  it.scoped("a live pid with its own boot and start time holds the lock (BUSY); another boot or start time is stale", () =>
    Effect.gen(function*() {
      const other = yield* liveProcess
      const pid = other.pid!
      const base = { pid, address: "127.0.0.1:4000", token: "theirs" }
      const cases: ReadonlyArray<[RunnerLock.LockRecord, "BUSY" | "taken"]> = [
        [{ ...base, boot: bootId(), started: startedOf(pid) }, "BUSY"],
        [{ ...base, boot: "00000000-0000-0000-0000-000000000000", started: startedOf(pid) }, "taken"],
        [{ ...base, boot: bootId(), started: String(Number(startedOf(pid)) + 1) }, "taken"]
      ]
      for (const [record, expected] of cases) {
        const dir = yield* tempDir
        fs.writeFileSync(lockFile(dir), JSON.stringify(record))
        const scope = yield* Scope.make()
        const outcome = yield* RunnerLock.acquire(dir, "127.0.0.1:4001").pipe(
          Scope.extend(scope),
          Effect.map(() => "taken" as const),
          Effect.catchTag("ClusterError", (e) => Effect.succeed(e.code))
        )
        assert.strictEqual(outcome, expected, JSON.stringify(record))
        yield* Scope.close(scope, Exit.void)
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("the record names this process's boot and start time", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const held = yield* RunnerLock.acquire(dir, "127.0.0.1:4000")
      assert.deepStrictEqual([held.record.boot, held.record.started], [bootId(), startedOf(process.pid)])
    }).pipe(Effect.provide(NodeContext.layer)))
})
