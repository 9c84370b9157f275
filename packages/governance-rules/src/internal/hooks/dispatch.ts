/**
 * The hook dispatcher's loop: the hooks registered for a point, in order, each run once; a hook's
 * output becomes an evidence event, its failure a `hook_error`, nothing when it returns
 * `undefined`. A hook built from a plain function (`Hooks.sync`, every built-in) is called
 * directly: it cannot be interrupted, so a timeout fiber would only cost. Any other hook runs under
 * the dispatcher's timeout.
 */
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Evidence from "../../Evidence.js"
import type { Hook, HookContext, HookPoint } from "../../Hooks.js"

// The plain functions behind synchronous hooks: an internal capability of the dispatcher, not a
// field a host sets on a hook.
const syncRuns = new WeakMap<Hook, (context: HookContext) => unknown>()

/** Mark `hook` as running `run` synchronously (its `run` must be `Effect.sync` of the same). */
export const registerSync = <H extends Hook>(hook: H, run: (context: HookContext) => unknown): H => {
  syncRuns.set(hook, run)
  return hook
}

type Outcome = { readonly ok: true; readonly data: unknown } | { readonly ok: false; readonly error: string }

const message = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  const text = error instanceof Error ? error.message : typeof error === "string" ? error : JSON.stringify(error)
  return Evidence.redact(String(text)).slice(0, 500)
}

const runEffectful = (hook: Hook, context: HookContext, limit: Duration.Duration): Effect.Effect<Outcome> =>
  Effect.suspend(() => hook.run(context)).pipe(
    Effect.timeoutFail({
      duration: limit,
      onTimeout: () => new Error(`hook timed out after ${Duration.format(limit)}`)
    }),
    Effect.map((data): Outcome => ({ ok: true, data })),
    Effect.catchAllCause((cause) => Effect.succeed<Outcome>({ ok: false, error: message(cause) }))
  )

const runSync = (run: (context: HookContext) => unknown, context: HookContext): Outcome => {
  try {
    return { ok: true, data: run(context) }
  } catch (defect) {
    return { ok: false, error: message(Cause.die(defect)) }
  }
}

const asObject = (data: unknown): Record<string, unknown> =>
  data !== null && typeof data === "object" && !Array.isArray(data) ? data as Record<string, unknown> : { output: data }

const evidenceOf = (hook: Hook, context: HookContext, outcome: Outcome): Evidence.EvidenceInput =>
  outcome.ok
    ? {
      kind: "hook",
      hook: hook.id,
      runId: context.runId ?? null,
      data: { point: context.point, ...asObject(outcome.data) }
    }
    : {
      kind: "hook_error",
      hook: hook.id,
      runId: context.runId ?? null,
      data: { point: context.point, summary: "hook error (run continued)", error: outcome.error }
    }

const NONE: ReadonlyArray<Evidence.EvidenceEvent> = Object.freeze([])

/** The `fire` of a dispatcher over `hooks`, appending to `log`. */
export const fire = (
  hooks: ReadonlyArray<Hook>,
  log: Evidence.EvidenceLog["Type"],
  timeout: Duration.DurationInput
): (context: HookContext) => Effect.Effect<ReadonlyArray<Evidence.EvidenceEvent>> => {
  const limit = Duration.decode(timeout)
  // The hooks of each point, in registration order, found once instead of on every firing.
  const byPoint = new Map<HookPoint, Array<Hook>>()
  for (const hook of hooks) {
    for (const point of new Set(hook.points)) {
      const due = byPoint.get(point)
      if (due === undefined) byPoint.set(point, [hook])
      else due.push(hook)
    }
  }
  // Host code (an effectful hook) is where a firing's time can go, so such a firing is a span;
  // one of synchronous hooks only (the built-ins) is a few property reads and is not traced.
  const traced = new Set<HookPoint>()
  for (const [point, due] of byPoint) if (due.some((hook) => !syncRuns.has(hook))) traced.add(point)
  const run = Effect.fnUntraced(function*(context: HookContext, due: ReadonlyArray<Hook>) {
    let out: Array<Evidence.EvidenceEvent> | undefined
    for (const hook of due) {
      const sync = syncRuns.get(hook)
      const outcome = sync === undefined ? yield* runEffectful(hook, context, limit) : runSync(sync, context)
      if (outcome.ok && outcome.data === undefined) continue
      // A failing evidence store must not break the run either.
      const event = yield* log.append(evidenceOf(hook, context, outcome)).pipe(
        Effect.catchAllCause((cause) =>
          Effect.logWarning(`evidence append for hook ${hook.id} failed`, cause).pipe(Effect.as(undefined))
        )
      )
      if (event !== undefined) (out ??= []).push(event)
    }
    return out ?? NONE
  })
  return (context) => {
    const due = byPoint.get(context.point)
    if (due === undefined) return Effect.succeed(NONE)
    return traced.has(context.point) ? Effect.withSpan(run(context, due), "Hooks.fire") : run(context, due)
  }
}
