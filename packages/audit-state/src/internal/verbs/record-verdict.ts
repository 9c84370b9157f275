/**
 * `record-verdict`: fixed -> closed | reopened by a session that is not the fixer, with the measured independence.
 *
 * @internal
 */
import * as State from "../../State.js"
import { NEEDS_HUMAN } from "../../Vocabulary.js"
import { bindSession, findRecord, independenceLevel, noRecord, type Rec, replaceRecord, without } from "./common.js"
import { type Handler, refuse } from "./model.js"

/** @internal */
export const recordVerdict: Handler<"record-verdict"> = (doc, request, ctx) => {
  const v = request.verb
  const today = ctx.today
  if (request.verdict !== "closed" && request.verdict !== "reopened") {
    return refuse(v, "invalid-input", `--verdict must be 'closed' or 'reopened', got '${request.verdict}'`)
  }
  const bound = bindSession(doc, v, request.session, "Verifier")
  if ("_tag" in bound) return bound
  const loc = findRecord(doc, request.id)
  if (loc === undefined) return noRecord(v, doc, request.id)
  const r = loc.rec
  if (r.status !== "fixed") {
    return refuse(v, "refused", `${r.id} is '${r.status}': a binding verdict applies only to a 'fixed' finding`)
  }
  const fixerId = r.fixed_by?.split(":")[0]
  if (fixerId === request.session) {
    return refuse(
      v,
      "refused",
      `session ${request.session} recorded the fix on ${r.id} and cannot also return the verdict on it (the verifier is never the fixer)`
    )
  }
  const sessions = doc.sessions ?? []
  const ind = independenceLevel(
    fixerId,
    request.session,
    sessions.find((s) => s.session_id === fixerId),
    State.openDispatch(doc)
  )
  let next: Rec = { ...r, status: request.verdict, independence: ind.level, updated: today }
  let flagged = false
  if (request.verdict === "reopened") {
    const attempts = r.attempts + 1
    next = without({ ...next, attempts }, "next")
    if (attempts >= State.limit(doc, "reopen_limit")) {
      next = { ...next, next: NEEDS_HUMAN }
      flagged = true
    }
  } else {
    next = without(next, "next")
  }
  const msg = `${r.id}: fixed -> ${request.verdict} (independence: ${ind.level} — ${ind.note})${
    flagged
      ? `; reopened ${next.attempts} time(s), reaching reopen_limit ${
        State.limit(doc, "reopen_limit")
      }: flagged '${NEEDS_HUMAN}' — the automatic cycle stops here and a human decides`
      : ""
  }`
  return {
    doc: replaceRecord(doc, loc, next),
    target: r.id,
    fromStatus: "fixed",
    toStatus: request.verdict,
    message: msg,
    extras: { verdict: request.verdict, reason: request.reason ?? "unrecorded" }
  }
}
