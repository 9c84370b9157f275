/**
 * `shell`: one command through `sh -c` in the workspace, via the platform `CommandExecutor`.
 * stdout and stderr are merged in arrival order and bounded. The time budget follows the
 * harness contract: 120 s when the call states none, at most 300 s without a reason, never
 * more than 900 s. A timeout stops the whole process group and returns what was printed so far
 * with an instruction to narrow the command, so the model adjusts instead of retrying blindly.
 *
 * @internal
 */
import * as Command from "@effect/platform/Command"
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as HarnessError from "../../HarnessError.js"
import type * as Tools from "../../Tools.js"
import * as ContainedShell from "./containedShell.js"
import { Collector } from "./output.js"
import * as Supervised from "./supervised.js"

/** @internal */
export const defaultSeconds = 120
/** @internal */
export const unexplainedCeilingSeconds = 300
/** @internal */
export const maxSeconds = 900

/** @internal */
export const fields = {
  command: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100_000)).annotations({
    description: "The command line, run with sh -c in the workspace root"
  }),
  timeoutSeconds: Schema.optional(
    Schema.Int.pipe(Schema.between(1, 86_400)).annotations({
      description:
        `Time budget in seconds (default ${defaultSeconds}; over ${unexplainedCeilingSeconds} needs a reason; at most ${maxSeconds})`
    })
  ),
  reason: Schema.optional(
    Schema.String.pipe(Schema.maxLength(1000)).annotations({ description: "Why the command needs a long budget" })
  )
}

/**
 * The budget a call gets, and a note when the request was lowered.
 *
 * @internal
 */
export const budget = (
  requested: number | undefined,
  reason: string | undefined
): { readonly seconds: number; readonly note?: string } => {
  if (requested === undefined) return { seconds: defaultSeconds }
  const explained = reason !== undefined && reason.trim() !== ""
  const ceiling = explained ? maxSeconds : unexplainedCeilingSeconds
  if (requested <= ceiling) return { seconds: requested }
  return {
    seconds: ceiling,
    note: explained
      ? `time budget lowered to the maximum of ${maxSeconds} s`
      : `time budget lowered to ${unexplainedCeilingSeconds} s; state a reason to allow up to ${maxSeconds} s`
  }
}

/** How long to wait for the pipes to close after the shell itself exited (background jobs). */
const drainGrace = Duration.seconds(2)

const narrow = (seconds: number) =>
  `[timed out after ${seconds} s; the command was stopped and the output above is partial. ` +
  `Narrow it before running it again: one test file or package instead of all, a filter or a limit, ` +
  `fewer iterations, or a stated reason with a longer timeoutSeconds (at most ${maxSeconds}).]`

const strayNote = "[background processes still writing to this output were stopped when the command ended; " +
  "to keep one running, redirect its output to a file (cmd > log 2>&1 &)]"

const failed = (command: string) => (error: unknown) =>
  new HarnessError.HarnessError({
    code: "TOOL_FAILED",
    message: `shell: could not run ${JSON.stringify(command)}: ${String(error)}`
  })

/** @internal */
export const tool: Tools.Tool<typeof fields, CommandExecutor.CommandExecutor> = {
  name: "shell",
  description:
    "Run a shell command in the workspace root and return its combined stdout and stderr with the exit code. Prefer focused commands (one test file, a filtered search) over whole-repository ones.",
  input: Schema.Struct(fields),
  governance: (input) => ({ tool: "shell", command: input.command }),
  execute: (input, context) =>
    Effect.gen(function*() {
      const { note, seconds } = budget(input.timeoutSeconds, input.reason)
      if (context.sandbox !== undefined) {
        const result = yield* ContainedShell.run(context.sandbox, context.workspace, input.command, seconds, narrow)
        return note === undefined ? result : { ...result, output: `[${note}]\n${result.output}` }
      }
      const executor = yield* CommandExecutor.CommandExecutor
      const command = Supervised.command(input.command).pipe(
        Command.workingDirectory(context.workspace),
        Command.stdin(Stream.empty)
      )
      const process = yield* executor.start(command).pipe(Effect.mapError(failed(input.command)))
      const collector = new Collector()
      const text = (stream: Stream.Stream<Uint8Array, unknown>) => stream.pipe(Stream.decodeText())
      const drain = yield* Stream.merge(text(process.stdout), text(process.stderr)).pipe(
        Stream.runForEach((chunk) => Effect.sync(() => collector.push(chunk))),
        Effect.ignore,
        Effect.fork
      )
      const exitCode = yield* process.exitCode.pipe(
        Effect.mapError(failed(input.command)),
        Effect.timeoutOption(Duration.seconds(seconds))
      )
      if (Option.isNone(exitCode)) yield* process.kill("SIGKILL").pipe(Effect.ignore)
      // A background job still holding the output pipes after the shell exited would outlive the
      // call unseen: stop the process group (detached jobs that redirect their output are not
      // waited for, and this is what the note tells the model).
      const drained = yield* Fiber.join(drain).pipe(Effect.timeoutOption(drainGrace))
      const stray = Option.isSome(exitCode) && Option.isNone(drained)
      if (stray) yield* process.kill("SIGKILL").pipe(Effect.ignore)
      yield* Fiber.interrupt(drain)
      const printed = collector.result()
      const prefix = note === undefined ? "" : `[${note}]\n`
      const suffix = stray ? `\n${strayNote}` : ""
      const truncated = printed.truncated ? { truncated: true } : {}
      if (Option.isNone(exitCode)) {
        return { ok: false, output: `${prefix}${printed.text}\n${narrow(seconds)}`, timedOut: true, ...truncated }
      }
      const code = Number(exitCode.value)
      return {
        ok: code === 0,
        output: `${prefix}${printed.text}${
          printed.text.endsWith("\n") || printed.text === "" ? "" : "\n"
        }[exit code ${code}]${suffix}`,
        check: { command: input.command, exitCode: code },
        ...truncated
      }
    }).pipe(Effect.scoped)
}
