/**
 * xcheck 0.9.5's closed vocabularies: statuses, the transition table, owners, role routes,
 * limits and identifier formats (spec §1–§2, fixture `vocab.json`).
 *
 * @since 0.1.0
 */
// check-size: data table

/**
 * The 13 finding statuses.
 *
 * @since 0.1.0
 * @category vocabulary
 */
export const STATUSES = [
  "reported",
  "accepted",
  "deferred",
  "validated",
  "planned",
  "fixed",
  "reopened",
  "disputed",
  "closed",
  "rejected",
  "withdrawn",
  "obsolete",
  "superseded-by-class"
] as const

/**
 * A finding status.
 *
 * @since 0.1.0
 * @category vocabulary
 */
export type Status = typeof STATUSES[number]

/**
 * Terminal statuses (`superseded-by-class` only conditionally).
 *
 * @since 0.1.0
 * @category vocabulary
 */
export const TERMINAL: ReadonlySet<string> = new Set([
  "closed",
  "rejected",
  "withdrawn",
  "obsolete",
  "superseded-by-class"
])

/**
 * Terminal statuses that no verb may leave.
 *
 * @since 0.1.0
 * @category vocabulary
 */
export const HARD_TERMINAL: ReadonlySet<string> = new Set(["closed", "rejected", "withdrawn", "obsolete"])

/**
 * The exact transition table of spec §2.2.
 *
 * @since 0.1.0
 * @category vocabulary
 */
export const TRANSITIONS: Readonly<Record<string, ReadonlyArray<Status>>> = {
  reported: ["accepted", "rejected", "deferred"],
  deferred: ["accepted", "rejected"],
  accepted: ["validated", "disputed", "obsolete", "superseded-by-class"],
  validated: ["planned", "superseded-by-class"],
  planned: ["fixed", "superseded-by-class"],
  fixed: ["closed", "reopened"],
  reopened: ["planned", "superseded-by-class"],
  disputed: ["accepted", "withdrawn"],
  "superseded-by-class": ["accepted"]
}

/**
 * Moves legal in the table but reserved to a dedicated verb.
 *
 * @since 0.1.0
 * @category vocabulary
 */
export const RESERVED: ReadonlyArray<{ readonly from: Status; readonly to: Status; readonly verb: string }> = [
  { from: "planned", to: "fixed", verb: "record-fix" },
  { from: "fixed", to: "closed", verb: "record-verdict" },
  { from: "fixed", to: "reopened", verb: "record-verdict" }
]

/**
 * Severities.
 *
 * @since 0.1.0
 * @category vocabulary
 */
export const SEVERITIES = ["critical", "major", "minor", "info"] as const

/**
 * A §2 severity.
 *
 * @since 0.3.0
 * @category vocabulary
 */
export type Severity = typeof SEVERITIES[number]

/**
 * Whether a string is a §5 status.
 *
 * @since 0.3.0
 * @category guards
 */
export const isStatus = (s: string): s is Status => (STATUSES as ReadonlyArray<string>).includes(s)

/**
 * Whether a string is a §2 severity.
 *
 * @since 0.3.0
 * @category guards
 */
export const isSeverity = (s: string): s is Severity => (SEVERITIES as ReadonlyArray<string>).includes(s)

/**
 * Who acts next per status (`NEXT_OWNER`).
 *
 * @since 0.1.0
 * @category vocabulary
 */
export const NEXT_OWNER: Readonly<Record<string, ReadonlyArray<string>>> = {
  reported: ["Triage", "human"],
  accepted: ["Remediator"],
  validated: ["Remediator"],
  planned: ["Remediator"],
  reopened: ["Remediator"],
  fixed: ["Verifier"],
  disputed: ["Auditor", "human"],
  deferred: ["Triage", "human"],
  closed: ["—", "-"],
  rejected: ["—", "-"],
  withdrawn: ["—", "-"],
  obsolete: ["—", "-"]
}

/**
 * The stored flag that halts the automatic cycle.
 *
 * @since 0.1.0
 * @category vocabulary
 */
export const NEEDS_HUMAN = "⚠ needs-human"

