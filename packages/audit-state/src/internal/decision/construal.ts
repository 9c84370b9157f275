/**
 * The construal gate (§2.10): a `run-*` dispatch whose role and charter have no admitted
 * construal becomes a `run-construal` or a `stop-construal` decision.
 *
 * @internal
 */
import type { ConstrualResolver } from "../../Decision.js"
import * as State from "../../State.js"

/** The construal resolver over a state's construals. */
export const construalResolver = (doc: State.StateDoc): ConstrualResolver => (role, charter) => {
  const key = State.construalKey(role, charter)
  const path = `audit/construals/${key}.md`
  const c = (doc.construals ?? []).find((x) => x.key === key)
  if (c === undefined) return { kind: "run-construal", detail: [role, charter, key, path] }
  if (c.status !== "admitted") {
    return { kind: "stop-construal", detail: [role, charter, path, `construal ${key} is ${c.status}, not admitted`] }
  }
  if (typeof c.admitted_by === "string" && c.admitted_by.startsWith("envelope:")) {
    return {
      kind: "stop-construal",
      detail: [
        role,
        charter,
        path,
        `construal ${key} was admitted by a historical ${c.admitted_by}, not a human or a session`
      ]
    }
  }
  return undefined
}
