/**
 * Which views a command reads for its drift check (ADR 0134). A write verb reads `LEDGER.md` and
 * the blocks of the records it names (ADR 0113); `next` reads `LEDGER.md` and the blocks of the
 * records its decision names — the records it hands to a session or a person, with a class
 * finding's members — instead of one file per record of the audit.
 *
 * @internal
 */
import type * as Decision from "../../Decision.js"
import * as State from "../../State.js"

/** Every string a decision's detail holds (ids, a pass, a reason), however nested. */
const strings = (v: unknown, out: Set<string>): void => {
  if (typeof v === "string") out.add(v)
  else if (Array.isArray(v)) { for (const x of v) strings(x, out) }
  else if (v !== null && typeof v === "object") { for (const x of Object.values(v)) strings(x, out) }
}

/** The ids of the records `decision` names, with the members of the class findings it names. */
export const decisionRecords = (doc: State.StateDoc, decision: Decision.Decision): ReadonlySet<string> => {
  const named = new Set<string>()
  strings(decision.detail, named)
  const out = new Set<string>()
  if (named.size === 0) return out
  for (const r of State.records(doc)) {
    if (!named.has(r.id)) continue
    out.add(r.id)
    for (const m of r.members ?? []) out.add(m)
  }
  return out
}
