/**
 * `cancel-pass`: remove a queued, unreferenced pass (admin).
 *
 * @internal
 */
import * as State from "../../State.js"
import { type Handler, refuse } from "./model.js"

/** @internal */
export const cancelPass: Handler<"cancel-pass"> = (doc, request, _ctx) => {
  const v = request.verb
  const idx = (doc.queue ?? []).findIndex((p) => p.id === request.id)
  if (idx < 0) return refuse(v, "not-found", `${request.id} is not in the queue`)
  const p = doc.queue![idx]!
  const holders = State.records(doc).filter((r) => r.pass === p.id).map((r) => r.id)
  if (holders.length > 0) {
    return refuse(
      v,
      "refused",
      `${p.id} is referenced by ${
        holders.join(", ")
      } — cancelling it would leave them pointing at a pass that does not exist`
    )
  }
  if (p.done) {
    return refuse(
      v,
      "refused",
      `${p.id} is done (report ${p.coverage?.report_path ?? "?"}); a done pass is history`
    )
  }
  const arr = [...doc.queue!]
  arr.splice(idx, 1)
  return {
    doc: { ...doc, queue: arr },
    target: p.id,
    fromStatus: null,
    toStatus: null,
    message: `${p.id} cancelled`
  }
}
