/**
 * Sessions and runs. A session holds runs in order, each a person's request carried to a settle:
 * `completed`, `interrupted` with a terminal code (`slice_complete`, `unfinished`,
 * `needs_person`, `aborted`), or `failed`. An ask nobody can answer pauses the run at that call,
 * durably (`paused`, ADR 0573); `approve` or `reject` resumes the same run there, with no new
 * model call. Every tool call passes governance at one chokepoint;
 * every step is committed to the session's one event stream with its stored result, so a killed
 * run can be re-driven (`resume`) without repeating work, or settled `aborted` when the session is
 * reopened (`reopen`). Settles and continuations are managed transitions (`verify`).
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { NodeContext } from "@effect/platform-node"
 * import { EventStore, ScriptedModel, Session } from "@steward/harness-sessions"
 *
 * const program = Effect.gen(function*() {
 *   const sessions = yield* Session.Sessions
 *   const { id } = yield* sessions.create({ workspace: process.cwd() })
 *   const outcome = yield* sessions.run(id, "List the files")
 *   return outcome.status // "completed"
 * }).pipe(Effect.provide(Session.layer().pipe(
 *   Layer.provideMerge(Layer.mergeAll(EventStore.layerMemory, ScriptedModel.layerFromText(`{"text":"Done."}`), NodeContext.layer))
 * )))
 * ```
 *
 * @since 0.1.0
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as AlgalRuntime from "@steward/algal-runtime/AlgalRuntime"
import type * as Autonomy from "@steward/governance-rules/Autonomy"
import type * as Hooks from "@steward/governance-rules/Hooks"
import * as Responder from "@steward/governance-rules/Responder"
import type * as Rule from "@steward/governance-rules/Rule"
import * as Sandbox from "@steward/governance-rules/Sandbox"
import type * as SandboxProfile from "@steward/governance-rules/SandboxProfile"
import * as ShellParser from "@steward/governance-rules/ShellParser"
import * as Reflexes from "@steward/reflex-core/Reflexes"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import type * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as os from "node:os"
import type * as Budget from "./Budget.js"
import type * as Checkpoint from "./Checkpoint.js"
import * as EventStore from "./EventStore.js"
import * as Goal from "./Goal.js"
import { HarnessError } from "./HarnessError.js"
import * as History from "./History.js"
import * as Meta from "./internal/meta.js"
import * as Ownership from "./internal/ownership.js"
import * as Runner from "./internal/runner.js"
import * as Transcript from "./internal/transcript.js"
import * as Verbs from "./internal/verbs.js"
import * as Limits from "./Limits.js"
import * as PromptCompiler from "./PromptCompiler.js"
import type * as Reviewer from "./Reviewer.js"
import * as SessionViews from "./SessionViews.js"
import * as Tools from "./Tools.js"
import type * as WorkSlice from "./WorkSlice.js"

/**
 * Options of the service (defaults for every session).
 *
 * @since 0.1.0
 * @category models
 */
export interface Options<R = Tools.DefaultRequirements> {
  /** The toolkit (default `Tools.defaults`). */
  readonly tools?: ReadonlyArray<Tools.Tool<any, R>>
  /** Extra lifecycle hooks, after governance-rules' built-ins. */
  readonly hooks?: ReadonlyArray<Hooks.Hook>
  /** The prompt compiler's configuration. */
  readonly prompt?: unknown
  /** The model's name in events and the price table (default `model`). */
  readonly modelName?: string
  /** Models by route tier; the route reflex picks one for a session's first run. */
  readonly tiers?: Partial<Record<"frontier" | "standard", LanguageModel.Service>>
  /**
   * The home directory the engine and the hooks resolve `~` against: explicit, else the `HOME`
   * value of the host's `ConfigProvider` (`INVALID_INPUT` when neither says) — the library never
   * asks the operating system.
   */
  readonly home?: string
  /** Bounds under hostile input: stored text, event size, tool input size, invalid calls in a row. */
  readonly limits?: Limits.Config
  /**
   * The session lease this service's runs hold (ADR 0558): `ttl` how long one renewal holds
   * (default: `STEWARD_SESSION_LEASE` of the host's `ConfigProvider`, else 30 seconds), `owner`
   * the id other processes are told (default: host name, process id and a random tag).
   */
  readonly lease?: { readonly ttl?: Duration.DurationInput; readonly owner?: string }
  /**
   * The OS boundary under the gate (issue 31, ADR 0563). With a `Sandbox` service in the layer's
   * context (`Sandbox.layer()` from governance-rules) and `"on"` (the default), every shell call
   * the gate allows runs inside the sandbox, and what the analyser cannot resolve is allowed there
   * (`sandbox.contained`) instead of asked; asks a person grants run on the host. `"off"`, no
   * service, or a boundary that cannot be built here: the gate's decision alone (fail closed).
   */
  readonly sandbox?: "on" | "off"
}

