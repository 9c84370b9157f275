/**
 * One audit session dispatched to an agent as a child process (issue 39): the agent runs in its
 * own process group with the prompt on its stdin; a timeout or a cancel sends SIGTERM to the
 * group, waits a grace period, then SIGKILLs the group; whatever ends the session, the group is
 * SIGKILLed before the result is returned, so nothing the agent forked outlives it. The session
 * ends in exactly one outcome (ADR 0012).
 *
 * Node's `child_process` is used directly: the platform `Command` has no process groups.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { type ChildProcess, spawn } from "node:child_process"
import { constants } from "node:os"

/**
 * How a dispatched session ended (xcheck's outcomes, without `stalled`, which only the built-in
 * harness reports).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Outcome = Schema.Literal("ok", "refused", "blocked", "provider-error", "timeout", "crash", "cancelled")

/**
 * @since 0.1.0
 * @category models
 */
export type Outcome = typeof Outcome.Type

/**
 * The outcomes an agent can report through its exit status (the rest come from how it ended).
 *
 * @since 0.1.0
 * @category models
 */
export type ReportedOutcome = "refused" | "blocked" | "provider-error"

/**
 * What to run.
 *
 * @since 0.1.0
 * @category models
 */
export interface Dispatch {
  readonly executable: string
  readonly args: ReadonlyArray<string>
  readonly cwd: string
  /** The child's whole environment: nothing of Steward's own is inherited implicitly. */
  readonly env: Readonly<Record<string, string>>
  /** Written to the agent's stdin, which is then closed. */
  readonly prompt: string
  readonly timeout: Duration.DurationInput
  /** Between SIGTERM and SIGKILL. */
  readonly grace: Duration.DurationInput
  /** Non-zero exit statuses this agent uses for a reported outcome; any other non-zero is `crash`. */
  readonly exitOutcomes?: Readonly<Record<number, ReportedOutcome>>
  /** Completes when the operator cancels the session (`cancelled`). */
  readonly cancel?: Effect.Effect<void>
  /** The most log bytes kept (stdout and stderr interleaved); default 16 MiB. */
  readonly maxLogBytes?: number
}

/**
 * How the session ended. `exitStatus` is the exit code, or minus the signal number when a signal
 * ended the agent (xcheck's signed `exit_status`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Result {
  readonly outcome: Outcome
  readonly exitStatus: number | null
  readonly signal: NodeJS.Signals | null
  readonly durationMs: number
  readonly log: Uint8Array
  readonly logTruncated: boolean
}

/**
 * The agent could not be started.
 *
 * @since 0.1.0
 * @category errors
 */
export class AgentProcessError extends Schema.TaggedError<AgentProcessError>()("AgentProcessError", {
  code: Schema.Literal("not-found", "not-executable", "spawn-failed"),
  executable: Schema.String,
  message: Schema.String
}) {}

/**
 * The service that dispatches sessions.
 *
 * @since 0.1.0
 * @category services
 */
export class AgentProcess extends Context.Tag("@steward/cli/AgentProcess")<AgentProcess, {
  readonly run: (dispatch: Dispatch) => Effect.Effect<Result, AgentProcessError>
}>() {}

interface Exit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

const killGroup = (child: ChildProcess, signal: NodeJS.Signals) =>
  Effect.sync(() => {
    try {
      process.kill(-child.pid!, signal)
    } catch {
      // ESRCH: the group is already gone
    }
  })

