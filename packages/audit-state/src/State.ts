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
import * as Fields from "./internal/state/fields.js"
import type * as Model from "./internal/state/model.js"
import * as RecordSchemas from "./internal/state/schema.js"
import * as Validate from "./internal/state/validate.js"
import { LIMIT_DEFAULTS, NEXT_OWNER, SCHEMA_VERSION } from "./Vocabulary.js"

/**
 * A finding (`findings[]`).
 *
 * @since 0.1.0
 * @category models
 */
export type Finding = Model.Finding

/**
 * A class finding (`class_findings[]`): a finding with `members`.
 *
 * @since 0.1.0
 * @category models
 */
export type ClassFinding = Model.ClassFinding

/**
 * A finding row as `effect/Schema`, closed both ways: the one definition {@link Finding} derives
 * from. The document validator ({@link issue}) checks the same shape by hand, for xcheck's exact
 * wording and for speed; a property test holds the two together.
 *
 * @since 0.3.0
 * @category schemas
 */
export const FindingSchema = RecordSchemas.FindingSchema

/**
 * A class finding row as `effect/Schema`: the one definition {@link ClassFinding} derives from.
 *
 * @since 0.3.0
 * @category schemas
 */
export const ClassFindingSchema = RecordSchemas.ClassFindingSchema

/**
 * A pass's coverage record.
 *
 * @since 0.1.0
 * @category models
 */
export type Coverage = Model.Coverage

/**
 * A queue entry (a pass).
 *
 * @since 0.1.0
 * @category models
 */
export type Pass = Model.Pass

/**
 * A remediation plan.
 *
 * @since 0.1.0
 * @category models
 */
export type Plan = Model.Plan

/**
 * An operational construal.
 *
 * @since 0.1.0
 * @category models
 */
export type Construal = Model.Construal

/**
 * An invocation envelope (`sessions[]`). `outcome` absent = the open dispatch.
 *
 * @since 0.1.0
 * @category models
 */
export type Session = Model.Session

/**
 * The catalogs.
 *
 * @since 0.1.0
 * @category models
 */
export type Catalogs = Model.Catalogs

/**
 * The event-chain checkpoint.
 *
 * @since 0.1.0
 * @category models
 */
export type LedgerAnchor = Model.LedgerAnchor

/**
 * The whole state document.
 *
 * @since 0.1.0
 * @category models
 */
export type StateDoc = Model.StateDoc

/**
 * The collections of a state document, in canonical order.
 *
 * @since 0.1.0
 * @category models
 */
export type Collection = Validate.Collection

/**
 * The record collections of the document.
 *
 * @since 0.1.0
 * @category models
 */
export const collections: ReadonlyArray<Collection> = Validate.collections

/**
 * Validate a parsed document against schema 1: closed both ways, every field typed, every
 * cross-record invariant of §1.9. Returns the first issue as an addressed message, or
 * `undefined` when the document is valid.
 *
 * @since 0.1.0
 * @category validation
 */
export const issue: (doc: unknown) => string | undefined = Validate.issue

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
export const issueAfter: (prev: StateDoc, next: StateDoc) => string | undefined = Validate.issueAfter

/**
 * The construal key: `sha256(role.strip() + "\0" + charter.strip())[:16]`.
 *
 * @since 0.1.0
 * @category construals
 */
export const construalKey: (role: string, charter: string) => string = Fields.construalKey

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
    if (k === "coverage" && Fields.isObj(v) && hasNull(v)) return true
  }
  return false
}

const dropNulls = (r: unknown): unknown => {
  if (!Fields.isObj(r) || !hasNull(r)) return r
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
  for (const c of Validate.collections) {
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
  // xcheck's empty state stores no limits and applies the defaults in code
  limits: {},
  catalogs: { norms: [], dimensions: [], units: [] }
})