/**
 * Every value a stored `next` may take.
 *
 * @since 0.1.0
 * @category vocabulary
 */
export const NEXT_VALUES: ReadonlySet<string> = new Set([...Object.values(NEXT_OWNER).flat(), NEEDS_HUMAN])

/**
 * The five roles.
 *
 * @since 0.1.0
 * @category vocabulary
 */
export const ROLES = ["Planner", "Auditor", "Triage", "Remediator", "Verifier"] as const

/**
 * A role.
 *
 * @since 0.1.0
 * @category vocabulary
 */
export type Role = typeof ROLES[number]

/**
 * The six §5 refusal reasons.
 *
 * @since 0.1.0
 * @category vocabulary
 */
export const REFUSAL_REASONS = [
  "out-of-competence",
  "blocked-dependency",
  "charter-ambiguous",
  "norm-conflict",
  "material-missing",
  "cost-exceeded"
] as const

/**
 * A §5 refusal reason.
 *
 * @since 0.3.0
 * @category vocabulary
 */
export type RefusalReason = typeof REFUSAL_REASONS[number]

/**
 * Whether a string is a §5 refusal reason.
 *
 * @since 0.3.0
 * @category guards
 */
export const isRefusalReason = (s: string): s is RefusalReason => (REFUSAL_REASONS as ReadonlyArray<string>).includes(s)

/**
 * Independence levels (§7), strongest first.
 *
 * @since 0.1.0
 * @category vocabulary
 */
export const INDEPENDENCE_LEVELS = [
  "cross-provider",
  "cross-model",
  "same-provider-different-session",
  "same",
  "unrecorded"
] as const

/**
 * An independence level.
 *
 * @since 0.1.0
 * @category vocabulary
 */
export type IndependenceLevel = typeof INDEPENDENCE_LEVELS[number]

/**
 * Levels labelled degraded wherever shown: xcheck's two, and `same` (ADR 0026 — a verdict by the
 * fixer's own provider and model is recorded `same`, and is no independence at all).
 *
 * @since 0.1.0
 * @category vocabulary
 */
export const DEGRADED_INDEPENDENCE: ReadonlySet<string> = new Set([
  "same-provider-different-session",
  "same",
  "unrecorded"
])

/**
 * Dispatch outcomes.
 *
 * @since 0.1.0
 * @category vocabulary
 */
export const SESSION_OUTCOMES = [
  "ok",
  "refused",
  "blocked",
  "provider-error",
  "timeout",
  "crash",
  "cancelled",
  "stalled"
] as const

/**
 * Outcomes that count as a killed session (M8).
 *
 * @since 0.1.0
 * @category vocabulary
 */
export const KILLED_OUTCOMES: ReadonlySet<string> = new Set([
  "timeout",
  "crash",
  "cancelled",
  "provider-error",
  "stalled"
])

/**
 * The four limits and their legal ranges.
 *
 * @since 0.1.0
 * @category vocabulary
 */
export const LIMIT_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  reopen_limit: [1, 99],
  remediation_batch_size: [1, 999],
  class_threshold: [1, 999],
  max_findings_per_pass: [1, 999]
}

/**
 * Limit defaults when absent.
 *
 * @since 0.1.0
 * @category vocabulary
 */
export const LIMIT_DEFAULTS: Readonly<Record<string, number>> = {
  reopen_limit: 2,
  remediation_batch_size: 8,
  class_threshold: 3,
  max_findings_per_pass: 15
}

/**
 * The 17 write verbs.
 *
 * @since 0.1.0
 * @category vocabulary
 */
export const VERBS = [
  "set-status",
  "record-fix",
  "record-verdict",
  "admit-construal",
  "file-finding",
  "propose-construal",
  "record-plan",
  "queue-pass",
  "record-refusal",
  "block-on-norm",
  "record-ruling",
  "record-coverage",
  "render-views",
  "set-limit",
  "amend-pass",
  "cancel-pass",
  "update-catalog"
] as const

/**
 * A write verb.
 *
 * @since 0.1.0
 * @category vocabulary
 */
export type Verb = typeof VERBS[number]

/**
 * Verbs no dispatched role may run.
 *
 * @since 0.1.0
 * @category vocabulary
 */
