/**
 * The canonical audit state: xcheck's `audit/state.json` schema 1 (spec §1) as a typed model,
 * its closed validator (every load, every import, before every commit), and its canonical bytes.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { createHash } from "node:crypto"
import * as AuditError from "./AuditError.js"
import * as Json from "./internal/json.js"
import {
  INDEPENDENCE_LEVELS,
  LIMIT_DEFAULTS,
  LIMIT_RANGES,
  NEEDS_HUMAN,
  NEXT_OWNER,
  NEXT_VALUES,
  PATTERNS,
  REFUSAL_REASONS,
  ROLES,
  SCHEMA_VERSION,
  SESSION_OUTCOMES,
  SEVERITIES,
  STATUSES
} from "./Vocabulary.js"

/**
 * A finding (`findings[]`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Finding {
  readonly id: string
  readonly title: string
  readonly severity: string
  readonly status: string
  readonly dimension: string
  readonly unit: ReadonlyArray<string>
  readonly pass: string
  readonly attempts: number
  readonly updated: string
  readonly body_path: string
  readonly next?: string
  readonly fixed_by?: string
  readonly recurrence_of?: string
  readonly refusal?: string
  readonly admitted_scope?: string
  readonly blocked?: string
  readonly norm_ruling?: string
  readonly class?: string
  readonly independence?: string
  readonly locator?: string
  readonly source_hash?: string
  readonly members?: ReadonlyArray<string>
  readonly created_by?: string
}

/**
 * A class finding (`class_findings[]`): a finding with `members`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClassFinding extends Finding {
  readonly members: ReadonlyArray<string>
}

/**
 * A pass's coverage record.
 *
 * @since 0.1.0
 * @category models
 */
export interface Coverage {
  readonly report_path: string
  readonly findings: ReadonlyArray<string>
  readonly updated: string
  readonly status: string
}

/**
 * A queue entry (a pass).
 *
 * @since 0.1.0
 * @category models
 */
export interface Pass {
  readonly id: string
  readonly dimension: string
  readonly units: ReadonlyArray<string>
  readonly charter: string
  readonly stop: string
  readonly done: boolean
  readonly coverage?: Coverage
  readonly base?: string
}

/**
 * A remediation plan.
 *
 * @since 0.1.0
 * @category models
 */
export interface Plan {
  readonly id: string
  readonly findings: ReadonlyArray<string>
  readonly status: string
  readonly updated: string
  readonly body_path: string
  readonly attempts?: number
}

/**
 * An operational construal.
 *
 * @since 0.1.0
 * @category models
 */
export interface Construal {
  readonly key: string
  readonly role: string
  readonly charter: string
  readonly session: string
  readonly status: string
  readonly created: string
  readonly body_path: string
  readonly admitted_by?: string
  readonly admitted_at?: string
  readonly envelope?: string
}

/**
 * An invocation envelope (`sessions[]`). `outcome` absent = the open dispatch.
 *
 * @since 0.1.0
 * @category models
 */
export interface Session {
  readonly session_id: string
  readonly role: string
  readonly provider: string
  readonly agent_model: string
  readonly executable: string
  readonly executable_version: string
  readonly charter_hash: string
  readonly prompt_hash: string
  readonly state_revision: number
  readonly head_before: string
  readonly sandbox_profile: string
  readonly started: string
  readonly outcome?: string
  readonly head_after?: string
  readonly duration_s?: number | Json.PyFloat
  readonly exit_status?: number
  readonly log_digest?: string
  readonly note?: string
  readonly concurrent_group?: string
  readonly tokens?: number
  readonly [key: string]: unknown
}

/**
 * The catalogs.
 *
 * @since 0.1.0
 * @category models
 */
export interface Catalogs {
  readonly norms?: ReadonlyArray<{ readonly id: string; readonly source: string; readonly scope: string }>
  readonly dimensions?: ReadonlyArray<
    { readonly key: string; readonly catches: string; readonly norms: ReadonlyArray<string> }
  >
  readonly units?: ReadonlyArray<
    { readonly id: string; readonly material: string; readonly size: string; readonly responsibility: string }
  >
}

/**
 * The event-chain checkpoint.
 *
 * @since 0.1.0
 * @category models
 */
export interface LedgerAnchor {
  readonly digest: string
  readonly events: number
  readonly state_revision: number
}

/**
 * The whole state document.
 *
 * @since 0.1.0
 * @category models
 */
export interface StateDoc {
  readonly schema_version: number
  readonly state_revision: number
  readonly generated_by: string
  readonly head_before?: string | null
  readonly ledger_anchor?: LedgerAnchor
  readonly ledger_commits?: ReadonlyArray<string>
  readonly findings?: ReadonlyArray<Finding>
  readonly class_findings?: ReadonlyArray<ClassFinding>
  readonly queue?: ReadonlyArray<Pass>
  readonly plans?: ReadonlyArray<Plan>
  readonly construals?: ReadonlyArray<Construal>
  readonly sessions?: ReadonlyArray<Session>
  readonly limits?: Readonly<Record<string, number>>
  readonly catalogs?: Catalogs
}

// ---------------------------------------------------------------------------------------------
// validation

type Check = (v: unknown, where: string) => string | undefined

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Json.PyFloat)
const show = (v: unknown): string =>
  typeof v === "string" ? `'${v}'` : v instanceof Json.PyFloat ? Json.pyFloat(v.value) : Json.dumpsCompact(v, false)

