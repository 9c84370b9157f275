/**
 * The run loop's state. Everything in it is derived from step results, so re-driving a run from
 * its stored steps rebuilds exactly the same state.
 */
import * as Prompt from "@effect/ai/Prompt"
import * as Progress from "@steward/governance-rules/Progress"
import { createHash } from "node:crypto"
import type * as Budget from "../Budget.js"
import * as Checkpoint from "../Checkpoint.js"
import type * as Event from "../Event.js"
import type * as EventStore from "../EventStore.js"
import type * as Goal from "../Goal.js"
import * as WorkSlice from "../WorkSlice.js"
import type { ToolResult } from "./toolShape.js"

/** One tool call of the current slice or turn, for activity digests. */
export interface Activity {
  readonly name: string
  readonly input: unknown
  readonly ok: boolean
  readonly output: string
}

/** The goal's live state. */
export interface GoalState {
  readonly spec: Goal.Spec
  status: Goal.Status
  round: number
  startedAt: number
  tokensAtStart: number
  claim: { readonly evidence: string } | undefined
  blocker: string | undefined
  sameBlocker: number
  lastBlocker: string | undefined
  stalls: number
  lastActivity: string | undefined
  gaps: ReadonlyArray<string>
}

/** The loop's state. */
export interface RunState {
  readonly session: string
  readonly run: string
  readonly prompt: string
  /** The conversation so far, each message decoded once (see `say`). */
  readonly messages: Array<Prompt.Message>
  step: number
  startedAt: number
  now: number
  toolCalls: number
  modelCalls: number
  lastTool: string | null
  lastText: string
  previousText: string | undefined
  done: Array<string>
  filesTouched: Array<string>
  checks: Array<{ readonly command: string; readonly exitCode: number }>
  todos: ReadonlyArray<{ readonly content: string; readonly status: string }>
  totals: { tokens: number; cost: number; input: number; cachedInput: number; output: number }
  /** `calls` counts executed calls; `handled` every call the slice answered (the in-turn bound). */
  slice: {
    n: number
    calls: number
    handled: number
    startedAt: number
    tokens: number
    progressed: boolean
    blocked: boolean
  }
  sliceActivity: Array<Activity>
  previousSliceActivity: string | undefined
  turnActivity: Array<Activity>
  turnPending: boolean
  progress: Progress.ProgressState
  reflexAttempts: number
  wrappedUp: boolean
  goal: GoalState | undefined
  /** Invalid tool calls in a row (a valid one resets it), and the last one's message. */
  invalidInRow: number
  lastInvalid: string
  /** Steps computed and not yet committed: they go in the next step's commit (`step.ts`). */
  readonly deferred: Array<Deferred>
}

/** A deferred step: its bounded events and its stored record. */
export interface Deferred {
  readonly events: ReadonlyArray<Event.EventInput>
  readonly step: EventStore.Step
}

/** A fresh state. */
export const make = (session: string, run: string, prompt: string): RunState => ({
  session,
  run,
  prompt,
  messages: [],
  step: 0,
  startedAt: 0,
  now: 0,
  toolCalls: 0,
  modelCalls: 0,
  lastTool: null,
  lastText: "",
  previousText: undefined,
  done: [],
  filesTouched: [],
  checks: [],
  todos: [],
  totals: { tokens: 0, cost: 0, input: 0, cachedInput: 0, output: 0 },
  slice: { n: 1, calls: 0, handled: 0, startedAt: 0, tokens: 0, progressed: false, blocked: false },
  sliceActivity: [],
  previousSliceActivity: undefined,
  turnActivity: [],
  turnPending: false,
  progress: Progress.empty,
  reflexAttempts: 0,
  wrappedUp: false,
  goal: undefined,
  invalidInRow: 0,
  lastInvalid: "",
  deferred: []
})

/**
 * Append messages to the conversation (built by `./messages.ts`), so a model call sends the
 * conversation as a built `Prompt` instead of having the whole history decoded again per call.
 */
export const say = (state: RunState, ...messages: ReadonlyArray<Prompt.Message>): void => {
  state.messages.push(...messages)
}

/** The conversation as the model receives it. */
export const conversation = (state: RunState): Prompt.Prompt => Prompt.fromMessages([...state.messages])

const digest = (text: string): string => `sha256:${createHash("sha256").update(text).digest("hex")}`

