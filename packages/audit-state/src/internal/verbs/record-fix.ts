/**
 * `record-fix`: planned -> fixed, provenance bound to the open dispatch.
 *
 * @internal
 */
import * as AuditError from "../../AuditError.js"
import { PATTERNS } from "../../Vocabulary.js"
import { bindSession, findRecord, noRecord, type Rec, replaceRecord, without } from "./common.js"
import { type Handler, refuse } from "./model.js"

/** @internal */
/** The verb a blocked record waits on: a human's ruling. */
const ruling = (id: string): AuditError.Hint => ({
  verb: "record-ruling",
  args: [id, "--norm", "…", "--ruled-by", "human:…"]
})

export const recordFix: Handler<"record-fix"> = (doc, request, ctx) => {
  const v = request.verb
  const today = ctx.today
  const bound = bindSession(doc, v, request.session, "Remediator")
  if ("_tag" in bound) return bound
  const loc = findRecord(doc, request.id)
  if (loc === undefined) return noRecord(v, doc, request.id)
  const r = loc.rec
  if (r.status !== "planned") {
    return refuse(v, "refused", `${r.id} is '${r.status}': record-fix applies only on a 'planned' finding`)
  }
  if (r.blocked !== undefined) {
    return refuse(
      v,
      "refused",
      `${r.id} is blocked ('${r.blocked}') — the §8 norm-ratification gate is fail-closed: a human rules first (${
        AuditError.command(ruling(r.id))
      })`,
      [ruling(r.id)]
    )
  }
  if (request.plan !== undefined) {
    if (!PATTERNS.plan.test(request.plan)) {
      return refuse(v, "invalid-input", `--plan '${request.plan}' is not a plan id (RP-NNNN)`)
    }
    const plan = (doc.plans ?? []).find((p) => p.id === request.plan)
    if (plan === undefined) return refuse(v, "not-found", `--plan ${request.plan} is not a recorded plan`)
    if (!plan.findings.includes(r.id)) return refuse(v, "refused", `plan ${plan.id} does not cover ${r.id}`)
  }
  let next: Rec = without(r, "next")
  next = { ...next, status: "fixed", fixed_by: request.session, updated: today }
  if (request.scope !== undefined) next = { ...next, admitted_scope: request.scope }
  const msg = `${r.id}: planned -> fixed by session ${request.session}${request.plan ? ` under ${request.plan}` : ""}${
    bound.unbound
      ? " — provenance UNBOUND: no dispatch was ever recorded, the claimed session is taken as given"
      : ""
  }`
  return {
    doc: replaceRecord(doc, loc, next),
    target: r.id,
    fromStatus: "planned",
    toStatus: "fixed",
    message: msg,
    ...(request.plan ? { extras: { plan: request.plan } } : {})
  }
}