const text: Check = (v, w) =>
  typeof v === "string" && v.trim().length > 0 ? undefined : `${w}: expected a non-empty string, found ${show(v)}`
const nonNegInt: Check = (v, w) =>
  typeof v === "number" && Number.isInteger(v) && v >= 0
    ? undefined
    : `${w}: expected a non-negative integer, found ${show(v)}`
const signedInt: Check = (v, w) =>
  typeof v === "number" && Number.isInteger(v) ? undefined : `${w}: expected an integer, found ${show(v)}`
const nonNegNum: Check = (v, w) => {
  const n = Json.numeric(v)
  return n !== undefined && n >= 0 ? undefined : `${w}: expected a non-negative number, found ${show(v)}`
}
const bool: Check = (v, w) => typeof v === "boolean" ? undefined : `${w}: expected true or false, found ${show(v)}`
const scalar: Check = (v, w) =>
  typeof v === "string" || typeof v === "boolean" || Json.numeric(v) !== undefined
    ? undefined
    : `${w}: expected a string, number or boolean, found ${show(v)}`
const object: Check = (v, w) => isObj(v) ? undefined : `${w}: expected a JSON object, found ${show(v)}`
const pattern = (re: RegExp, what: string): Check => (v, w) =>
  typeof v === "string" && re.test(v) ? undefined : `${w}: ${show(v)} is not a canonical ${what}`
const oneOf = (values: ReadonlyArray<string>, what: string): Check => (v, w) =>
  typeof v === "string" && values.includes(v)
    ? undefined
    : `${w}: ${show(v)} is not a canonical ${what} (one of ${values.join(", ")})`
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
const date: Check = (v, w) => {
  if (typeof v !== "string" || !PATTERNS.date.test(v)) return `${w}: ${show(v)} is not a YYYY-MM-DD date`
  const y = Number(v.slice(0, 4))
  const m = Number(v.slice(5, 7))
  const d = Number(v.slice(8, 10))
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0
  const max = m === 2 && leap ? 29 : DAYS[m - 1]
  return max !== undefined && d >= 1 && d <= max ? undefined : `${w}: ${show(v)} is not an existing calendar date`
}
const list = (item: Check): Check => (v, w) => {
  if (!Array.isArray(v) || v.length === 0) return `${w}: expected a non-empty list, found ${show(v)}`
  for (let k = 0; k < v.length; k++) {
    const e = item(v[k], `${w}[${k}]`)
    if (e) return e
  }
  return undefined
}
const listMaybeEmpty = (item: Check): Check => (v, w) => {
  if (!Array.isArray(v)) return `${w}: expected a list, found ${show(v)}`
  for (let k = 0; k < v.length; k++) {
    const e = item(v[k], `${w}[${k}]`)
    if (e) return e
  }
  return undefined
}

const sessionId = pattern(PATTERNS.hex16, "16-lowercase-hex session id")
const sha256 = pattern(PATTERNS.sha256, "sha-256 hex digest")
const anyFindingId = pattern(PATTERNS.anyFinding, "finding or class-finding id")
const nextActor: Check = (v, w) =>
  typeof v === "string" && NEXT_VALUES.has(v)
    ? undefined
    : `${w}: ${show(v)} is not a canonical \`next\` actor (one of ${[...NEXT_VALUES].join(", ")})`
const admitter: Check = (v, w) =>
  typeof v === "string" && (PATTERNS.human.test(v) || PATTERNS.envelopeAdmitter.test(v) || PATTERNS.hex16.test(v))
    ? undefined
    : `${w}: ${show(v)} is not an admitter (human:<label>, envelope:<name> or a 16-hex session id)`

interface Fields {
  readonly required: Readonly<Record<string, Check>>
  readonly optional: Readonly<Record<string, Check>>
}

const FINDING_COMMON_REQUIRED: Record<string, Check> = {
  title: text,
  severity: (v, w) =>
    typeof v === "string" && (SEVERITIES as ReadonlyArray<string>).includes(v)
      ? undefined
      : `${w}: ${show(v)} is not a canonical §2 severity (one of ${SEVERITIES.join(", ")})`,
  status: (v, w) =>
    typeof v === "string" && (STATUSES as ReadonlyArray<string>).includes(v)
      ? undefined
      : `${w}: ${show(v)} is not a canonical §5 status (one of ${STATUSES.join(", ")})`,
  dimension: text,
  unit: list(text),
  pass: pattern(PATTERNS.pass, "pass id (P-NN)"),
  attempts: nonNegInt,
  updated: date,
  body_path: text
}
const FINDING_COMMON_OPTIONAL: Record<string, Check> = {
  next: nextActor,
  fixed_by: sessionId,
  refusal: (v, w) =>
    typeof v === "string" && (REFUSAL_REASONS as ReadonlyArray<string>).includes(v)
      ? undefined
      : `${w}: ${show(v)} is not a canonical §5 refusal reason (one of ${REFUSAL_REASONS.join(", ")})`,
  admitted_scope: text,
  blocked: text,
  norm_ruling: text,
  independence: oneOf(INDEPENDENCE_LEVELS, "independence level")
}

