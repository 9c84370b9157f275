/**
 * The verbs that re-drive a session's runs — `resume` (the open run a killed process left) and
 * `answer` (the call a paused run waits on, ADR 0573) — over the session runner.
 */
import type * as Rule from "@steward/governance-rules/Rule"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Checkpoint from "../Checkpoint.js"
import type * as Event from "../Event.js"
import type * as EventStore from "../EventStore.js"
import type * as Goal from "../Goal.js"
import { HarnessError } from "../HarnessError.js"
import * as Meta from "./meta.js"
import type * as Runner from "./runner.js"
import * as Scope from "./scope.js"
import * as Transcript from "./transcript.js"

type Runner = ReturnType<typeof Runner.make>
type RunInput = Runner.RunInput

/** The id of a session's next run. */
export const nextRun = (id: string, events: ReadonlyArray<Event.SessionEvent>) =>
  `${id}.r${Transcript.runs(events).length + 1}`

/**
 * The scope approve-and-remember saves for a call: for shell, the command's first word and any
 * arguments (`psql *`); otherwise the exact resource.
 */
export const rememberScope = Scope.rememberScope

/** A person-edited scope, checked by governance against the call. */
export const checkScope = Scope.checkScope

// The input a run was started with, from its `run.start` event (a re-drive runs it again).
const inputOf = (open: Transcript.RunView): RunInput => ({
  prompt: open.prompt,
  trigger: open.start["trigger"] === "approval" ? "approval" : "person",
  goal: (open.start["goal"] ?? null) as Goal.Spec | null,
  plan: open.start["plan"] === true
})

/** How a paused run's outcome reads without driving it (nobody has answered yet). */
const pausedOutcome = (id: string, open: Transcript.RunView, events: ReadonlyArray<Event.SessionEvent>) => {
  const call = open.pending!
  return {
    session: id,
    run: open.run,
    status: "paused" as const,
    code: null,
    reason: `paused at ${call.tool} call ${call.callId}: it needs a person's approval`,
    checkpoint: Checkpoint.make(
      Transcript.evidence(events, open.run),
      `answer call ${call.callId}: approve or reject it`
    ),
    pending: call
  }
}

/** Create a session (its rules compiled first, so bad rules write nothing); `show` views it. */
export const create = <A>(
  runner: Runner,
  store: EventStore.EventStore["Type"],
  show: (id: string) => Effect.Effect<A, HarnessError>
) =>
  Effect.fn("Session.create")(function*(options: Parameters<typeof Meta.initial>[0] & { readonly id?: string }) {
    const meta = yield* Meta.initial(options)
    yield* runner.engineFor(meta)
    if (options.id !== undefined) {
      yield* store.create(options.id, meta)
      return yield* show(options.id)
    }
    // A generated id carries the second and four random hex digits: a host creating many
    // sessions a second can draw one twice, so a taken id is drawn again.
    const id = yield* Meta.newId.pipe(
      Effect.tap((id) => store.create(id, meta)),
      Effect.retry({ times: 8, while: (e) => e.code === "INVALID_INPUT" })
    )
    return yield* show(id)
  })

/**
 * Run a person's request (the caller holds the session's lease): a run a killed process left open
 * is settled `aborted` first, a paused one `needs_person`; the reply reflex hears the request.
 */
export const request = (runner: Runner, reflexes: Runner.Env["reflexes"]) =>
(
  id: string,
  prompt: string,
  goal: Goal.Spec | null,
  options: {
    readonly plan?: boolean | undefined
    readonly abort?: Deferred.Deferred<void> | undefined
    readonly started?: Deferred.Deferred<string> | undefined
  }
) =>
  Effect.gen(function*() {
    const snapshot = yield* runner.settleDangling(id, { paused: true })
    if (Option.isSome(reflexes) && snapshot.meta.lastSubject !== null) {
      yield* reflexes.value.reply(prompt, snapshot.meta.lastSubject).pipe(Effect.ignore)
    }
    const input: RunInput = { prompt, trigger: "person", goal, plan: options.plan === true }
    const run = nextRun(id, snapshot.events)
    if (options.started !== undefined) yield* Deferred.succeed(options.started, run)
    return yield* runner.execute(id, run, input, options.abort, undefined, snapshot)
  })

/**
 * Re-drive the run a killed process left open (the caller holds the session's lease). A run
 * paused at an ask is not driven: it waits for an answer, and its outcome says so.
 */
