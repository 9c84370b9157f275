/**
 * `steward session …`: governed agent sessions (`@steward/harness-sessions`) stored in the state
 * directory's SQLite database.
 *
 * - `run (--script FILE | --model PROVIDER:MODEL) [--goal TEXT] [--level L] [--workspace DIR]
 *   [--rules FILE] PROMPT` starts a session and runs the request to its settle.
 * - `list`, `show ID`, `events ID [--follow]` read sessions back (`--follow` tails an open run).
 * - `continue ID [PROMPT]` runs a new request in the session, or without a prompt re-drives the
 *   run a killed process left open (reusing its stored steps).
 * - `approve ID CALL [--remember]` runs a call that was refused for want of an approval;
 *   `--remember` saves a scoped rule and shows it.
 * - `verify ID` walks the session's managed-transition chain.
 *
 * A run that does not settle `completed`, and a failed verify, exit 1; bad input exits 2.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as FileSystem from "@effect/platform/FileSystem"
import { Autonomy, PolicyFile } from "@steward/governance-rules"
import { EventStore, Goal, HarnessError, Providers, ScriptedModel, Session, Tools } from "@steward/harness-sessions"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as os from "node:os"
import * as path from "node:path"
import { cannotRun, type CommandFailure, NegativeResult, refused } from "../../CliError.js"
import * as GlobalOptions from "../../GlobalOptions.js"
import * as HostSql from "../../HostSql.js"
import * as Output from "../../Output.js"
import * as StateDir from "../../StateDir.js"
import * as Render from "./render.js"

const exit1 = new Set<string>(["VERIFY_FAILED", "GOAL_REFUSED"])

/**
 * Map a harness error to the CLI (the domain code is the CLI error code).
 *
 * @since 0.1.0
 * @category errors
 */
export const fromHarness = (error: HarnessError.HarnessError): CommandFailure =>
  exit1.has(error.code) ? refused(error.code, error.message) : cannotRun(error.code, error.message)

const idArg = Args.text({ name: "ID" }).pipe(Args.withDescription("The session id"))

// How a session's model is rebuilt in a later command: `script:ABSOLUTE_PATH` or `PROVIDER:MODEL`.
const modelLayer = (spec: string, events: ReadonlyArray<{ readonly type: string; readonly data: unknown }>) => {
  // Commands that only read a session never call a model.
  if (spec === "none") return ScriptedModel.layer([])
  if (spec.startsWith("script:")) {
    const calls = events.filter((e) => e.type === "model.call").map((e) => (e.data as { for?: string }).for)
    return ScriptedModel.layerFromFile(spec.slice("script:".length), {
      agent: calls.filter((f) => f !== "checker").length,
      checker: calls.filter((f) => f === "checker").length
    })
  }
  return Goal.layerChecker.pipe(Layer.provideMerge(Providers.layer(spec)), Layer.provide(FetchHttpClient.layer))
}

/** The reflex engine of the state directory, its module loaded only when a verb needs it. */
const reflexEngine = (stateDir: Option.Option<string>) =>
  Layer.unwrapEffect(Effect.map(Effect.promise(() => import("../reflex/index.js")), (m) => m.engineLayer(stateDir)))

/** Open the state directory and run `body` with the sessions service for the session's model. */
const withSessions = <A, E, R>(
  stateDir: Option.Option<string>,
  spec: (
    store: EventStore.EventStore["Type"]
  ) => Effect.Effect<{ readonly model: string; readonly session?: string }, HarnessError.HarnessError>,
  body: (sessions: Session.Sessions["Type"]) => Effect.Effect<A, E, R>
) =>
  Effect.scoped(Effect.gen(function*() {
    const state = yield* StateDir.open(stateDir)
    const base = yield* Layer.build(EventStore.layerSql.pipe(Layer.provideMerge(HostSql.layer(state))))
    const store = Context.get(base, EventStore.EventStore)
    const chosen = yield* spec(store)
    // Only the model calls matter here (how far a script has been served).
    const events = chosen.session === undefined ? [] : yield* store.read(chosen.session, { types: ["model.call"] })
    // Read-only verbs never consult a reflex: they neither load nor build the reflex engine (start-up).
    const reflexes = spec === readOnly
      ? Option.none()
      : yield* Layer.build(reflexEngine(stateDir)).pipe(Effect.option)
    const deps = Layer.mergeAll(
      Layer.succeedContext(base),
      modelLayer(chosen.model, events),
      FetchHttpClient.layer,
      Tools.layerAskUserUnavailable,
      ...(Option.isSome(reflexes) ? [Layer.succeedContext(reflexes.value)] : [])
    )
    const ctx = yield* Layer.build(Session.layer({ modelName: chosen.model }).pipe(Layer.provide(deps)))
    return yield* body(Context.get(ctx, Session.Sessions))
  })).pipe(Effect.mapError((e) => e instanceof HarnessError.HarnessError ? fromHarness(e) : e))

