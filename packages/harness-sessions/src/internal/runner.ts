/**
 * The session runner: builds each run's context (engine with the session's rules and remembered
 * rules, hooks, the slice guard), settles runs a killed process left open, and executes a run from
 * its first step to its settle.
 */
import type * as LanguageModel from "@effect/ai/LanguageModel"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import { AlgalRuntime } from "@steward/algal-runtime"
import { Evidence, Hooks, Policy, type Responder, Rule, ShellParser } from "@steward/governance-rules"
import type { Reflexes } from "@steward/reflex-core"
import * as Clock from "effect/Clock"
import type * as Context from "effect/Context"
import type * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { createHash } from "node:crypto"
import * as Event from "../Event.js"
import type * as EventStore from "../EventStore.js"
import * as Goal from "../Goal.js"
import { HarnessError } from "../HarnessError.js"
import * as History from "../History.js"
import * as PromptCompiler from "../PromptCompiler.js"
import * as Tools from "../Tools.js"
import * as WorkSlice from "../WorkSlice.js"
import * as Loop from "./loop.js"
import * as Messages from "./messages.js"
import * as Meta from "./meta.js"
import * as RunState from "./runState.js"
import { type Ctx, settle } from "./step.js"
import * as ToolRound from "./toolRound.js"
import * as Transcript from "./transcript.js"

/** What the runner works with (the service's dependencies and options). */
export interface Env {
  readonly store: EventStore.EventStore["Type"]
  readonly model: LanguageModel.Service
  readonly checker: Goal.Checker["Type"]
  readonly responder: Option.Option<Responder.Responder["Type"]>
  readonly reflexes: Option.Option<Reflexes.Reflexes["Type"]>
  readonly executor: Option.Option<CommandExecutor.CommandExecutor>
  readonly parser: ShellParser.ShellParser["Type"]
  readonly runtime: AlgalRuntime.AlgalRuntime["Type"]
  readonly services: Context.Context<never>
  readonly tools: ReadonlyArray<Tools.Any>
  readonly compiler: PromptCompiler.Compiler
  readonly sliceEnv: Option.Option<string>
  readonly home: string
  readonly modelName: string
  readonly hooks: ReadonlyArray<Hooks.Hook> | undefined
  readonly tiers: Partial<Record<"frontier" | "standard", LanguageModel.Service>> | undefined
}

/** What a run is asked to do (stored in its `run.start` event, read back by `resume`). */
export interface RunInput {
  readonly prompt: string
  readonly trigger: "person" | "approval" | "resume"
  readonly goal: Goal.Spec | null
  readonly plan: boolean
  readonly approved: Parameters<typeof ToolRound.approvedCall>[2] | null
}

/** A session as one read of the store left it: its row, its decoded meta, its events. */
export interface Snapshot {
  readonly row: EventStore.SessionRow
  readonly meta: Meta.Meta
  readonly events: ReadonlyArray<Event.SessionEvent>
}

const invalid = (message: string) => new HarnessError({ code: "INVALID_INPUT", message })

// Compiled engines by the digest of what they are compiled from (level, workspace, home, rules).
const ENGINES = 64

