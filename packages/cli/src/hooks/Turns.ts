/**
 * The turn around the tool calls: after a call, evidence and the progress model (a no-progress
 * stretch is nudged through the client's `additionalContext`); when the agent stops, the settle
 * reflex (its observation recorded, never the text) and — only when its head may act, the
 * continuation gates are open and the stop is not a continuation loop — a continuation naming
 * the decision's receipt; when the person writes, a reply right after a turn becomes labels for
 * that turn's observation, and the route reflex's tier is recorded.
 *
 * @since 0.3.0
 */
import * as Evidence from "@steward/governance-rules/Evidence"
import * as Progress from "@steward/governance-rules/Progress"
import * as Features from "@steward/reflex-core/Features"
import * as Gates from "@steward/reflex-core/Gates"
import type * as Reflexes from "@steward/reflex-core/Reflexes"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import type * as HookRuntime from "./HookRuntime.js"
import * as HookStore from "./HookStore.js"
import type { HookInput } from "./Input.js"
import type * as Wire from "./Wire.js"

/** The reflex spec's window for a reply to label the turn before it (`CONTINUE_WINDOW_MS`). */
const REPLY_WINDOW_MS = 6 * 3_600_000

const digest = (value: unknown): string =>
  crypto.createHash("sha256").update(typeof value === "string" ? value : JSON.stringify(value ?? null)).digest("hex")
    .slice(0, 32)

const none: Wire.Answer = { _tag: "none" }

/**
 * What a tool returned, without what changes on every run of the same call: Gemini's shell output
 * names the process group it ran in, which would make every repeat look like new information.
 */
const stable = (response: unknown): unknown => {
  if (typeof response !== "object" || response === null) return response
  const llm = (response as Record<string, unknown>)["llmContent"]
  return typeof llm === "string" ? llm.replace(/^Process Group PGID: \d+$/gm, "") : response
}

/**
 * One tool call's outcome as a progress iteration: what the call returned is a read of the
 * call (new output is information gain, the same output again is not), a file tool's input is a
 * change of its file, and a shell call's error output is an error class.
 *
 * @since 0.3.0
 * @category progress
 */
export const iteration = (input: HookInput): Progress.Iteration => {
  const tool = input.tool ?? "unknown"
  const fields = typeof input.toolInput === "object" && input.toolInput !== null
    ? input.toolInput as Record<string, unknown>
    : {}
  const file = typeof fields["file_path"] === "string" ? fields["file_path"] : undefined
  const response = input.toolResponse
  const stderr = typeof response === "object" && response !== null &&
      typeof (response as Record<string, unknown>)["stderr"] === "string"
    ? (response as Record<string, string>)["stderr"]!
    : ""
  const writes = ["Write", "Edit", "MultiEdit", "write_file", "replace"].includes(tool)
  return {
    reads: [{ path: `${tool}:${digest(input.toolInput)}`, digest: digest(stable(response)) }],
    ...(writes && file !== undefined ? { changes: [{ path: file, digest: digest(input.toolInput) }] } : {}),
    ...(stderr.trim() === "" ? {} : { errors: [stderr.trim().split("\n")[0]!] })
  }
}

const runOf = (client: Wire.Client, input: HookInput) => `${client}:${input.session}`

/**
 * After a tool call.
 *
 * @since 0.3.0
 * @category handlers
 */
export const postTool = (client: Wire.Client, input: HookInput, stores: HookRuntime.Stores) =>
  Effect.gen(function*() {
    const store = yield* HookStore.HookStore
    const log = yield* Evidence.EvidenceLog
    const verdict = yield* store.update(runOf(client, input), (state) =>
      Effect.sync(() => {
        const [v, next] = Progress.step(HookStore.toProgress(state.progress), iteration(input))
        return [v, { ...HookStore.withProgress(state, next), toolCalls: state.toolCalls + 1 }] as const
      }))
    yield* log.append({
      kind: "progress",
      runId: runOf(client, input),
      hook: input.event,
      data: { tool: input.tool ?? null, ...verdict }
    })
    if (verdict.verdict === "nudge" || verdict.verdict === "stuck") {
      return {
        _tag: "context",
        text: `Steward progress check: the last ${verdict.idle} tool calls changed nothing (no new output, no file ` +
          `changed to new content, no new error). Step back: say what you expected, try a different approach, or ` +
          `stop and tell the person what blocks you.`
      } satisfies Wire.Answer as Wire.Answer
    }
    return none
  }).pipe(Effect.provide(stores))

/**
 * The settle task of an agent session: the reflex subjects of its turns start with it.
 *
 * @since 0.3.0
 * @category handlers
 */
export const taskOf = (client: Wire.Client, session: string) => `hook:${client}:${session}`

/**
 * When the agent stops.
 *
 * @since 0.3.0
 * @category handlers
 */
