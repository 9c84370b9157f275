/**
 * The process-level contract of DESIGN.md: run the CLI, render every failure as a typed error,
 * and map the outcome to an exit code (0 success, 1 negative result, 2 could not run).
 *
 * @since 0.1.0
 */
import * as CliConfig from "@effect/cli/CliConfig"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Cli from "./Cli.js"
import { CommandFailure, type ExitCode, NegativeResult } from "./CliError.js"

/**
 * Whether the raw arguments ask for JSON output. Read from argv directly because it must also
 * govern how a parse failure is reported.
 *
 * @since 0.1.0
 * @category utils
 */
export const wantsJson = (argv: ReadonlyArray<string>): boolean => argv.slice(2).includes("--json")

// @effect/cli writes its own help text for a parse error to stderr; under --json that text is
// replaced by the JSON error document.
const silentErrors = (console: Console.Console): Console.Console => ({
  ...console,
  error: () => Effect.void,
  unsafe: { ...console.unsafe, error: () => {} }
})

const ansi = /\u001b\[[0-9;]*m/g

const renderFailure = (json: boolean, failure: CommandFailure): Effect.Effect<void> =>
  json
    ? Console.error(JSON.stringify({
      error: failure.details === undefined
        ? { code: failure.code, message: failure.message }
        : { code: failure.code, message: failure.message, details: failure.details }
    }))
    : Console.error(`steward: ${failure.message}`)

const toFailure = (error: unknown): CommandFailure | NegativeResult | "printed" => {
  if (error instanceof CommandFailure || error instanceof NegativeResult) return error
  if (ValidationError.isValidationError(error)) {
    if (ValidationError.isHelpRequested(error)) return "printed"
    const message = "error" in error ? HelpDoc.toAnsiText(error.error).replace(ansi, "").trim() : String(error)
    return new CommandFailure({ code: "usage", message: message.length > 0 ? message : "invalid usage", exitCode: 2 })
  }
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
    const console = yield* Effect.console
    const outcome = yield* Cli.run(argv).pipe(
      // Help lists Steward's own options, not @effect/cli's built-ins (--wizard, --completions, …).
      Effect.provide(CliConfig.layer({ showBuiltIns: false })),
      json ? Effect.withConsole(silentErrors(console)) : (self) => self,
      Effect.sandbox,
      Effect.either
    )
    if (Either.isRight(outcome)) return 0 as ExitCode
    const cause = outcome.left
    if (Cause.isInterruptedOnly(cause)) return 2 as ExitCode
    const error = Cause.failureOption(cause).pipe((option) =>
      option._tag === "Some" ? option.value : Cause.squash(cause)
    )
    const failure = toFailure(error)
    if (failure === "printed") return 0 as ExitCode
    if (failure._tag === "NegativeResult") return 1 as ExitCode
    // A parse error in text mode was already printed by @effect/cli with its help text.
    const alreadyPrinted = !json && ValidationError.isValidationError(error)
    if (!alreadyPrinted) yield* renderFailure(json, failure)
    return failure.exitCode as ExitCode
  })
