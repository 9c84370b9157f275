/**
 * The `next` decision (spec §4): the pure priority function over records and passes, and the
 * state-level pre/post gates around it.
 *
 * @since 0.1.0
 */
import * as Embargo from "./Embargo.js"
import * as Construal from "./internal/decision/construal.js"
import { core } from "./internal/decision/core.js"
import * as Describe from "./internal/decision/describe.js"
import * as State from "./State.js"
import type * as Verbs from "./Verbs.js"
import { NEEDS_HUMAN, PATTERNS, TERMINAL } from "./Vocabulary.js"

/**
 * The decision's detail: an id, a list (tuples become lists), nothing, or — for `stop-embargo`
 * only — a record `{pass: [attempts, key, last_session]}`.
 *
 * @since 0.1.0
 * @category models
 */
export type Detail = string | ReadonlyArray<string> | EmbargoDetail | null

/**
 * The `stop-embargo` detail: each held pass with `[attempts, key, last_session]` (§4.2 step 9).
 *
 * @since 0.1.0
 * @category models
 */
export type EmbargoDetail = Readonly<Record<string, Embargo.Held>>

/**
 * A decision: a `run-*`, `stop-*` or `done*` kind with its detail.
 *
 * @since 0.1.0
 * @category models
 */
export interface Decision {
  readonly kind: string
  readonly detail: Detail
}

/**
 * The minimal record shape the pure function reads.
 *
 * @since 0.1.0
 * @category models
 */
export interface DecideRecord {
  readonly id: string
  readonly status: string
  readonly next?: string | null | undefined
}

/**
 * A construal resolver: `undefined` lets the dispatch through, a decision replaces it.
 *
 * @since 0.1.0
 * @category models
 */
export type ConstrualResolver = (role: string, charter: string) => Decision | undefined

/**
 * Inputs of the pure function (defaults as xcheck's `decide`).
 *
 * @since 0.1.0
 * @category models
 */
export interface DecideOptions {
  readonly batchSize?: number
  readonly triageCap?: number
  readonly planComplete?: boolean
  readonly refusals?: Readonly<Record<string, string>> | null
  readonly construal?: ConstrualResolver | null
}

/**
 * The priority literal, highest first.
 *
 * @since 0.1.0
 * @category models
 */
export const PRIORITY = [
  "needs-human",
  "refusal",
  "disputed",
  "construal",
  "verify",
  "reopened",
  "resume",
  "accepted-cf",
  "accepted-f",
  "triage-cap",
  "audit",
  "triage",
  "plan-completeness",
  "inconsistent",
  "deferred-debt",
  "done"
] as const

/**
 * The Planner's charter.
 *
 * @since 0.1.0
 * @category charters
 */
export const PLANNER_CHARTER = "inventory this project and its norms; produce audit/AUDIT.md. Do not audit anything yet"

const num = (id: string): { prefix: string; n: number } => {
  const m = /^(.*?)(\d+)$/.exec(id)
  return m ? { prefix: m[1]!, n: Number(m[2]) } : { prefix: id, n: NaN }
}

/**
 * The Remediator charter over ids: one id, a contiguous run, or a gapped list.
 *
 * @since 0.1.0
 * @category charters
 */
export const remediatorCharter = (ids: ReadonlyArray<string>): string => {
  if (ids.length === 1) return `finding ${ids[0]}`
  const parsed = ids.map(num)
  const contiguous = parsed.every((p, k) =>
    p.prefix === parsed[0]!.prefix && Number.isFinite(p.n) && (k === 0 || p.n === parsed[k - 1]!.n + 1)
  )
  const items = `${ids.length} items: ${ids.join(", ")}`
  return contiguous ? `findings ${ids[0]}..${ids[ids.length - 1]} (${items})` : `findings (${items})`
}

/**
 * The Verifier charter.
 *
 * @since 0.1.0
 * @category charters
 */
export const verifierCharter = (ids: ReadonlyArray<string>): string =>
  `verify the fixes and give a binding verdict on every finding in status fixed (${ids.join(", ")})`

/**
 * The role and charter a `run-*` decision dispatches.
 *
 * @since 0.1.0
 * @category charters
 */
export const roleAndCharter = (d: Decision): { readonly role: string; readonly charter: string } | undefined => {
  const ids = Array.isArray(d.detail) ? d.detail as ReadonlyArray<string> : []
  switch (d.kind) {
    case "run-planner":
      return { role: "Planner", charter: PLANNER_CHARTER }
    case "run-auditor":
      return { role: "Auditor", charter: String(d.detail) }
    case "run-remediator":
      return { role: "Remediator", charter: remediatorCharter(ids) }
    case "run-verifier":
      return { role: "Verifier", charter: verifierCharter(ids) }
    default:
      return undefined
  }
}

