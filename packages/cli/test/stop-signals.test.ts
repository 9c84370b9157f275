import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as StopSignals from "../src/internal/stopSignals.js"
import { stewardEntry } from "./support/stewardProcess.js"

// SIGINT exits 130 and SIGTERM 143 whenever the signal arrives, in every area.

const fakeHost = () => {
  const handlers = new Map<string, () => void>()
  const seen = { exits: [] as Array<number>, exitCode: undefined as number | undefined, reports: [] as Array<string> }
  const host: StopSignals.Host = {
    on: (signal, handler) => void handlers.set(signal, handler),
    exit: (code) => void seen.exits.push(code),
    setExitCode: (code) => void (seen.exitCode = code),
    report: (signal) => void seen.reports.push(signal)
  }
  return { host, seen, signal: (name: StopSignals.StopSignal) => handlers.get(name)!() }
}

const start = (command: Effect.Effect<number>) => () => {
  const fiber = Effect.runFork(command)
  return {
    interrupt: () => void Effect.runFork(Fiber.interrupt(fiber)),
    onEnd: (listener: (code: number) => void) =>
      fiber.addObserver((exit) => listener(Exit.isSuccess(exit) ? exit.value : 2))
  }
}

describe("stop signals (fake process)", () => {
  it.effect("a running command is interrupted, its scope closes, and the process exits 130", () =>
    Effect.gen(function*() {
      const { host, seen, signal } = fakeHost()
      const closed = yield* Deferred.make<void>()
      const stopper = StopSignals.install(host)
      stopper.run(start(Effect.never.pipe(Effect.ensuring(Deferred.succeed(closed, undefined)), Effect.as(0))))
      yield* Effect.yieldNow()
      signal("SIGINT")
      yield* Deferred.await(closed)
      yield* Effect.yieldNow()
      assert.deepStrictEqual(seen.exits, [130])
      assert.deepStrictEqual(seen.reports, ["SIGINT"])
      assert.isUndefined(seen.exitCode)
    }))

  it.effect("a signal after the command finished still exits 143, never 0", () =>
    Effect.gen(function*() {
      const { host, seen, signal } = fakeHost()
      const stopper = StopSignals.install(host)
      stopper.run(start(Effect.succeed(0)))
      yield* Effect.yieldNow()
      assert.strictEqual(seen.exitCode, 0)
      signal("SIGTERM")
      assert.deepStrictEqual(seen.exits, [143])
      assert.deepStrictEqual(seen.reports, ["SIGTERM"])
    }))

  it.effect("a signal while the modules load: the command never starts", () =>
    Effect.gen(function*() {
      const { host, seen, signal } = fakeHost()
      const stopper = StopSignals.install(host)
      signal("SIGTERM")
      let started = false
      stopper.run(() => {
        started = true
        return start(Effect.succeed(0))()
      })
      assert.isFalse(started)
      assert.deepStrictEqual(seen.exits, [143])
    }))

  it.effect("a second signal exits at once with the first one's code; no signal keeps the command's code", () =>
    Effect.gen(function*() {
      const stubborn = fakeHost()
      StopSignals.install(stubborn.host).run(start(Effect.uninterruptible(Effect.never)))
      yield* Effect.yieldNow()
      stubborn.signal("SIGTERM")
      stubborn.signal("SIGINT")
      assert.deepStrictEqual(stubborn.seen.exits, [143])
      const plain = fakeHost()
      StopSignals.install(plain.host).run(start(Effect.succeed(1)))
      yield* Effect.yieldNow()
      assert.strictEqual(plain.seen.exitCode, 1)
      assert.deepStrictEqual(plain.seen.exits, [])
    }))
})

// The real executable, outside the algal area (which has its own handlers): a command waiting on
// stdin is stopped; the state it would have written is not.
const collect = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: string | null; stderr: string }>((resolve) => {
    let stderr = ""
    child.stderr?.on("data", (d) => void (stderr += String(d)))
    child.on("close", (code, signal) => resolve({ code, signal, stderr }))
  })

const stewardWaitingOnStdin = (cwd: string) =>
  spawn(process.execPath, [
    ...stewardEntry,
    "policy",
    "check",
    "--tool",
    "mcp",
    "--name",
    "run",
    "--input",
    "-",
    "--json"
  ], { cwd, stdio: ["pipe", "pipe", "pipe"] })

describe("stop signals (the steward process)", () => {
  for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
    it(`policy check waiting on stdin: ${signal} exits ${code}, whenever it arrives`, async () => {
      // stdin never closes, so the command never ends by itself. A signal that lands before node
      // has run bin.ts kills the process (no exit code, as for any program): try again later. Every
      // exit code seen must be the signal's, and the last attempt must have one.
      const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "steward-stop-"))
      const codes: Array<number | null> = []
      for (const delay of [1_500, 4_000, 10_000, 30_000]) {
        const child = stewardWaitingOnStdin(cwd)
        const ended = collect(child)
        await new Promise((r) => setTimeout(r, delay))
        child.kill(signal)
        const result = await ended
        codes.push(result.code)
        if (result.code === null) continue
        assert.strictEqual(result.code, code, result.stderr)
        assert.strictEqual(JSON.parse(result.stderr.trim().split("\n").pop()!).error.code, "interrupted")
        break
      }
      assert.strictEqual(codes[codes.length - 1], code, `exit codes: ${codes.join(", ")}`)
      assert.isFalse(fs.existsSync(path.join(cwd, ".steward", "steward.sqlite")))
    }, 240_000)
  }
})