const readOnly = () => Effect.succeed({ model: "none" })

/** The session's stored model spec. */
const storedModel = (id: string) => (store: EventStore.EventStore["Type"]) =>
  Effect.map(store.get(id), (row) => {
    const host = (row.meta as { host?: { model?: unknown } }).host
    return { model: typeof host?.model === "string" ? host.model : "none", session: id }
  })

const settled = (json: boolean, outcome: Session.RunOutcome) =>
  Effect.gen(function*() {
    yield* Output.result(json, outcome, Render.outcome)
    if (outcome.status !== "completed") {
      return yield* new NegativeResult({ reason: `run ${outcome.run} settled ${outcome.status}` })
    }
  })

const run = Command.make(
  "run",
  {
    ...GlobalOptions.global,
    script: Options.file("script", { exists: "yes" }).pipe(
      Options.withDescription("A scripted model: JSONL, one turn per line (text, toolCalls, usage)"),
      Options.optional
    ),
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
      Options.withDescription("Policy file (JSON or YAML) with project/user rules"),
      Options.optional
    ),
    prompt: Args.text({ name: "PROMPT" }).pipe(Args.withDescription("The request"))
  },
  (options) =>
    Effect.gen(function*() {
      if (Option.isSome(options.script) === Option.isSome(options.model)) {
        return yield* cannotRun("usage", "give exactly one of --script FILE or --model PROVIDER:MODEL")
      }
      const model = Option.match(options.script, {
        onSome: (file) => `script:${path.resolve(file)}`,
        onNone: () => Option.getOrThrow(options.model)
      })
      // Bad input is refused before anything is written.
      if (Option.isSome(options.model)) {
        yield* Effect.mapError(Providers.parseSpec(options.model.value), fromHarness)
      } else {
        const file = model.slice("script:".length)
        const fs = yield* FileSystem.FileSystem
        const text = yield* fs.readFileString(file).pipe(
          Effect.mapError((e) => cannotRun("io", `cannot read ${file}: ${e.message}`))
        )
        yield* Effect.mapError(ScriptedModel.parse(text, file), fromHarness)
      }
      const rulesFile = Option.getOrNull(options.rules)
      const doc = rulesFile === null ? null : yield* PolicyFile.load(path.resolve(rulesFile)).pipe(
        Effect.mapError((e) => cannotRun(e.code, e.message))
      )
      const rules = doc === null ? [] : (PolicyFile.toConfig(doc, rulesFile).rules ?? []).map((r) => ({
        id: r.id,
        action: r.action,
        resource: r.resource,
        effect: r.effect,
        ...(r.note === undefined ? {} : { note: r.note }),
        ...(r.except === undefined ? {} : { except: r.except })
      }))
      const level = Option.getOrElse(options.level, () => doc?.level ?? Autonomy.defaultLevel)
      yield* withSessions(options.stateDir, () => Effect.succeed({ model }), (sessions) =>
        Effect.gen(function*() {
          const created = yield* sessions.create({
            workspace: Option.getOrElse(options.workspace, () => process.cwd()),
            level,
            rules,
            host: { model }
          })
          yield* Output.progress(options.json, `session ${created.id}`)
          const outcome = yield* sessions.run(created.id, options.prompt, {
            ...(Option.isSome(options.goal) ? { goal: { objective: options.goal.value } } : {})
          })
          if (!options.json) yield* printTranscript(options.stateDir, outcome)
          return yield* settled(options.json, outcome)
        }))
    })
).pipe(Command.withDescription("Start a session and run the request to its settle (exit 1 unless it completes)"))

const printTranscript = (stateDir: Option.Option<string>, outcome: Session.RunOutcome) =>
  Effect.scoped(Effect.gen(function*() {
    const state = yield* StateDir.open(stateDir)
    const base = yield* Layer.build(EventStore.layerSql.pipe(Layer.provideMerge(HostSql.layer(state))))
    const events = yield* Context.get(base, EventStore.EventStore).read(outcome.session)
    yield* Console.log(Render.transcript(events.filter((e) => e.run === outcome.run)))
  })).pipe(Effect.catchTag("HarnessError", (e) => Effect.fail(fromHarness(e))))

const list = Command.make(
  "list",
  { ...GlobalOptions.global },
  (options) =>
    withSessions(
      options.stateDir,
      readOnly,
      (sessions) => Effect.flatMap(sessions.list, (views) => Output.result(options.json, views, Render.list))
    )
).pipe(
  Command.withDescription("List the sessions")
)

const show = Command.make(
  "show",
  { ...GlobalOptions.global, id: idArg },
  (options) =>
    withSessions(
      options.stateDir,
      readOnly,
      (sessions) => Effect.flatMap(sessions.show(options.id), (view) => Output.result(options.json, view, Render.view))
    )
).pipe(
  Command.withDescription("Show a session: its runs, goal, calls waiting for approval and remembered rules")
)