/**
 * The pure decision (xcheck's `decide`): records in document order, the unchecked passes, and
 * the options. Deterministic; reads no clock and no state beyond its arguments.
 *
 * @since 0.1.0
 * @category decision
 */
export const decide = (
  records: ReadonlyArray<DecideRecord>,
  unchecked: ReadonlyArray<string>,
  options: DecideOptions = {}
): Decision => {
  const batch = options.batchSize ?? 8
  const triageCap = options.triageCap ?? 0
  const planComplete = options.planComplete ?? true
  const refusals = options.refusals ?? {}
  for (const r of records) {
    if (r.status === "reopened" && typeof r.next === "string" && PATTERNS.needsHuman.test(r.next)) {
      return { kind: "stop-needs-human", detail: r.id }
    }
  }
  if (Object.keys(refusals).length > 0) {
    for (const r of records) {
      const reason = refusals[r.id]
      if (reason !== undefined) return { kind: "stop-refusal", detail: [r.id, reason] }
    }
  }
  const disputed: Array<string> = []
  for (const r of records) if (r.status === "disputed") disputed.push(r.id)
  if (disputed.length > 0) return { kind: "stop-disputed", detail: disputed }
  const chosen = core(records, unchecked, batch, triageCap, planComplete)
  if (options.construal && chosen.kind.startsWith("run-")) {
    const rc = roleAndCharter(chosen)
    if (rc !== undefined) {
      const gated = options.construal(rc.role, rc.charter)
      if (gated !== undefined) return gated
    }
  }
  return chosen
}

/**
 * The orchestrator settings `next` reads (xcheck's `orchestrator.conf` project keys).
 *
 * @since 0.1.0
 * @category models
 */
export interface DecisionConfig {
  readonly triageBatchCap: number
  readonly batchSize: number
  readonly construalGate: boolean
  readonly auditOverCritical: boolean
  /** The orchestrator's own session id (`$XCHECK_SESSION_ID`), for the independence gate. */
  readonly sessionId?: string | undefined
  /** `embargo` (§4.3; default off). */
  readonly embargo?: boolean | undefined
  /** `embargo_after` (default 3, min 1). */
  readonly embargoAfter?: number | undefined
  /**
   * Steward's deliberate differences from xcheck, read from the same file (`strict_class_moves`,
   * `refuse_noop_admin`, `strict_ruling_tokens`, `keep_terminal_refusals`; all off by default —
   * ADR 0112). Verbs read it; `next` does not.
   */
  readonly verbPolicy?: Verbs.VerbPolicy | undefined
  /**
   * `next_drift_scope`: the views `next` checks for drift — `"all"` (xcheck's `refuse_on_drift`
   * over every view, the default) or `"decision"` (`LEDGER.md` and the records its decision
   * names, `Project.nextDriftRecords`; ADR 0134).
   */
  readonly nextDriftScope?: "all" | "decision" | undefined
}

/**
 * xcheck's defaults: cap 20, batch 8, gates off.
 *
 * @since 0.1.0
 * @category models
 */
export const defaultConfig: DecisionConfig = {
  triageBatchCap: 20,
  batchSize: 8,
  construalGate: false,
  auditOverCritical: false,
  embargo: false,
  embargoAfter: 3
}

/**
 * `plan_complete`: ≥1 norm, ≥1 dimension, ≥1 unit, and a non-empty queue.
 *
 * @since 0.1.0
 * @category decision
 */
export const planComplete = (doc: State.StateDoc): boolean =>
  (doc.catalogs?.norms?.length ?? 0) > 0 && (doc.catalogs?.dimensions?.length ?? 0) > 0 &&
  (doc.catalogs?.units?.length ?? 0) > 0 && (doc.queue?.length ?? 0) > 0

/**
 * Live refusals: non-terminal records with a non-empty `refusal`.
 *
 * @since 0.1.0
 * @category decision
 */
export const liveRefusals = (doc: State.StateDoc): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const r of State.records(doc)) {
    if (!TERMINAL.has(r.status) && typeof r.refusal === "string" && r.refusal.length > 0) out[r.id] = r.refusal
  }
  return out
}

/**
 * The construal resolver over a state's construals (§2.10).
 *
 * @since 0.1.0
 * @category decision
 */
export const construalResolver: (doc: State.StateDoc) => ConstrualResolver = Construal.construalResolver

const ruledOk = (r: State.Finding): boolean =>
  typeof r.norm_ruling === "string" && r.norm_ruling !== "pending" && PATTERNS.normRuling.test(r.norm_ruling)