const summary = (name: string, input: unknown, result: ToolResult): string => {
  const what = typeof input === "object" && input !== null
    ? String(
      (input as Record<string, unknown>)["command"] ?? (input as Record<string, unknown>)["path"] ??
        (input as Record<string, unknown>)["url"] ?? ""
    )
    : ""
  return `${name}${what === "" ? "" : ` ${what.slice(0, 120)}`}: ${result.ok ? "ok" : "failed"}${
    result.check === undefined ? "" : ` (exit ${result.check.exitCode})`
  }`
}

/** Fold one executed tool call into the evidence, the slice and the progress model. */
export const recordTool = (state: RunState, name: string, input: unknown, result: ToolResult): void => {
  state.toolCalls++
  state.slice.calls++
  state.lastTool = name
  state.done.push(summary(name, input, result))
  if (state.done.length > 64) state.done.splice(0, state.done.length - 64)
  for (const f of result.filesTouched ?? []) if (!state.filesTouched.includes(f)) state.filesTouched.push(f)
  if (result.check !== undefined) state.checks.push(result.check)
  if (state.checks.length > 64) state.checks.splice(0, state.checks.length - 64)
  if (result.todos !== undefined) state.todos = result.todos
  const activity: Activity = { name, input, ok: result.ok, output: result.output.slice(0, 4096) }
  state.sliceActivity.push(activity)
  state.turnActivity.push(activity)
  const path = typeof input === "object" && input !== null ? (input as Record<string, unknown>)["path"] : undefined
  const iteration: Progress.Iteration = {
    ...(name === "read" && typeof path === "string" && result.ok
      ? { reads: [{ path, digest: digest(result.output) }] }
      : {}),
    ...((result.filesTouched ?? []).length > 0
      ? { changes: (result.filesTouched ?? []).map((p) => ({ path: p, digest: digest(JSON.stringify(input)) })) }
      : {}),
    ...(result.check === undefined ? {} : { exitCodes: [result.check.exitCode] }),
    ...(result.ok ? {} : { errors: [result.output.slice(0, 500)] }),
    ...(result.todos === undefined ? {} : { taskState: digest(JSON.stringify(result.todos)) })
  }
  const [verdict, next] = Progress.step(state.progress, iteration)
  state.progress = next
  if (verdict.verdict === "progress") state.slice.progressed = true
}

/** Fold one model call's usage into the totals. */
export const recordUsage = (state: RunState, usage: Budget.Usage, cost: number, countsTokens: number): void => {
  state.modelCalls++
  state.totals.input += usage.input
  state.totals.cachedInput += usage.cachedInput
  state.totals.output += usage.output
  state.totals.tokens += countsTokens
  state.totals.cost += cost
  state.slice.tokens += countsTokens
}

/** The slice as the guard sees it. */
export const sliceState = (state: RunState): WorkSlice.SliceState => ({
  slice: state.slice.n,
  calls: state.slice.calls,
  startedAt: state.slice.startedAt,
  tokens: state.slice.tokens,
  progressed: state.slice.progressed,
  activity: WorkSlice.activityDigest(state.sliceActivity),
  blocked: state.slice.blocked,
  failed: false
})

/** Start the next slice. */
export const nextSlice = (state: RunState): void => {
  state.previousSliceActivity = WorkSlice.activityDigest(state.sliceActivity)
  state.sliceActivity = []
  state.slice = {
    n: state.slice.n + 1,
    calls: 0,
    handled: 0,
    startedAt: state.now,
    tokens: 0,
    progressed: false,
    blocked: false
  }
}

/** The run's evidence, for checkpoints and the goal checker. */
export const evidence = (state: RunState): Checkpoint.Evidence => ({
  asked: state.prompt,
  done: state.done,
  filesTouched: state.filesTouched,
  checks: state.checks,
  todos: state.todos,
  lastText: state.lastText,
  toolCalls: state.toolCalls,
  slice: state.slice.n
})

/** A checkpoint of the run now. */
export const checkpoint = (state: RunState, next?: string): Checkpoint.Checkpoint =>
  Checkpoint.make(evidence(state), next)

/** The heartbeat event's data. */
export const heartbeat = (state: RunState, callBudget: number) => ({
  steps: state.step,
  elapsedMs: state.now - state.startedAt,
  lastTool: state.lastTool,
  slice: state.slice.n,
  calls: state.slice.calls,
  callBudget,
  toolCalls: state.toolCalls,
  tokens: state.totals.tokens
})
