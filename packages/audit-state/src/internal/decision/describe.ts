/**
 * The operator-facing prose of a decision — xcheck's `report_gate` phrases, one per gate — and
 * `status --json`'s form of a detail. One formatter: every command prints a decision through it.
 *
 * @internal
 */
import type { Decision, Detail, EmbargoDetail } from "../../Decision.js"

const list = (d: Detail): ReadonlyArray<string> =>
  Array.isArray(d)
    ? d as ReadonlyArray<string>
    : d === null
    ? []
    : typeof d === "string"
    ? [d]
    : Object.keys(d)

/** `status --json`'s form of a detail (ADR 0110). */
export const statusDetail = (
  d: Detail
): string | ReadonlyArray<string | ReadonlyArray<string | number | ReadonlyArray<string>>> | null =>
  d === null || typeof d === "string" || Array.isArray(d)
    ? d as string | ReadonlyArray<string> | null
    : Object.keys(d).sort().map((pass) => {
      const [attempts, key, last] = (d as EmbargoDetail)[pass]!
      return [pass, attempts, key, last]
    })

/** The operator-facing line for a decision (xcheck's `report_gate` phrases). */
export const describe = (d: Decision): string => {
  const ids = list(d.detail)
  switch (d.kind) {
    case "stop-needs-human":
      return `stop: needs-human on ${ids[0]} — it keeps reopening; a human decides (\`steward audit set-status ${
        ids[0]
      } planned --retake human:<label>\`, or absorb it into a class)`
    case "stop-refusal":
      return `stop: refusal on ${ids[0]} (${
        ids[1]
      }) — the refusal STAYS IN FORCE until a human resolves it (\`steward audit record-refusal ${
        ids[0]
      } --clear\` once the cause is fixed)`
    case "stop-disputed":
      return `stop: disputed ${ids.join(", ")} — a human resolves each dispute (set-status ID accepted|withdrawn)`
    case "stop-construal":
      return `gate: construal on the ${ids[0]} charter — ${ids[3]}; a human reviews ${
        ids[2]
      } and admits it (admit-construal KEY --admitter human:<label>)`
    case "run-construal":
      return `gate: construal needed on the ${ids[0]} charter — dispatch the ${ids[0]} to write ${ids[3]} and stop`
    case "stop-triage":
      return `stop: triage needed — ${ids.length} reported finding(s): ${ids.join(", ")}`
    case "stop-inconsistent":
      return `stop: inconsistent state — ${ids.join(", ")} cannot be routed by any branch`
    case "stop-norm-ratification":
      return `stop: norm-ratification on ${ids[0]} — the norm's owner rules first (record-ruling ${
        ids[0]
      } --norm N… --ruled-by human:<label>)`
    case "stop-critical":
      return `stop: critical finding ${ids[0]} is '${
        ids[1]
      }' — new auditing waits until it is handled (audit_over_critical=on overrides)`
    case "stop-verifier-independence":
      return ids[0] === "provenance"
        ? `stop: verifier independence — ${ids[1]} is fixed but no fixing session is recorded (fixed_by)`
        : `stop: verifier independence — ${ids[1]} was fixed by this orchestrator's own session`
    case "stop-embargo": {
      // the record form (`next`) or the list form `status --json` prints (ADR 0110)
      const held: ReadonlyArray<readonly [unknown, unknown, unknown]> = Array.isArray(d.detail)
        ? (d.detail as ReadonlyArray<ReadonlyArray<unknown>>).map((e) => [e[0], e[1], e[3]] as const)
        : Object.entries((d.detail ?? {}) as EmbargoDetail).map(([p, h]) => [p, h[0], h[2]] as const)
      return `stop: embargo — ${
        held.map(([p, n, last]) => `${p} (${n} barren Auditor dispatch(es), last ${last})`).join(", ")
      } held: earlier Auditor sessions on the same charter and key declared no transition; a human changes the pass or sets embargo = off`
    }
    case "stop-broken-class":
      return `stop: broken class — ${ids[0]} is superseded-by-class but no closed class finding lists it`
    case "done":
      return "audit complete — every record is terminal and every pass is done"
    case "done-deferred-debt":
      return `audit complete with deferred debt: ${ids.join(", ")}`
    default:
      return `${d.kind} -> ${JSON.stringify(d.detail)}`
  }
}
