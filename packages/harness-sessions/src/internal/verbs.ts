/**
 * The verbs that re-drive a session's runs — `resume` (the open run a killed process left) and
 * `approve` (a refused call, in a new run) — over the session runner.
 */
import type * as Rule from "@steward/governance-rules/Rule"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Event from "../Event.js"
import type * as Goal from "../Goal.js"
import { HarnessError } from "../HarnessError.js"
import type * as Runner from "./runner.js"
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
export const rememberScope = (action: string, resource: string): string =>
  action === "shell" ? `${resource.trim().split(/\s+/)[0] ?? resource} *` : resource

/** Re-drive the run a killed process left open (the caller holds the session's lease). */
export const resume = (runner: Runner) =>
  Effect.fn("Session.resume")(function*(
    id: string,
    resumeOptions: { readonly abort?: Deferred.Deferred<void>; readonly started?: Deferred.Deferred<string> }
  ) {
    const snapshot = yield* runner.load(id)
    const open = Transcript.runs(snapshot.events).filter((r) => r.status === null).at(-1)
    if (open === undefined) {
      return yield* new HarnessError({ code: "RUN_NOT_FOUND", message: `session ${id} has no open run` })
    }
    const s = open.start
    const input: RunInput = {
      prompt: open.prompt,
      trigger: s["trigger"] === "approval" ? "approval" : "person",
      goal: (s["goal"] ?? null) as Goal.Spec | null,
      plan: s["plan"] === true,
      approved: (s["approved"] ?? null) as RunInput["approved"]
    }
    if (resumeOptions.started !== undefined) yield* Deferred.succeed(resumeOptions.started, open.run)
    return yield* runner.execute(id, open.run, input, resumeOptions.abort, null, snapshot)
  })

/** Run an approved call in a new run (the caller holds the session's lease). */
export const approve = (runner: Runner) =>
  Effect.fn("Session.approve")(function*(
    id: string,
    callId: string,
    approveOptions: { readonly remember?: boolean; readonly by?: string; readonly started?: Deferred.Deferred<string> }
  ) {
    const snapshot = yield* runner.settleDangling(id)
    const { events, meta } = snapshot
    const call = Transcript.pending(events).find((p) => p.callId === callId)
    if (call === undefined) {
      return yield* new HarnessError({
        code: "INVALID_INPUT",
        message: `no call ${callId} is waiting for approval in session ${id}`
      })
    }
    const citation = call.citation as { action?: string; resource?: string } | null
    const rule: Rule.RuleInput | null = approveOptions.remember === true && citation?.action !== undefined
      ? {
        id: `remembered.${citation.action}.${meta.remembered.length + 1}`,
        action: citation.action as Rule.Action,
        resource: rememberScope(citation.action, citation.resource ?? ""),
        effect: "allow",
        note: `approved and remembered by ${approveOptions.by ?? "person"}`
      }
      : null
    const prompt = `The person approved your ${call.tool} call ${callId}. Carry on with the task.`
    const input: RunInput = {
      prompt,
      trigger: "approval",
      goal: null,
      plan: false,
      approved: {
        callId,
        tool: call.tool,
        input: call.input,
        by: approveOptions.by ?? "person",
        ...(rule === null ? {} : { remembered: rule.id })
      }
    }
    const run = nextRun(id, events)
    if (approveOptions.started !== undefined) yield* Deferred.succeed(approveOptions.started, run)
    const outcome = yield* runner.execute(id, run, input, undefined, rule, snapshot)
    return { ...outcome, callId, remembered: rule }
  })
