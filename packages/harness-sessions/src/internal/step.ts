/**
 * Steps: every observable thing a run does (a model call, a governance decision, a tool
 * execution, a heartbeat, a continuation, the settle) is a step whose events and result are
 * committed together. A step already committed is not run again: its stored result is reused,
 * which is how a killed run is re-driven without repeating work or events.
 */
import type * as LanguageModel from "@effect/ai/LanguageModel"
import type * as AiTool from "@effect/ai/Tool"
import type * as AiToolkit from "@effect/ai/Toolkit"
import * as AlgalRuntime from "@steward/algal-runtime/AlgalRuntime"
import type * as Hooks from "@steward/governance-rules/Hooks"
import type * as Policy from "@steward/governance-rules/Policy"
import type * as Rule from "@steward/governance-rules/Rule"
import type * as ShellParser from "@steward/governance-rules/ShellParser"
import type * as Reflexes from "@steward/reflex-core/Reflexes"
import * as Clock from "effect/Clock"
import type * as Context from "effect/Context"
import type * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Budget from "../Budget.js"
import * as Event from "../Event.js"
import type * as EventStore from "../EventStore.js"
import type * as Goal from "../Goal.js"
import type { HarnessError } from "../HarnessError.js"
import * as History from "../History.js"
import * as Limits from "../Limits.js"
import type * as Tools from "../Tools.js"
import type * as WorkSlice from "../WorkSlice.js"
import type * as Chokepoint from "./chokepoint.js"
import * as FrozenJson from "./frozenJson.js"
import * as Messages from "./messages.js"
import * as RunState from "./runState.js"
import type { ToolLike } from "./toolShape.js"

/** A person's answer to a run's open pause, as the verb that re-drives the run gives it (ADR 0573). */
export interface Answer {
  readonly callId: string
  readonly decision: "allow" | "reject"
  readonly by: string
  readonly reason?: string | undefined
  /** The rule approve-and-remember saves with the answer (the session's meta commits with it). */
  readonly remembered?: Rule.RuleInput | undefined
  readonly meta?: unknown
}

/** Everything a run needs. */
export interface Ctx {
  readonly session: string
  readonly run: string
  readonly workspace: string
  readonly store: EventStore.EventStore["Type"]
  readonly chain: History.Chain
  readonly runtime: AlgalRuntime.AlgalRuntime["Type"]
  readonly model: LanguageModel.Service
  readonly modelName: string
  readonly checker: Goal.Checker["Type"]
  readonly tools: ReadonlyArray<ToolLike>
  /** The services tools need. */
  readonly services: Context.Context<never>
  readonly gate: Omit<Chokepoint.Env, "run" | "engine">
  /** The sandbox contained calls run in (none when the boundary is off or unavailable). */
  readonly contained: Option.Option<Tools.Contained>
  readonly hooks: Hooks.Hooks["Type"]
  readonly engine: Policy.Engine
  /** The toolkits the model is told about: the run's tools, and with the goal tools. */
  readonly toolkits: {
    readonly agent: AiToolkit.WithHandler<Record<string, AiTool.Any>>
    readonly goal: AiToolkit.WithHandler<Record<string, AiTool.Any>>
  }
  /** The shell parser the engine decides with (ready after a decision): remembered scopes read with it. */
  readonly parser: ShellParser.ShellParser["Type"]
  /** The answer to the run's open pause this drive carries, if any. */
  readonly answer: Answer | undefined
  /** The steps of this run committed before this process drove it (read once at its start). */
  readonly stored: ReadonlyMap<number, unknown>
  readonly reflexes: Option.Option<Reflexes.Reflexes["Type"]>
  readonly slice: WorkSlice.Resolved
  readonly budget: Budget.Config | undefined
  readonly systemPrompt: string
  readonly plan: boolean
  readonly abort: Deferred.Deferred<void> | undefined
  readonly limits: Limits.Resolved
  readonly owner: EventStore.Owner
  /** The session's engine at the `read_only` level: what the gate classes read-only (`intent.ts`). */
  readonly readOnlyEngine: Effect.Effect<Policy.Engine, HarnessError>
}

