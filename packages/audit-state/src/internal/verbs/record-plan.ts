/**
 * `record-plan`: record a remediation plan over existing findings.
 *
 * @internal
 */
import type * as State from "../../State.js"
import { PATTERNS } from "../../Vocabulary.js"
import { findRecord, pathRefusal } from "./common.js"
import { type Handler, refuse } from "./model.js"

/** @internal */
export const recordPlan: Handler<"record-plan"> = (doc, request, ctx) => {
  const v = request.verb
  const today = ctx.today
  if (!PATTERNS.plan.test(request.id)) {
    return refuse(v, "invalid-input", `'${request.id}' is not a plan id (RP-NNNN)`)
  }
  if ((doc.plans ?? []).some((p) => p.id === request.id)) {
    return refuse(v, "refused", `${request.id} already exists`)
  }
  const badPlanBody = pathRefusal(v, "--body", request.body)
  if (badPlanBody) return badPlanBody
  const missing = request.findings.filter((f) => findRecord(doc, f) === undefined)
  if (missing.length > 0) {
    return refuse(v, "not-found", `--findings names ${missing.join(", ")}, which no record carries`)
  }
  const p: State.Plan = {
    id: request.id,
    findings: request.findings,
    status: "open",
    updated: today,
    body_path: request.body,
    attempts: 0
  }
  return {
    doc: { ...doc, plans: [...(doc.plans ?? []), p] },
    target: p.id,
    fromStatus: null,
    toStatus: null,
    message: `${p.id} recorded over ${p.findings.join(", ")}`
  }
}
