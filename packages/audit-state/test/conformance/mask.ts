/**
 * The masking rule `xcheck-conformance-mask/1` and the canonical digest (fixture README).
 */
import { createHash } from "node:crypto"

const DEFAULT_LIMITS = { reopen_limit: 2, remediation_batch_size: 8, class_threshold: 3, max_findings_per_pass: 15 }
const SESSION_DROP = [
  "policy_digest",
  "subject_commit",
  "subject_manifest",
  "controller_commit",
  "capsule_digest",
  "sandbox_details"
]
const SESSION_DROP_NULL = ["head_after", "duration_s", "exit_status", "outcome", "log_digest", "trust_level", "tokens"]
const DATED = ["findings", "class_findings", "queue", "plans", "construals"]

const maskDates = (v: any, today: string): any => {
  if (Array.isArray(v)) return v.map((x) => maskDates(x, today))
  if (v === null || typeof v !== "object") return v
  const out: Record<string, unknown> = {}
  for (const [k, x] of Object.entries(v)) {
    if ((k === "updated" || k === "created" || k === "admitted_at") && typeof x === "string") {
      out[k] = x === today ? "<today>" : x.startsWith(today + "T") ? "<now>" : x
    } else out[k] = maskDates(x, today)
  }
  return out
}

export const mask = (input: any, today: string): any => {
  const doc = JSON.parse(JSON.stringify(input))
  if (Array.isArray(doc.ledger_commits)) doc.ledger_commits = doc.ledger_commits.map(() => "<txn>")
  if (doc.ledger_anchor) doc.ledger_anchor = { ...doc.ledger_anchor, digest: "<digest>", events: "<events>" }
  for (const c of DATED) if (Array.isArray(doc[c])) doc[c] = maskDates(doc[c], today)
  delete doc.head_before
  doc.limits = { ...DEFAULT_LIMITS, ...(doc.limits ?? {}) }
  if (Array.isArray(doc.sessions)) {
    doc.sessions = doc.sessions.map((s: any) => {
      const r = { ...s, started: "<ts>" }
      for (const k of SESSION_DROP) delete r[k]
      for (const k of SESSION_DROP_NULL) if (r[k] === null) delete r[k]
      return r
    })
  }
  return doc
}

const sortKeys = (v: any): any =>
  Array.isArray(v)
    ? v.map(sortKeys)
    : v !== null && typeof v === "object"
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]))
    : v

export const canonical = (doc: unknown): string => JSON.stringify(sortKeys(doc))

export const digest = (doc: unknown): string => createHash("sha256").update(canonical(doc), "utf8").digest("hex")
