/**
 * The reviewer's settings, apart from the reviewer (which spawns a process): a session's stored
 * settings decode them, and reading a session must not load process spawning (start-up; ADR 0004).
 */
import * as Schema from "effect/Schema"

/** The command (argv) and its timeout (re-exported as `Reviewer.Config`). */
export const Config = Schema.Struct({
  command: Schema.NonEmptyArray(Schema.String),
  timeoutMs: Schema.optional(Schema.Int.pipe(Schema.between(1, 600_000)))
})

/** The type of the reviewer's settings. */
export type Config = typeof Config.Type
