/**
 * The decision's core branch order (xcheck's `decide` after its gates): one pass over the records
 * bucketed by what each branch needs, then the first branch that applies.
 *
 * @internal
 */
import type { DecideRecord, Decision } from "../../Decision.js"
import { TERMINAL } from "../../Vocabulary.js"

export const core = (
  records: ReadonlyArray<DecideRecord>,
  unchecked: ReadonlyArray<string>,
  batch: number,
  triageCap: number,
  planComplete: boolean
): Decision => {
  // one pass over the records, bucketed by what each branch needs (document order kept)
  const fixed: Array<string> = []
  const reopened: Array<string> = []
  const resume: Array<string> = []
  const acceptedF: Array<string> = []
  const reported: Array<string> = []
  const inconsistent: Array<string> = []
  const deferred: Array<string> = []
  let acceptedCf: string | undefined
  for (let k = 0; k < records.length; k++) {
    const r = records[k]!
    switch (r.status) {
      case "fixed":
        fixed.push(r.id)
        break
      case "reopened":
        reopened.push(r.id)
        break
      case "validated":
      case "planned":
        resume.push(r.id)
        break
      case "accepted":
        if (r.id.startsWith("CF-")) acceptedCf ??= r.id
        else acceptedF.push(r.id)
        break
      case "reported":
        reported.push(r.id)
        break
      case "deferred":
        deferred.push(r.id)
        break
      case "disputed":
        break
      default:
        if (!TERMINAL.has(r.status)) inconsistent.push(r.id)
    }
  }
  if (fixed.length > 0) return { kind: "run-verifier", detail: fixed }
  if (reopened.length > 0) return { kind: "run-remediator", detail: reopened.slice(0, batch) }
  if (resume.length > 0) return { kind: "run-remediator", detail: resume.slice(0, batch) }
  if (acceptedCf !== undefined) return { kind: "run-remediator", detail: [acceptedCf] }
  if (acceptedF.length > 0) return { kind: "run-remediator", detail: acceptedF.slice(0, batch) }
  if (triageCap > 0 && reported.length >= triageCap) return { kind: "stop-triage", detail: reported }
  if (unchecked.length > 0 && planComplete) return { kind: "run-auditor", detail: unchecked[0]! }
  if (reported.length > 0) return { kind: "stop-triage", detail: reported }
  if (!planComplete) return { kind: "run-planner", detail: null }
  // reopened/accepted/validated/planned/fixed/reported were all routed above: what is left and
  // not terminal, deferred or disputed is a status the table does not know
  if (inconsistent.length > 0) return { kind: "stop-inconsistent", detail: inconsistent }
  if (deferred.length > 0) return { kind: "done-deferred-debt", detail: deferred }
  return { kind: "done", detail: null }
}