/** The runner over an environment. */
export const make = (env: Env) => {
  const {
    checker,
    compiler,
    executor,
    home,
    model,
    modelName,
    parser,
    reflexes,
    responder,
    runtime,
    services,
    sliceEnv,
    store,
    tools
  } = env
  // The policy is compiled once per distinct rule set, not per run or per call: the key is the
  // digest of the level, the workspace, the home and the rules in order, so a rule saved by
  // approve-and-remember (a new rule set) compiles a new engine and the old one stays valid for it.
  const engines = new Map<string, Policy.Engine>()
  const toolkits = Loop.toolkits(tools)
  const engineFor = (meta: Meta.Meta, remembered = meta.remembered) =>
    Effect.suspend(() => {
      // The harness's own baseline first, so a session's rules (last match wins) still decide.
      const rules = [...Tools.baselineRules, ...meta.rules, ...remembered]
      const key = createHash("sha256").update(JSON.stringify([meta.level, meta.workspace, home, rules])).digest("hex")
      const cached = engines.get(key)
      if (cached !== undefined) {
        engines.delete(key)
        engines.set(key, cached)
        return Effect.succeed(cached)
      }
      return Policy.make({ level: meta.level, workspace: meta.workspace, home, rules: rules.map((r) => Rule.make(r)) })
        .pipe(
          Effect.provideService(ShellParser.ShellParser, parser),
          Effect.mapError((e) => invalid(`session rules: ${e.message}`)),
          Effect.tap((engine) => {
            engines.set(key, engine)
            if (engines.size > ENGINES) engines.delete(engines.keys().next().value!)
          })
        )
    })
  const hooksFor = (meta: Meta.Meta) =>
    Hooks.make([...Hooks.builtins(meta.workspace, home), ...(env.hooks ?? [])]).pipe(
      Effect.provide(Evidence.layerMemory)
    )
  // `view`: only the events a session's view reads (`Transcript.viewTypes`), not the whole stream.
  const load = (id: string, options: { readonly view?: boolean } = {}): Effect.Effect<Snapshot, HarnessError> =>
    Effect.gen(function*() {
      const row = yield* store.get(id)
      const meta = yield* Meta.decode(row.meta)
      const events = yield* store.read(id, options.view === true ? { types: Transcript.viewTypes } : {})
      return { row, meta, events }
    })

  const ctxFor = (
    id: string,
    run: string,
    meta: Meta.Meta,
    chain: History.Chain,
    engine: Policy.Engine,
    hooks: Hooks.Hooks["Type"],
    stored: ReadonlyMap<number, unknown>,
    extra: {
      readonly plan: boolean
      readonly abort: Deferred.Deferred<void> | undefined
      readonly model: LanguageModel.Service
    }
  ): Ctx => ({
    session: id,
    run,
    workspace: meta.workspace,
    store,
    chain,
    runtime,
    model: extra.model,
    modelName,
    checker,
    tools,
    services,
    gate: { session: id, workspace: meta.workspace, hooks, responder, reviewer: meta.reviewer, executor },
    hooks,
    engine,
    toolkits,
    stored,
    reflexes,
    slice: WorkSlice.resolve(meta.workSlice, Option.getOrUndefined(sliceEnv)),
    budget: meta.budget,
    systemPrompt: "",
    plan: extra.plan,
    abort: extra.abort
  })

  // Settle the runs a killed process left open: a checkpoint from their events, one transition
  // each. Returns the session as it is afterwards (the settles appended), so callers read once.
  // `view`: the caller needs only the session's view, so the open runs are found from the view's
  // events and the whole stream is read only when there is one to settle.
  const settleDangling = (
    id: string,
    options: { readonly view?: boolean } = {}
  ): Effect.Effect<Snapshot, HarnessError> =>
    Effect.gen(function*() {
      const first = yield* load(id, options)
      if (options.view === true && Transcript.runs(first.events).every((r) => r.status !== null)) return first
      const snapshot = options.view === true ? yield* load(id) : first
      const { meta, row } = snapshot
      const open = Transcript.runs(snapshot.events).filter((r) => r.status === null)
      if (open.length === 0) return snapshot
      const events = [...snapshot.events]
      const chain = History.Chain.from(events, yield* store.revisions(id))
      const paused = meta.goal !== null && meta.goal.status === "active"
        ? { ...meta.goal, status: "paused" }
        : meta.goal
      const next: Meta.Meta = { ...meta, goal: paused }
      for (const r of open) {
        const state = RunState.make(id, r.run, r.prompt)
        const evidence = Transcript.evidence(events, r.run)
        Object.assign(state, {
          done: [...evidence.done],
          filesTouched: [...evidence.filesTouched],
          checks: [...evidence.checks]
        })
        state.todos = evidence.todos
        state.lastText = evidence.lastText
        state.toolCalls = evidence.toolCalls
        state.slice.n = evidence.slice
        const reason = "the process running this run stopped; the session was reopened"
        const checkpoint = RunState.checkpoint(state, reason)
        const written = [
          Event.make(r.run, "checkpoint", { reason, checkpoint }),
          Event.make(r.run, "run.settle", {
            status: "interrupted",
            code: "aborted",
            reason,
            toolCalls: evidence.toolCalls
          })
        ]
        const at = yield* Clock.currentTimeMillis
        const revision = yield* History.transition(chain, {
          at,
          session: id,
          run: r.run,
          kind: "settle",
          status: "interrupted",
          code: "aborted",
          events: written
        }).pipe(Effect.provideService(AlgalRuntime.AlgalRuntime, runtime))
        const stored = yield* store.commit(id, { events: written, revision, at, meta: next })
        events.push(...stored)
        chain.absorb(stored)
        chain.revision = revision.revision
        chain.receipt = revision.digest
      }
      return { row: { ...row, meta: next, lastSeq: events.at(-1)?.seq ?? row.lastSeq }, meta: next, events }
    })

  const execute = (
    id: string,
    run: string,
    input: RunInput,
    abort: Deferred.Deferred<void> | undefined,
    newRule: Rule.RuleInput | null,
    snapshot: Snapshot
  ) =>
    Effect.gen(function*() {
      const { events, meta } = snapshot
      const chain = History.Chain.from(events, yield* store.revisions(id))
      // The steps a killed process already committed for this run, read once (a replay reuses them).
      const stored = yield* store.steps(id, run)
      const before = yield* engineFor(meta)
      const remembered = newRule === null ? meta.remembered : [...meta.remembered, newRule]
      const engine = newRule === null ? before : yield* engineFor(meta, remembered)
      const hooks = yield* hooksFor(meta)
      const runs = Transcript.runs(events)
      const previous = runs.filter((r) => r.run !== run && r.checkpoint !== null).at(-1)
      const tier = yield* Loop.route(
        reflexes,
        run,
        input.prompt,
        runs.length === 0 || (runs.length === 1 && runs[0]!.run === run)
      )
      const chosen = tier !== null && env.tiers?.[tier.tier] !== undefined && tier.acts
        ? env.tiers[tier.tier]!
        : model
      const ctx = ctxFor(id, run, meta, chain, engine, hooks, stored, { plan: input.plan, abort, model: chosen })
      const compiled = yield* compiler.compile([
        { name: "workspace", text: `Workspace: ${meta.workspace}\nAutonomy level: ${meta.level}` },
        ...(input.goal === null ? [] : [{ name: "goal", text: Goal.wrapObjective(input.goal.objective) }])
      ])
      const state = RunState.make(id, run, input.prompt)
      // The stable prefix as its own system message (a provider cache breakpoint), the request-time
      // part after it.
      RunState.say(state, ...Messages.decode(PromptCompiler.systemMessages(compiled)))
      if (previous?.checkpoint) RunState.say(state, Messages.user(Loop.previousContext(previous.checkpoint)))
      if (input.approved === null) RunState.say(state, Messages.user(input.prompt))
      const nextMeta = {
        ...meta,
        remembered,
        goal: input.goal === null ? meta.goal : { spec: input.goal, status: "active" }
      }
      const started = yield* Loop.start(ctx, state, {
        data: {
          prompt: input.prompt,
          trigger: input.trigger,
          goal: input.goal,
          plan: input.plan,
          approved: input.approved,
          level: meta.level,
          workSlice: ctx.slice,
          route: tier,
          promptDigest: compiled.prefixDigest,
          promptCuts: compiled.cuts.map((c) => c.name)
        },
        notices: newRule === null ? [] : [
          `saved rule ${newRule.id}: ${newRule.effect} ${newRule.action} ${
            JSON.stringify(newRule.resource)
          } in workspace ${meta.workspace}`
        ],
        continuation: runs.some((r) => r.run !== run),
        meta: nextMeta
      })
      if (input.goal !== null) state.goal = Loop.goalState(input.goal, started)
      if (input.approved !== null) {
        const text = yield* ToolRound.approvedCall(ctx, state, input.approved, before)
        RunState.say(state, Messages.user(`${input.prompt}\n\n${text}`))
      }
      const settled = yield* Loop.drive(ctx, state).pipe(
        Effect.onInterrupt(() =>
          settle(ctx, state, { status: "interrupted", code: "aborted", reason: "the run was interrupted" }).pipe(
            Effect.ignore
          )
        )
      )
      const goal = state.goal === undefined ? nextMeta.goal : { spec: state.goal.spec, status: state.goal.status }
      yield* store.commit(id, { events: [], meta: { ...nextMeta, goal, lastSubject: `${run}:${state.modelCalls}` } })
      return {
        session: id,
        run,
        status: settled.status,
        code: settled.code ?? null,
        reason: settled.reason ?? null,
        checkpoint: settled.checkpoint
      } as const
    })

  return { engineFor, load, settleDangling, execute }
}