const FINDING_FIELDS: Fields = {
  required: { id: pattern(PATTERNS.finding, "finding id (F-NNNN)"), ...FINDING_COMMON_REQUIRED },
  optional: {
    ...FINDING_COMMON_OPTIONAL,
    recurrence_of: anyFindingId,
    class: pattern(PATTERNS.classFinding, "class-finding id (CF-NNNN)"),
    locator: text,
    source_hash: sha256
  }
}
const CLASS_FINDING_FIELDS: Fields = {
  required: {
    id: pattern(PATTERNS.classFinding, "class-finding id (CF-NNNN)"),
    ...FINDING_COMMON_REQUIRED,
    members: list(anyFindingId)
  },
  optional: { ...FINDING_COMMON_OPTIONAL, created_by: text }
}
const COVERAGE_FIELDS: Fields = {
  required: {
    report_path: text,
    findings: listMaybeEmpty(anyFindingId),
    updated: date,
    status: oneOf(["queued", "done", "split"], "coverage status")
  },
  optional: {}
}
const QUEUE_FIELDS: Fields = {
  required: {
    id: pattern(PATTERNS.pass, "pass id (P-NN)"),
    dimension: text,
    units: list(text),
    charter: text,
    stop: text,
    done: bool
  },
  optional: {
    coverage: (v, w) => object(v, w) ?? recordIssue(v as Record<string, unknown>, COVERAGE_FIELDS, w),
    base: text
  }
}
const PLAN_FIELDS: Fields = {
  required: {
    id: pattern(PATTERNS.plan, "plan id (RP-NNNN)"),
    findings: list(anyFindingId),
    status: oneOf(["open", "done"], "plan status"),
    updated: date,
    body_path: text
  },
  optional: { attempts: nonNegInt }
}
const CONSTRUAL_FIELDS: Fields = {
  required: {
    key: pattern(PATTERNS.hex16, "construal key (16 lowercase hex)"),
    role: oneOf(ROLES, "role"),
    charter: text,
    session: sessionId,
    status: oneOf(["proposed", "admitted", "refused"], "construal status"),
    created: date,
    body_path: text
  },
  optional: { admitted_by: admitter, admitted_at: date, envelope: text }
}
const headCheck = pattern(PATTERNS.head, "git object name or 'unknown'")
const SESSION_FIELDS: Fields = {
  required: {
    session_id: sessionId,
    role: oneOf(ROLES, "role"),
    provider: text,
    agent_model: text,
    executable: text,
    executable_version: text,
    charter_hash: sha256,
    prompt_hash: sha256,
    state_revision: nonNegInt,
    head_before: headCheck,
    sandbox_profile: text,
    started: text
  },
  optional: {
    trust_level: text,
    head_after: headCheck,
    sandbox_details: object,
    duration_s: nonNegNum,
    exit_status: signedInt,
    outcome: oneOf(SESSION_OUTCOMES, "session outcome"),
    log_digest: (v, w) => v === "unknown" ? undefined : sha256(v, w),
    note: text,
    concurrent_group: text,
    tokens: nonNegInt,
    policy_digest: text,
    telemetry_source: oneOf(["provider", "log-parse", "agent-reported"], "telemetry source"),
    tokens_input: nonNegInt,
    tokens_output: nonNegInt,
    tokens_cache: nonNegInt,
    tokens_log: scalar,
    provider_model: text,
    reasoning_effort: text,
    provider_request_id: text,
    telemetry_disagreement: scalar,
    route_attestation: oneOf(["attested", "unattested"], "route attestation"),
    provider_stop_reason: text,
    limit_input: nonNegInt,
    limit_output: nonNegInt,
    telemetry_refused: scalar,
    first_output_s: nonNegNum,
    idle_s: nonNegNum,
    first_activity_s: nonNegNum,
    route: text,
    capsule_digest: text,
    subject_commit: text,
    subject_manifest: text,
    sandbox_seed: scalar,
    controller_commit: text
  }
}

const quoteList = (keys: ReadonlyArray<string>) => keys.map((k) => `'${k}'`).join(", ")

interface CompiledFields {
  readonly required: ReadonlyArray<readonly [string, Check]>
  readonly optional: ReadonlyArray<readonly [string, Check]>
}
const HOLE = "\u0000where\u0000"
const compiled = new WeakMap<Fields, CompiledFields>()
const compile = (fields: Fields): CompiledFields => {
  let c = compiled.get(fields)
  if (c === undefined) {
    c = { required: Object.entries(fields.required), optional: Object.entries(fields.optional) }
    compiled.set(fields, c)
  }
  return c
}

function recordIssue(r: Record<string, unknown>, fields: Fields, where: string): string | undefined {
  const c = compile(fields)
  for (const k in r) {
    if (!Object.hasOwn(fields.required, k) && !Object.hasOwn(fields.optional, k)) return unknownFields(r, fields, where)
  }
  for (let i = 0; i < c.required.length; i++) {
    const v = r[c.required[i]![0]]
    if (v === undefined || v === null) return missingFields(r, fields, where)
  }
  for (let i = 0; i < c.required.length; i++) {
    const [k, check] = c.required[i]!
    const e = check(r[k], HOLE)
    if (e) return e.split(HOLE).join(`${where}.${k}`)
  }
  for (let i = 0; i < c.optional.length; i++) {
    const [k, check] = c.optional[i]!
    const v = r[k]
    if (v === undefined || v === null) continue
    const e = check(v, HOLE)
    if (e) return e.split(HOLE).join(`${where}.${k}`)
  }
  return undefined
}

