/**
 * `record-coverage`: record a pass's one coverage record; the pass is done.
 *
 * @internal
 */
import { findRecord, pathRefusal } from "./common.js"
import { type Handler, refuse } from "./model.js"

/** @internal */
export const recordCoverage: Handler<"record-coverage"> = (doc, request, ctx) => {
  const v = request.verb
  const today = ctx.today
  const idx = (doc.queue ?? []).findIndex((p) => p.id === request.id)
  if (idx < 0) {
    return refuse(
      v,
      "not-found",
      `no pass '${request.id}' in the queue (${(doc.queue ?? []).map((p) => p.id).join(", ") || "empty"})`
    )
  }
  const p = doc.queue![idx]!
  if (p.coverage !== undefined) {
    return refuse(
      v,
      "refused",
      `${p.id} already has coverage (${p.coverage.report_path}) — a pass has exactly ONE canonical record; queue a new pass for new work`
    )
  }
  const badReport = pathRefusal(v, "--report", request.report)
  if (badReport) return badReport
  const findings = request.findings ?? []
  const missing = findings.filter((f) => findRecord(doc, f) === undefined)
  if (missing.length > 0) {
    return refuse(v, "not-found", `--findings names ${missing.join(", ")}, which no record carries`)
  }
  const arr = [...doc.queue!]
  arr[idx] = {
    ...p,
    done: true,
    coverage: { report_path: request.report, findings, updated: today, status: "done" }
  }
  return {
    doc: { ...doc, queue: arr },
    target: p.id,
    fromStatus: null,
    toStatus: null,
    message: `${p.id}: coverage recorded (${request.report}, ${findings.length} finding(s)); pass done`
  }
}
