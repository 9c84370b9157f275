/**
 * The session verbs that run or re-check a session — `run`, `continue`, `approve`, `verify` —
 * with the session runner, the session's model and the reflex engine. `index.ts` declares their
 * options and loads this module only when one of them runs (start-up; ADR 0004).
 *
 * @since 0.1.0
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as AlgalRuntime from "@steward/algal-runtime/AlgalRuntime"
import * as Autonomy from "@steward/governance-rules/Autonomy"
import * as PolicyFile from "@steward/governance-rules/PolicyFile"
import * as Sandbox from "@steward/governance-rules/Sandbox"
import type * as Event from "@steward/harness-sessions/Event"
import * as EventStore from "@steward/harness-sessions/EventStore"
import * as Goal from "@steward/harness-sessions/Goal"
import * as HarnessError from "@steward/harness-sessions/HarnessError"
import * as History from "@steward/harness-sessions/History"
import * as Providers from "@steward/harness-sessions/Providers"
import * as RunStream from "@steward/harness-sessions/RunStream"
import * as ScriptedModel from "@steward/harness-sessions/ScriptedModel"
import * as Session from "@steward/harness-sessions/Session"
import * as Tools from "@steward/harness-sessions/Tools"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as os from "node:os"
import * as path from "node:path"
import { cannotRun, type CommandFailure, refused } from "../../CliError.js"
import * as HostSql from "../../HostSql.js"
import * as ScriptFile from "../../internal/scriptFile.js"
import * as Output from "../../Output.js"
import * as StateDir from "../../StateDir.js"
import * as Answer from "./answer.js"
import { fromHarness } from "./errors.js"
import {
  type ApproveOptions,
  type ContinueOptions,
  type RejectOptions,
  type RunOptions,
  type VerifyOptions,
  withStore
} from "./index.js"
import * as Live from "./live.js"

// How a session's model is rebuilt in a later command: `script:ABSOLUTE_PATH` or `PROVIDER:MODEL`.
const modelLayer = (spec: string, events: ReadonlyArray<{ readonly type: string; readonly data: unknown }>) => {
  // Commands that only re-check a session never call a model.
  if (spec === "none") return ScriptedModel.layer([])
  if (spec.startsWith("script:")) {
    const file = spec.slice("script:".length)
    // the turns the stored model calls were served (a failed call serves none: ADR 0574)
    const offsets = ScriptedModel.position(events)
    // read boundedly by the CLI (issue 16), then served from where the stored calls left it
    return Layer.unwrapEffect(
      Effect.map(ScriptFile.read(file), (text) => ScriptedModel.layerFromText(text, offsets, file))
    )
  }
  // The model's client speaks `node:http`: Node's `fetch` compiles its whole HTTP stack (undici,
  // HTTP/2) on its first call, which was most of the time before a session's first model call
  // (ADR 0009). Tools keep `fetch` (redirects, web semantics).
  return Goal.layerChecker.pipe(Layer.provideMerge(Providers.layer(spec)), Layer.provide(NodeHttpClient.layer))
}

/**
 * The reflex engine of the state directory, its module loaded only when a verb needs it: the
 * engine's own module, not the reflex area's command tree (its verbs, renderers and HTML report are
 * not needed before a session's first model call; ADR 0009).
 */
const reflexEngine = (stateDir: Option.Option<string>) =>
  Layer.unwrapEffect(Effect.map(Effect.promise(() => import("../reflex/engine.js")), (m) => m.engineLayer(stateDir)))

