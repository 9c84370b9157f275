/**
 * The closed field tables of every record kind (spec §1.4–§1.8) and the per-record check, each
 * message addressed "where: what was found, what was expected".
 *
 * @internal
 */
import { createHash } from "node:crypto"
import {
  INDEPENDENCE_LEVELS,
  NEXT_VALUES,
  PATTERNS,
  REFUSAL_REASONS,
  ROLES,
  SESSION_OUTCOMES,
  SEVERITIES,
  STATUSES
} from "../../Vocabulary.js"
import * as Json from "../json.js"

type Check = (v: unknown, where: string) => string | undefined

export const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Json.PyFloat)
export const show = (v: unknown): string =>
  typeof v === "string" ? `'${v}'` : v instanceof Json.PyFloat ? Json.pyFloat(v.value) : Json.dumpsCompact(v, false)

export const text: Check = (v, w) =>
  typeof v === "string" && v.trim().length > 0 ? undefined : `${w}: expected a non-empty string, found ${show(v)}`
export const nonNegInt: Check = (v, w) =>
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
export const object: Check = (v, w) => isObj(v) ? undefined : `${w}: expected a JSON object, found ${show(v)}`
export const pattern = (re: RegExp, what: string): Check => (v, w) =>
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
export const list = (item: Check): Check => (v, w) => {
  if (!Array.isArray(v) || v.length === 0) return `${w}: expected a non-empty list, found ${show(v)}`
  for (let k = 0; k < v.length; k++) {
    const e = item(v[k], `${w}[${k}]`)
    if (e) return e
  }
  return undefined
}
export const listMaybeEmpty = (item: Check): Check => (v, w) => {
  if (!Array.isArray(v)) return `${w}: expected a list, found ${show(v)}`
  for (let k = 0; k < v.length; k++) {
    const e = item(v[k], `${w}[${k}]`)
    if (e) return e
  }
  return undefined
}

const sessionId = pattern(PATTERNS.hex16, "16-lowercase-hex session id")
export const sha256 = pattern(PATTERNS.sha256, "sha-256 hex digest")
const anyFindingId = pattern(PATTERNS.anyFinding, "finding or class-finding id")
const nextActor: Check = (v, w) =>
  typeof v === "string" && NEXT_VALUES.has(v)
    ? undefined
    : `${w}: ${show(v)} is not a canonical \`next\` actor (one of ${[...NEXT_VALUES].join(", ")})`
const admitter: Check = (v, w) =>
  typeof v === "string" && (PATTERNS.human.test(v) || PATTERNS.envelopeAdmitter.test(v) || PATTERNS.hex16.test(v))
    ? undefined
    : `${w}: ${show(v)} is not an admitter (human:<label>, envelope:<name> or a 16-hex session id)`

export interface Fields {
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

export const FINDING_FIELDS: Fields = {
  required: { id: pattern(PATTERNS.finding, "finding id (F-NNNN)"), ...FINDING_COMMON_REQUIRED },
  optional: {
    ...FINDING_COMMON_OPTIONAL,
    recurrence_of: anyFindingId,
    class: pattern(PATTERNS.classFinding, "class-finding id (CF-NNNN)"),
    locator: text,
    source_hash: sha256
  }
}
export const CLASS_FINDING_FIELDS: Fields = {
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
export const QUEUE_FIELDS: Fields = {
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
export const PLAN_FIELDS: Fields = {
  required: {
    id: pattern(PATTERNS.plan, "plan id (RP-NNNN)"),
    findings: list(anyFindingId),
    status: oneOf(["open", "done"], "plan status"),
    updated: date,
    body_path: text
  },
  optional: { attempts: nonNegInt }
}
export const CONSTRUAL_FIELDS: Fields = {
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
export const SESSION_FIELDS: Fields = {
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

export const quoteList = (keys: ReadonlyArray<string>) => keys.map((k) => `'${k}'`).join(", ")

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

export function recordIssue(r: Record<string, unknown>, fields: Fields, where: string): string | undefined {
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
export function cachedRecordIssue(
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

/**
 * Mark a record as checked against `fields` without checking it: only for rows read back from a
 * sealed store, which a validated commit wrote (ADR 0114). Frozen like a checked row.
 * @internal
 */
export function markRecordValid(r: Record<string, unknown>, fields: Fields): void {
  if (Object.isFrozen(r)) return
  Object.defineProperty(r, VALID, { value: fields, enumerable: false })
  deepFreeze(r)
}

/** `  (id)` for a record that has one, for addressing messages. @internal */
export const label = (r: unknown, key: string): string => isObj(r) && typeof r[key] === "string" ? ` (${r[key]})` : ""

/** `sha256(role.strip() + "\0" + charter.strip())[:16]`. @internal */
export const construalKey = (role: string, charter: string): string =>
  createHash("sha256").update(`${role.trim()}\0${charter.trim()}`, "utf8").digest("hex").slice(0, 16)
