/**
 * `set-status`: move a finding along the §5 transition table (reserved moves name their own verb).
 *
 * @internal
 */
import * as AuditError from "../../AuditError.js"
import { HARD_TERMINAL, isStatus, NEEDS_HUMAN, NEXT_VALUES, RESERVED, STATUSES, TRANSITIONS } from "../../Vocabulary.js"
import {
  CLASS_NEVER,
  findRecord,
  noRecord,
  pyList,
  type Rec,
  replaceRecord,
  terminalRefusal,
  without
} from "./common.js"
import { type Handler, refuse } from "./model.js"

/** @internal */
/** How a record becomes superseded-by-class: a class finding that absorbs it. */
const absorb = (id: string): AuditError.Hint => ({ verb: "file-finding", args: ["--id", "CF-…", "--members", id] })

export const setStatus: Handler<"set-status"> = (doc, request, ctx) => {
  const v = request.verb
  const today = ctx.today
  if (!isStatus(request.status)) {
    return refuse(
      v,
      "invalid-input",
      `'${request.status}' is not a canonical §5 status (one of ${STATUSES.join(", ")})`
    )
  }
  const loc = findRecord(doc, request.id)
  if (loc === undefined) return noRecord(v, doc, request.id)
  const r = loc.rec
  if (r.status === request.status) {
    return refuse(v, "refused", `${r.id} is already '${r.status}' — nothing to change`)
  }
  if (HARD_TERMINAL.has(r.status)) return terminalRefusal(v, r)
  const legal = TRANSITIONS[r.status] ?? []
  if (!legal.includes(request.status as never)) {
    return refuse(
      v,
      "refused",
      `${r.id} is '${r.status}' and §5 allows only ${pyList(legal)} from there — '${request.status}' is not among them`
    )
  }
  if (ctx.policy?.strictClassMoves === true && r.status === "superseded-by-class" && r.class !== undefined) {
    // ADR 0104: a member goes back to accepted only when its class finding was rejected
    const cf = (doc.class_findings ?? []).find((c) => c.id === r.class)
    if (cf !== undefined && cf.status !== "rejected") {
      return refuse(
        v,
        "refused",
        `${r.id} is absorbed by ${cf.id}, which is '${cf.status}': a member returns to 'accepted' only after its class finding is rejected (§8)`
      )
    }
  }
  if (ctx.policy?.strictClassMoves === true && loc.cls && CLASS_NEVER.includes(request.status)) {
    return refuse(
      v,
      "refused",
      `${r.id} is a class finding and never reaches '${request.status}' (§5/§8, ADR 0104); triage rejects a class instead`
    )
  }
  const reserved = RESERVED.find((x) => x.from === r.status && x.to === request.status)
  if (reserved !== undefined) {
    return refuse(
      v,
      "refused",
      `${r.id} ${r.status} -> ${request.status} is reserved to its own verb: use ${
        AuditError.command({ verb: reserved.verb, args: [] })
      } (xcheck ${reserved.verb})`,
      [{ verb: reserved.verb, args: [] }]
    )
  }
  let retook = false
  if (r.next === NEEDS_HUMAN) {
    if (request.retake === undefined || !/^human:.+/.test(request.retake)) {
      return refuse(
        v,
        "refused",
        `${r.id} is flagged '${NEEDS_HUMAN}' after ${r.attempts} reopens — the automatic cycle stopped for a human. Re-run with \`--retake human:<who sanctioned it>\` to resume`
      )
    }
    retook = true
  }
  if (request.status === "superseded-by-class" && (r.class === undefined || r.id.startsWith("CF-"))) {
    return refuse(
      v,
      "refused",
      `${r.id} cannot become 'superseded-by-class' without naming the class finding that absorbs it (§8 rule 4); a record becomes superseded-by-class when a class finding absorbs it (${
        AuditError.command(absorb(r.id))
      })`,
      [absorb(r.id)]
    )
  }
  if (request.next !== undefined && !NEXT_VALUES.has(request.next)) {
    return refuse(v, "invalid-input", `--next '${request.next}' is not a canonical \`next\` actor`)
  }
  let next: Rec = without(r, "next")
  next = { ...next, status: request.status, updated: today }
  if (request.next !== undefined) next = { ...next, next: request.next }
  if (retook) next = { ...next, attempts: 0 }
  const summary = `${r.id}: ${r.status} -> ${request.status}${
    retook ? ` (retake sanctioned by ${request.retake})` : ""
  }`
  return {
    doc: replaceRecord(doc, loc, next),
    target: r.id,
    fromStatus: r.status,
    toStatus: request.status,
    message: retook ? `${summary}; attempts reset to 0` : summary
  }
}