/**
 * A new session.
 *
 * @since 0.1.0
 * @category models
 */
export interface CreateOptions {
  readonly id?: string
  readonly workspace: string
  readonly level?: Autonomy.Level
  readonly rules?: ReadonlyArray<Rule.RuleInput>
  readonly workSlice?: WorkSlice.Config
  readonly budget?: Budget.Config
  readonly reviewer?: Reviewer.Config
  /** The policy's `sandbox` section (allowed domains, loopback ports, limits, protected paths). */
  readonly sandbox?: SandboxProfile.SandboxPolicy
  /** Whatever the host keeps with the session (e.g. how to rebuild its model). */
  readonly host?: Readonly<Record<string, unknown>>
}

/**
 * A run's options.
 *
 * @since 0.1.0
 * @category models
 */
export interface RunOptions {
  /** A goal (`Goal.Spec`): only for a person's own top-level, non-plan run. */
  readonly goal?: unknown
  readonly plan?: boolean
  readonly unattended?: boolean
  readonly parent?: string
  /** Completing it stops the run between steps (`interrupted{aborted}`). */
  readonly abort?: Deferred.Deferred<void>
  /**
   * Completed with the run's id once it is fixed: under the session's lease, before the run's
   * first commit (what `RunStream.run` follows).
   */
  readonly started?: Deferred.Deferred<string>
}

/**
 * How a drive of a run ended: its settle, or `paused` at an ask nobody could answer (the run
 * stays open; `pending` is the call it waits on, answered by `approve` or `reject`).
 *
 * @since 0.1.0
 * @category models
 */
export interface RunOutcome {
  readonly session: string
  readonly run: string
  readonly status: "completed" | "interrupted" | "failed" | "paused"
  readonly code: string | null
  readonly reason: string | null
  readonly checkpoint: Checkpoint.Checkpoint
  /** The call a paused run waits on (null unless `status` is `paused`). */
  readonly pending: Transcript.PendingCall | null
}

/**
 * What `approve` or `reject` answered, saved and drove: the same run, from the answered call to
 * its settle or its next pause.
 *
 * @since 0.1.0
 * @category models
 */
export interface ApproveOutcome extends RunOutcome {
  readonly callId: string
  /** The rule saved by approve-and-remember, as stored (its exact scope). */
  readonly remembered: Rule.RuleInput | null
}

/**
 * How a person approves a paused call.
 *
 * @since 0.1.0
 * @category models
 */
export interface ApproveOptions {
  /** Also save a rule allowing calls in the scope shown on the pause (`run.pause`'s `scope`). */
  readonly remember?: boolean
  /** The scope to save instead of the shown one (implies `remember`). */
  readonly scope?: string
  readonly by?: string
  readonly abort?: Deferred.Deferred<void>
  readonly started?: Deferred.Deferred<string>
}

/**
 * How a person rejects a paused call.
 *
 * @since 0.1.0
 * @category models
 */
export interface RejectOptions {
  /** Why: the model reads it with the refusal. */
  readonly reason?: string
  readonly by?: string
  readonly abort?: Deferred.Deferred<void>
  readonly started?: Deferred.Deferred<string>
}

