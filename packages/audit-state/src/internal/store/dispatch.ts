/**
 * Dispatch envelopes (spec §1.8): opening one (closing an unfinalised one as `crash`) and
 * finishing it, each one commit through `commit.ts`.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as AuditError from "../../AuditError.js"
import * as Embargo from "../../Embargo.js"
import type * as Events from "../../Events.js"
import type * as State from "../../State.js"
import { PATTERNS, PROVIDER_BY_EXECUTABLE, ROLES, SESSION_OUTCOMES } from "../../Vocabulary.js"
import { sha } from "./backend.js"
import { commit } from "./commit.js"
import type { EngineContext } from "./context.js"
import type { AuditStoreShape, DispatchFinish, DispatchOpen } from "./model.js"
import { now, requireIntact, requireSnapshot } from "./snapshot.js"

/** Open a dispatch: its envelope, its embargo key, unfinalised ones closed as `crash`. @internal */
export const makeOpenDispatch = (ctx: EngineContext): AuditStoreShape["openDispatch"] =>
  Effect.fn("AuditStore.openDispatch")(
    function*(input: DispatchOpen) {
      if (!(ROLES as ReadonlyArray<string>).includes(input.role)) {
        return yield* Effect.fail(
          AuditError.make("invalid-input", `--role '${input.role}' is not a role (${ROLES.join(", ")})`)
        )
      }
      if (input.sessionId !== undefined && !PATTERNS.hex16.test(input.sessionId)) {
        return yield* Effect.fail(
          AuditError.make("invalid-input", `--session '${input.sessionId}' is not a canonical 16-hex session id`)
        )
      }
      return yield* ctx.backend.transact(true, (tx) =>
        Effect.gen(function*() {
          const snap = yield* requireSnapshot(ctx, tx)
          yield* requireIntact(snap)
          const { ts } = yield* now
          const base = input.executable.split("/").pop() ?? input.executable
          const provider = input.provider ?? PROVIDER_BY_EXECUTABLE[base] ?? "unknown"
          const sessionId = input.sessionId ??
            sha(`${snap.head}:${snap.revision}:${input.role}:${input.charter}:${ts}`).slice(0, 16)
          if ((snap.doc.sessions ?? []).some((s) => s.session_id === sessionId)) {
            return yield* Effect.fail(AuditError.make("refused", `session ${sessionId} is already recorded`))
          }
          const extra: Array<Events.AuditEvent> = []
          const sessions = (snap.doc.sessions ?? []).map((s) => {
            const isOpen = s.outcome === undefined || s.outcome === null
            const sameGroup = input.concurrentGroup !== undefined && s.concurrent_group === input.concurrentGroup
            if (!isOpen || sameGroup) return s
            extra.push({ ts, event: "session_abandoned", session_id: s.session_id, role: s.role })
            return {
              ...s,
              outcome: "crash",
              note:
                "the orchestrator was never able to finalise this dispatch — no exit status, duration or log digest was observed"
            }
          })
          const envelope: State.Session = {
            session_id: sessionId,
            role: input.role,
            provider,
            agent_model: input.agentModel ?? "unknown",
            executable: input.executable,
            executable_version: input.executableVersion ?? "unknown",
            charter_hash: sha(input.charter),
            prompt_hash: sha(input.prompt),
            state_revision: snap.revision,
            head_before: input.headBefore ?? "unknown",
            sandbox_profile: input.sandboxProfile ?? "unknown",
            started: ts,
            ...(input.concurrentGroup !== undefined ? { concurrent_group: input.concurrentGroup } : {}),
            ...(input.trustLevel !== undefined ? { trust_level: input.trustLevel } : {})
          }
          // the key the embargo compares (§4.3; ADR 0109), taken on the state the session starts from;
          // kept beside the stream (not in it), in the same transaction
          yield* tx.putKey({
            session_id: sessionId,
            ...Embargo.dispatchKeyPayload(snap.doc, input.role, input.charter)
          })
          const { event, next } = yield* commit(
            ctx,
            tx,
            snap,
            { ...snap.doc, sessions: [...sessions, envelope] },
            (revision) => ({
              ts,
              event: "session_dispatched",
              session_id: sessionId,
              state_revision: revision,
              ...eventEnvelope(envelope)
            }),
            { leading: extra, anchor: false }
          )
          return {
            doc: next.doc,
            revision: next.revision,
            event,
            message: `dispatch ${sessionId} opened (${input.role}, provider ${provider})${
              extra.length > 0 ? `; ${extra.length} unfinalised dispatch(es) closed as crash` : ""
            }`
          }
        }))
    }
  )

