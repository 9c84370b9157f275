/**
 * How a harness error becomes a CLI failure: the domain code is the CLI error code; a refused
 * goal, a failed verify and a session another process drives (`BUSY`) are negative results
 * (exit 1), every other code is bad input or a failure to run (exit 2).
 *
 * @since 0.1.0
 */
import type * as HarnessError from "@steward/harness-sessions/HarnessError"
import { cannotRun, type CommandFailure, refused } from "../../CliError.js"

const exit1 = new Set<string>(["VERIFY_FAILED", "GOAL_REFUSED", "BUSY"])

/**
 * Map a harness error to the CLI (the domain code is the CLI error code).
 *
 * @since 0.1.0
 * @category errors
 */
export const fromHarness = (error: HarnessError.HarnessError): CommandFailure =>
  exit1.has(error.code) ? refused(error.code, error.message) : cannotRun(error.code, error.message)
