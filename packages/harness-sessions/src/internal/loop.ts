/**
 * The run loop: call the model, pass each tool call through the chokepoint and execute what it
 * allows, keep the work-slice guard and the budgets, and hand a reply that ends to the turn-end
 * logic (goal, reflexes), until the run settles.
 */
import type * as LanguageModel from "@effect/ai/LanguageModel"
import * as AiTool from "@effect/ai/Tool"
import * as AiToolkit from "@effect/ai/Toolkit"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Budget from "../Budget.js"
import * as Checkpoint from "../Checkpoint.js"
import * as Event from "../Event.js"
import * as Goal from "../Goal.js"
import { type HarnessError } from "../HarnessError.js"
import * as Limits from "../Limits.js"
import * as WorkSlice from "../WorkSlice.js"
import * as CallCheck from "./callCheck.js"
import * as Messages from "./messages.js"
import type * as Pause from "./pause.js"
import * as RawResponse from "./rawResponse.js"
import * as RunState from "./runState.js"
import { continuation, type Ctx, flush, settle, type Settled, step } from "./step.js"
import * as Tracing from "./tracing.js"
import * as TurnEnd from "./turnEnd.js"

import { type Call, toolCall } from "./toolRound.js"

/** A model step's stored result. */
type ModelResult =
  | {
    readonly ok: true
    readonly text: string
    readonly calls: ReadonlyArray<Call>
    readonly finish: string
    readonly usage: Budget.Usage
    readonly now: number
  }
  | { readonly ok: false; readonly error: string; readonly now: number }

const withHandler = (tools: Record<string, AiTool.Any>): AiToolkit.WithHandler<Record<string, AiTool.Any>> => ({
  tools,
  // Never called: the harness resolves tool calls itself (`disableToolCallResolution`).
  handle: () => Effect.die("the harness resolves tool calls itself")
})

const toolkitOf = (of: Ctx["tools"], goal: boolean) => {
  const tools: Array<AiTool.Any> = of.map((t) =>
    AiTool.make(t.name, { description: t.description, parameters: t.input.fields, success: Schema.String })
  )
  if (goal) tools.push(Goal.getGoalTool, Goal.updateGoalTool)
  return withHandler(AiToolkit.make(...tools).tools)
}

/** The toolkits the model is told about, built once per toolkit (not per model call). */
export const toolkits = (tools: Ctx["tools"]): Ctx["toolkits"] => ({
  agent: toolkitOf(tools, false),
  goal: toolkitOf(tools, true)
})

const usageOf = (
  usage: { inputTokens?: number | undefined; outputTokens?: number | undefined; cachedInputTokens?: number | undefined }
): Budget.Usage => ({
  input: usage.inputTokens ?? 0,
  cachedInput: usage.cachedInputTokens ?? 0,
  output: usage.outputTokens ?? 0
})

/** One model call as a step (`tools: false` for the budget wrap-up turn). */
const callModel = (ctx: Ctx, state: RunState.RunState, tools: boolean) =>
  step<ModelResult>(
    ctx,
    state,
    Effect.gen(function*() {
      const n = state.modelCalls + 1
      const request = tools
        ? ctx.model.generateText({
          prompt: RunState.conversation(state),
          toolkit: state.goal?.status === "active" ? ctx.toolkits.goal : ctx.toolkits.agent,
          disableToolCallResolution: true
        })
        : ctx.model.generateText({ prompt: RunState.conversation(state) })
      const response = yield* Effect.either(request as Effect.Effect<LanguageModel.GenerateTextResponse<any>, unknown>)
      const now = yield* Clock.currentTimeMillis
      // A reply whose tool calls the toolkit's schemas refused is read leniently: each call is
      // then checked by the harness and answered with what to fix (`callCheck.ts`).
      const recovered = response._tag === "Left" ? RawResponse.recover(response.left) : undefined
      if (response._tag === "Left" && (recovered === undefined || recovered.calls.length === 0)) {
        const error = Limits.cut(describe(response.left), ctx.limits.maxText)
        return {
          events: [Event.make(ctx.run, "model.call", { n, for: "agent", model: ctx.modelName, error })],
          result: { ok: false as const, error, now }
        }
      }
      const r: RawResponse.Lenient = recovered ?? {
        text: response._tag === "Right" ? response.right.text : "",
        calls: response._tag === "Right"
          ? response.right.toolCalls.map((c) => ({ id: c.id, name: c.name, params: c.params as unknown }))
          : [],
        finish: response._tag === "Right" ? response.right.finishReason : "unknown",
        usage: response._tag === "Right" ? response.right.usage : {}
      }
      const usage = usageOf(r.usage)
      // An input over the bound is kept as a marker only: neither stored nor sent back.
      const calls = r.calls.map((c) => CallCheck.keepable(c, ctx.limits))
      const price = ctx.budget?.prices?.[ctx.modelName]
      return {
        events: [
          Event.make(ctx.run, "model.call", {
            n,
            for: "agent",
            model: ctx.modelName,
            finish: r.finish,
            usage,
            tokens: Budget.tokens(usage),
            cost: Budget.cost(usage, price),
            toolCalls: calls.length
          }),
          ...(r.text === "" ? [] : [Event.make(ctx.run, "message", { role: "assistant", text: r.text })])
        ],
        result: { ok: true as const, text: r.text, calls, finish: r.finish, usage, now },
        // A reply with calls is committed with the first call's decision (ADR 0567): a re-drive
        // that finds neither asks the model again, and no tool has run on it.
        defer: calls.length > 0
      }
    })
  )

