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

/**
 * The events of a session's one ordered stream (types, redaction).
 *
 * @since 0.1.0
 */
export * as Event from "./Event.js"

/**
 * The session store: events, step results and managed-transition revisions (`layerSql`,
 * `layerMemory`), with a live tail.
 *
 * @since 0.1.0
 */
export * as EventStore from "./EventStore.js"

/**
 * A scripted `LanguageModel` (JSONL, one turn per line) for hosts' own tests.
 *
 * @since 0.1.0
 */
export * as ScriptedModel from "./ScriptedModel.js"

/**
 * The opt-in goal loop: objective validation, the separate checker, continuation prompts.
 *
 * @since 0.1.0
 */
export * as Goal from "./Goal.js"

/**
 * OpenAI and Anthropic `LanguageModel` layers chosen by `PROVIDER:MODEL`.
 *
 * @since 0.1.0
 */
export * as Providers from "./Providers.js"

/**
 * Sessions and runs: the governed run loop, settle statuses, approvals, resume and verify.
 *
 * @since 0.1.0
 */
export * as Session from "./Session.js"

/**
 * Read-only views of stored sessions from the event store alone (no model, engine or runtime).
 *
 * @since 0.1.0
 */
export * as SessionViews from "./SessionViews.js"

/**
 * A run as an Effect `Stream` of its events as they are committed, ending with its settle.
 *
 * @since 0.1.0
 */
export * as RunStream from "./RunStream.js"

/**
 * A session's events as transcript lines (what the CLI prints), pure functions of an event.
 *
 * @since 0.1.0
 */
export * as TranscriptText from "./TranscriptText.js"

/**
 * An event as one NDJSON line, and back.
 *
 * @since 0.1.0
 */
export * as EventJson from "./EventJson.js"

/**
 * Replayable run history: settles and continuations as managed transitions, and `verify`.
 *
 * @since 0.1.0
 */
export * as History from "./History.js"

/**
 * Harness-written checkpoints, bounded in size.
 *
 * @since 0.1.0
 */
export * as Checkpoint from "./Checkpoint.js"

/**
 * The work-slice guard.
 *
 * @since 0.1.0
 */
export * as WorkSlice from "./WorkSlice.js"

/**
 * Token and cost budgets.
 *
 * @since 0.1.0
 */
export * as Budget from "./Budget.js"

/**
 * The optional reviewer command that answers asks before a person is asked.
 *
 * @since 0.1.0
 */
export * as Reviewer from "./Reviewer.js"

/**
 * The bounds a run keeps under hostile input (stored text, event size, tool input, invalid calls).
 *
 * @since 0.1.0
 */
export * as Limits from "./Limits.js"
