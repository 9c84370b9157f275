/**
 * `steward algal …`: check, digest, canonicalize, explain, run and verify ALGAL organisms.
 *
 * Invalid programs and unreadable files exit 2 with the ALGAL error code; a run whose outcome is
 * not `complete` and a verify with mismatches exit 1 after printing their result. Each family of
 * verbs is its own module (`inspect`, `run`, `verify`, `expr`, `suite`); every file they read goes
 * through `io` (the CLI's bounded reader).
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Expr from "./expr.js"
import * as Inspect from "./inspect.js"
import * as Io from "./io.js"
import * as Run from "./run.js"
import * as Suite from "./suite.js"
import * as Verify from "./verify.js"

/**
 * Read a JSON file strictly (bounded like a receipt: 64 MiB, depth ≤ 64, no duplicate keys).
 *
 * @since 0.1.0
 * @category io
 */
export const readJson = (file: string) => Io.readJson(file, Io.limits.receipt)

/**
 * Embedded manifests for organism/repeat/each cells from a directory, by digest.
 *
 * @since 0.1.0
 * @category io
 */
export const loadManifests = Io.loadManifests

/**
 * The `explain` document: resolved cells, ports and edges.
 *
 * @since 0.1.0
 * @category models
 */
export const explainDoc = Inspect.explainDoc

/**
 * The `algal` command group.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("algal").pipe(
  Command.withDescription(
    "ALGAL organisms: check, digest, canonical, explain, run, resume, verify, replay, expr, suite"
  ),
  Command.withSubcommands([
    ...Inspect.commands,
    ...Run.commands,
    ...Verify.commands,
    Expr.command,
    Suite.make({
      readText: Io.readSuite,
      readJson: (file) => Io.readJson(file, Io.limits.manifest),
      loadManifests: Io.loadManifests
    })
  ])
)