export const ADMIN_VERBS: ReadonlySet<string> = new Set([
  "set-limit",
  "amend-pass",
  "cancel-pass",
  "update-catalog",
  "record-ruling"
])

/**
 * What each dispatched role may do (`ROLE_ROUTES`); `from`/`to` pin `set-status`.
 *
 * @since 0.1.0
 * @category vocabulary
 */
export const ROLE_ROUTES: Readonly<
  Record<
    string,
    Readonly<Record<string, { readonly from?: ReadonlyArray<string>; readonly to?: ReadonlyArray<string> }>>
  >
> = {
  Auditor: {
    "admit-construal": {},
    "file-finding": {},
    "propose-construal": {},
    "queue-pass": {},
    "record-coverage": {},
    "set-status": { from: ["disputed"], to: ["accepted", "withdrawn"] }
  },
  Planner: { "propose-construal": {} },
  Remediator: {
    "admit-construal": {},
    "block-on-norm": {},
    "file-finding": {},
    "propose-construal": {},
    "record-fix": {},
    "record-plan": {},
    "record-refusal": {},
    "set-status": { to: ["validated", "planned", "disputed", "obsolete", "superseded-by-class"] }
  },
  Triage: { "set-status": { from: ["reported", "deferred"], to: ["accepted", "rejected", "deferred"] } },
  Verifier: { "admit-construal": {}, "propose-construal": {}, "record-refusal": {}, "record-verdict": {} }
}

/**
 * Event kinds of the stream (§5.3).
 *
 * @since 0.1.0
 * @category vocabulary
 */
export const EVENT_KINDS: ReadonlySet<string> = new Set([
  "session_dispatched",
  "session_finished",
  "session_result",
  "session_receipt",
  "session_abandoned",
  "state_transition",
  "write_refused",
  "lease_acquired",
  "lease_released",
  "retry_considered",
  "dispatch_key",
  "gate_reached"
])

/**
 * Provider names by executable basename; anything else is `unknown`.
 *
 * @since 0.1.0
 * @category vocabulary
 */
export const PROVIDER_BY_EXECUTABLE: Readonly<Record<string, string>> = {
  aider: "aider",
  amp: "amp",
  anthropic: "anthropic",
  claude: "anthropic",
  codex: "openai",
  "cursor-agent": "cursor",
  gemini: "google",
  goose: "goose",
  openai: "openai",
  opencode: "opencode",
  q: "aws"
}

/**
 * The `--json` output schema version (xcheck's `OUTPUT_SCHEMA_VERSION`).
 *
 * @since 0.1.0
 * @category vocabulary
 */
export const OUTPUT_SCHEMA_VERSION = 10

/**
 * The state schema this package reads and writes.
 *
 * @since 0.1.0
 * @category vocabulary
 */
export const SCHEMA_VERSION = 1

/**
 * The xcheck version whose semantics this package reproduces.
 *
 * @since 0.1.0
 * @category vocabulary
 */
export const XCHECK_VERSION = "0.9.5"

/**
 * Identifier patterns (§1.3).
 *
 * @since 0.1.0
 * @category vocabulary
 */
export const PATTERNS = {
  finding: /^F-\d{4}$/,
  classFinding: /^CF-\d{4}$/,
  anyFinding: /^(?:F|CF)-\d{4}$/,
  pass: /^P-\d{2}$/,
  plan: /^RP-\d{4}$/,
  norm: /^N\d+$/,
  hex16: /^[0-9a-f]{16}$/,
  sha256: /^[0-9a-f]{64}$/,
  head: /^(?:[0-9a-f]{7,40}|unknown)$/,
  topHead: /^[0-9a-f]{7,40}$/,
  human: /^human:[A-Za-z0-9][A-Za-z0-9._-]*$/,
  envelopeAdmitter: /^envelope:[A-Za-z0-9][A-Za-z0-9._-]*$/,
  needsHuman: /^(?:human\s+)?⚠ needs-human$/,
  normRuling: /^[A-Za-z]+[0-9]+(?:-over-[A-Za-z]+[0-9]+)*$/,
  date: /^\d{4}-\d{2}-\d{2}$/
} as const
