/**
 * The process-level contract of DESIGN.md: run the CLI, render every failure as a typed error,
 * and map the outcome to an exit code (0 success, 1 negative result, 2 could not run).
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Cli from "./Cli.js"
import { ChildExit, CommandFailure, type ExitCode, NegativeResult } from "./CliError.js"
import * as ErrorCodes from "./ErrorCodes.js"
import * as GlobalOptions from "./GlobalOptions.js"
import * as HostDatabase from "./HostDatabase.js"
import * as PlatformText from "./PlatformText.js"
import * as StateDir from "./StateDir.js"

/**
 * Whether the raw arguments ask for JSON output (`--json` before any `--`). Read from argv
 * directly because it must also govern how a usage error is reported.
 *
 * @since 0.1.0
 * @category utils
 */
export const wantsJson = (argv: ReadonlyArray<string>): boolean => {
  const args = argv.slice(2)
  const end = args.indexOf("--")
  return (end === -1 ? args : args.slice(0, end)).includes("--json")
}

/**
 * The value of `--database-url` (as `--database-url URL` or `--database-url=URL`, before any
 * `--`), read from argv so every command opens the same database whatever its own options are.
 *
 * @since 0.1.0
 * @category utils
 */
export const databaseUrlFlag = (argv: ReadonlyArray<string>): string | undefined =>
  GlobalOptions.valueIn(argv, "database-url")

// Every area's code is mapped onto the one vocabulary here; the area's own code stays as `reason`.
const renderFailure = (json: boolean, failure: CommandFailure): Effect.Effect<void> => {
  const message = PlatformText.humanize(failure.message)
  if (!json) return Console.error(`steward: ${message}`)
  const mapped = ErrorCodes.toCli(failure.code, failure.exitCode)
  // an area's read error that was a missing file is `not-found`, whatever the area called it
  const code = mapped === "io" && PlatformText.isNotFound(failure.message) ? "not-found" : mapped
  return Console.error(JSON.stringify({
    error: {
      code,
      ...(code === failure.code ? {} : { reason: failure.code }),
      message,
      ...(failure.details === undefined ? {} : { details: failure.details })
    }
  }))
}

const toFailure = (error: unknown): CommandFailure | NegativeResult => {
  if (error instanceof CommandFailure || error instanceof NegativeResult) return error
  const message = error instanceof Error ? error.message : String(error)
  return new CommandFailure({ code: "internal", message, exitCode: 2 })
}

/**
 * Run the CLI and return its exit code. Never fails and never lets a defect escape: an
 * unexpected defect is reported as an `internal` error (exit 2) without a stack trace.
 *
 * @since 0.1.0
 * @category runners
 */
export const main = (argv: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const json = wantsJson(argv)
    const databaseUrl = databaseUrlFlag(argv)
    const stateDir = StateDir.stateDirFlag(argv)
    const outcome = yield* Cli.run(argv).pipe(
      databaseUrl === undefined
        ? (effect) => effect
        : Effect.provideService(HostDatabase.DatabaseUrlFlag, Redacted.make(databaseUrl)),
      Option.isNone(stateDir) ? (effect) => effect : Effect.provideService(StateDir.StateDirFlag, stateDir.value),
      Effect.sandbox,
      Effect.either
    )
    if (Either.isRight(outcome)) return 0 as ExitCode
    const cause = outcome.left
    if (Cause.isInterruptedOnly(cause)) return 2 as ExitCode
    const error = Cause.failureOption(cause).pipe((option) =>
      option._tag === "Some" ? option.value : Cause.squash(cause)
    )
    // `steward sandbox`: the wrapped command's own status (any byte, not only 0/1/2)
    if (error instanceof ChildExit) return error.status as ExitCode
    const failure = toFailure(error)
    if (failure._tag === "NegativeResult") return 1 as ExitCode
    yield* renderFailure(json, failure)
    return failure.exitCode as ExitCode
  })