/**
 * The full `state_and_decision` of §4.2 over a loaded (valid, drift-checked) document: the
 * unflagged reopen-limit gate, the norm-ratification gate, the embargo (held passes leave the
 * queue; `history` is the event stream it reads), the pure decision with live refusals and the
 * construal gate, then the critical, verifier-independence, embargo and broken-class gates.
 * Budgets (step 8) are not part of Steward (ADR 0108).
 *
 * @since 0.1.0
 * @category decision
 */
export const stateAndDecision = (
  doc: State.StateDoc,
  config: DecisionConfig = defaultConfig,
  history: ReadonlyArray<Embargo.HistoryEvent> = []
): Decision => {
  const records = State.records(doc)
  const reopenLimit = State.limit(doc, "reopen_limit")
  for (const r of records) {
    if (r.status === "reopened" && r.next !== NEEDS_HUMAN && r.attempts + 1 >= reopenLimit) {
      return { kind: "stop-needs-human", detail: r.id }
    }
  }
  for (const r of records) {
    if (r.blocked === "norm-ratification" && !ruledOk(r)) return { kind: "stop-norm-ratification", detail: r.id }
  }
  const queued = (doc.queue ?? []).filter((p) => !p.done).map((p) => p.id)
  const held = Embargo.heldPasses(doc, queued, history, {
    embargo: config.embargo ?? false,
    embargoAfter: config.embargoAfter ?? 3
  })
  const unchecked = held.size === 0 ? queued : queued.filter((id) => !held.has(id))
  const batch = doc.limits?.remediation_batch_size ?? config.batchSize
  const d = decide(records, unchecked, {
    batchSize: batch,
    triageCap: config.triageBatchCap,
    planComplete: planComplete(doc),
    refusals: liveRefusals(doc),
    construal: config.construalGate ? construalResolver(doc) : null
  })
  if (d.kind === "run-auditor" && !config.auditOverCritical) {
    const critical = records.find((r) => r.severity === "critical" && !TERMINAL.has(r.status))
    if (critical !== undefined) return { kind: "stop-critical", detail: [critical.id, critical.status] }
  }
  if (d.kind === "run-verifier") {
    for (const id of d.detail as ReadonlyArray<string>) {
      const r = records.find((x) => x.id === id)!
      if (r.fixed_by === undefined) return { kind: "stop-verifier-independence", detail: ["provenance", id] }
      if (config.sessionId !== undefined && r.fixed_by.split(":")[0] === config.sessionId) {
        return { kind: "stop-verifier-independence", detail: ["same", id] }
      }
    }
  }
  if (held.size > 0 && d.kind.startsWith("done")) {
    return { kind: "stop-embargo", detail: Object.fromEntries(held) }
  }
  if (d.kind.startsWith("done")) {
    const closedClasses = new Map((doc.class_findings ?? []).map((c) => [c.id, c]))
    for (const r of records) {
      if (r.status !== "superseded-by-class") continue
      const cf = r.class === undefined ? undefined : closedClasses.get(r.class)
      if (cf === undefined || cf.status !== "closed" || !cf.members.includes(r.id)) {
        return { kind: "stop-broken-class", detail: r.id }
      }
    }
  }
  return d
}

/**
 * `status --json`'s form of a detail (ADR 0110): a `stop-embargo` record becomes a list of
 * `[pass, attempts, key, last_session]` entries (in pass order), so `decision.detail` stays within
 * `STATUS_SCHEMA`'s `str|list|null`; every other detail is returned unchanged.
 *
 * @since 0.1.0
 * @category printing
 */
export const statusDetail: (
  d: Detail
) => string | ReadonlyArray<string | ReadonlyArray<string | number | ReadonlyArray<string>>> | null =
  Describe.statusDetail

/**
 * The operator-facing line for a decision (xcheck's `report_gate` phrases: `refusal on …`,
 * `STAYS IN FORCE`, `needs-human on …`, `triage needed`, `audit complete`, `gate: construal on …`).
 *
 * @since 0.1.0
 * @category printing
 */
export const describe: (d: Decision) => string = Describe.describe

/**
 * The prompt of a construal session (§2.10): write the operational construal of the exact
 * charter, then stop.
 *
 * @since 0.1.0
 * @category charters
 */
export const construalPrompt = (role: string, charter: string, path: string): string =>
  [
    `You are the ${role}. Before doing any work, write your OPERATIONAL CONSTRUAL of this charter to ${path}`,
    "(sections: ## Task frame, ## Approach, ## Assumptions, ## Stop conditions, ## Out of scope),",
    "record it with `steward audit propose-construal`, and STOP without touching anything else.",
    `<<<CHARTER>>>${charter}<<<END CHARTER>>>`
  ].join("\n")
