/**
 * The `steward` command tree. Each area lives in `commands/<area>.ts` and is registered here.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Algal from "./commands/algal/index.js"
import * as Audit from "./commands/audit.js"
import * as Doctor from "./commands/doctor.js"
import * as Policy from "./commands/policy.js"
import * as Reflex from "./commands/reflex/index.js"
import { cliVersion } from "./internal/versions.js"

/**
 * The root command.
 *
 * @since 0.1.0
 * @category commands
 */
export const root = Command.make("steward").pipe(
  Command.withDescription("Steward: reflexes, bounded agent programs, audits and governance for coding agents"),
  // Areas: one module each under commands/. Keep this list in `steward --help` order.
  Command.withSubcommands([
    Algal.command,
    Audit.command,
    Doctor.command,
    Policy.command,
    Reflex.command
  ])
)

/**
 * Parse `argv` (as `process.argv`: node, script, then arguments) and run the matching command.
 *
 * @since 0.1.0
 * @category runners
 */
export const run = Command.run(root, { name: "steward", version: cliVersion() })
