/**
 * `amend-pass`: amend a queued pass that is not done (admin).
 *
 * @internal
 */
import * as AuditError from "../../AuditError.js"
import type * as State from "../../State.js"
import { catalogRefs } from "./common.js"
import { type Handler, refuse } from "./model.js"

/** @internal */
/** Where a pass that is missing or done sends the caller. */
const QUEUE_PASS: AuditError.Hint = { verb: "queue-pass", args: [] }

export const amendPass: Handler<"amend-pass"> = (doc, request, ctx) => {
  const v = request.verb
  const idx = (doc.queue ?? []).findIndex((p) => p.id === request.id)
  if (idx < 0) {
    return refuse(
      v,
      "not-found",
      `no pass '${request.id}' in the queue (${
        (doc.queue ?? []).map((p) => p.id).join(", ") || "empty"
      }); add it with ${AuditError.command(QUEUE_PASS)}`,
      [QUEUE_PASS]
    )
  }
  const p = doc.queue![idx]!
  if (p.done) {
    return refuse(
      v,
      "refused",
      `pass ${p.id} is done and its coverage record binds it to ${
        p.coverage?.report_path ?? "?"
      }; amending it would make its record describe work nobody did — queue a new pass with ${
        AuditError.command(QUEUE_PASS)
      }`,
      [QUEUE_PASS]
    )
  }
  if (
    request.dimension === undefined && request.units === undefined && request.charter === undefined &&
    request.stop === undefined
  ) {
    return refuse(
      v,
      "invalid-input",
      `\`amend-pass ${request.id}\` was given nothing to change (give --dimension, --units, --charter or --stop)`
    )
  }
  if (request.units !== undefined && request.units.length === 0) {
    return refuse(v, "invalid-input", "--units is empty")
  }
  const catalogIssue = catalogRefs(doc, request.dimension, request.units, "Dimensions catalog")
  if (catalogIssue !== undefined) return refuse(v, "refused", catalogIssue.text, [catalogIssue.hint])
  const amended: State.Pass = {
    ...p,
    ...(request.dimension !== undefined ? { dimension: request.dimension } : {}),
    ...(request.units !== undefined ? { units: request.units } : {}),
    ...(request.charter !== undefined ? { charter: request.charter } : {}),
    ...(request.stop !== undefined ? { stop: request.stop } : {})
  }
  if (
    ctx.policy?.refuseNoOpAdmin === true &&
    Object.keys(amended).every((k) => JSON.stringify((amended as any)[k]) === JSON.stringify((p as any)[k]))
  ) {
    return refuse(v, "refused", `${p.id} already says that — nothing to change`)
  }
  const arr = [...doc.queue!]
  arr[idx] = amended
  return { doc: { ...doc, queue: arr }, target: p.id, fromStatus: null, toStatus: null, message: `${p.id} amended` }
}