function unknownFields(r: Record<string, unknown>, fields: Fields, where: string): string {
  const unknown: Array<string> = []
  for (const k of Object.keys(r)) {
    if (!(k in fields.required) && !(k in fields.optional)) unknown.push(k)
  }
  return `${where}: unknown field(s) ${
    quoteList(unknown)
  } — the schema is closed; a field the tool does not read is refused, not ignored`
}

function missingFields(r: Record<string, unknown>, fields: Fields, where: string): string {
  const missing = Object.keys(fields.required).filter((k) => r[k] === undefined || r[k] === null)
  return `${where}: missing required field(s) ${
    quoteList(missing)
  } — a machine-meaningful field is never defaulted; write it explicitly`
}

// Records are immutable values: a record object that passed its own (context-free) checks once
// is frozen and remembered, so re-validating a 10k-record aggregate before each commit costs only
// the changed records plus the cross-record pass.
// The mark is a non-enumerable symbol property set just before freezing: invisible to
// Object.keys, for…in and JSON, and cheaper for the garbage collector than a large WeakMap.
const VALID = Symbol.for("@steward/audit-state/State/valid")
const deepFreeze = (v: unknown): void => {
  if (typeof v !== "object" || v === null || Object.isFrozen(v)) return
  Object.freeze(v)
  for (const x of Object.values(v)) deepFreeze(x)
}
function cachedRecordIssue(
  r: Record<string, unknown>,
  fields: Fields,
  c: string,
  k: number,
  key: string
): string | undefined {
  if ((r as Record<symbol, unknown>)[VALID] === fields) return undefined
  const e = recordIssue(r, fields, `${c}[${k}]${label(r, key)}`)
  if (e === undefined && !Object.isFrozen(r)) {
    Object.defineProperty(r, VALID, { value: fields, enumerable: false })
    deepFreeze(r)
  }
  return e
}

const TOP_LEVEL = new Set([
  "schema_version",
  "state_revision",
  "generated_by",
  "head_before",
  "ledger_anchor",
  "ledger_commits",
  "findings",
  "class_findings",
  "queue",
  "plans",
  "construals",
  "sessions",
  "limits",
  "catalogs"
])
const COLLECTIONS = ["findings", "class_findings", "queue", "plans", "construals", "sessions"] as const

/**
 * The collections of a state document, in canonical order.
 *
 * @since 0.1.0
 * @category models
 */
export type Collection = typeof COLLECTIONS[number]

/**
 * The record collections of the document.
 *
 * @since 0.1.0
 * @category models
 */
export const collections: ReadonlyArray<Collection> = COLLECTIONS

const label = (r: unknown, key: string): string => isObj(r) && typeof r[key] === "string" ? ` (${r[key]})` : ""

/**
 * Validate a parsed document against schema 1: closed both ways, every field typed, every
 * cross-record invariant of §1.9. Returns the first issue as an addressed message, or
 * `undefined` when the document is valid.
 *
 * @since 0.1.0
 * @category validation
 */
export const issue = (doc: unknown): string | undefined => {
  const top = topIssue(doc)
  if (top !== undefined) return top
  return bodyIssue(doc as Record<string, unknown>)
}

interface RefContext {
  readonly passIds: ReadonlySet<string>
  readonly dims: ReadonlySet<string>
  readonly units: ReadonlySet<string>
  readonly hasRecord: (id: string) => boolean
  readonly classIds: ReadonlySet<string>
}

/** A record's own references: pass, dimension, units, `next` ownership. */
const recordRefIssue = (r: Finding, c: string, k: number, refs: RefContext): string | undefined => {
  if (!refs.passIds.has(r.pass)) return `${c}[${k}] (${r.id}).pass: '${r.pass}' is not a pass in the queue`
  if (refs.dims.size > 0 && !refs.dims.has(r.dimension)) {
    return `${c}[${k}] (${r.id}).dimension: '${r.dimension}' is not in the dimension catalog`
  }
  if (refs.units.size > 0) {
    const us = r.unit
    for (let i = 0; i < us.length; i++) {
      if (!refs.units.has(us[i]!)) return `${c}[${k}] (${r.id}).unit: '${us[i]}' is not in the unit map`
    }
  }
  if (r.next !== undefined && r.next !== null && r.next !== NEEDS_HUMAN) {
    const owners = NEXT_OWNER[r.status] ?? ["—", "-"]
    if (!owners.includes(r.next)) {
      return `${c}[${k}] (${r.id}).next: '${r.next}' does not own status '${r.status}' (owners: ${owners.join(", ")})`
    }
  }
  return undefined
}

/** Everything a finding row refers to (§1.9): its own references, `recurrence_of`, `class`. */
const findingRefIssue = (r: Finding, k: number, refs: RefContext): string | undefined => {
  const e = recordRefIssue(r, "findings", k, refs)
  if (e) return e
  if (r.recurrence_of !== undefined && r.recurrence_of !== null) {
    if (r.recurrence_of === r.id) {
      return `findings[${k}] (${r.id}).recurrence_of: '${r.recurrence_of}' is the record itself`
    }
    if (!refs.hasRecord(r.recurrence_of)) {
      return `findings[${k}] (${r.id}).recurrence_of: '${r.recurrence_of}' does not exist in this ledger`
    }
  }
  if (r.class !== undefined && r.class !== null && !refs.classIds.has(r.class)) {
    return `findings[${k}] (${r.id}).class: '${r.class}' is not a class finding in this state`
  }
  return undefined
}