/** What a step computes. */
export interface Computed<A> {
  readonly events: ReadonlyArray<Event.EventInput>
  readonly result: A
  /** Record the step as a managed transition (stored with its events). */
  readonly transition?: { readonly kind: "settle" | "continue"; readonly status: string; readonly code?: string | null }
  /** Replace the session's meta in the same commit. */
  readonly meta?: unknown
  /**
   * Commit with the next step instead of now (ADR 0567): only for a step a re-drive may compute
   * again because nothing outside the process depends on it (a model call, a heartbeat).
   */
  readonly defer?: boolean
}

// Deferred steps in a row at most: a run that keeps deferring still commits this often.
const MAX_DEFERRED = 8

/** Run (or reuse) the next step. */
export const step = <A>(
  ctx: Ctx,
  state: RunState.RunState,
  compute: Effect.Effect<Computed<A>, HarnessError>
): Effect.Effect<A, HarnessError> =>
  Effect.gen(function*() {
    const index = state.step++
    if (ctx.stored.has(index)) return ctx.stored.get(index) as A
    const out = yield* compute
    const own = bound(out.events, ctx.limits)
    // The result's JSON once: the caller continues from its round trip (exactly as a replay
    // would) and the store writes the same text.
    const text = JSON.stringify(out.result ?? null)
    const record = FrozenJson.rememberStep({ run: ctx.run, index, result: out.result }, text)
    if (
      out.defer === true && out.transition === undefined && out.meta === undefined &&
      state.deferred.length < MAX_DEFERRED
    ) {
      state.deferred.push({ events: own, step: record })
      return JSON.parse(text) as A
    }
    const earlier = state.deferred.splice(0)
    const events = earlier.length === 0 ? own : [...earlier.flatMap((d) => d.events), ...own]
    const at = yield* Clock.currentTimeMillis
    const revision = out.transition === undefined ? undefined : yield* History.transition(ctx.chain, {
      at,
      session: ctx.session,
      run: ctx.run,
      kind: out.transition.kind,
      status: out.transition.status,
      code: out.transition.code ?? null,
      events
    }).pipe(Effect.provideService(AlgalRuntime.AlgalRuntime, ctx.runtime))
    const written = yield* ctx.store.commit(ctx.session, {
      events,
      step: record,
      ...(earlier.length === 0 ? {} : { steps: earlier.map((d) => d.step) }),
      at,
      owner: ctx.owner,
      ...(revision === undefined ? {} : { revision }),
      ...(out.meta === undefined ? {} : { meta: out.meta })
    })
    ctx.chain.absorb(written)
    if (revision !== undefined) {
      ctx.chain.revision = revision.revision
      ctx.chain.receipt = revision.digest
    }
    return JSON.parse(text) as A
  })

/**
 * Commit the deferred steps on their own (a run that ends without another step: a failure).
 * Nothing deferred: nothing written.
 */
export const flush = (ctx: Ctx, state: RunState.RunState): Effect.Effect<void, HarnessError> =>
  Effect.suspend(() => {
    const earlier = state.deferred.splice(0)
    if (earlier.length === 0) return Effect.void
    return ctx.store.commit(ctx.session, {
      events: earlier.flatMap((d) => d.events),
      steps: earlier.map((d) => d.step),
      owner: ctx.owner
    }).pipe(Effect.map((written) => ctx.chain.absorb(written)))
  })

// An ask's input stays whole (bounded by `maxToolInput`): approving the call runs it from there.
const keepsInput = (e: Event.EventInput): boolean =>
  e.type === "tool.call" && (e.data as { readonly decision?: unknown } | null)?.decision === "ask"

/**
 * Every event within the bounds: strings cut to `maxText` (an ask's input kept whole), and data
 * whose JSON is still over `maxEvent` replaced by its cut JSON text.
 */