const describe = (error: unknown): string =>
  typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error)

/**
 * The heartbeat after a tool round (it also reads the clock for the slice guard), committed with
 * the next step (ADR 0567): the round's results are already stored, and a re-drive that finds no
 * heartbeat reads the clock again.
 */
const heartbeat = (ctx: Ctx, state: RunState.RunState) =>
  step<number>(
    ctx,
    state,
    Effect.map(Clock.currentTimeMillis, (now) => {
      state.now = now
      return {
        events: [Event.make(ctx.run, "heartbeat", RunState.heartbeat(state, ctx.slice.maxCalls))],
        result: now,
        defer: true
      }
    })
  ).pipe(Effect.tap((now) => {
    state.now = now
  }))

const aborted = (ctx: Ctx) => ctx.abort === undefined ? Effect.succeed(false) : Deferred.isDone(ctx.abort)

/** Drive the run until it settles, or pauses at an ask nobody could answer (ADR 0573). */
export const drive = (ctx: Ctx, state: RunState.RunState): Effect.Effect<Settled | Pause.Paused, HarnessError> =>
  loop(ctx, state).pipe(
    // A run that fails between steps still stores what it deferred (the model's last reply).
    Effect.tapError(() => Effect.ignore(flush(ctx, state))),
    Tracing.unlessHostTraces
  )

const loop = (ctx: Ctx, state: RunState.RunState): Effect.Effect<Settled | Pause.Paused, HarnessError> =>
  Effect.gen(function*() {
    while (true) {
      if (yield* aborted(ctx)) {
        return yield* settle(ctx, state, { status: "interrupted", code: "aborted", reason: "stopped by a person" })
      }
      const spent = Budget.crossed(ctx.budget, state.totals) ??
        (state.goal?.spec.tokens !== undefined &&
            state.totals.tokens - state.goal.tokensAtStart >= state.goal.spec.tokens
          ? `goal token budget reached: ${state.totals.tokens - state.goal.tokensAtStart} of ${state.goal.spec.tokens}`
          : undefined)
      if (spent !== undefined) return yield* wrapUp(ctx, state, spent)
      const reply = yield* callModel(ctx, state, true)
      state.now = reply.now
      if (!reply.ok) {
        return yield* settle(ctx, state, { status: "failed", code: "MODEL_FAILED", reason: reply.error })
      }
      account(ctx, state, reply.usage)
      RunState.say(state, Messages.assistant(reply.text, reply.calls))
      if (reply.text !== "") state.lastText = reply.text
      if (reply.calls.length === 0) {
        const next = yield* TurnEnd.replyEnded(ctx, state, reply.text)
        if (next._tag === "settle") return yield* settle(ctx, state, next.settle)
        continue
      }
      const round = yield* toolRound(ctx, state, reply.calls)
      if (round !== undefined) return round
      yield* heartbeat(ctx, state)
      // Every answered call counts toward the slice (refused and invalid ones too), so calls
      // answered past the limit always reach the boundary. Counts only: the activity digest
      // (every call of the slice hashed) is taken at the boundary, not after every round.
      const answered = {
        calls: Math.max(state.slice.calls, state.slice.handled),
        startedAt: state.slice.startedAt,
        tokens: state.slice.tokens
      }
      if (WorkSlice.reached(ctx.slice, answered, state.now)) {
        const verdict = WorkSlice.atBoundary(
          ctx.slice,
          RunState.sliceState(state),
          state.previousSliceActivity,
          ctx.plan
        )
        if (!verdict.continue) {
          return yield* settle(ctx, state, { status: "interrupted", code: "slice_complete", reason: verdict.reason })
        }
        yield* continuation(ctx, state, {
          cause: "slice",
          notice: `slice ${state.slice.n} ended after ${state.slice.calls} tool calls; continuing as slice ${
            state.slice.n + 1
          } of at most ${ctx.slice.maxSlices}`,
          checkpoint: true,
          data: { slice: state.slice.n + 1 }
        })
        RunState.nextSlice(state)
      }
    }
  })

/**
 * One reply's tool calls, each answered: executed while the slice has room (`maxCalls` holds
 * inside a turn too — the calls past it are answered with the slice boundary, not run), and the
 * run settled when the model has made `invalidCalls` invalid calls in a row.
 */