/**
 * A session's view.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionView {
  readonly id: string
  readonly createdAt: number
  readonly workspace: string
  readonly level: Autonomy.Level
  readonly events: number
  readonly runs: ReadonlyArray<Transcript.RunView>
  readonly goal: { readonly objective: string; readonly status: string } | null
  readonly remembered: ReadonlyArray<Rule.RuleInput>
  readonly pending: ReadonlyArray<Transcript.PendingCall>
  /** The session in one line of a list (`SessionViews.Summary`). */
  readonly summary: SessionViews.Summary
  readonly host: Readonly<Record<string, unknown>>
  /** The process driving the session now (its lease is live), or null. */
  readonly owner: { readonly id: string; readonly expires: number } | null
  /** A run is open and nobody holds a live lease: its process is gone. */
  readonly orphaned: boolean
}

/**
 * The sessions service.
 *
 * @since 0.1.0
 * @category tags
 */
export class Sessions extends Context.Tag("@steward/harness-sessions/Sessions")<Sessions, {
  readonly create: (options: CreateOptions) => Effect.Effect<SessionView, HarnessError>
  /**
   * Run a person's request to its settle, or to a pause at an ask nobody can answer. An earlier
   * run a killed process left open is settled `aborted` first, a paused one `needs_person`.
   */
  readonly run: (session: string, prompt: string, options?: RunOptions) => Effect.Effect<RunOutcome, HarnessError>
  /** Settle every run a killed process left open as `interrupted{aborted}`; pause an active goal. */
  readonly reopen: (session: string) => Effect.Effect<SessionView, HarnessError>
  /** Re-drive the run a killed process left open, reusing its stored steps (a paused run: its outcome, undriven). */
  readonly resume: (
    session: string,
    options?: { readonly abort?: Deferred.Deferred<void>; readonly started?: Deferred.Deferred<string> }
  ) => Effect.Effect<RunOutcome, HarnessError>
  /**
   * A person approves the call a run is paused at: the same run goes on from it, the call runs
   * (no new model call), and with `remember` a scoped rule is saved with the answer. A call that
   * is not the session's open pause: `INVALID_INPUT` naming it.
   */
  readonly approve: (
    session: string,
    callId: string,
    options?: ApproveOptions
  ) => Effect.Effect<ApproveOutcome, HarnessError>
  /**
   * A person rejects the call a run is paused at: the same run goes on, the model reads a refusal
   * with the person's reason. A call that is not the session's open pause: `INVALID_INPUT`.
   */
  readonly reject: (
    session: string,
    callId: string,
    options?: RejectOptions
  ) => Effect.Effect<ApproveOutcome, HarnessError>
  readonly show: (session: string) => Effect.Effect<SessionView, HarnessError>
  readonly list: Effect.Effect<ReadonlyArray<SessionView>, HarnessError>
  /** Walk the managed-transition chain (exit-1 material when `verified` is false). */
  readonly verify: (session: string) => Effect.Effect<History.Verification, HarnessError>
}>() {}

const invalid = (message: string) => new HarnessError({ code: "INVALID_INPUT", message })