/** Keys a commit rewrites on every verb; everything else must be the previous document's own value. */
const COMMIT_KEYS: ReadonlySet<string> = new Set(["findings", "state_revision", "ledger_anchor", "ledger_commits"])
/** Above this many changed findings the incremental check is no cheaper than the full one. */
const DELTA_LIMIT = 256

/**
 * Validate `next`, derived from `prev`, which is known to be valid (ADR 0111). When the only
 * change besides the commit bookkeeping (`state_revision`, `ledger_anchor`, `ledger_commits`,
 * always checked) is a few finding rows replaced in place with their ids kept, only those rows
 * are checked — the closed row schema and every reference a finding row holds (pass, dimension,
 * units, `next` owner, `recurrence_of`, `class`); no other invariant of §1.9 reads a finding's
 * non-id fields, and every other value is the previous document's own (identical) value.
 * Anything else — a row added, removed or re-identified, another collection, limits, catalogs
 * or any other top-level value changed — runs the full `issue`. Returns exactly what `issue(next)`
 * returns.
 *
 * @since 0.1.0
 * @category validation
 */
export const issueAfter = (prev: StateDoc, next: StateDoc): string | undefined => {
  const top = topIssue(next)
  if (top !== undefined) return top
  const changed = changedFindings(prev, next)
  if (changed === undefined) return bodyIssue(next as unknown as Record<string, unknown>)
  if (changed.length === 0) return undefined
  const rows = next.findings!
  for (const k of changed) {
    const e = cachedRecordIssue(rows[k] as unknown as Record<string, unknown>, FINDING_FIELDS, "findings", k, "id")
    if (e) return e
  }
  const cat = next.catalogs
  const refs: RefContext = {
    passIds: new Set((next.queue ?? []).map((p) => p.id)),
    dims: new Set((cat?.dimensions ?? []).map((d) => d.key)),
    units: new Set((cat?.units ?? []).map((u) => u.id)),
    hasRecord: (id) => rows.some((r) => r.id === id) || (next.class_findings ?? []).some((r) => r.id === id),
    classIds: new Set((next.class_findings ?? []).map((c) => c.id))
  }
  for (const k of changed) {
    const e = findingRefIssue(rows[k]!, k, refs)
    if (e) return e
  }
  return undefined
}

/** Indexes of finding rows replaced in place (ids kept), or `undefined` when the fast path does not apply. */
const changedFindings = (prev: StateDoc, next: StateDoc): ReadonlyArray<number> | undefined => {
  const p = prev as unknown as Record<string, unknown>
  const n = next as unknown as Record<string, unknown>
  for (const k in n) if (!COMMIT_KEYS.has(k) && n[k] !== p[k]) return undefined
  for (const k in p) if (!COMMIT_KEYS.has(k) && !(k in n)) return undefined
  const before = prev.findings
  const after = next.findings
  if (before === after) return []
  if (!Array.isArray(before) || !Array.isArray(after) || before.length !== after.length) return undefined
  const changed: Array<number> = []
  for (let k = 0; k < after.length; k++) {
    const r: unknown = after[k]
    if (r === before[k]) continue
    if (!isObj(r) || r.id !== before[k]!.id || changed.length >= DELTA_LIMIT) return undefined
    changed.push(k)
  }
  return changed
}

/** The top-level checks: closed key set, required keys, scalars, anchor, commits, collection shapes. */
const topIssue = (doc: unknown): string | undefined => {
  if (!isObj(doc)) return "expected a JSON object at the top level"
  const unknown = Object.keys(doc).filter((k) => !TOP_LEVEL.has(k))
  if (unknown.length > 0) {
    return `unknown top-level key(s) ${
      quoteList(unknown)
    } — the schema is closed; a key the tool does not read is refused`
  }
  for (const k of ["schema_version", "state_revision", "generated_by"]) {
    if (doc[k] === undefined) return `missing required top-level key '${k}'`
  }
  if (doc.schema_version !== SCHEMA_VERSION) {
    return `schema_version: this reader reads schema ${SCHEMA_VERSION}, the file declares ${
      show(doc.schema_version)
    } — run \`xcheck migrate\` (or the xcheck of that generation) first`
  }
  const e0 = nonNegInt(doc.state_revision, "state_revision") ?? text(doc.generated_by, "generated_by")
  if (e0) return e0
  if (doc.head_before !== undefined && doc.head_before !== null) {
    const e = pattern(PATTERNS.topHead, "git object name")(doc.head_before, "head_before")
    if (e) return e
  }
  if (doc.ledger_anchor !== undefined && doc.ledger_anchor !== null) {
    const a = doc.ledger_anchor
    if (!isObj(a)) return `ledger_anchor: expected a JSON object, found ${show(a)}`
    const e = recordIssue(a, {
      required: { digest: sha256, events: nonNegInt, state_revision: nonNegInt },
      optional: {}
    }, "ledger_anchor")
    if (e) return e
  }
  if (doc.ledger_commits !== undefined && doc.ledger_commits !== null) {
    const c = doc.ledger_commits
    const e = listMaybeEmpty(pattern(PATTERNS.hex16, "transaction id (16 lowercase hex)"))(c, "ledger_commits")
    if (e) return e
    const arr = c as ReadonlyArray<string>
    if (arr.length > 64) return `ledger_commits: holds ${arr.length} entries, at most 64 are kept`
    if (new Set(arr).size !== arr.length) return "ledger_commits: a transaction id is listed twice"
  }
  for (const c of COLLECTIONS) {
    const v = doc[c]
    if (v !== undefined && v !== null && !Array.isArray(v)) return `${c}: expected a list, found ${show(v)}`
  }
  return undefined
}