const toolRound = (ctx: Ctx, state: RunState.RunState, calls: ReadonlyArray<Call>) =>
  Effect.gen(function*() {
    const past: Array<Call> = []
    for (const call of calls) {
      if (yield* aborted(ctx)) break
      if (ctx.slice.enabled && state.slice.handled >= ctx.slice.maxCalls) {
        past.push(call)
        continue
      }
      state.slice.handled++
      // The calls after a paused one wait for the answer: none is decided before it.
      const paused = yield* toolCall(ctx, state, call)
      if (paused !== undefined) return paused
      if (state.invalidInRow >= ctx.limits.invalidCalls) {
        return yield* settle(ctx, state, {
          status: "failed",
          code: "MODEL_FAILED",
          reason: Limits.cut(
            `${state.invalidInRow} invalid tool calls in a row; the last: ${state.lastInvalid}`,
            ctx.limits.maxText
          )
        })
      }
    }
    if (past.length > 0) yield* pastTheSlice(ctx, state, past)
    return undefined
  })

/** The calls past the slice's `maxCalls` in one reply: one notice, each answered, none run. */
const pastTheSlice = (ctx: Ctx, state: RunState.RunState, past: ReadonlyArray<Call>) =>
  Effect.gen(function*() {
    const text = `not run: this work slice reached its limit of ${ctx.slice.maxCalls} tool calls; ` +
      `the run continues at the slice boundary, repeat the call there if it is still needed`
    yield* step(
      ctx,
      state,
      Effect.succeed({
        events: [Event.make(ctx.run, "notice", {
          cause: "slice",
          text: `${past.length} tool call(s) past the slice limit of ${ctx.slice.maxCalls} were not run`,
          notRun: past.length
        })],
        result: null
      })
    )
    for (const call of past) RunState.say(state, Messages.toolResult(call, text, true))
  })

const account = (ctx: Ctx, state: RunState.RunState, usage: Budget.Usage) =>
  RunState.recordUsage(state, usage, Budget.cost(usage, ctx.budget?.prices?.[ctx.modelName]), Budget.tokens(usage))

/** A crossed budget: one wrap-up turn without tools, then `unfinished` with the reason. */
const wrapUp = (ctx: Ctx, state: RunState.RunState, reason: string) =>
  Effect.gen(function*() {
    yield* continuation(ctx, state, { cause: "budget", notice: reason, prompt: Budget.wrapUpPrompt(reason) })
    const reply = yield* callModel(ctx, state, false)
    if (reply.ok) {
      account(ctx, state, reply.usage)
      if (reply.text !== "") state.lastText = reply.text
    }
    if (state.goal !== undefined) state.goal.status = "limited"
    return yield* settle(ctx, state, { status: "interrupted", code: "unfinished", reason })
  })

/** The route reflex for a session's first run: the tier, whether it may act, and its receipt. */
export const route = (
  reflexes: Ctx["reflexes"],
  run: string,
  prompt: string,
  first: boolean
): Effect.Effect<{ readonly tier: "frontier" | "standard"; readonly acts: boolean; readonly receipt: string } | null> =>
  !first || reflexes._tag === "None"
    ? Effect.succeed(null)
    : reflexes.value.decide("route", { task: prompt }, { subject: `${run}:route` }).pipe(
      Effect.map((d) =>
        d.skipped
          ? null
          : {
            tier: d.decision["route"] === "frontier" ? "frontier" as const : "standard" as const,
            acts: d.acts,
            receipt: d.receipt
          }
      ),
      Effect.orElseSucceed(() => null)
    )

/** The previous run's checkpoint as context for the next run. */
export const previousContext = (checkpoint: Checkpoint.Checkpoint): string =>
  `Context from the previous run of this session (the harness's checkpoint):\n${Checkpoint.render(checkpoint)}`

/** The run's first step: `run.start`, the prompt, notices, and (after earlier runs) a continuation. */
export const start = (
  ctx: Ctx,
  state: RunState.RunState,
  input: {
    readonly data: Record<string, unknown>
    readonly notices: ReadonlyArray<string>
    readonly continuation: boolean
    readonly meta: unknown
  }
) =>
  step<number>(
    ctx,
    state,
    Effect.map(Clock.currentTimeMillis, (now) => ({
      events: [
        Event.make(ctx.run, "run.start", input.data),
        ...(input.data["route"] === null || input.data["route"] === undefined
          ? []
          : [Event.make(ctx.run, "reflex.decision", { reflex: "route", ...(input.data["route"] as object) })]),
        ...input.notices.map((text) => Event.make(ctx.run, "notice", { cause: "rule", text })),
        Event.make(ctx.run, "message", { role: "user", text: String(input.data["prompt"] ?? "") })
      ],
      result: now,
      ...(input.continuation ? { transition: { kind: "continue" as const, status: "person" } } : {}),
      meta: input.meta
    }))
  ).pipe(Effect.tap((now) => {
    state.startedAt = now
    state.now = now
    state.slice.startedAt = now
  }))

/** A goal's live state at the start of its run. */
export const goalState = (spec: Goal.Spec, now: number): RunState.GoalState => ({
  spec,
  status: "active",
  round: 0,
  startedAt: now,
  tokensAtStart: 0,
  claim: undefined,
  blocker: undefined,
  sameBlocker: 0,
  lastBlocker: undefined,
  stalls: 0,
  lastActivity: undefined,
  gaps: []
})
