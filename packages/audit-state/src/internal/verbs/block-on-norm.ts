/**
 * `block-on-norm`: block a validated or planned class finding on norm ratification.
 *
 * @internal
 */
import { findRecord, noRecord, replaceRecord } from "./common.js"
import { type Handler, refuse } from "./model.js"

/** @internal */
export const blockOnNorm: Handler<"block-on-norm"> = (doc, request, ctx) => {
  const v = request.verb
  const today = ctx.today
  const loc = findRecord(doc, request.id)
  if (loc === undefined) return noRecord(v, doc, request.id)
  const r = loc.rec
  if (!loc.cls) {
    return refuse(v, "refused", `${r.id} is a finding, not a class finding — the §8 norm gate applies to classes`)
  }
  if (r.blocked !== undefined) return refuse(v, "refused", `${r.id} is already blocked ('${r.blocked}')`)
  if (r.status !== "validated" && r.status !== "planned") {
    return refuse(
      v,
      "refused",
      `${r.id} is '${r.status}'; the gate is raised while the class fix is being planned (validated or planned)`
    )
  }
  return {
    doc: replaceRecord(doc, loc, { ...r, blocked: "norm-ratification", norm_ruling: "pending", updated: today }),
    target: r.id,
    fromStatus: r.status,
    toStatus: r.status,
    message: `${r.id}: blocked on norm ratification (norm_ruling pending)`
  }
}