/** Rows, limits, catalogs and every cross-record invariant (§1.9), over a document `topIssue` passed. */
const bodyIssue = (doc: Record<string, unknown>): string | undefined => {
  const arr = (c: Collection): ReadonlyArray<unknown> => (doc[c] as ReadonlyArray<unknown> | undefined | null) ?? []
  const fieldsOf: Record<Collection, Fields> = {
    findings: FINDING_FIELDS,
    class_findings: CLASS_FINDING_FIELDS,
    queue: QUEUE_FIELDS,
    plans: PLAN_FIELDS,
    construals: CONSTRUAL_FIELDS,
    sessions: SESSION_FIELDS
  }
  const keyOf: Record<Collection, string> = {
    findings: "id",
    class_findings: "id",
    queue: "id",
    plans: "id",
    construals: "key",
    sessions: "session_id"
  }
  for (const c of COLLECTIONS) {
    const rows = arr(c)
    const fields = fieldsOf[c]
    for (let k = 0; k < rows.length; k++) {
      const r = rows[k]
      if (!isObj(r)) return `${c}[${k}]: expected a JSON object, found ${show(r)}`
      const e = cachedRecordIssue(r, fields, c, k, keyOf[c])
      if (e) return e
    }
  }
  // limits
  if (doc.limits !== undefined && doc.limits !== null) {
    const l = doc.limits
    if (!isObj(l)) return `limits: expected a JSON object, found ${show(l)}`
    const unknownLimits = Object.keys(l).filter((k) => !(k in LIMIT_RANGES))
    if (unknownLimits.length > 0) {
      return `limits: unknown limit(s) ${quoteList(unknownLimits)} — known: ${Object.keys(LIMIT_RANGES).join(", ")}`
    }
    for (const [k, v] of Object.entries(l)) {
      const [lo, hi] = LIMIT_RANGES[k]!
      if (typeof v !== "number" || !Number.isInteger(v)) return `limits.${k}: expected a whole number, found ${show(v)}`
      if (v < lo || v > hi) return `limits.${k}: ${v} is outside the legal range ${lo}..${hi}`
    }
  }
  // catalogs
  const norms = new Set<string>()
  const dims = new Set<string>()
  const units = new Set<string>()
  if (doc.catalogs !== undefined && doc.catalogs !== null) {
    const cat = doc.catalogs
    if (!isObj(cat)) return `catalogs: expected a JSON object, found ${show(cat)}`
    const unknownGroups = Object.keys(cat).filter((k) => !["norms", "dimensions", "units"].includes(k))
    if (unknownGroups.length > 0) {
      return `catalogs: unknown key(s) ${quoteList(unknownGroups)} — the catalog groups are norms, dimensions, units`
    }
    const groups: ReadonlyArray<readonly [string, string, Fields, Set<string>]> = [
      ["norms", "id", {
        required: { id: pattern(PATTERNS.norm, "norm id (N<digits>)"), source: text, scope: text },
        optional: {}
      }, norms],
      ["dimensions", "key", {
        required: { key: text, catches: text, norms: list(pattern(PATTERNS.norm, "norm id")) },
        optional: {}
      }, dims],
      ["units", "id", { required: { id: text, material: text, size: text, responsibility: text }, optional: {} }, units]
    ]
    for (const [group, key, fields, seen] of groups) {
      const rows = cat[group]
      if (rows === undefined || rows === null) continue
      if (!Array.isArray(rows)) return `catalogs.${group}: expected a list, found ${show(rows)}`
      for (let k = 0; k < rows.length; k++) {
        const r = rows[k]
        const where = `catalogs.${group}[${k}]${label(r, key)}`
        if (!isObj(r)) return `${where}: expected a JSON object, found ${show(r)}`
        const e = recordIssue(r, fields, where)
        if (e) return e
        const id = r[key] as string
        if (seen.has(id)) return `${where}: '${id}' is declared twice — there is no last-wins`
        seen.add(id)
      }
    }
    for (
      const d of (cat.dimensions as ReadonlyArray<{ key: string; norms: ReadonlyArray<string> }> | undefined) ?? []
    ) {
      for (const n of d.norms) {
        if (!norms.has(n)) return `catalogs.dimensions (${d.key}): norm '${n}' is not in the norms catalog`
      }
    }
  }
  // unique ids
  const findings = arr("findings") as ReadonlyArray<Finding>
  const classes = arr("class_findings") as ReadonlyArray<ClassFinding>
  const queue = arr("queue") as ReadonlyArray<Pass>
  const plans = arr("plans") as ReadonlyArray<Plan>
  const construals = arr("construals") as ReadonlyArray<Construal>
  const sessions = arr("sessions") as ReadonlyArray<Session>
  const recordIds = new Set<string>()
  for (const [c, rows] of [["findings", findings], ["class_findings", classes]] as const) {
    for (const r of rows) {
      if (recordIds.has(r.id)) return `${c}: '${r.id}' is declared twice — there is no last-wins`
      recordIds.add(r.id)
    }
  }
  const classIds = new Set(classes.map((c) => c.id))
  const passIds = new Set<string>()
  for (const p of queue) {
    if (passIds.has(p.id)) return `queue: '${p.id}' is declared twice — there is no last-wins`
    passIds.add(p.id)
  }
  const seenPlans = new Set<string>()
  for (const p of plans) {
    if (seenPlans.has(p.id)) return `plans: '${p.id}' is declared twice — there is no last-wins`
    seenPlans.add(p.id)
  }
  const seenKeys = new Set<string>()
  for (const c of construals) {
    if (seenKeys.has(c.key)) return `construals: '${c.key}' is declared twice — there is no last-wins`
    seenKeys.add(c.key)
  }
  const seenSessions = new Set<string>()
  for (const s of sessions) {
    if (seenSessions.has(s.session_id)) return `sessions: '${s.session_id}' is declared twice — there is no last-wins`
    seenSessions.add(s.session_id)
  }
  // record cross-references
  // hot loop (10k records before every commit): no allocation unless a check fails
  const refs: RefContext = { passIds, dims, units, hasRecord: (id) => recordIds.has(id), classIds }
  const recordCheck = (r: Finding, c: string, k: number) => recordRefIssue(r, c, k, refs)
  for (let k = 0; k < findings.length; k++) {
    const e = findingRefIssue(findings[k]!, k, refs)
    if (e) return e
  }
  const claimed = new Map<string, string>()
  for (let k = 0; k < classes.length; k++) {
    const r = classes[k]!
    const where = `class_findings[${k}] (${r.id})`
    const e = recordCheck(r, "class_findings", k)
    if (e) return e
    const seen = new Set<string>()
    for (const m of r.members) {
      if (m === r.id) return `${where}.members: the class lists itself as a member`
      if (seen.has(m)) return `${where}.members: '${m}' is listed twice`
      seen.add(m)
      if (!recordIds.has(m)) return `${where}.members: ${m} does not exist`
      const other = claimed.get(m)
      if (other !== undefined) {
        return `${where}.members: ${m} is already a member of ${other} — a finding has exactly one class (§8 rule 4)`
      }
      claimed.set(m, r.id)
    }
  }
  for (let k = 0; k < plans.length; k++) {
    const p = plans[k]!
    for (const f of p.findings) {
      if (!recordIds.has(f)) return `plans[${k}] (${p.id}).findings: ${f} does not exist`
    }
  }
  for (let k = 0; k < queue.length; k++) {
    const p = queue[k]!
    const where = `queue[${k}] (${p.id})`
    if (dims.size > 0 && !dims.has(p.dimension)) {
      return `${where}.dimension: '${p.dimension}' is not in the dimension catalog`
    }
    if (units.size > 0) {
      for (const u of p.units) if (!units.has(u)) return `${where}.units: '${u}' is not in the unit map`
    }
    if (p.coverage !== undefined && p.coverage !== null) {
      for (const f of p.coverage.findings) {
        if (!recordIds.has(f)) return `${where}.coverage.findings: ${f} does not exist in this state`
      }
    }
    if (p.done === true && (p.coverage === undefined || p.coverage === null)) {
      return `${where}: is done but carries no coverage record — a pass with no report counts as not done at all (§4 rule 5)`
    }
  }
  for (let k = 0; k < construals.length; k++) {
    const c = construals[k]!
    const where = `construals[${k}] (${c.key})`
    const expected = construalKey(c.role, c.charter)
    if (c.key !== expected) {
      return `${where}.key: '${c.key}' is not construal_key(role, charter) = '${expected}' — a construal is bound to its exact charter`
    }
    if (c.admitted_by !== undefined && c.admitted_by !== null && c.admitted_by === c.session) {
      return `${where}.admitted_by: session ${c.session} wrote this construal — a session may not admit its own construal`
    }
  }
  const open = sessions.filter((s) => s.outcome === undefined || s.outcome === null)
  if (open.length > 1) {
    const groups = new Set(open.map((s) => s.concurrent_group ?? null))
    if (groups.size > 1 || groups.has(null)) {
      return `sessions: ${open.length} dispatches are still open (${
        open.map((s) => s.session_id).join(", ")
      }) — at most one may be in flight unless they share one concurrent_group`
    }
  }
  return undefined
}

