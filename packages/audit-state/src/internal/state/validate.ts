/**
 * The whole-document validator (spec §1.9): top-level keys, every record, cross-record
 * references — and the incremental check a commit runs over what it changed (ADR 0111).
 *
 * @internal
 */
import { LIMIT_RANGES, NEEDS_HUMAN, NEXT_OWNER, PATTERNS, SCHEMA_VERSION } from "../../Vocabulary.js"
import {
  cachedRecordIssue,
  CLASS_FINDING_FIELDS,
  CONSTRUAL_FIELDS,
  construalKey,
  type Fields,
  FINDING_FIELDS,
  isObj,
  label,
  list,
  listMaybeEmpty,
  markRecordValid,
  nonNegInt,
  pattern,
  PLAN_FIELDS,
  QUEUE_FIELDS,
  quoteList,
  recordIssue,
  SESSION_FIELDS,
  sha256,
  show,
  text
} from "./fields.js"
import type { ClassFinding, Construal, Finding, Pass, Plan, Session, StateDoc } from "./model.js"

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

/**
 * Validate a parsed document against schema 1: closed both ways, every field typed, every
 * cross-record invariant of §1.9. Returns the first issue as an addressed message, or
 * `undefined` when the document is valid.
 *
 * @since 0.1.0
 * @category validation
 */
