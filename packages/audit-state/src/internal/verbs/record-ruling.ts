/**
 * `record-ruling`: a human's norm ruling lifts the ratification gate (admin).
 *
 * @internal
 */
import { PATTERNS } from "../../Vocabulary.js"
import { findRecord, noRecord, replaceRecord, without } from "./common.js"
import { type Handler, refuse } from "./model.js"

/** @internal */
export const recordRuling: Handler<"record-ruling"> = (doc, request, ctx) => {
  const v = request.verb
  const today = ctx.today
  const loc = findRecord(doc, request.id)
  if (loc === undefined) return noRecord(v, doc, request.id)
  const r = loc.rec
  if (r.blocked === undefined) return refuse(v, "refused", `${r.id} is not blocked on a norm; there is no gate to lift`)
  if (!/^human:.+/.test(request.ruledBy)) {
    return refuse(
      v,
      "refused",
      `--ruled-by '${request.ruledBy}': a norm conflict is ruled by the norm's OWNER, who is a human (§8 rule 8) — pass --ruled-by human:<label>`
    )
  }
  if (request.norm.trim() === "" || request.norm === "pending") {
    return refuse(v, "invalid-input", "--norm must name the ruling (e.g. N1 or N1-over-N4), not 'pending'")
  }
  // xcheck takes any non-empty token (lint flags a malformed one); the strict policy checks it here
  const strict = ctx.policy?.strictRulingTokens === true
  if (strict && !PATTERNS.normRuling.test(request.norm)) {
    return refuse(v, "invalid-input", `--norm '${request.norm}' is not a ruling token (N1, N1-over-N4, …)`)
  }
  const normIds = new Set((doc.catalogs?.norms ?? []).map((n) => n.id))
  if (strict && normIds.size > 0) {
    const unknown = request.norm.split("-over-").filter((n) => !normIds.has(n))
    if (unknown.length > 0) {
      return refuse(v, "refused", `--norm names ${unknown.join(", ")}, not in the norms catalog`)
    }
  }
  return {
    doc: replaceRecord(doc, loc, { ...without(r, "blocked"), norm_ruling: request.norm, updated: today }),
    target: r.id,
    fromStatus: r.status,
    toStatus: r.status,
    message: `${r.id}: norm ruling ${request.norm} by ${request.ruledBy}; the gate is lifted`
  }
}
