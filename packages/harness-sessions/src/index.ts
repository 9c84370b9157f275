/**
 * `@steward/harness-sessions`: governed agent sessions. Each request becomes a run that calls a
 * model, executes the tool calls governance allows, lets certified reflexes continue stopped-short
 * turns, and settles with a status and a checkpoint, all in one ordered, persisted event stream.
 *
 * @since 0.1.0
 */

/**
 * The package's one error type.
 *
 * @since 0.1.0
 */
export * as HarnessError from "./HarnessError.js"

/**
 * Tools a session's model may call (each named for governance), and the default toolkit.
 *
 * @since 0.1.0
 */
export * as Tools from "./Tools.js"

/**
 * The system prompt as budgeted sections: a stable, digested prefix and request-time sections.
 *
 * @since 0.1.0
 */
export * as PromptCompiler from "./PromptCompiler.js"