export const issue = (doc: unknown): string | undefined => {
  settle(doc)
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
  if (changed === undefined) {
    // the rows `next` kept from a sealed `prev` are checked already: mark them so
    settle(prev)
    return bodyIssue(next as unknown as Record<string, unknown>)
  }
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

/** Each collection's closed row fields. */
const fieldsOf: Record<Collection, Fields> = {
  findings: FINDING_FIELDS,
  class_findings: CLASS_FINDING_FIELDS,
  queue: QUEUE_FIELDS,
  plans: PLAN_FIELDS,
  construals: CONSTRUAL_FIELDS,
  sessions: SESSION_FIELDS
}

/**
 * A document read back from a sealed store (ADR 0114): its rows were written by a validated
 * commit and nothing has changed them since, so they are marked checked (and frozen) instead of
 * being checked again. Anything else goes through {@link issue}.
 *
 * @internal
 */
export const trustSealed = (doc: StateDoc): StateDoc => {
  // marking 10,000 rows costs more than a `next` may spend: the rows are marked (and frozen)
  // the first time a full validation meets them (`settle`), which most read commands never run
  const d = doc as unknown as Record<string, ReadonlyArray<Record<string, unknown>> | undefined>
  for (const c of COLLECTIONS) {
    const rows = d[c]
    if (Array.isArray(rows)) unsettled.set(rows, c)
  }
  return doc
}

/** Row arrays of sealed documents whose rows are not yet marked checked. */
const unsettled = new WeakMap<ReadonlyArray<unknown>, Collection>()

/** Mark the rows of `doc`'s sealed row arrays checked (see {@link trustSealed}). */
const settle = (doc: unknown): void => {
  if (!isObj(doc)) return
  for (const c of COLLECTIONS) {
    const rows = doc[c]
    if (!Array.isArray(rows) || unsettled.get(rows) !== c) continue
    unsettled.delete(rows)
    const fields = fieldsOf[c]
    for (let k = 0; k < rows.length; k++) markRecordValid(rows[k] as Record<string, unknown>, fields)
  }
}

/** Every row of every collection against its closed field table (the rows' own checks). */
const rowsIssue = (doc: Record<string, unknown>): string | undefined => {
  for (const c of COLLECTIONS) {
    const rows = rowsOf(doc, c)
    const fields = fieldsOf[c]
    const key = KEY_OF[c]
    for (let k = 0; k < rows.length; k++) {
      const r = rows[k]
      if (!isObj(r)) return `${c}[${k}]: expected a JSON object, found ${show(r)}`
      const e = cachedRecordIssue(r, fields, c, k, key)
      if (e) return e
    }
  }
  return undefined
}

/** The field each collection's rows are identified by. */
const KEY_OF: Record<Collection, string> = {
  findings: "id",
  class_findings: "id",
  queue: "id",
  plans: "id",
  construals: "key",
  sessions: "session_id"
}

const rowsOf = (doc: Record<string, unknown>, c: Collection): ReadonlyArray<unknown> =>
  (doc[c] as ReadonlyArray<unknown> | undefined | null) ?? []

/** `limits`: known keys only, each a whole number within its legal range. */
const limitsIssue = (l: unknown): string | undefined => {
  if (l === undefined || l === null) return undefined
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
  return undefined
}

/** The ids each catalog group declares (empty when the group is absent). */
interface CatalogIndex {
  readonly norms: ReadonlySet<string>
  readonly dims: ReadonlySet<string>
  readonly units: ReadonlySet<string>
}

/** Each catalog group: its key field and closed row fields. */
const CATALOG_GROUPS: ReadonlyArray<readonly ["norms" | "dimensions" | "units", string, Fields]> = [
  ["norms", "id", {
    required: { id: pattern(PATTERNS.norm, "norm id (N<digits>)"), source: text, scope: text },
    optional: {}
  }],
  ["dimensions", "key", {
    required: { key: text, catches: text, norms: list(pattern(PATTERNS.norm, "norm id")) },
    optional: {}
  }],
  ["units", "id", { required: { id: text, material: text, size: text, responsibility: text }, optional: {} }]
]

/** `catalogs`: closed groups, closed rows, no id declared twice, every dimension's norms known. */
const catalogIndex = (cat: unknown): CatalogIndex | string => {
  const index = { norms: new Set<string>(), dimensions: new Set<string>(), units: new Set<string>() }
  const done = { norms: index.norms, dims: index.dimensions, units: index.units }
  if (cat === undefined || cat === null) return done
  if (!isObj(cat)) return `catalogs: expected a JSON object, found ${show(cat)}`
  const unknownGroups = Object.keys(cat).filter((k) => !["norms", "dimensions", "units"].includes(k))
  if (unknownGroups.length > 0) {
    return `catalogs: unknown key(s) ${quoteList(unknownGroups)} — the catalog groups are norms, dimensions, units`
  }
  for (const [group, key, fields] of CATALOG_GROUPS) {
    const rows = cat[group]
    if (rows === undefined || rows === null) continue
    if (!Array.isArray(rows)) return `catalogs.${group}: expected a list, found ${show(rows)}`
    const seen = index[group]
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
  for (const d of (cat.dimensions as ReadonlyArray<{ key: string; norms: ReadonlyArray<string> }> | undefined) ?? []) {
    for (const n of d.norms) {
      if (!index.norms.has(n)) return `catalogs.dimensions (${d.key}): norm '${n}' is not in the norms catalog`
    }
  }
  return done
}

/** A document whose rows, limits and catalogs passed, with the id sets the cross-checks read. */
interface Body extends RefContext {
  readonly findings: ReadonlyArray<Finding>
  readonly classes: ReadonlyArray<ClassFinding>
  readonly queue: ReadonlyArray<Pass>
  readonly plans: ReadonlyArray<Plan>
  readonly construals: ReadonlyArray<Construal>
  readonly sessions: ReadonlyArray<Session>
  readonly recordIds: ReadonlySet<string>
}

/** The first id in `rows` already in `seen` (adding the rest), as the duplicate's message. */
const duplicateIssue = <R>(
  c: Collection,
  rows: ReadonlyArray<R>,
  idOf: (r: R) => string,
  seen = new Set<string>()
): string | undefined => {
  for (const r of rows) {
    const id = idOf(r)
    if (seen.has(id)) return `${c}: '${id}' is declared twice — there is no last-wins`
    seen.add(id)
  }
  return undefined
}

/** Unique ids in every collection (findings and class findings share one namespace). */
const indexBody = (doc: Record<string, unknown>, catalog: CatalogIndex): Body | string => {
  const findings = rowsOf(doc, "findings") as ReadonlyArray<Finding>
  const classes = rowsOf(doc, "class_findings") as ReadonlyArray<ClassFinding>
  const queue = rowsOf(doc, "queue") as ReadonlyArray<Pass>
  const plans = rowsOf(doc, "plans") as ReadonlyArray<Plan>
  const construals = rowsOf(doc, "construals") as ReadonlyArray<Construal>
  const sessions = rowsOf(doc, "sessions") as ReadonlyArray<Session>
  const recordIds = new Set<string>()
  const passIds = new Set<string>()
  const e = duplicateIssue("findings", findings, (r) => r.id, recordIds) ??
    duplicateIssue("class_findings", classes, (r) => r.id, recordIds) ??
    duplicateIssue("queue", queue, (p) => p.id, passIds) ??
    duplicateIssue("plans", plans, (p) => p.id) ??
    duplicateIssue("construals", construals, (c) => c.key) ??
    duplicateIssue("sessions", sessions, (s) => s.session_id)
  if (e) return e
  return {
    findings,
    classes,
    queue,
    plans,
    construals,
    sessions,
    recordIds,
    passIds,
    classIds: new Set(classes.map((c) => c.id)),
    dims: catalog.dims,
    units: catalog.units,
    hasRecord: (id) => recordIds.has(id)
  }
}

// The cross-record invariants of §1.9, in the order their first issue is reported. Hot loops
// (10k records before every commit): no allocation unless a check fails.

const findingsRefIssue = (b: Body): string | undefined => {
  for (let k = 0; k < b.findings.length; k++) {
    const e = findingRefIssue(b.findings[k]!, k, b)
    if (e) return e
  }
  return undefined
}

/** Class findings: their own references, and members that exist, once, in exactly one class. */
const classesIssue = (b: Body): string | undefined => {
  const claimed = new Map<string, string>()
  for (let k = 0; k < b.classes.length; k++) {
    const r = b.classes[k]!
    const where = `class_findings[${k}] (${r.id})`
    const e = recordRefIssue(r, "class_findings", k, b)
    if (e) return e
    const seen = new Set<string>()
    for (const m of r.members) {
      if (m === r.id) return `${where}.members: the class lists itself as a member`
      if (seen.has(m)) return `${where}.members: '${m}' is listed twice`
      seen.add(m)
      if (!b.recordIds.has(m)) return `${where}.members: ${m} does not exist`
      const other = claimed.get(m)
      if (other !== undefined) {
        return `${where}.members: ${m} is already a member of ${other} — a finding has exactly one class (§8 rule 4)`
      }
      claimed.set(m, r.id)
    }
  }
  return undefined
}

const plansIssue = (b: Body): string | undefined => {
  for (let k = 0; k < b.plans.length; k++) {
    const p = b.plans[k]!
    for (const f of p.findings) {
      if (!b.recordIds.has(f)) return `plans[${k}] (${p.id}).findings: ${f} does not exist`
    }
  }
  return undefined
}

/** Passes: catalogued dimension and units, coverage naming existing records, done only with coverage. */
const queueIssue = (b: Body): string | undefined => {
  for (let k = 0; k < b.queue.length; k++) {
    const p = b.queue[k]!
    const where = `queue[${k}] (${p.id})`
    if (b.dims.size > 0 && !b.dims.has(p.dimension)) {
      return `${where}.dimension: '${p.dimension}' is not in the dimension catalog`
    }
    if (b.units.size > 0) {
      for (const u of p.units) if (!b.units.has(u)) return `${where}.units: '${u}' is not in the unit map`
    }
    if (p.coverage !== undefined && p.coverage !== null) {
      for (const f of p.coverage.findings) {
        if (!b.recordIds.has(f)) return `${where}.coverage.findings: ${f} does not exist in this state`
      }
    }
    if (p.done === true && (p.coverage === undefined || p.coverage === null)) {
      return `${where}: is done but carries no coverage record — a pass with no report counts as not done at all (§4 rule 5)`
    }
  }
  return undefined
}

/** Construals: the key is bound to the exact charter, and no session admits its own. */
const construalsIssue = (b: Body): string | undefined => {
  for (let k = 0; k < b.construals.length; k++) {
    const c = b.construals[k]!
    const where = `construals[${k}] (${c.key})`
    const expected = construalKey(c.role, c.charter)
    if (c.key !== expected) {
      return `${where}.key: '${c.key}' is not construal_key(role, charter) = '${expected}' — a construal is bound to its exact charter`
    }
    if (c.admitted_by !== undefined && c.admitted_by !== null && c.admitted_by === c.session) {
      return `${where}.admitted_by: session ${c.session} wrote this construal — a session may not admit its own construal`
    }
  }
  return undefined
}

/** Sessions: at most one open dispatch, unless the open ones share one concurrent group. */
const sessionsIssue = (b: Body): string | undefined => {
  const open = b.sessions.filter((s) => s.outcome === undefined || s.outcome === null)
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

const CROSS_CHECKS: ReadonlyArray<(b: Body) => string | undefined> = [
  findingsRefIssue,
  classesIssue,
  plansIssue,
  queueIssue,
  construalsIssue,
  sessionsIssue
]

/** Rows, limits, catalogs and every cross-record invariant (§1.9), over a document `topIssue` passed. */
const bodyIssue = (doc: Record<string, unknown>): string | undefined => {
  const e = rowsIssue(doc) ?? limitsIssue(doc.limits)
  if (e) return e
  const catalog = catalogIndex(doc.catalogs)
  if (typeof catalog === "string") return catalog
  const body = indexBody(doc, catalog)
  if (typeof body === "string") return body
  for (const check of CROSS_CHECKS) {
    const issue = check(body)
    if (issue) return issue
  }
  return undefined
}