export const bound = (events: ReadonlyArray<Event.EventInput>, limits: Limits.Resolved) =>
  events.map((e): Event.EventInput => {
    const size = Limits.jsonSize(e.data) ?? 0
    if (size <= limits.maxText) return e
    const data = keepsInput(e)
      ? {
        ...Limits.cutStrings({ ...(e.data as object), input: null }, limits.maxText) as object,
        input: (e.data as { input: unknown }).input
      }
      : Limits.cutStrings(e.data, limits.maxText)
    if ((Limits.jsonSize(data) ?? 0) <= limits.maxEvent) return { ...e, data }
    return { ...e, data: { cut: true, bytes: size, json: Limits.cut(JSON.stringify(data), limits.maxText) } }
  })

/** How a run settles. */
export interface Settle {
  readonly status: "completed" | "interrupted" | "failed"
  readonly code?: "slice_complete" | "unfinished" | "needs_person" | "aborted" | "MODEL_FAILED" | "TOOL_FAILED" | string
  readonly reason?: string
}

/** The stored result of the settle step. */
export interface Settled extends Settle {
  readonly checkpoint: ReturnType<typeof RunState.checkpoint>
}

/** Settle the run: completion hooks, the checkpoint and `run.settle`, as one transition. */
export const settle = (ctx: Ctx, state: RunState.RunState, how: Settle): Effect.Effect<Settled, HarnessError> =>
  step(
    ctx,
    state,
    Effect.gen(function*() {
      const evidence = yield* ctx.hooks.fire({
        point: "task_completed",
        touchedFiles: state.filesTouched,
        runId: ctx.run,
        ...(ctx.plan ? { mode: "plan" } : {})
      })
      const checkpoint = RunState.checkpoint(state, how.reason)
      const events = [
        ...evidence.map((e) => Event.make(ctx.run, "hook", { callId: null, hook: e.hook, kind: e.kind, data: e.data })),
        Event.make(ctx.run, "checkpoint", { reason: how.reason ?? how.status, checkpoint }),
        Event.make(ctx.run, "run.settle", {
          status: how.status,
          code: how.code ?? null,
          reason: how.reason ?? null,
          toolCalls: state.toolCalls,
          modelCalls: state.modelCalls,
          slices: state.slice.n,
          usage: state.totals
        })
      ]
      const result: Settled = { ...how, checkpoint }
      return {
        events,
        result,
        transition: { kind: "settle" as const, status: how.status, code: how.code ?? null }
      }
    })
  )

/** A continuation in place: a notice (and a checkpoint at slice boundaries), as one transition. */
export const continuation = (
  ctx: Ctx,
  state: RunState.RunState,
  input: {
    readonly cause: "slice" | "reflex" | "goal" | "budget"
    readonly notice: string
    readonly prompt?: string
    readonly checkpoint?: boolean
    readonly data?: Record<string, unknown>
  }
): Effect.Effect<void, HarnessError> =>
  Effect.asVoid(step(
    ctx,
    state,
    Effect.sync(() => ({
      events: [
        ...(input.checkpoint === true
          ? [Event.make(ctx.run, "checkpoint", { reason: input.notice, checkpoint: RunState.checkpoint(state) })]
          : []),
        Event.make(ctx.run, "notice", { cause: input.cause, text: input.notice, ...input.data }),
        // The model reads it as a user message; the stream says who wrote it (the harness's act for
        // its cause — a reflex with its receipt —, never a person).
        ...(input.prompt === undefined ? [] : [Event.make(ctx.run, "message", {
          role: "user",
          text: input.prompt,
          by: input.cause,
          ...(typeof input.data?.["receipt"] === "string" ? { receipt: input.data["receipt"] } : {})
        })])
      ],
      result: null,
      transition: { kind: "continue" as const, status: input.cause }
    }))
  )).pipe(Effect.tap(() => {
    if (input.prompt !== undefined) RunState.say(state, Messages.user(input.prompt))
  }))
