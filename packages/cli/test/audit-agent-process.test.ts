import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as AgentProcess from "../src/commands/audit/agentProcess.js"

// One audit session as a child process (issue 39): own process group, timeout → SIGTERM → grace →
// SIGKILL to the group, the prompt on stdin, exactly one outcome. Fake agents only (test/fixtures/agents).

const AGENTS = path.join(import.meta.dirname, "fixtures", "agents")
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "steward-agent-process-"))

const dispatch = (script: string, args: ReadonlyArray<string>, more: Partial<AgentProcess.Dispatch> = {}) =>
  Effect.flatMap(AgentProcess.AgentProcess, (agents) =>
    agents.run({
      executable: path.resolve(AGENTS, script),
      args,
      cwd: os.tmpdir(),
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      prompt: "",
      timeout: "30 seconds",
      grace: "5 seconds",
      ...more
    })).pipe(Effect.provide(AgentProcess.layer))

/** A process is gone when /proc has no entry for it or only its zombie. */
const gone = (pid: number): boolean => {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "").startsWith("Z")
  } catch {
    return true
  }
}

/** Wait (bounded) until every pid is gone; the kernel finishes a SIGKILL asynchronously. */
const allGone = (pids: ReadonlyArray<number>) =>
  Effect.gen(function*() {
    for (let i = 0; i < 100 && !pids.every(gone); i++) yield* Effect.sleep("20 millis")
    return pids.every(gone)
  })

/** The pids a fake agent wrote to `file`, once it has. */
const pidsIn = (file: string) =>
  Effect.gen(function*() {
    while (!fs.existsSync(file)) yield* Effect.sleep("10 millis")
    return fs.readFileSync(file, "utf8").trim().split(" ").map(Number)
  })

describe("AgentProcess", () => {
  it.live("ok: the prompt reaches the agent on stdin; stdout and stderr are its log", () =>
    Effect.gen(function*() {
      const charter = "You are the Auditor. Charter: P-01 — ünïcode and\nlines\n"
      const result = yield* dispatch("echo-prompt.sh", ["exec", "-"], { prompt: charter })
      assert.strictEqual(result.outcome, "ok")
      assert.strictEqual(result.exitStatus, 0)
      assert.isNull(result.signal)
      const log = Buffer.from(result.log).toString("utf8")
      assert.include(log, "args: exec -\n")
      assert.include(log, charter)
      assert.include(log, "stderr line")
      assert.isFalse(result.logTruncated)
    }))

  it.live("a non-zero exit is crash unless the agent's table names it; a signal of its own is crash", () =>
    Effect.gen(function*() {
      const table = { 3: "provider-error", 4: "refused", 5: "blocked" } as const
      for (const [status, outcome] of [[1, "crash"], [3, "provider-error"], [4, "refused"], [5, "blocked"]] as const) {
        const result = yield* dispatch("exit-with.sh", [String(status)], { exitOutcomes: table })
        assert.strictEqual(result.outcome, outcome, `exit ${status}`)
        assert.strictEqual(result.exitStatus, status)
      }
      const segv = yield* dispatch("self-signal.sh", [])
      assert.strictEqual(segv.outcome, "crash")
      assert.strictEqual(segv.signal, "SIGSEGV")
      assert.strictEqual(segv.exitStatus, -os.constants.signals.SIGSEGV)
    }))

  it.live("timeout: an agent that ignores SIGTERM and forks is SIGKILLed with its group; nothing is left", () =>
    Effect.gen(function*() {
      const file = path.join(tmp(), "pids")
      const result = yield* dispatch("stubborn.sh", [file], { timeout: "1 second", grace: "300 millis" })
      assert.strictEqual(result.outcome, "timeout")
      assert.strictEqual(result.signal, "SIGKILL")
      const pids = yield* pidsIn(file)
      assert.lengthOf(pids, 2)
      assert.isTrue(yield* allGone(pids), `left behind: ${pids.filter((p) => !gone(p)).join(" ")}`)
    }))

  it.live("cancelled: the cancel stops the group politely; an ok agent's forked child is killed too", () =>
    Effect.gen(function*() {
      const dir = tmp()
      const cancel = yield* Deferred.make<void>()
      const file = path.join(dir, "pids")
      const fiber = yield* Effect.fork(dispatch("polite.sh", [file], { cancel: Deferred.await(cancel) }))
      const pids = yield* pidsIn(file)
      yield* Deferred.succeed(cancel, undefined)
      const result = yield* fiber.await.pipe(Effect.flatten)
      assert.strictEqual(result.outcome, "cancelled")
      assert.strictEqual(result.exitStatus, 0, "the agent exited on SIGTERM within the grace")
      assert.isTrue(yield* allGone(pids))

      const finished = path.join(dir, "finished")
      const ok = yield* dispatch("polite.sh", [finished, "finish"])
      assert.strictEqual(ok.outcome, "ok")
      assert.isTrue(yield* allGone(yield* pidsIn(finished)), "the background child outlived an ok session")
    }))

  it.live("the log is bounded and says it was cut", () =>
    Effect.gen(function*() {
      const result = yield* dispatch("echo-prompt.sh", [], { prompt: "x".repeat(100_000), maxLogBytes: 1000 })
      assert.strictEqual(result.outcome, "ok")
      assert.strictEqual(result.log.length, 1000)
      assert.isTrue(result.logTruncated)
    }))

  it.live("an executable that is missing or not executable is a typed error naming it", () =>
    Effect.gen(function*() {
      const missing = yield* Effect.flip(dispatch("no-such-agent.sh", []))
      assert.strictEqual(missing.code, "not-found")
      assert.include(missing.message, "no-such-agent.sh")
      const file = path.join(tmp(), "plain.sh")
      fs.writeFileSync(file, "#!/bin/sh\nexit 0\n", { mode: 0o644 })
      const plain = yield* Effect.flip(dispatch(file, []))
      assert.strictEqual(plain.code, "not-executable")
    }))
})
