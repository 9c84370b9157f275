/**
 * Executing a run from its first step to its settle (or its pause at an ask, ADR 0573): its
 * context (engines, hooks, the routed model tier), its opening messages, its `run.start` step,
 * the step loop, and the session meta it leaves.
 */
import type * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Policy from "@steward/governance-rules/Policy"
import type * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Event from "../Event.js"
import * as Goal from "../Goal.js"
import * as History from "../History.js"
import * as PromptCompiler from "../PromptCompiler.js"
import * as WorkSlice from "../WorkSlice.js"
import * as Boundary from "./boundary.js"
import * as Loop from "./loop.js"
import * as Messages from "./messages.js"
import type * as Meta from "./meta.js"
import type { RunContext, RunInput, Snapshot } from "./runContext.js"
import * as RunState from "./runState.js"
import { type Answer, type Ctx, settle } from "./step.js"
import * as Transcript from "./transcript.js"

/** What one run is started with, besides its input. */
export interface Launch {
  readonly id: string
  readonly run: string
  readonly abort: Deferred.Deferred<void> | undefined
  /** A person's answer to the run's open pause this drive carries (with its remembered rule). */
  readonly answer: Answer | undefined
  readonly snapshot: Snapshot
}

/** A run's step context over the runner's, for a session's meta and the engine it runs under. */
const ctxFor = (
  rc: RunContext,
  launch: Launch,
  chain: History.Chain,
  engine: Policy.Engine,
  hooks: Ctx["hooks"],
  stored: ReadonlyMap<number, unknown>,
  extra: { readonly plan: boolean; readonly model: LanguageModel.Service; readonly boundary: Boundary.RunBoundary }
): Ctx => {
  const { env } = rc
  const { id, snapshot: { meta } } = launch
  return {
    session: id,
    run: launch.run,
    workspace: meta.workspace,
    store: env.store,
    chain,
    runtime: env.runtime,
    model: extra.model,
    modelName: env.modelName,
    checker: env.checker,
    tools: env.tools,
    services: env.services,
    gate: {
      session: id,
      workspace: meta.workspace,
      hooks,
      responder: env.responder,
      reviewer: meta.reviewer,
      executor: env.executor,
      boundary: extra.boundary.state
    },
    contained: extra.boundary.contained,
    hooks,
    engine,
    toolkits: rc.toolkits,
    answer: launch.answer,
    parser: env.parser,
    stored,
    reflexes: env.reflexes,
    slice: WorkSlice.resolve(meta.workSlice, Option.getOrUndefined(env.sliceEnv)),
    budget: meta.budget,
    systemPrompt: "",
    plan: extra.plan,
    abort: launch.abort,
    limits: env.limits,
    owner: env.owner,
    // built when a re-driven run first needs it (cached by the engine cache)
    readOnlyEngine: Effect.suspend(() => rc.engineFor({ ...meta, level: "read_only", rules: [] }, []))
  }
}

// Everything a run reads before its first step: the chain, the steps a killed process already
// committed (a replay reuses them), the engines before and after a remembered rule, the hooks,
// the previous run's checkpoint and the tier the route reflex chose.
const prepare = (rc: RunContext, launch: Launch, input: RunInput) =>
  Effect.gen(function*() {
    const { env } = rc
    const { answer, id, run, snapshot: { events, meta } } = launch
    const chain = History.Chain.from(events, yield* env.store.revisions(id))
    const stored = yield* env.store.steps(id, run)
    const newRule = answer?.remembered
    const remembered = newRule === undefined ? meta.remembered : [...meta.remembered, newRule]
    const engine = yield* rc.engineFor(meta, remembered)
    const hooks = yield* rc.hooksFor(meta)
    const runs = Transcript.runs(events)
    const previous = runs.filter((r) => r.run !== run && r.checkpoint !== null).at(-1)
    const tier = yield* Loop.route(
      env.reflexes,
      run,
      input.prompt,
      runs.length === 0 || (runs.length === 1 && runs[0]!.run === run)
    )
    const model = tier !== null && env.tiers?.[tier.tier] !== undefined && tier.acts
      ? env.tiers[tier.tier]!
      : env.model
    const boundary = yield* Boundary.forRun(env.sandbox, meta, env.home)
    const withMeta: Launch = answer === undefined || newRule === undefined
      ? launch
      : { ...launch, answer: { ...answer, meta: { ...meta, remembered } } }
    const ctx = ctxFor(rc, withMeta, chain, engine, hooks, stored, { plan: input.plan, model, boundary })
    return { ctx, remembered, runs, previous, tier }
  })

