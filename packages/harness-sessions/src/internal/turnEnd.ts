/**
 * What happens when a reply ends (the model called no tool): with an active goal, the goal loop
 * decides (check a completion claim with the separate checker, count blockers, stop on a stall
 * or a limit, else continue with the objective as data); otherwise the settle reflex categorises
 * the turn and, when its head may act and the continuation gates are open, continues a
 * stopped-short turn or answers a harmless go-ahead. Anything else settles `completed`: the
 * harness never sends a finished reply back on its own account.
 */
import * as Gates from "@steward/reflex-core/Gates"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Budget from "../Budget.js"
import * as Event from "../Event.js"
import * as Goal from "../Goal.js"
import { HarnessError } from "../HarnessError.js"
import * as WorkSlice from "../WorkSlice.js"
import * as RunState from "./runState.js"
import { continuation, type Ctx, type Settle, step } from "./step.js"

/** The next move after a reply ended. */
export type Next = { readonly _tag: "settle"; readonly settle: Settle } | { readonly _tag: "continue" }

const settleWith = (settle: Settle): Next => ({ _tag: "settle", settle })
const goOn: Next = { _tag: "continue" }

const UpdateGoal = Schema.Struct({
  status: Schema.Literal("complete", "blocked"),
  blocker: Schema.optional(Schema.String),
  evidence: Schema.optional(Schema.String)
})

/** `get_goal` / `update_goal`: harness tools that touch nothing but the goal's own state. */
export const goalTool = (
  ctx: Ctx,
  state: RunState.RunState,
  call: { readonly id: string; readonly name: string; readonly params: unknown }
) =>
  Effect.gen(function*() {
    const goal = state.goal
    if (goal === undefined) return "There is no goal in this run."
    if (call.name === "get_goal") {
      return JSON.stringify({
        objective: goal.spec.objective,
        status: goal.status,
        round: goal.round,
        limits: { rounds: goal.spec.rounds ?? null, hours: goal.spec.hours ?? null, tokens: goal.spec.tokens ?? null },
        tokensUsed: state.totals.tokens - goal.tokensAtStart
      })
    }
    const update = Schema.decodeUnknownEither(UpdateGoal)(call.params)
    if (update._tag === "Left") return `invalid update_goal input: ${update.left.message}`
    const u = update.right
    yield* step(
      ctx,
      state,
      Effect.succeed({
        events: [Event.make(ctx.run, "goal", {
          action: "claim",
          callId: call.id,
          status: u.status,
          blocker: u.blocker ?? null,
          evidence: u.evidence ?? null
        })],
        result: null
      })
    )
    if (u.status === "complete") {
      goal.claim = { evidence: u.evidence ?? "" }
      return "Completion claim recorded. It is checked against the run's evidence before the goal counts as complete."
    }
    goal.blocker = (u.blocker ?? "(no blocker given)").trim().slice(0, 500)
    return "Blocker recorded. Keep working around it if you can."
  })

/** The goal loop at the end of a reply. */
const goalEnded = (ctx: Ctx, state: RunState.RunState, goal: RunState.GoalState) =>
  Effect.gen(function*() {
    if (goal.claim !== undefined) {
      const claim = goal.claim
      goal.claim = undefined
      const checked = yield* step(
        ctx,
        state,
        Effect.gen(function*() {
          const record = { ...RunState.evidence(state), claim: claim.evidence }
          const { usage, verdict } = yield* Goal.check(ctx.checker, goal.spec.objective, record).pipe(
            Effect.mapError((e) => new HarnessError({ code: "MODEL_FAILED", message: `goal checker: ${e.message}` }))
          )
          const u = {
            input: usage.inputTokens ?? 0,
            cachedInput: usage.cachedInputTokens ?? 0,
            output: usage.outputTokens ?? 0
          }
          return {
            events: [
              Event.make(ctx.run, "model.call", {
                n: state.modelCalls + 1,
                for: "checker",
                model: ctx.modelName,
                usage: u
              }),
              Event.make(ctx.run, "goal", { action: "check", ...verdict })
            ],
            result: { verdict, usage: u }
          }
        })
      )
      RunState.recordUsage(
        state,
        checked.usage,
        Budget.cost(checked.usage, ctx.budget?.prices?.[ctx.modelName]),
        Budget.tokens(checked.usage)
      )
      if (checked.verdict.achieved) {
        goal.status = "complete"
        return settleWith({ status: "completed", reason: `goal complete: ${checked.verdict.reason}` })
      }
      goal.gaps = checked.verdict.gaps
    }
    const activity = state.turnActivity.filter((a) => a.name !== "get_goal" && a.name !== "update_goal")
    if (goal.blocker !== undefined) {
      goal.sameBlocker = goal.blocker === goal.lastBlocker ? goal.sameBlocker + 1 : 1
      goal.lastBlocker = goal.blocker
      goal.blocker = undefined
      if (goal.sameBlocker >= 3) {
        goal.status = "blocked"
        return settleWith({
          status: "interrupted",
          code: "needs_person",
          reason: `the goal is blocked: the same blocker three goal turns in a row (${goal.lastBlocker})`
        })
      }
    } else {
      goal.sameBlocker = 0
      goal.lastBlocker = undefined
      const digest = WorkSlice.activityDigest(activity)
      if (goal.round > 0) {
        goal.stalls = activity.length === 0 || digest === goal.lastActivity ? goal.stalls + 1 : 0
        if (goal.stalls >= 2) {
          goal.status = "paused"
          return settleWith({
            status: "interrupted",
            code: "unfinished",
            reason: "the goal stalled: two continuation turns with the same or empty activity"
          })
        }
      }
      goal.lastActivity = digest
    }
    if (goal.spec.rounds !== undefined && goal.round >= goal.spec.rounds) {
      goal.status = "limited"
      return settleWith({
        status: "interrupted",
        code: "unfinished",
        reason: `the goal used its ${goal.spec.rounds} rounds`
      })
    }
    if (goal.spec.hours !== undefined && state.now - goal.startedAt >= goal.spec.hours * 3_600_000) {
      goal.status = "limited"
      return settleWith({
        status: "interrupted",
        code: "unfinished",
        reason: `the goal used its ${goal.spec.hours} hours`
      })
    }
    goal.round++
    state.turnActivity = []
    yield* continuation(ctx, state, {
      cause: "goal",
      notice: `goal turn ${goal.round}: the goal is still active`,
      prompt: Goal.continuationPrompt({
        objective: goal.spec.objective,
        round: goal.round,
        tokensUsed: state.totals.tokens - goal.tokensAtStart,
        tokens: goal.spec.tokens,
        gaps: goal.gaps
      }),
      data: { round: goal.round }
    })
    return goOn
  })