/** Open the state directory and run `body` with the sessions service for the session's model. */
const withSessions = <A, E, R, RS = never>(
  stateDir: Option.Option<string>,
  spec: (
    store: EventStore.EventStore["Type"]
  ) => Effect.Effect<
    { readonly model: string; readonly session?: string; readonly sandbox?: "on" | "off" },
    HarnessError.HarnessError | CommandFailure,
    RS
  >,
  body: (services: Context.Context<Session.Sessions | EventStore.EventStore>) => Effect.Effect<A, E, R>
) =>
  Effect.scoped(Effect.gen(function*() {
    const state = yield* StateDir.open(stateDir)
    const base = yield* Layer.build(EventStore.layerSql.pipe(Layer.provideMerge(HostSql.layer(state))))
    const store = Context.get(base, EventStore.EventStore)
    const chosen = yield* spec(store)
    // Only the model calls matter here (how far a script has been served).
    const events = chosen.session === undefined ? [] : yield* store.read(chosen.session, { types: ["model.call"] })
    // A verb that never runs a request never consults a reflex: it neither loads nor builds the engine.
    const reflexes = spec === noModel
      ? Option.none()
      : yield* Layer.build(reflexEngine(stateDir)).pipe(Effect.option)
    const deps = Layer.mergeAll(
      Layer.succeedContext(base),
      modelLayer(chosen.model, events),
      FetchHttpClient.layer,
      Tools.layerAskUserUnavailable,
      // The OS boundary under the gate (bubblewrap on Linux; unavailable elsewhere: the gate alone);
      // its availability probe is kept in the state directory, so a start spawns no trial bubblewrap.
      Sandbox.layer({ probeCache: state.path }),
      ...(Option.isSome(reflexes) ? [Layer.succeedContext(reflexes.value)] : [])
    )
    const ctx = yield* Layer.build(
      Session.layer({ modelName: chosen.model, home: os.homedir(), sandbox: chosen.sandbox ?? "on" }).pipe(
        Layer.provide(deps)
      )
    )
    return yield* body(Context.add(ctx, EventStore.EventStore, store))
  })).pipe(Effect.mapError((e) => e instanceof HarnessError.HarnessError ? fromHarness(e) : e))

const noModel = () => Effect.succeed({ model: "none" })

/**
 * The session's stored model spec, or (`--script FILE` on `continue`/`approve`) that script
 * instead: only for a scripted session, checked before anything runs, and served from where the
 * session's stored model calls left the script (the file is the whole script, as at `run`).
 */
const storedModel = (id: string, script: Option.Option<string>) => (store: EventStore.EventStore["Type"]) =>
  Effect.gen(function*() {
    const row = yield* store.get(id)
    const host = (row.meta as { host?: { model?: unknown; sandbox?: unknown } }).host
    const stored = typeof host?.model === "string" ? host.model : "none"
    const sandbox = host?.sandbox === "off" ? "off" as const : "on" as const
    if (Option.isNone(script)) return { model: stored, session: id, sandbox }
    if (!stored.startsWith("script:")) {
      return yield* cannotRun("usage", `session ${id} runs the model ${stored}; --script applies to a scripted session`)
    }
    const file = path.resolve(script.value)
    yield* ScriptedModel.parse(yield* ScriptFile.read(file), file)
    return { model: `script:${file}`, session: id, sandbox }
  })

/**
 * Drive a run and print it; then, while it is paused and a person is at this terminal (text
 * output), ask inline and drive the answer in the same run (ADR 0016). Piped, or under `--json`,
 * a pause ends the command with exit 0 and the lines saying how to answer.
 */
const answering = <R>(
  options: Live.PrintOptions,
  session: string,
  events: Stream.Stream<Event.SessionEvent, HarnessError.HarnessError | CommandFailure, R>,
  services: Context.Context<R>
) =>
  Effect.gen(function*() {
    let last = yield* Live.drive(options, events, services)
    if (options.json || !Answer.interactive()) return yield* Live.exit(last)
    const prompt = yield* Answer.Prompt
    const by = os.userInfo().username
    while (last.type === "run.pause") {
      const d = last.data as { readonly callId: string; readonly scope?: unknown; readonly unscoped?: unknown }
      const shown = typeof d.scope === "string" ? d.scope : undefined
      const reply = yield* prompt.ask(Answer.question(shown))
      // end of input: the run stays paused, answerable later (the pause's lines said how)
      if (Option.isNone(reply)) break
      const answer = Answer.parse(reply.value, shown, typeof d.unscoped === "string" ? d.unscoped : undefined)
      if (answer._tag === "Unclear") {
        yield* Console.log(`  ${answer.why}`)
        continue
      }
      const next = yield* Live.drive(
        options,
        answer._tag === "Reject"
          ? RunStream.reject(session, d.callId, {
            by,
            ...(answer.reason === undefined ? {} : { reason: answer.reason })
          })
          : RunStream.approve(session, d.callId, {
            by,
            ...(answer._tag === "Always" ? { remember: true, scope: answer.scope } : {})
          }),
        services as Context.Context<Session.Sessions | EventStore.EventStore>
      ).pipe(
        // a scope governance does not honour is said, and asked again; the run stays paused
        Effect.catchIf(
          (e): e is HarnessError.HarnessError => e instanceof HarnessError.HarnessError && e.code === "INVALID_INPUT",
          (e) => Effect.as(Console.log(`  ${e.message}`), last)
        )
      )
      last = next
    }
    return yield* Live.exit(last)
  }).pipe(Effect.provide(Answer.layerTerminal))

