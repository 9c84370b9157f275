/**
 * `steward reflex …`: status, decide, features, reply, label, train, import, rollback, replay and
 * check for the route and settle reflexes (`@steward/reflex-core`).
 *
 * Bad input (usage, an unreadable file, an invalid import line, an invalid config entry) exits 2
 * with the reflex error code and writes nothing; a rejected program (`check`) and a replay that
 * does not match exit 1.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as GlobalOptions from "../../GlobalOptions.js"
import { decideCommand, featuresCommand } from "./decide.js"
import { names } from "./engine.js"
import { checkCommand, importCommand } from "./importCheck.js"
import { labelCommand, replayCommand, replyCommand, rollbackCommand, trainCommand } from "./learning.js"
import { statusCommand, statusOf } from "./status.js"

export {
  /**
   * The engine for a state directory: its config entry, custom organisms and SQLite ledger.
   *
   * @since 0.1.0
   * @category layers
   */
  engineLayer,
  /**
   * Map a reflex error to the CLI (the domain code is the CLI error code).
   *
   * @since 0.1.0
   * @category errors
   */
  fromReflex
} from "./engine.js"

/**
 * `steward reflex` (bare: status of all reflexes).
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make(
  "reflex",
  { ...GlobalOptions.global },
  ({ json, stateDir }) => statusOf(stateDir, json, names)
).pipe(
  Command.withDescription("Route and settle reflexes that prove themselves before they act"),
  Command.withSubcommands([
    statusCommand,
    decideCommand,
    featuresCommand,
    replyCommand,
    labelCommand,
    trainCommand,
    importCommand,
    rollbackCommand,
    replayCommand,
    checkCommand
  ])
)
