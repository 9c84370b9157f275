/**
 * `record-refusal`: record (or clear) a typed §5 refusal; the prose half comes first.
 *
 * @internal
 */
import { isRefusalReason, REFUSAL_REASONS, TERMINAL } from "../../Vocabulary.js"
import { findRecord, noRecord, refusalProse, replaceRecord, without } from "./common.js"
import { type Handler, refuse } from "./model.js"

/** @internal */
export const recordRefusal: Handler<"record-refusal"> = (doc, request, ctx) => {
  const v = request.verb
  const today = ctx.today
  const loc = findRecord(doc, request.id)
  if (loc === undefined) return noRecord(v, doc, request.id)
  const r = loc.rec
  const terminal = TERMINAL.has(r.status)
  const owedNothing = refuse(
    v,
    "refused",
    `${r.id} is '${r.status}' (terminal): nothing is owed on it, so there is no attempt to refuse`
  )
  if (
    request.clear !== true && request.reason !== undefined &&
    !(REFUSAL_REASONS as ReadonlyArray<string>).includes(request.reason)
  ) {
    return refuse(
      v,
      "invalid-input",
      `--reason '${request.reason}' is not one of the closed §5 vocabulary (${[...REFUSAL_REASONS].sort().join(", ")})`
    )
  }
  // xcheck clears a stale refusal on a terminal record; only setting one is refused there
  if (terminal && (request.clear !== true || ctx.policy?.keepTerminalRefusals === true)) return owedNothing
  if (request.clear === true) {
    if (request.reason !== undefined) return refuse(v, "invalid-input", "--clear takes no --reason")
    if (r.refusal === undefined) return refuse(v, "refused", `${r.id} carries no refusal to clear`)
    return {
      doc: replaceRecord(doc, loc, { ...without(r, "refusal"), updated: today }),
      target: r.id,
      fromStatus: r.status,
      toStatus: r.status,
      message: `${r.id}: refusal '${r.refusal}' cleared`
    }
  }
  if (request.reason === undefined) return refuse(v, "invalid-input", "--reason is required (or --clear)")
  if (!isRefusalReason(request.reason)) {
    return refuse(
      v,
      "invalid-input",
      `--reason '${request.reason}' is not one of the closed §5 vocabulary (${REFUSAL_REASONS.join(", ")})`
    )
  }
  if (r.refusal === request.reason) return refuse(v, "refused", `${r.id} already carries refusal '${r.refusal}'`)
  if (!refusalProse(request.bodyText)) {
    return refuse(
      v,
      "refused",
      `${r.id}: write the prose half FIRST — a '## Refusal' section with real content in ${r.body_path} (why the charter cannot be executed)`
    )
  }
  return {
    doc: replaceRecord(doc, loc, { ...r, refusal: request.reason, updated: today }),
    target: r.id,
    fromStatus: r.status,
    toStatus: r.status,
    message: `${r.id}: refusal '${request.reason}' recorded; status stays '${r.status}'`
  }
}
