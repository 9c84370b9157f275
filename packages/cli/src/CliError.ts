/**
 * The CLI's error surface: every failure a command can end with, and the exit code it maps to.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"

/**
 * The closed set of codes the CLI shell itself produces. Area commands may carry a domain code
 * (e.g. `GRAPH_CYCLE` from `@steward/algal-runtime`) instead; those come from their packages'
 * own closed sets.
 *
 * @since 0.1.0
 * @category models
 */
export type ShellErrorCode =
  | "usage"
  | "invalid-input"
  | "io"
  | "state-dir"
  | "config"
  | "sqlite"
  | "internal"

/**
 * Exit codes of DESIGN.md: 0 success, 1 a negative result, 2 could not run.
 *
 * @since 0.1.0
 * @category models
 */
export type ExitCode = 0 | 1 | 2

/**
 * A command that could not run (exit 2) or ended with a refused or failed result (exit 1).
 * Rendered as `{"error":{"code","message"}}` on stderr under `--json`, as one line otherwise.
 *
 * @since 0.1.0
 * @category errors
 */
export class CommandFailure extends Data.TaggedError("CommandFailure")<{
  readonly code: ShellErrorCode | (string & {})
  readonly message: string
  readonly exitCode: 1 | 2
  /** Extra structured detail (a field path, a line number, every violated rule). */
  readonly details?: unknown
}> {}

/**
 * The command already printed its (negative) result: exit 1 without printing anything more.
 * Used for a failed run, a verify mismatch, a policy test with mismatches.
 *
 * @since 0.1.0
 * @category errors
 */
export class NegativeResult extends Data.TaggedError("NegativeResult")<{
  readonly reason: string
}> {}

/**
 * Could not run: bad input, usage, IO. Exit code 2.
 *
 * @since 0.1.0
 * @category constructors
 */
export const cannotRun = (code: CommandFailure["code"], message: string, details?: unknown): CommandFailure =>
  new CommandFailure(details === undefined ? { code, message, exitCode: 2 } : { code, message, exitCode: 2, details })

/**
 * A refused or failed outcome. Exit code 1.
 *
 * @since 0.1.0
 * @category constructors
 */
export const refused = (code: CommandFailure["code"], message: string, details?: unknown): CommandFailure =>
  new CommandFailure(details === undefined ? { code, message, exitCode: 1 } : { code, message, exitCode: 1, details })

/**
 * A command that ran a child process ends with the child's exit status (`steward sandbox`):
 * nothing more is printed.
 *
 * @since 0.1.0
 * @category errors
 */
export class ChildExit extends Data.TaggedError("ChildExit")<{
  readonly status: number
}> {}