/** Finalise the open dispatch (or the named one). @internal */
export const makeFinishDispatch = (ctx: EngineContext): AuditStoreShape["finishDispatch"] =>
  Effect.fn("AuditStore.finishDispatch")(
    function*(input: DispatchFinish) {
      if (!(SESSION_OUTCOMES as ReadonlyArray<string>).includes(input.outcome)) {
        return yield* Effect.fail(
          AuditError.make(
            "invalid-input",
            `--outcome '${input.outcome}' is not an outcome (${SESSION_OUTCOMES.join(", ")})`
          )
        )
      }
      return yield* ctx.backend.transact(true, (tx) =>
        Effect.gen(function*() {
          const snap = yield* requireSnapshot(ctx, tx)
          yield* requireIntact(snap)
          const { ts } = yield* now
          const sessions = snap.doc.sessions ?? []
          const idx = sessions.findIndex((s) =>
            (s.outcome === undefined || s.outcome === null) &&
            (input.sessionId === undefined || s.session_id === input.sessionId)
          )
          if (idx < 0) {
            return yield* Effect.fail(
              AuditError.make(
                "refused",
                input.sessionId === undefined
                  ? "no dispatch is open"
                  : `no open dispatch ${input.sessionId} (open: ${
                    sessions.filter((s) => s.outcome === undefined).map((s) => s.session_id).join(", ") || "none"
                  })`
              )
            )
          }
          const s = sessions[idx]!
          const finished: State.Session = {
            ...s,
            outcome: input.outcome,
            ...(input.exitStatus !== undefined ? { exit_status: input.exitStatus } : {}),
            ...(input.durationS !== undefined ? { duration_s: input.durationS } : {}),
            ...(input.headAfter !== undefined ? { head_after: input.headAfter } : {}),
            ...(input.logDigest !== undefined ? { log_digest: input.logDigest } : {}),
            ...(input.tokens !== undefined ? { tokens: input.tokens } : {}),
            ...(input.note !== undefined ? { note: input.note } : {})
          }
          const arr = [...sessions]
          arr[idx] = finished
          const { event, next } = yield* commit(
            ctx,
            tx,
            snap,
            { ...snap.doc, sessions: arr },
            (revision) => ({
              ts,
              event: "session_finished",
              session_id: s.session_id,
              state_revision: revision,
              ...eventEnvelope(finished)
            }),
            { anchor: false }
          )
          return {
            doc: next.doc,
            revision: next.revision,
            event,
            message: `dispatch ${s.session_id} finished: ${input.outcome}`
          }
        }))
    }
  )

const ENVELOPE_EVENT_FIELDS = [
  "role",
  "provider",
  "agent_model",
  "executable_version",
  "policy_digest",
  "sandbox_profile",
  "trust_level",
  "subject_commit",
  "subject_manifest",
  "sandbox_seed",
  "controller_commit",
  "capsule_digest",
  "charter_hash",
  "prompt_hash",
  "head_before",
  "head_after",
  "duration_s",
  "exit_status",
  "outcome",
  "log_digest",
  "tokens"
]

const eventEnvelope = (s: State.Session): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const k of ENVELOPE_EVENT_FIELDS) {
    const v = s[k]
    if (v !== undefined && v !== null) out[k] = v
  }
  return out
}
