/**
 * Reopening a session: the runs a killed process left open are settled from their events — a
 * checkpoint rebuilt from what the run did, one `interrupted` transition each.
 */
import * as AlgalRuntime from "@steward/algal-runtime/AlgalRuntime"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Event from "../Event.js"
import type { HarnessError } from "../HarnessError.js"
import * as History from "../History.js"
import type * as Meta from "./meta.js"
import type { RunContext, Snapshot } from "./runContext.js"
import * as RunState from "./runState.js"
import * as Transcript from "./transcript.js"

const REASON = "the process running this run stopped; the session was reopened"

// A paused run a new request settles: the call nobody answered, named (ADR 0573).
const unanswered = (open: Transcript.RunView) =>
  `call ${open.pending?.callId} (${open.pending?.tool}) was never answered; a new request was made instead`

// One open run settled: its checkpoint and settle events committed with their transition; the
// committed events are appended to `events` and absorbed by the chain.
const settleOpenRun = (
  rc: RunContext,
  id: string,
  chain: History.Chain,
  events: Array<Event.SessionEvent>,
  open: Transcript.RunView,
  meta: Meta.Meta
) =>
  Effect.gen(function*() {
    const { runtime, store } = rc.env
    const paused = open.status === "paused"
    const reason = paused ? unanswered(open) : REASON
    const state = RunState.make(id, open.run, open.prompt)
    const evidence = Transcript.evidence(events, open.run)
    Object.assign(state, {
      done: [...evidence.done],
      filesTouched: [...evidence.filesTouched],
      checks: [...evidence.checks]
    })
    state.todos = evidence.todos
    state.lastText = evidence.lastText
    state.toolCalls = evidence.toolCalls
    state.slice.n = evidence.slice
    const checkpoint = RunState.checkpoint(state, reason)
    const code = paused ? "needs_person" : "aborted"
    const written = [
      Event.make(open.run, "checkpoint", { reason, checkpoint }),
      Event.make(open.run, "run.settle", {
        status: "interrupted",
        code,
        reason,
        toolCalls: evidence.toolCalls,
        ...(paused ? { pending: [open.pending?.callId] } : {})
      })
    ]
    const at = yield* Clock.currentTimeMillis
    const revision = yield* History.transition(chain, {
      at,
      session: id,
      run: open.run,
      kind: "settle",
      status: "interrupted",
      code,
      events: written
    }).pipe(Effect.provideService(AlgalRuntime.AlgalRuntime, runtime))
    const stored = yield* store.commit(id, { events: written, revision, at, meta, owner: rc.env.owner })
    events.push(...stored)
    chain.absorb(stored)
    chain.revision = revision.revision
    chain.receipt = revision.digest
  })

/**
 * Settle the runs a killed process left open (`interrupted{aborted}`), and with `paused` the runs
 * paused at an ask too (`interrupted{needs_person}`, naming the call: a new request was made
 * instead of an answer). Returns the session as it is afterwards (the settles appended), so
 * callers read once. `view`: the caller needs only the session's view, so the open runs are
 * found from the view's events and the whole stream is read only when there is one to settle.
 */
export const settleDangling = (
  rc: RunContext,
  id: string,
  options: { readonly view?: boolean; readonly paused?: boolean } = {}
): Effect.Effect<Snapshot, HarnessError> =>
  Effect.gen(function*() {
    const settles = (r: Transcript.RunView) => r.status === null || (options.paused === true && r.status === "paused")
    const first = yield* rc.load(id, options)
    if (options.view === true && !Transcript.runs(first.events).some(settles)) return first
    const snapshot = options.view === true ? yield* rc.load(id) : first
    const { meta, row } = snapshot
    const open = Transcript.runs(snapshot.events).filter(settles)
    if (open.length === 0) return snapshot
    const events = [...snapshot.events]
    const chain = History.Chain.from(events, yield* rc.env.store.revisions(id))
    const paused = meta.goal !== null && meta.goal.status === "active"
      ? { ...meta.goal, status: "paused" }
      : meta.goal
    const next: Meta.Meta = { ...meta, goal: paused }
    for (const r of open) yield* settleOpenRun(rc, id, chain, events, r, next)
    return { row: { ...row, meta: next, lastSeq: events.at(-1)?.seq ?? row.lastSeq }, meta: next, events }
  })
