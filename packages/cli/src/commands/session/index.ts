/**
 * `steward session …`: governed agent sessions (`@steward/harness-sessions`) stored in the state
 * directory's SQLite database.
 *
 * - `run (--script FILE | --model PROVIDER:MODEL) [--goal TEXT] [--level L] [--workspace DIR]
 *   [--rules FILE] [--sandbox on|off] PROMPT` starts a session and runs the request to its settle,
 *   printing each event as it is committed (`--json`: NDJSON, ending with the settle); with the
 *   sandbox on (the default, kept by the session) its shell calls run inside the OS boundary.
 * - `list`, `show ID`, `events ID [--follow]` read sessions back (`--follow` tails an open run
 *   until it settles, or until its owner's lease lapses: exit 1 `orphaned`); `--json` is NDJSON.
 * - `continue ID [PROMPT] [--script FILE]` runs a new request in the session, or without a prompt
 *   re-drives the run a killed process left open (reusing its stored steps).
 * - `approve ID CALL [--remember] [--scope PATTERN]` and `reject ID CALL [--reason TEXT]` answer
 *   the call a run is paused at (an ask nobody answered): the same run goes on from there, without
 *   a new model call. A piped `run` ends at a pause with exit 0; in a terminal it asks inline.
 * - `tools` prints every tool's name, description and input schema (what a script's calls give).
 * - `verify ID` walks the session's managed-transition chain.
 *
 * A run that settles other than `completed`, and a failed verify, exit 1; a pause exits 0; bad input exits 2.
 *
 * This module holds every verb's options and the verbs that only read the event store (`list`,
 * `show`, `events`): they load neither the session runner, a model, the governance engine nor
 * the reflexes. The verbs that run a session live in `sessions.ts`, loaded when one runs
 * (start-up; ADR 0004).
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Autonomy from "@steward/governance-rules/Autonomy"
import * as EventStore from "@steward/harness-sessions/EventStore"
import * as HarnessError from "@steward/harness-sessions/HarnessError"
import * as SessionViews from "@steward/harness-sessions/SessionViews"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { cannotRun, refused } from "../../CliError.js"
import * as GlobalOptions from "../../GlobalOptions.js"
import * as HostSql from "../../HostSql.js"
import * as Output from "../../Output.js"
import * as StateDir from "../../StateDir.js"
import { fromHarness } from "./errors.js"
import * as Render from "./render.js"

export { fromHarness } from "./errors.js"

const idArg = Args.text({ name: "ID" }).pipe(Args.withDescription("The session id"))

/** The verbs that run a session, loaded only when one of them runs. */
const sessions = Effect.promise(() => import("./sessions.js"))

/** Run `body` with the state directory's event store, read-only (no session runner). */
export const withStore = <A, E, R>(
  stateDir: Option.Option<string>,
  body: (store: EventStore.EventStore["Type"]) => Effect.Effect<A, E, R>
) =>
  Effect.scoped(Effect.gen(function*() {
    // Reading never writes: the store is opened read-only, unmigrated, so a read-only state
    // directory still lists, shows, follows and verifies.
    const state = yield* StateDir.openReadOnly(stateDir)
    const base = yield* Layer.build(EventStore.layerSqlReader.pipe(Layer.provideMerge(HostSql.layerReadOnly(state))))
    return yield* body(Context.get(base, EventStore.EventStore))
  })).pipe(Effect.mapError((e) => e instanceof HarnessError.HarnessError ? fromHarness(e) : e))

// a path, not `Options.file`: the parser's own check would stat the file; `BoundedFile` checks
// it when it is read (kind, size, in words; issue 16)
const scriptOption = (description: string) =>
  Options.text("script").pipe(Options.withPseudoName("FILE"), Options.withDescription(description), Options.optional)

const verbose = Options.boolean("verbose").pipe(
  Options.withAlias("v"),
  Options.withDescription("Print each refusal in full: its rule, pattern and reason")
)

