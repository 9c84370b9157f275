/**
 * `admit-construal`: admit a proposed construal (never by the session that wrote it).
 *
 * @internal
 */
import { PATTERNS } from "../../Vocabulary.js"
import { type Handler, refuse } from "./model.js"

/** @internal */
export const admitConstrual: Handler<"admit-construal"> = (doc, request, ctx) => {
  const v = request.verb
  const today = ctx.today
  const idx = (doc.construals ?? []).findIndex((c) => c.key === request.key)
  if (idx < 0) return refuse(v, "not-found", `no construal '${request.key}'`)
  const c = doc.construals![idx]!
  if (c.status === "admitted") return refuse(v, "refused", `construal ${c.key} is already 'admitted'`)
  if (c.status !== "proposed") {
    return refuse(v, "refused", `construal ${c.key} is '${c.status}', only a 'proposed' construal can be admitted`)
  }
  if (request.admitter === c.session) {
    return refuse(v, "refused", `session ${c.session} WROTE construal ${c.key} and may not admit it`)
  }
  if (!PATTERNS.human.test(request.admitter) && !PATTERNS.hex16.test(request.admitter)) {
    return refuse(
      v,
      "invalid-input",
      `--admitter '${request.admitter}' is not an admitter (human:<label> or a 16-hex session id)`
    )
  }
  const arr = [...doc.construals!]
  arr[idx] = { ...c, status: "admitted", admitted_by: request.admitter, admitted_at: today }
  return {
    doc: { ...doc, construals: arr },
    target: c.key,
    fromStatus: null,
    toStatus: null,
    message: `construal ${c.key} (${c.role}: ${c.charter}) admitted by ${request.admitter}`
  }
}
