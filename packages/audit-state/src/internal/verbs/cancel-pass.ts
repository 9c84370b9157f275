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
  if (idx < 0) {
    return refuse(
      v,
      "not-found",
      `no pass '${request.id}' in the queue (${(doc.queue ?? []).map((p) => p.id).join(", ") || "empty"})`
    )
  }
  const p = doc.queue![idx]!
  // xcheck names a done pass as done first, even when findings also point at it
  if (p.done) {
    return refuse(
      v,
      "refused",
      `pass ${p.id} is done and its coverage record binds it to ${
        p.coverage?.report_path ?? "?"
      }; a done pass is history — queue a new pass for new work`
    )
  }
  const holders = State.records(doc).filter((r) => r.pass === p.id).map((r) => r.id)
  if (holders.length > 0) {
    return refuse(
      v,
      "refused",
      `pass ${p.id} is refused for cancellation: ${holders.length} record(s) name it as the pass that produced them (${
        holders.join(", ")
      }) — cancelling it would leave them pointing at a pass that does not exist`
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
