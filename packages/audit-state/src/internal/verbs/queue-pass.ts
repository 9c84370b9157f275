/**
 * `queue-pass`: queue an audit pass over catalogued dimension and units.
 *
 * @internal
 */
import type * as State from "../../State.js"
import { PATTERNS } from "../../Vocabulary.js"
import { catalogRefs } from "./common.js"
import { type Handler, refuse } from "./model.js"

/** @internal */
export const queuePass: Handler<"queue-pass"> = (doc, request, _ctx) => {
  const v = request.verb
  if (!PATTERNS.pass.test(request.id)) {
    return refuse(v, "invalid-input", `'${request.id}' is not a canonical pass id (P-NN)`)
  }
  if ((doc.queue ?? []).some((p) => p.id === request.id)) {
    return refuse(v, "refused", `pass ${request.id} is already in the queue`)
  }
  const catalogIssue = catalogRefs(doc, request.dimension, request.units, "AUDIT.md Dimensions catalog")
  if (catalogIssue !== undefined) return refuse(v, "refused", catalogIssue.text, [catalogIssue.hint])
  const p: State.Pass = {
    id: request.id,
    dimension: request.dimension,
    units: request.units,
    charter: request.charter,
    stop: request.stop,
    done: false,
    ...(request.base !== undefined ? { base: request.base } : {})
  }
  return {
    doc: { ...doc, queue: [...(doc.queue ?? []), p] },
    target: p.id,
    fromStatus: null,
    toStatus: null,
    message: `${p.id} queued (${p.dimension} × ${p.units.join(", ")})`
  }
}