/**
 * The construal key: `sha256(role.strip() + "\0" + charter.strip())[:16]`.
 *
 * @since 0.1.0
 * @category construals
 */
export const construalKey = (role: string, charter: string): string =>
  createHash("sha256").update(`${role.trim()}\0${charter.trim()}`, "utf8").digest("hex").slice(0, 16)

/**
 * Who acts next on a record: the stored `next`, else the first owner of its status.
 *
 * @since 0.1.0
 * @category lifecycle
 */
export const nextOwner = (r: { readonly status: string; readonly next?: string | undefined }): string => {
  if (r.next !== undefined && r.next !== null) return r.next
  const owners = NEXT_OWNER[r.status] ?? []
  for (const o of ["Triage", "Remediator", "Verifier", "Auditor", "Planner", "—"]) {
    if (owners.includes(o)) return o
  }
  return "—"
}

/**
 * A limit's value (stored, else its default).
 *
 * @since 0.1.0
 * @category lifecycle
 */
export const limit = (doc: StateDoc, key: string): number => doc.limits?.[key] ?? LIMIT_DEFAULTS[key]!

/**
 * All records (findings then class findings), in document order.
 *
 * @since 0.1.0
 * @category lifecycle
 */
export const records = (
  doc: StateDoc
): ReadonlyArray<Finding> => [...(doc.findings ?? []), ...(doc.class_findings ?? [])]