/**
 * Build the service.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <R = Tools.DefaultRequirements>(options: Options<R> = {}) =>
  Effect.gen(function*() {
    const store = yield* EventStore.EventStore
    const model = yield* LanguageModel.LanguageModel
    const checker = Option.getOrElse(yield* Effect.serviceOption(Goal.Checker), () => ({ model }))
    const responder = yield* Effect.serviceOption(Responder.Responder)
    const reflexes = yield* Effect.serviceOption(Reflexes.Reflexes)
    const executor = yield* Effect.serviceOption(CommandExecutor.CommandExecutor)
    const sandbox = options.sandbox === "off" ? Option.none() : yield* Effect.serviceOption(Sandbox.Sandbox)
    const parser = yield* ShellParser.ShellParser
    const runtime = yield* AlgalRuntime.AlgalRuntime
    const services = (yield* Effect.context<R>()) as Context.Context<never>
    const tools = (options.tools ?? Tools.defaults) as ReadonlyArray<Tools.Any>
    const compiler = yield* PromptCompiler.makeCompiler({
      ...(typeof options.prompt === "object" && options.prompt !== null ? options.prompt : {})
    })
    const sliceEnv = yield* Config.string("STEWARD_WORK_SLICE").pipe(Config.option, Effect.orElseSucceed(Option.none))

    const owner: EventStore.Owner = {
      id: options.lease?.owner ?? `${os.hostname()} pid ${process.pid} #${Math.random().toString(16).slice(2, 8)}`,
      ttl: Duration.toMillis(
        options.lease?.ttl ??
          (yield* Config.duration("STEWARD_SESSION_LEASE").pipe(
            Config.withDefault(Duration.seconds(30)),
            Effect.mapError((e) => invalid(`STEWARD_SESSION_LEASE: ${e.message}`))
          ))
      )
    }
    const runner = Runner.make({
      owner,
      store,
      model,
      checker,
      responder,
      reflexes,
      executor,
      sandbox,
      parser,
      runtime,
      services,
      tools,
      compiler,
      sliceEnv,
      home: yield* Meta.homeOf(options.home),
      modelName: options.modelName ?? "model",
      hooks: options.hooks,
      tiers: options.tiers,
      limits: Limits.resolve(options.limits)
    })
    const { load, settleDangling } = runner
    const owned = Ownership.owned(store, owner)
    const view = (id: string, snapshot: Runner.Snapshot): SessionView => SessionViews.fromSnapshot(id, snapshot)
    const show = (id: string) =>
      Effect.flatMap(load(id, { view: true }), (snapshot) => SessionViews.owned(store, view(id, snapshot)))

    const request = Verbs.request(runner, reflexes)
    const resume = Verbs.resume(runner)
    const answer = Verbs.answer(runner)

    return Sessions.of({
      create: Verbs.create(runner, store, show),
      run: Effect.fn("Session.run")(function*(id: string, prompt: string, runOptions: RunOptions = {}) {
        if (prompt.trim() === "") return yield* invalid("the prompt is empty")
        const goal = runOptions.goal === undefined ? null : yield* Goal.validate(runOptions.goal, {
          ...(runOptions.plan === undefined ? {} : { plan: runOptions.plan }),
          ...(runOptions.unattended === undefined ? {} : { unattended: runOptions.unattended }),
          parent: runOptions.parent
        })
        return yield* owned(id, request(id, prompt, goal, runOptions))
      }),
      reopen: (id) =>
        Effect.flatMap(
          // A session without an open run has nothing to settle and needs no lease.
          load(id, { view: true }),
          (first) =>
            Transcript.runs(first.events).every((r) => r.status !== null)
              ? show(id)
              : owned(
                id,
                Effect.flatMap(settleDangling(id, { view: true }), (s) => SessionViews.owned(store, view(id, s)))
              )
        ).pipe(Effect.withSpan("Session.reopen")),
      resume: (id, resumeOptions = {}) => owned(id, resume(id, resumeOptions)),
      approve: (id, callId, approveOptions = {}) =>
        owned(id, answer(id, callId, { ...approveOptions, decision: "allow" })),
      reject: (id, callId, rejectOptions = {}) =>
        owned(id, answer(id, callId, { ...rejectOptions, decision: "reject" })),
      show: (id) => show(id),
      list: Effect.flatMap(store.list, (rows) => Effect.forEach(rows, (r) => show(r.id))),
      verify: Effect.fn("Session.verify")(function*(id: string) {
        return yield* History.verifyStored(store, id).pipe(Effect.provideService(AlgalRuntime.AlgalRuntime, runtime))
      })
    })
  })

/**
 * The service as a layer. It needs the store, the model and what the tools need; it uses a
 * `Responder`, `Reflexes`, a `Goal.Checker` and a `CommandExecutor` (for a reviewer) when the
 * context has them.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <R = Tools.DefaultRequirements>(
  options: Options<R> = {}
): Layer.Layer<Sessions, HarnessError, EventStore.EventStore | LanguageModel.LanguageModel | R> =>
  Layer.effect(Sessions, make(options)).pipe(
    Layer.provide(Layer.merge(
      ShellParser.layer.pipe(Layer.mapError((e) => invalid(`shell parser: ${e.message}`))),
      AlgalRuntime.layer
    ))
  ) as Layer.Layer<Sessions, HarnessError, EventStore.EventStore | LanguageModel.LanguageModel | R>