const events = Command.make(
  "events",
  {
    ...GlobalOptions.global,
    follow: Options.boolean("follow").pipe(Options.withDescription("Keep printing new events until no run is open")),
    id: idArg
  },
  (options) =>
    Effect.scoped(Effect.gen(function*() {
      const state = yield* StateDir.open(options.stateDir)
      const base = yield* Layer.build(EventStore.layerSql.pipe(Layer.provideMerge(HostSql.layer(state))))
      const store = Context.get(base, EventStore.EventStore)
      const stored = yield* store.read(options.id)
      if (!options.follow) {
        return yield* Output.result(options.json, stored, Render.transcript)
      }
      // Follow: one JSON event per line with --json; stop once no run is open.
      const open = new Set<string>()
      const track = (e: { readonly type: string; readonly run: string | null }) => {
        if (e.run === null) return
        if (e.type === "run.start") open.add(e.run)
        if (e.type === "run.settle") open.delete(e.run)
      }
      const print = (e: (typeof stored)[number]) => {
        const text = options.json ? JSON.stringify(e) : Render.line(e)
        return text === undefined ? Effect.void : Console.log(text)
      }
      for (const e of stored) {
        track(e)
        yield* print(e)
      }
      if (open.size === 0) return
      const last = stored.at(-1)?.seq ?? 0
      yield* EventStore.follow(options.id, { after: last }).pipe(
        Stream.tap((e) => Effect.zipRight(Effect.sync(() => track(e)), print(e))),
        Stream.takeUntil(() => open.size === 0),
        Stream.runDrain,
        Effect.provide(base)
      )
    })).pipe(Effect.catchTag("HarnessError", (e) => Effect.fail(fromHarness(e))))
).pipe(Command.withDescription("Print a session's events as a transcript (--json: the stored events)"))

const continueCommand = Command.make(
  "continue",
  {
    ...GlobalOptions.global,
    id: idArg,
    prompt: Args.text({ name: "PROMPT" }).pipe(
      Args.withDescription("A new request (omit it to re-drive a run a killed process left open)"),
      Args.optional
    )
  },
  (options) =>
    withSessions(options.stateDir, storedModel(options.id), (sessions) =>
      Effect.gen(function*() {
        const outcome = Option.isSome(options.prompt)
          ? yield* sessions.run(options.id, options.prompt.value)
          : yield* sessions.resume(options.id).pipe(
            Effect.mapError((e) =>
              e.code === "RUN_NOT_FOUND" ? cannotRun("usage", `${e.message}; give a PROMPT to run a new request`) : e
            )
          )
        if (!options.json) yield* printTranscript(options.stateDir, outcome)
        return yield* settled(options.json, outcome)
      }))
).pipe(Command.withDescription("Run a new request in a session, or resume the run a killed process left open"))

const approve = Command.make(
  "approve",
  {
    ...GlobalOptions.global,
    remember: Options.boolean("remember").pipe(
      Options.withDescription("Also save a rule allowing calls like this one in this session's workspace")
    ),
    id: idArg,
    call: Args.text({ name: "CALL" }).pipe(
      Args.withDescription("The call id waiting for approval (see `session show`)")
    )
  },
  (options) =>
    withSessions(options.stateDir, storedModel(options.id), (sessions) =>
      Effect.gen(function*() {
        const outcome = yield* sessions.approve(options.id, options.call, {
          remember: options.remember,
          by: os.userInfo().username
        })
        if (!options.json) {
          if (outcome.remembered !== null) {
            const r = outcome.remembered
            yield* Console.log(`saved rule ${r.id}: ${r.effect} ${r.action} ${JSON.stringify(r.resource)}`)
          }
          yield* printTranscript(options.stateDir, outcome)
        }
        return yield* settled(options.json, outcome)
      }))
).pipe(Command.withDescription("Approve a refused call: it runs now; --remember saves a scoped rule"))

const verify = Command.make(
  "verify",
  { ...GlobalOptions.global, id: idArg },
  (options) =>
    withSessions(options.stateDir, readOnly, (sessions) =>
      Effect.gen(function*() {
        const result = yield* sessions.verify(options.id)
        yield* Output.result(options.json, result, (r) =>
          r.verified
            ? `verified: ${r.revisions} revision(s), receipt ${r.receipt}`
            : `NOT verified: revision ${r.revision} of ${r.revisions} diverges: ${r.reason}`)
        if (!result.verified) {
          return yield* new NegativeResult({
            reason: `session ${options.id} does not verify at revision ${result.revision}`
          })
        }
      }))
).pipe(Command.withDescription("Verify the session's history chain back to revision 1 (exit 1 on divergence)"))

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("session").pipe(
  Command.withDescription("Governed agent sessions: run, list, show, events, continue, approve, verify"),
  Command.withSubcommands([run, list, show, events, continueCommand, approve, verify])
)
