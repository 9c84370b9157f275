/**
 * The `steward audit loop` command: its options and description. The loop's body (harness
 * sessions, models, the audit tools) lives in `loop.ts` and is loaded only when `loop` runs, so the
 * other audit verbs never load the harness (start-up; ADR 0004).
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as GlobalOptions from "../../GlobalOptions.js"

const loopOptions = {
  ...GlobalOptions.global,
  project: Options.directory("project", { exists: "yes" }).pipe(
    Options.withPseudoName("DIR"),
    Options.withDescription("The audited project (an existing folder; holds audit/); default: the current directory"),
    Options.optional
  ),
  step: Options.boolean("step").pipe(Options.withDescription("Run one session, print the next decision, stop")),
  maxSessions: Options.integer("max-sessions").pipe(
    Options.withDescription("Stop after N sessions (default: max_sessions in orchestrator.conf, else 20)"),
    Options.optional
  ),
  // a path, not `Options.file`: the parser's own check would stat the file; `BoundedFile` checks
  // it when it is read (kind, size, in words; issue 16)
  script: Options.text("script").pipe(
    Options.withPseudoName("FILE"),
    Options.withDescription("A scripted model: JSONL harness turns, each with the role it answers"),
    Options.optional
  ),
  agents: Options.boolean("agents").pipe(
    Options.withDescription(
      "Dispatch each role to its agent from the profile's role map (codex, claude-code, gemini or steward)"
    )
  ),
  model: Options.text("model").pipe(
    Options.withDescription("A real model: openai:MODEL or anthropic:MODEL (key from the environment)"),
    Options.optional
  )
} as const

/**
 * What `steward audit loop` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type LoopOptions = Command.Command.ParseConfig<typeof loopOptions>

/**
 * `steward audit loop …`
 *
 * @since 0.1.0
 * @category commands
 */
export const loop = Command.make(
  "loop",
  loopOptions,
  (options) => Effect.flatMap(Effect.promise(() => import("./loop.js")), (body) => body.run(options))
).pipe(
  Command.withDescription(
    "Run next's sessions (on the built-in harness, or each role on its agent with --agents) until the person must decide"
  )
)