/**
 * `steward session run …`: start a session and run the request to its settle.
 *
 * @since 0.1.0
 * @category commands
 */
export const run = (options: RunOptions) =>
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
      const text = yield* ScriptFile.read(file)
      yield* Effect.mapError(ScriptedModel.parse(text, file), fromHarness)
    }
    // The goal and the prompt too: a refused goal must not leave an empty session behind.
    if (Option.isSome(options.goal)) {
      yield* Effect.mapError(Goal.validate({ objective: options.goal.value }), fromHarness)
    }
    if (options.prompt.trim() === "") return yield* cannotRun("invalid-input", "the prompt is empty")
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
    yield* withSessions(options.stateDir, () =>
      Effect.succeed({ model, sandbox: options.sandbox }), (services) =>
      Effect.gen(function*() {
        const created = yield* Context.get(services, Session.Sessions).create({
          workspace: Option.getOrElse(options.workspace, () =>
            process.cwd()),
          level,
          rules,
          ...(doc?.sandbox === undefined ? {} : { sandbox: doc.sandbox }),
          host: { model, sandbox: options.sandbox }
        })
        yield* Live.header(options.json, created.id)
        return yield* answering(
          options,
          created.id,
          RunStream.run(created.id, options.prompt, {
            ...(Option.isSome(options.goal) ? { goal: { objective: options.goal.value } } : {})
          }),
          services
        )
      }))
  })

/**
 * `steward session continue ID [PROMPT]`: a new request, or re-drive the run a killed process left open.
 *
 * @since 0.1.0
 * @category commands
 */
export const continueSession = (options: ContinueOptions) =>
  withSessions(options.stateDir, storedModel(options.id, options.script), (services) =>
    answering(
      options,
      options.id,
      Option.isSome(options.prompt)
        ? RunStream.run(options.id, options.prompt.value)
        : RunStream.resume(options.id).pipe(
          Stream.mapError((e) =>
            e.code === "RUN_NOT_FOUND" ? cannotRun("usage", `${e.message}; give a PROMPT to run a new request`) : e
          )
        ),
      services
    ))

/**
 * `steward session approve ID CALL [--remember] [--scope PATTERN]`: approve the call a run is
 * paused at; the same run goes on from there (no new model call), printed as it goes. With
 * `--remember` the scope the pause showed is saved as a rule (`--scope` saves another, checked
 * by governance); the run's notice says which. A later pause asks inline in a terminal.
 *
 * @since 0.1.0
 * @category commands
 */
export const approve = (options: ApproveOptions) =>
  withSessions(options.stateDir, storedModel(options.id, options.script), (services) =>
    answering(
      options,
      options.id,
      RunStream.approve(options.id, options.call, {
        remember: options.remember || Option.isSome(options.scope),
        ...(Option.isSome(options.scope) ? { scope: options.scope.value } : {}),
        by: os.userInfo().username
      }),
      services
    ))

/**
 * `steward session reject ID CALL [--reason TEXT]`: reject the call a run is paused at; the model
 * reads the refusal with the reason in the same run, which goes on from there, printed as it goes.
 *
 * @since 0.1.0
 * @category commands
 */
export const reject = (options: RejectOptions) =>
  withSessions(options.stateDir, storedModel(options.id, options.script), (services) =>
    answering(
      options,
      options.id,
      RunStream.reject(options.id, options.call, {
        by: os.userInfo().username,
        ...(Option.isSome(options.reason) ? { reason: options.reason.value } : {})
      }),
      services
    ))

/**
 * `steward session verify ID`: walk the session's history chain back to revision 1.
 *
 * @since 0.1.0
 * @category commands
 */
export const verify = (options: VerifyOptions) =>
  withStore(options.stateDir, (store) =>
    Effect.gen(function*() {
      const result = yield* History.verifyStored(store, options.id).pipe(Effect.provide(AlgalRuntime.layer))
      yield* Output.result(options.json, result, (r) =>
        r.verified
          ? `verified: ${r.revisions} revision(s), receipt ${r.receipt}`
          : `NOT verified: revision ${r.revision} of ${r.revisions} diverges: ${r.reason}`)
      if (!result.verified) {
        return yield* refused(
          "mismatch",
          `session ${options.id} does not verify at revision ${result.revision}${
            result.seq === undefined ? "" : ` (stored event seq ${result.seq ?? "?"} is damaged)`
          }`
        )
      }
    }))