const runOptions = {
  ...GlobalOptions.global,
  script: scriptOption("A scripted model: JSONL, one turn per line (docs/guides/scripted-model.md)"),
  verbose,
  model: Options.text("model").pipe(
    Options.withDescription("A real model: openai:MODEL or anthropic:MODEL (key from the environment)"),
    Options.optional
  ),
  goal: Options.text("goal").pipe(
    Options.withDescription("Run with a goal (objective ≤ 4,000 characters)"),
    Options.optional
  ),
  level: Options.choice("level", Autonomy.levels).pipe(
    Options.withDescription("Autonomy level: read_only, assist, execute (default), autonomous"),
    Options.optional
  ),
  workspace: Options.directory("workspace", { exists: "yes" }).pipe(
    Options.withDescription("Workspace root (default: the current directory)"),
    Options.optional
  ),
  rules: Options.file("rules", { exists: "yes" }).pipe(
    Options.withDescription("Policy file (JSON or YAML) with project/user rules and its sandbox section"),
    Options.optional
  ),
  sandbox: Options.choice("sandbox", ["on", "off"] as const).pipe(
    Options.withDefault("on" as const),
    Options.withDescription(
      "on (default): shell calls the gate allows run inside the OS sandbox; off: on the host, the gate alone decides"
    )
  ),
  prompt: Args.text({ name: "PROMPT" }).pipe(Args.withDescription("The request"))
} as const