export const resume = (runner: Runner) =>
  Effect.fn("Session.resume")(function*(
    id: string,
    resumeOptions: { readonly abort?: Deferred.Deferred<void>; readonly started?: Deferred.Deferred<string> }
  ) {
    const snapshot = yield* runner.load(id)
    const runs = Transcript.runs(snapshot.events)
    const open = runs.filter((r) => r.status === null).at(-1)
    if (open === undefined) {
      const paused = runs.find((r) => r.status === "paused")
      if (paused !== undefined) return pausedOutcome(id, paused, snapshot.events)
      return yield* new HarnessError({ code: "RUN_NOT_FOUND", message: `session ${id} has no open run` })
    }
    if (resumeOptions.started !== undefined) yield* Deferred.succeed(resumeOptions.started, open.run)
    return yield* runner.execute(id, open.run, inputOf(open), resumeOptions.abort, undefined, snapshot)
  })

/** A person's answer to a paused call (ADR 0573). */
export interface AnswerOptions {
  readonly decision: "allow" | "reject"
  /** Allow only: also save a rule allowing calls in the shown scope. */
  readonly remember?: boolean
  /** Allow with `remember`: the scope to save instead of the shown one. */
  readonly scope?: string
  /** Reject only: why, for the model. */
  readonly reason?: string
  readonly by?: string
  readonly abort?: Deferred.Deferred<void>
  readonly started?: Deferred.Deferred<string>
}

const invalid = (message: string) => new HarnessError({ code: "INVALID_INPUT", message })

/**
 * Answer the call a run is paused at and re-drive the same run from there (the caller holds the
 * session's lease): its stored steps are reused — the model call that proposed the call included,
 * so no model is called for the answer — then an approved call runs, a rejected one answers the
 * model with the person's reason, and the loop goes on. A call that is not the session's open
 * pause is `INVALID_INPUT` naming it.
 */
export const answer = (runner: Runner) =>
  Effect.fn("Session.answer")(function*(id: string, callId: string, options: AnswerOptions) {
    const snapshot = yield* runner.load(id)
    const paused = Transcript.runs(snapshot.events).find((r) => r.status === "paused")
    if (paused === undefined || paused.pending?.callId !== callId) {
      return yield* invalid(
        `call ${callId} is not waiting for an answer in session ${id}: ${
          paused === undefined
            ? "no run is paused"
            : `run ${paused.run} is paused at call ${paused.pending?.callId}`
        }`
      )
    }
    const call = paused.pending
    if (options.decision === "reject" && (options.remember === true || options.scope !== undefined)) {
      return yield* invalid(`call ${callId}: --remember and a scope go with an approval, not a rejection`)
    }
    const by = options.by ?? "person"
    const rule = options.decision === "allow" && (options.remember === true || options.scope !== undefined)
      ? yield* rememberedRule(runner, id, call, snapshot.meta.remembered.length + 1, by, options.scope)
      : undefined
    if (options.started !== undefined) yield* Deferred.succeed(options.started, paused.run)
    const outcome = yield* runner.execute(id, paused.run, inputOf(paused), options.abort, {
      callId,
      decision: options.decision,
      by,
      ...(options.reason === undefined ? {} : { reason: options.reason }),
      ...(rule === undefined ? {} : { remembered: rule })
    }, snapshot)
    return { ...outcome, callId, remembered: rule ?? null }
  })

// The rule approve-and-remember saves: the scope shown on the pause, or the person's own checked
// by governance; none honoured: refused with governance's reason.
const rememberedRule = (
  runner: Runner,
  id: string,
  call: Transcript.PendingCall,
  n: number,
  by: string,
  edited: string | undefined
) =>
  Effect.gen(function*() {
    const citation = call.citation as { action?: unknown; resource?: unknown } | null
    const command = (call.input as { command?: unknown } | null)?.command
    const cited = citation?.action === "shell" && typeof command === "string"
      ? { action: "shell", resource: command }
      : { action: String(citation?.action ?? ""), resource: String(citation?.resource ?? "") }
    // The scope is read by the shell grammar, which this process may not have loaded yet (an
    // approve from another process decides nothing before it).
    yield* runner.parser.ready.pipe(
      Effect.mapError((e) => invalid(`call ${call.callId} in session ${id}: cannot read its scope: ${e.message}`))
    )
    const scope = edited !== undefined
      ? checkScope(cited, edited, runner.parser)
      : call.scope !== null
      ? Either.right({ pattern: call.scope, alternatives: call.alternatives })
      : rememberScope(cited, runner.parser)
    if (Either.isLeft(scope)) {
      return yield* invalid(
        `call ${call.callId} in session ${id}: cannot remember ${
          edited === undefined ? "a scope" : JSON.stringify(edited)
        }: ${scope.left.reason}`
      )
    }
    return {
      id: `remembered.${cited.action}.${n}`,
      action: cited.action as Rule.Action,
      resource: scope.right.pattern,
      effect: "allow" as const,
      note: `approved and remembered by ${by}`
    } satisfies Rule.RuleInput
  })