const start = (d: Dispatch) =>
  Effect.async<{ readonly child: ChildProcess; readonly exited: Deferred.Deferred<Exit> }, AgentProcessError>(
    (resume) => {
      const child = spawn(d.executable, [...d.args], {
        cwd: d.cwd,
        env: { ...d.env },
        detached: true,
        stdio: ["pipe", "pipe", "pipe"]
      })
      const exited = Deferred.unsafeMake<Exit>(FiberId.none)
      child.once("exit", (code, signal) => Deferred.unsafeDone(exited, Effect.succeed({ code, signal })))
      child.once("error", (error: NodeJS.ErrnoException) =>
        resume(Effect.fail(
          new AgentProcessError({
            code: error.code === "ENOENT" ? "not-found" : error.code === "EACCES" ? "not-executable" : "spawn-failed",
            executable: d.executable,
            message: `cannot start ${d.executable}: ${error.message}`
          })
        )))
      child.once("spawn", () => {
        child.stdin!.on("error", () => {}) // an agent that never reads its prompt closes the pipe early
        child.stdin!.end(d.prompt)
        resume(Effect.succeed({ child, exited }))
      })
    }
  )

const collectLog = (child: ChildProcess, max: number) => {
  const chunks: Array<Buffer> = []
  let size = 0
  let truncated = false
  const take = (chunk: Buffer) => {
    if (size >= max) {
      truncated = true
      return
    }
    const kept = chunk.subarray(0, max - size)
    if (kept.length < chunk.length) truncated = true
    chunks.push(kept)
    size += kept.length
  }
  child.stdout!.on("data", take)
  child.stderr!.on("data", take)
  return () => ({ log: new Uint8Array(Buffer.concat(chunks)), truncated })
}

/** SIGTERM to the group, the grace period, then SIGKILL; resolves when the leader has exited. */
const stop = (child: ChildProcess, exited: Deferred.Deferred<Exit>, grace: Duration.DurationInput) =>
  killGroup(child, "SIGTERM").pipe(
    Effect.zipRight(Effect.timeout(Deferred.await(exited), grace)),
    Effect.catchTag("TimeoutException", () => killGroup(child, "SIGKILL").pipe(Effect.zipRight(Deferred.await(exited))))
  )

const signalNumber = (signal: NodeJS.Signals): number => constants.signals[signal] ?? 0

const classify = (exit: Exit, table: Readonly<Record<number, ReportedOutcome>>): Outcome =>
  exit.signal !== null ? "crash" : exit.code === 0 ? "ok" : table[exit.code ?? -1] ?? "crash"

const run = Effect.fn("AgentProcess.run")(function*(d: Dispatch) {
  const started = yield* Clock.currentTimeMillis
  return yield* Effect.acquireUseRelease(
    start(d),
    ({ child, exited }) =>
      Effect.gen(function*() {
        const log = collectLog(child, d.maxLogBytes ?? 16 * 1024 * 1024)
        // a watcher names why the session is being stopped before it signals the group, so the
        // leader's exit that follows is classified by the stop, not by its status
        let stopped: "timeout" | "cancelled" | undefined
        const watch = (why: "timeout" | "cancelled", when: Effect.Effect<void>) =>
          when.pipe(
            Effect.zipRight(Effect.sync(() => (stopped ??= why))),
            Effect.zipRight(stop(child, exited, d.grace))
          )
        const watchers = yield* Effect.forkAll(
          [watch("timeout", Effect.sleep(d.timeout)), ...(d.cancel === undefined ? [] : [watch("cancelled", d.cancel)])]
        )
        const exit = yield* Deferred.await(exited)
        yield* Fiber.interrupt(watchers)
        const outcome = stopped
        const { log: bytes, truncated } = log()
        return {
          outcome: outcome ?? classify(exit, d.exitOutcomes ?? {}),
          exitStatus: exit.signal !== null ? -signalNumber(exit.signal) : exit.code,
          signal: exit.signal,
          durationMs: (yield* Clock.currentTimeMillis) - started,
          log: bytes,
          logTruncated: truncated
        } satisfies Result
      }),
    // whatever ended the session (an interrupt included), nothing in its group outlives it
    ({ child }) => killGroup(child, "SIGKILL")
  )
})

/**
 * The service on this host's processes.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<AgentProcess> = Layer.succeed(AgentProcess, { run })