export const stop = (
  client: Wire.Client,
  input: HookInput,
  stores: HookRuntime.Stores,
  reflexes: Reflexes.Reflexes["Type"]
) =>
  Effect.gen(function*() {
    const store = yield* HookStore.HookStore
    const log = yield* Evidence.EvidenceLog
    const text = input.lastMessage ?? ""
    const task = taskOf(client, input.session)
    const now = yield* Clock.currentTimeMillis
    // The reflex writes its own ledger: it decides outside the session's transaction (a Stop is
    // not concurrent with the session's tool calls), and the counters are updated after.
    const state = yield* store.update(runOf(client, input), (s) => Effect.succeed([s, s] as const))
    const subject = `${task}#${state.stops + 1}`
    // The client continued this turn because a hook asked; with nothing done since Steward's
    // last continuation (or a continuation that was not Steward's), another one is a loop.
    const loop = input.stopHookActive && (state.attempts === 0 || state.toolCalls === 0)
    const decided = yield* reflexes.decide("settle", {
      text,
      toolCalls: state.toolCalls,
      facts: Features.completedTurn
    }, { subject, task, revision: state.attempts }).pipe(Effect.either)
    const idle = Gates.classifyIdle(text)
    const gate = Gates.continuation({
      cancelRequested: false,
      attempts: state.attempts,
      askable: idle === "idle" || idle === "needs_answer",
      joined: true,
      effects: "settled",
      pendingAttention: false,
      failed: false,
      repeated: state.continuedText !== null && state.continuedText === text,
      terminal: "completed",
      elapsedMs: now - (state.promptAt ?? now)
    })
    const d = decided._tag === "Right" && decided.right.skipped === false ? decided.right : undefined
    const category = d === undefined ? null : String(d.decision["category"] ?? d.programValue)
    const action = d === undefined || loop || !gate.open || !gate.semantic || !d.acts
      ? "none" as const
      : category === "stopped_short"
      ? "continue" as const
      : category === "confirm" && !d.vetoed
      ? "answer" as const
      : "none" as const
    yield* store.update(runOf(client, input), (s) =>
      Effect.succeed(
        [undefined, {
          ...s,
          stops: s.stops + 1,
          awaitingReply: true,
          lastStopAt: now,
          ...(action === "none" ? {} : { attempts: s.attempts + 1, continuedText: text, toolCalls: 0 })
        }] as const
      ))
    const outcome = {
      subject,
      observation: d?.observation ?? null,
      category,
      mode: d?.mode ?? null,
      certified: d?.certified ?? false,
      held: d?.held ?? false,
      vetoed: d?.vetoed ?? false,
      acts: d?.acts ?? false,
      why: d?.why ?? (decided._tag === "Left" ? decided.left.message : "skipped"),
      gate: gate.reason,
      loop,
      toolCalls: state.toolCalls,
      action,
      receipt: d?.receipt ?? null
    }
    yield* log.append({ kind: "note", runId: runOf(client, input), hook: input.event, data: { settle: outcome } })
    if (outcome.action === "none") return none
    const prompt = outcome.action === "continue"
      ? "Carry on: do the step your last reply described, then report what you did."
      : "Yes, go ahead."
    return {
      _tag: "continue",
      reason: `${prompt} (Steward settle reflex, observation ${outcome.observation}, receipt ${outcome.receipt})`
    } satisfies Wire.Answer as Wire.Answer
  }).pipe(Effect.provide(stores))

/**
 * When the person writes.
 *
 * @since 0.3.0
 * @category handlers
 */
export const prompt = (
  client: Wire.Client,
  input: HookInput,
  stores: HookRuntime.Stores,
  reflexes: Reflexes.Reflexes["Type"]
) =>
  Effect.gen(function*() {
    const store = yield* HookStore.HookStore
    const log = yield* Evidence.EvidenceLog
    const text = input.prompt ?? ""
    const task = taskOf(client, input.session)
    const now = yield* Clock.currentTimeMillis
    const state = yield* store.update(runOf(client, input), (s) =>
      Effect.succeed(
        [s, {
          ...s,
          toolCalls: 0,
          attempts: 0,
          continuedText: null,
          awaitingReply: false,
          promptAt: now
        }] as const
      ))
    const replying = state.awaitingReply && state.lastStopAt !== null && now - state.lastStopAt <= REPLY_WINDOW_MS
    const reply = replying ? yield* reflexes.reply(text, task).pipe(Effect.either) : undefined
    const route = yield* reflexes.decide("route", { task: text }, { subject: `${task}@${state.stops}` }).pipe(
      Effect.either
    )
    yield* log.append({
      kind: "note",
      runId: runOf(client, input),
      hook: input.event,
      data: {
        reply: reply === undefined
          ? null
          : reply._tag === "Left"
          ? { error: reply.left.message }
          : {
            category: reply.right.category,
            labels: reply.right.labels.map((l) => ({ observation: l.observation, head: l.head, label: l.label }))
          },
        route: route._tag === "Left"
          ? { error: route.left.message }
          : route.right.skipped
          ? { skipped: route.right.reason }
          : {
            observation: route.right.observation,
            tier: String(route.right.decision["route"] ?? route.right.programValue),
            receipt: route.right.receipt
          }
      }
    })
    return none
  }).pipe(Effect.provide(stores))

/**
 * Session start or end: evidence only.
 *
 * @since 0.3.0
 * @category handlers
 */
export const session = (client: Wire.Client, input: HookInput, stores: HookRuntime.Stores) =>
  Effect.flatMap(Evidence.EvidenceLog, (log) =>
    log.append({
      kind: "note",
      runId: runOf(client, input),
      hook: input.event,
      data: { session: input.event, detail: input.detail ?? null, cwd: input.cwd }
    })).pipe(Effect.as(none), Effect.provide(stores))