/**
 * The open dispatch (a session without an outcome), if any.
 *
 * @since 0.1.0
 * @category dispatch
 */
export const openDispatch = (doc: StateDoc): Session | undefined =>
  (doc.sessions ?? []).find((s) => s.outcome === undefined || s.outcome === null)

/**
 * The no-progress digest (`audit_state_digest`, ADR 0105): sha-256 of the document without
 * `sessions`, `state_revision`, `ledger_anchor` and `ledger_commits`, re-encoded with sorted
 * keys and compact separators. Dispatch bookkeeping never counts as progress; a status change does.
 *
 * @since 0.1.0
 * @category lifecycle
 */
export const progressDigest = (doc: StateDoc): string => {
  const { ledger_anchor: _a, ledger_commits: _c, sessions: _s, state_revision: _r, ...rest } = normalize(doc)
  return createHash("sha256").update(Json.dumpsCompact(rest, true), "utf8").digest("hex")
}

// ---------------------------------------------------------------------------------------------
// canonical bytes

const hasNull = (r: Record<string, unknown>): boolean => {
  for (const k in r) {
    const v = r[k]
    if (v === null || v === undefined) return true
    if (k === "coverage" && isObj(v) && hasNull(v)) return true
  }
  return false
}

const dropNulls = (r: unknown): unknown => {
  if (!isObj(r) || !hasNull(r)) return r
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(r)) {
    if (v === null || v === undefined) continue
    out[k] = k === "coverage" ? dropNulls(v) : v
  }
  return out
}

/**
 * Normalize a valid document the way xcheck writes it: record fields holding `null` are dropped,
 * an empty `ledger_anchor`/`ledger_commits` is omitted.
 *
 * @since 0.1.0
 * @category encoding
 */
export const normalize = (doc: StateDoc): StateDoc => {
  const out: Record<string, unknown> = { ...doc }
  for (const c of COLLECTIONS) {
    const rows = out[c]
    if (Array.isArray(rows)) out[c] = rows.map(dropNulls)
    else if (rows === null) delete out[c]
  }
  if (out.ledger_anchor === null || out.ledger_anchor === undefined) delete out.ledger_anchor
  if (!Array.isArray(out.ledger_commits) || out.ledger_commits.length === 0) delete out.ledger_commits
  return out as unknown as StateDoc
}

/**
 * The canonical bytes: `json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False) + "\n"`.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encode = (doc: StateDoc): string => Json.dumpsPretty(normalize(doc)) + "\n"

/**
 * Parse `state.json` text: JSON syntax, top-level object, then the closed schema. Returns the
 * normalized document or a typed `invalid-state` error with an addressed message.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeText = (content: string, source = "state.json"): Effect.Effect<StateDoc, AuditError.AuditError> =>
  Effect.suspend(() => {
    const parsed = Json.parse(content)
    if (parsed instanceof Json.JsonSyntaxError) {
      return Effect.fail(
        AuditError.make(
          "invalid-state",
          `${source}: not valid JSON at line ${parsed.line} column ${parsed.column} (${parsed.message})`
        )
      )
    }
    return decode(parsed, source)
  })

/**
 * Decode bytes (UTF-8 checked) as {@link decodeText}.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeBytes = (bytes: Uint8Array, source = "state.json"): Effect.Effect<StateDoc, AuditError.AuditError> =>
  Effect.suspend(() => {
    let content: string
    try {
      content = new TextDecoder("utf-8", { fatal: true }).decode(bytes)
    } catch {
      return Effect.fail(AuditError.make("invalid-state", `${source}: not valid UTF-8`))
    }
    return decodeText(content, source)
  })

/**
 * Decode an already parsed value.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = (value: unknown, source = "state.json"): Effect.Effect<StateDoc, AuditError.AuditError> => {
  const problem = issue(value)
  return problem === undefined
    ? Effect.succeed(normalize(value as StateDoc))
    : Effect.fail(AuditError.make("invalid-state", `${source}: ${problem}`))
}

/**
 * The state document as an `effect/Schema` (a declared type whose decoder is the closed validator).
 *
 * @since 0.1.0
 * @category schemas
 */
export const StateDocument: Schema.Schema<StateDoc, unknown> = Schema.declare(
  [],
  {
    decode: () => (input, _options, ast) => {
      const problem = issue(input)
      return problem === undefined
        ? ParseResult.succeed(normalize(input as StateDoc))
        : ParseResult.fail(new ParseResult.Type(ast, input, problem))
    },
    encode: () => (input) => ParseResult.succeed(input)
  },
  { identifier: "StateDocument", description: "xcheck audit/state.json, schema 1" }
)

/**
 * A valid empty document at revision 0.
 *
 * @since 0.1.0
 * @category constructors
 */
export const empty = (generatedBy: string): StateDoc => ({
  schema_version: SCHEMA_VERSION,
  state_revision: 0,
  generated_by: generatedBy,
  findings: [],
  class_findings: [],
  queue: [],
  plans: [],
  construals: [],
  sessions: [],
  limits: { ...LIMIT_DEFAULTS },
  catalogs: { norms: [], dimensions: [], units: [] }
})