// The run's opening messages: the stable prompt prefix as its own system message (a provider
// cache breakpoint), the request-time part after it, the previous run's checkpoint and the prompt.
const opening = (
  rc: RunContext,
  state: RunState.RunState,
  meta: Meta.Meta,
  input: RunInput,
  previous: Transcript.RunView | undefined
) =>
  Effect.gen(function*() {
    const compiled = yield* rc.env.compiler.compile([
      { name: "workspace", text: `Workspace: ${meta.workspace}\nAutonomy level: ${meta.level}` },
      ...(input.goal === null ? [] : [{ name: "goal", text: Goal.wrapObjective(input.goal.objective) }])
    ])
    RunState.say(state, ...Messages.decode(PromptCompiler.systemMessages(compiled)))
    if (previous?.checkpoint) RunState.say(state, Messages.user(Loop.previousContext(previous.checkpoint)))
    RunState.say(state, Messages.user(input.prompt))
    return compiled
  })

// A re-driven run says so first: how many committed steps it reuses (their events stand; they
// are not run again). A call it finds started but without a result says `outcome unknown` or
// `rerun` on its own `tool.result` (`intent.ts`).
const resumedNotice = (rc: RunContext, ctx: Ctx) =>
  Effect.gen(function*() {
    const written = yield* rc.env.store.commit(ctx.session, {
      owner: rc.env.owner,
      events: [Event.make(ctx.run, "notice", {
        cause: "resume",
        text: `${
          ctx.answer === undefined ? "" : `call ${ctx.answer.callId} answered (${ctx.answer.decision}); `
        }resumed by ${rc.env.owner.id}: ${ctx.stored.size} committed step(s) reused, not run again`,
        reused: ctx.stored.size
      })]
    })
    ctx.chain.absorb(written)
  })

/** Execute a run: prepare, open, start, drive to its settle or its pause. */
export const execute = (rc: RunContext, launch: Launch, input: RunInput) =>
  Effect.gen(function*() {
    const { id, run, snapshot: { meta } } = launch
    const { ctx, previous, remembered, runs, tier } = yield* prepare(rc, launch, input)
    if (ctx.stored.size > 0) yield* resumedNotice(rc, ctx)
    const state = RunState.make(id, run, input.prompt)
    const compiled = yield* opening(rc, state, meta, input, previous)
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
        level: meta.level,
        workSlice: ctx.slice,
        route: tier,
        promptDigest: compiled.prefixDigest,
        promptCuts: compiled.cuts.map((c) => c.name)
      },
      notices: [],
      continuation: runs.some((r) => r.run !== run),
      meta: nextMeta
    })
    if (input.goal !== null) state.goal = Loop.goalState(input.goal, started)
    const settled = yield* Loop.drive(ctx, state).pipe(
      Effect.onInterrupt(() =>
        settle(ctx, state, { status: "interrupted", code: "aborted", reason: "the run was interrupted" }).pipe(
          Effect.ignore
        )
      )
    )
    const goal = state.goal === undefined ? nextMeta.goal : { spec: state.goal.spec, status: state.goal.status }
    yield* rc.env.store.commit(id, {
      owner: rc.env.owner,
      events: [],
      meta: { ...nextMeta, goal, lastSubject: `${run}:${state.modelCalls}` }
    })
    if ("_tag" in settled) {
      const call = settled.pending
      return {
        session: id,
        run,
        status: "paused",
        code: null,
        reason: `paused at ${call.tool} call ${call.callId}: it needs a person's approval`,
        checkpoint: RunState.checkpoint(state, `answer call ${call.callId}: approve or reject it`),
        pending: call
      } as const
    }
    return {
      session: id,
      run,
      status: settled.status,
      code: settled.code ?? null,
      reason: settled.reason ?? null,
      checkpoint: settled.checkpoint,
      pending: null
    } as const
  })