/**
 * What `steward session run` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type RunOptions = Command.Command.ParseConfig<typeof runOptions>

const run = Command.make("run", runOptions, (options) => Effect.flatMap(sessions, (m) => m.run(options))).pipe(
  Command.withDescription("Start a session and run the request to its settle (exit 1 unless it completes)")
)

const list = Command.make(
  "list",
  { ...GlobalOptions.global },
  (options) =>
    withStore(
      options.stateDir,
      (store) => Effect.flatMap(SessionViews.list(store), (views) => Output.result(options.json, views, Render.list))
    )
).pipe(
  Command.withDescription("List the sessions")
)

const show = Command.make(
  "show",
  {
    ...GlobalOptions.global,
    id: idArg,
    call: Args.text({ name: "CALL" }).pipe(
      Args.withDescription("One call's events in full: its decision and rule, approval, refusal and result"),
      Args.optional
    )
  },
  (options) =>
    withStore(options.stateDir, (store) =>
      Option.match(options.call, {
        onNone: () =>
          Effect.flatMap(
            SessionViews.show(store, options.id),
            (view) => Output.result(options.json, view, Render.view)
          ),
        onSome: (call) =>
          Effect.gen(function*() {
            const events = (yield* store.read(options.id)).filter((e) =>
              (e.data as { readonly callId?: unknown } | null)?.callId === call
            )
            if (events.length === 0) {
              return yield* cannotRun("not-found", `session ${options.id} has no call ${call}`)
            }
            for (const e of events) yield* Render.print(options.json, true)(e)
          })
      }))
).pipe(
  Command.withDescription(
    "Show a session: its runs, goal, calls waiting for approval and remembered rules (with CALL: that call in full)"
  )
)

const events = Command.make(
  "events",
  {
    ...GlobalOptions.global,
    verbose,
    follow: Options.boolean("follow").pipe(
      Options.withDescription("Keep printing new events until no run is driven (settled, or paused for a person)")
    ),
    id: idArg
  },
  (options) =>
    withStore(options.stateDir, (store) =>
      Effect.gen(function*() {
        const print = Render.print(options.json, options.verbose)
        const stored = yield* store.read(options.id)
        // Follow: stop once no run is being driven. A run's settle ends it; so does its pause (it
        // waits for a person: ADR 0016), until an answer's events drive it again.
        const open = new Set<string>()
        const track = (e: { readonly type: string; readonly run: string | null }) => {
          if (e.run === null) return
          if (e.type === "run.settle" || e.type === "run.pause") open.delete(e.run)
          else open.add(e.run)
        }
        for (const e of stored) {
          track(e)
          yield* print(e)
        }
        if (!options.follow || open.size === 0) return
        const last = stored.at(-1)?.seq ?? 0
        // The follow also ends when nobody drives the open run any more (its owner's lease is
        // gone): it would never settle by itself.
        const orphaned = Effect.gen(function*() {
          while (true) {
            yield* Effect.sleep(Duration.millis(250))
            const view = yield* SessionViews.show(store, options.id)
            if (view.orphaned) return view
          }
        })
        const ended = yield* EventStore.follow(options.id, { after: last }).pipe(
          Stream.tap((e) => Effect.zipRight(Effect.sync(() => track(e)), print(e))),
          Stream.takeUntil(() => open.size === 0),
          Stream.runDrain,
          Effect.provideService(EventStore.EventStore, store),
          Effect.raceFirst(Effect.map(orphaned, (view) => view.orphaned)),
          Effect.map((orphan) => orphan === true)
        )
        if (ended) {
          return yield* refused(
            "orphaned",
            `session ${options.id}: the run's process is gone (no live lease); resume it with \`steward session continue ${options.id}\``
          )
        }
      }))
).pipe(
  Command.withDescription("Print a session's events as a transcript (--json: NDJSON, one stored event per line)")
)

const laterScript = scriptOption(
  "Serve the session's scripted model from this file instead (the whole script; served from where the session left it)"
)

const continueOptions = {
  ...GlobalOptions.global,
  script: laterScript,
  verbose,
  id: idArg,
  prompt: Args.text({ name: "PROMPT" }).pipe(
    Args.withDescription("A new request (omit it to re-drive a run a killed process left open)"),
    Args.optional
  )
} as const

/**
 * What `steward session continue` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type ContinueOptions = Command.Command.ParseConfig<typeof continueOptions>

const continueCommand = Command.make(
  "continue",
  continueOptions,
  (options) => Effect.flatMap(sessions, (m) => m.continueSession(options))
).pipe(Command.withDescription("Run a new request in a session, or resume the run a killed process left open"))

const approveOptions = {
  ...GlobalOptions.global,
  script: laterScript,
  verbose,
  remember: Options.boolean("remember").pipe(
    Options.withDescription("Also save the scope the pause showed as a rule (calls like this one run without asking)")
  ),
  scope: Options.text("scope").pipe(
    Options.withPseudoName("PATTERN"),
    Options.withDescription("Save this scope instead of the shown one (implies --remember; governance checks it)"),
    Options.optional
  ),
  id: idArg,
  call: Args.text({ name: "CALL" }).pipe(
    Args.withDescription("The call id the run is paused at (see `session show`)")
  )
} as const

/**
 * What `steward session approve` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type ApproveOptions = Command.Command.ParseConfig<typeof approveOptions>

const approve = Command.make(
  "approve",
  approveOptions,
  (options) => Effect.flatMap(sessions, (m) => m.approve(options))
)
  .pipe(
    Command.withDescription("Approve the call a run is paused at: the same run goes on; --remember saves its scope")
  )

const rejectOptions = {
  ...GlobalOptions.global,
  script: laterScript,
  verbose,
  reason: Options.text("reason").pipe(
    Options.withPseudoName("TEXT"),
    Options.withDescription("Why: the model reads it with the refusal"),
    Options.optional
  ),
  id: idArg,
  call: Args.text({ name: "CALL" }).pipe(Args.withDescription("The call id the run is paused at (see `session show`)"))
} as const

/**
 * What `steward session reject` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type RejectOptions = Command.Command.ParseConfig<typeof rejectOptions>

const reject = Command.make("reject", rejectOptions, (options) => Effect.flatMap(sessions, (m) => m.reject(options)))
  .pipe(Command.withDescription("Reject the call a run is paused at: the model reads why, and the same run goes on"))

const tools = Command.make(
  "tools",
  { ...GlobalOptions.global },
  (options) => Effect.flatMap(Effect.promise(() => import("./tools.js")), (m) => m.tools(options))
).pipe(
  Command.withDescription("Print every tool a session's model can call, with its input schema (--json: JSON Schema)")
)

const verifyOptions = { ...GlobalOptions.global, id: idArg } as const

/**
 * What `steward session verify` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type VerifyOptions = Command.Command.ParseConfig<typeof verifyOptions>

const verify = Command.make("verify", verifyOptions, (options) => Effect.flatMap(sessions, (m) => m.verify(options)))
  .pipe(Command.withDescription("Verify the session's history chain back to revision 1 (exit 1 on divergence)"))

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("session").pipe(
  Command.withDescription("Governed agent sessions: run, list, show, events, continue, approve, reject, verify, tools"),
  Command.withSubcommands([run, list, show, events, continueCommand, approve, reject, verify, tools])
)