/** The settle reflex at the end of a reply. */
const reflexEnded = (ctx: Ctx, state: RunState.RunState, text: string) =>
  Effect.gen(function*() {
    if (Option.isNone(ctx.reflexes)) return settleWith({ status: "completed" })
    const reflexes = ctx.reflexes.value
    const n = state.reflexAttempts
    const subject = `${ctx.run}:${state.modelCalls}`
    const decided = yield* step(
      ctx,
      state,
      Effect.gen(function*() {
        const result = yield* reflexes.decide("settle", { text, toolCalls: state.turnActivity.length }, {
          subject,
          task: ctx.run,
          revision: n
        }).pipe(Effect.either)
        if (result._tag === "Left" || result.right.skipped === true) {
          const why = result._tag === "Left" ? result.left.message : (result.right as { reason: string }).reason
          return {
            events: [
              Event.make(ctx.run, "reflex.decision", { reflex: "settle", subject, action: "none", skipped: why })
            ],
            result: { action: "none" as const, receipt: null as string | null }
          }
        }
        const d = result.right
        const idle = Gates.classifyIdle(text)
        const gate = Gates.continuation({
          cancelRequested: false,
          attempts: n,
          askable: idle === "idle" || idle === "needs_answer",
          joined: true,
          effects: "settled",
          pendingAttention: state.turnPending,
          failed: false,
          repeated: state.previousText !== undefined && state.previousText === text,
          terminal: "completed",
          elapsedMs: state.now - state.startedAt
        })
        const category = String(d.decision["category"] ?? d.programValue)
        const action = !gate.open || !gate.semantic || !d.acts
          ? "none" as const
          : category === "stopped_short"
          ? "continue" as const
          : category === "confirm" && !d.vetoed
          ? "answer" as const
          : "none" as const
        return {
          events: [Event.make(ctx.run, "reflex.decision", {
            reflex: "settle",
            subject,
            observation: d.observation,
            category,
            mode: d.mode,
            certified: d.certified,
            held: d.held,
            vetoed: d.vetoed,
            acts: d.acts,
            gate: gate.reason,
            action,
            receipt: d.receipt
          })],
          result: { action, receipt: d.receipt as string | null }
        }
      })
    )
    if (decided.action === "none") return settleWith({ status: "completed" })
    state.reflexAttempts++
    state.previousText = text
    state.turnActivity = []
    state.turnPending = false
    yield* continuation(ctx, state, {
      cause: "reflex",
      notice: decided.action === "continue"
        ? "the settle reflex continued a stopped-short turn"
        : "the settle reflex answered the go-ahead",
      prompt: decided.action === "continue"
        ? "Carry on: do the step your last reply described, then report what you did."
        : "Yes, go ahead.",
      data: { action: decided.action, receipt: decided.receipt }
    })
    return goOn
  })

/** Decide what follows a reply that ended. */
export const replyEnded = (ctx: Ctx, state: RunState.RunState, text: string): Effect.Effect<Next, HarnessError> =>
  state.goal !== undefined && state.goal.status === "active"
    ? goalEnded(ctx, state, state.goal)
    : reflexEnded(ctx, state, text)
