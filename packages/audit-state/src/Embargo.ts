/**
 * The embargo (spec §4.3): a queued pass is *held* when enough earlier Auditor dispatches of its
 * charter moved nothing under the same dispatch key. Pure functions over the state and the
 * event history; `Decision.stateAndDecision` applies them (§4.2 steps 4 and 9).
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import type * as State from "./State.js"
import { VERBS } from "./Vocabulary.js"

const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex")

/**
 * What Steward records as xcheck's `orchestrator_source_digest` (ADR 0109): the sha-256 of this
 * identifier, which names the revision of the decision code (`next`'s gate stack). It changes only
 * when the decision semantics change, so an embargo taken under older decision code lifts.
 *
 * @since 0.1.0
 * @category embargo
 */
export const ORCHESTRATOR_SOURCE = "@steward/audit-state decision r1"

/**
 * `sha256(ORCHESTRATOR_SOURCE)` — the `source_digest` of every `dispatch_key` event Steward writes.
 *
 * @since 0.1.0
 * @category embargo
 */
export const SOURCE_DIGEST: string = sha(ORCHESTRATOR_SOURCE)

/**
 * The policy-profile digest Steward puts in the charter slice: Steward has no policy profile, so
 * it is always xcheck's `unknown` (ADR 0109).
 *
 * @since 0.1.0
 * @category embargo
 */
export const POLICY_DIGEST = "unknown"

/**
 * The Auditor's charter hash for a pass: `sha256(pass id)` (the Auditor charter is the pass id).
 *
 * @since 0.1.0
 * @category embargo
 */
export const charterHash = (passId: string): string => sha(passId)

const py = (v: unknown): string =>
  v === undefined || v === null ? "None" : v === true ? "True" : v === false ? "False" : String(v)

/**
 * The lines the charter slice hashes (Python `str()` spellings: `True`, `False`, `None`):
 * `queue:<id>:<charter>:<stop>:<done>:<coverage status>:<report>`, then
 * `finding:<id>:<status>:<attempts>` for each finding of the pass (sorted), then
 * `policy:<profile digest or unknown>`. `undefined` when the pass is not in the queue.
 *
 * @since 0.1.0
 * @category embargo
 */
export const charterSliceLines = (
  doc: State.StateDoc,
  passId: string,
  policyDigest: string = POLICY_DIGEST
): ReadonlyArray<string> | undefined => {
  const pass = (doc.queue ?? []).find((p) => p.id === passId)
  if (pass === undefined) return undefined
  const cov = pass.coverage ?? undefined
  const findings = (doc.findings ?? [])
    .filter((f) => f.pass === passId)
    .map((f) => `finding:${f.id}:${f.status}:${f.attempts}`)
    .sort()
  return [
    `queue:${pass.id}:${pass.charter}:${pass.stop}:${py(pass.done)}:${py(cov?.status)}:${py(cov?.report_path)}`,
    ...findings,
    `policy:${policyDigest}`
  ]
}

/**
 * `charter_slice`: sha-256 over the slice lines joined by newlines.
 *
 * @since 0.1.0
 * @category embargo
 */
export const charterSlice = (doc: State.StateDoc, passId: string, policyDigest?: string): string | undefined => {
  const lines = charterSliceLines(doc, passId, policyDigest)
  return lines === undefined ? undefined : sha(lines.join("\n"))
}

/**
 * The key of a dispatch: `[role, charter_hash, charter_slice, orchestrator_source_digest]`;
 * `null` is a component history did not record (it matches anything).
 *
 * @since 0.1.0
 * @category embargo
 */
export type DispatchKey = readonly [string | null, string | null, string | null, string | null]

/**
 * One held pass: `[attempts, key, last_session]` (xcheck's `stop-embargo` detail value).
 *
 * @since 0.1.0
 * @category embargo
 */
export type Held = readonly [number, ReadonlyArray<string>, string]

/**
 * The event shape the embargo reads (`Events.AuditEvent` fits).
 *
 * @since 0.1.0
 * @category embargo
 */
export interface HistoryEvent {
  readonly event: string
  readonly session_id?: string | null | undefined
  readonly [key: string]: unknown
}

/**
 * The embargo settings (`embargo` default off, `embargo_after` default 3, min 1).
 *
 * @since 0.1.0
 * @category embargo
 */
export interface EmbargoConfig {
  readonly embargo: boolean
  readonly embargoAfter: number
}

const WRITE_VERBS: ReadonlySet<string> = new Set(VERBS)

const component = (v: unknown): string | null => typeof v === "string" && v.length > 0 ? v : null

/**
 * The `dispatch_key` payload Steward records when a dispatch opens: `role`, `source_digest` and
 * `charter_slice` (the slice of the pass an Auditor charter names; `null` for any other charter).
 *
 * @since 0.1.0
 * @category embargo
 */
export const dispatchKeyPayload = (
  doc: State.StateDoc,
  role: string,
  charter: string
): { readonly role: string; readonly source_digest: string; readonly charter_slice: string | null } => ({
  role,
  source_digest: SOURCE_DIGEST,
  charter_slice: role === "Auditor" ? charterSlice(doc, charter) ?? null : null
})

const matches = (historical: string | null, current: string): boolean => historical === null || historical === current

/**
 * The held passes among `unchecked` (§4.3), in queue order: a pass is held when at least
 * `embargoAfter` finished Auditor dispatches with `charter_hash = sha256(pass id)` recorded no
 * `state_transition` of a write verb and carry a key matching the pass's current key (historical
 * `null` components match anything). Nothing is held when the embargo is off.
 *
 * @since 0.1.0
 * @category embargo
 */
export const heldPasses = (
  doc: State.StateDoc,
  unchecked: ReadonlyArray<string>,
  history: ReadonlyArray<HistoryEvent>,
  config: EmbargoConfig
): ReadonlyMap<string, Held> => {
  const held = new Map<string, Held>()
  if (!config.embargo || unchecked.length === 0) return held
  const auditors = (doc.sessions ?? []).filter((s) =>
    s.role === "Auditor" && s.outcome !== undefined && s.outcome !== null
  )
  if (auditors.length === 0) return held
  const declared = new Set<string>()
  const keys = new Map<string, { role: string | null; source: string | null; slice: string | null }>()
  for (const e of history) {
    const sid = e.session_id
    if (typeof sid !== "string") continue
    if (e.event === "state_transition" && typeof e.verb === "string" && WRITE_VERBS.has(e.verb)) declared.add(sid)
    else if (e.event === "dispatch_key") {
      keys.set(sid, { role: component(e.role), source: component(e.source_digest), slice: component(e.charter_slice) })
    }
  }
  for (const passId of unchecked) {
    const hash = charterHash(passId)
    const slice = charterSlice(doc, passId)
    if (slice === undefined) continue
    const key = ["Auditor", hash, slice, SOURCE_DIGEST] as const
    let attempts = 0
    let last = ""
    for (const s of auditors) {
      if (s.charter_hash !== hash || declared.has(s.session_id)) continue
      const k = keys.get(s.session_id)
      if (
        k !== undefined &&
        !(matches(k.role, key[0]) && matches(k.slice, key[2]) && matches(k.source, key[3]))
      ) continue
      attempts++
      last = s.session_id
    }
    if (attempts >= config.embargoAfter) held.set(passId, [attempts, [...key], last])
  }
  return held
}
