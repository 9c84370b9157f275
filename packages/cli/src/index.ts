/**
 * @since 0.1.0
 */

/**
 * The process-level entry: run argv, get an exit code.
 *
 * @since 0.1.0
 */
export * as Main from "./Main.js"

/**
 * The `steward` command tree.
 *
 * @since 0.1.0
 */
export * as Cli from "./Cli.js"

/**
 * Errors and exit codes.
 *
 * @since 0.1.0
 */
export * as CliError from "./CliError.js"

/**
 * Options every command accepts.
 *
 * @since 0.1.0
 */
export * as GlobalOptions from "./GlobalOptions.js"

/**
 * The state directory.
 *
 * @since 0.1.0
 */
export * as StateDir from "./StateDir.js"

/**
 * `config.json`.
 *
 * @since 0.1.0
 */
export * as HostConfig from "./HostConfig.js"

/**
 * The embedded SQLite database.
 *
 * @since 0.1.0
 */
export * as HostSql from "./HostSql.js"

/**
 * Printing results.
 *
 * @since 0.1.0
 */
export * as Output from "./Output.js"
