/**
 * The `metrics --json` and `status --json` payloads (output schema 10) as Schemas — the one source
 * of their shape: the payload types derive from them, and so does xcheck's closed type table the
 * checker holds a payload to ({@link outputSchemaOf}).
 *
 * @internal
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import type { OutputSchema } from "../../Metrics.js"

const Int = Schema.Int
const Num = Schema.Finite
const Rate = Schema.NullOr(Num)
const Str = Schema.String
const Counts = Schema.Record({ key: Schema.String, value: Int })
const Strings = Schema.Array(Schema.String)

/**
 * An annotation naming a value's type in xcheck's table when the table says less than the Schema
 * (a struct xcheck types only as `dict`).
 */
export const XcheckType: unique symbol = Symbol.for("@steward/audit-state/XcheckType")

const Independence = Schema.Struct({
  by_level: Counts,
  degraded: Int,
  measured: Int,
  levels: Strings,
  degraded_levels: Strings,
  ceiling: Str
})

/** Payloads are closed: a key the Schema does not name is refused, as xcheck's checker refuses it. */
const closed = { parseOptions: { onExcessProperty: "error" } } as const

/** `metrics --json` (schema v10). */
export const MetricsReport = Schema.Struct({
  output_schema_version: Int,
  project: Str,
  passes_done: Int,
  findings: Schema.Struct({
    total: Int,
    by_status: Counts,
    by_severity: Counts,
    by_dimension: Counts,
    attempts: Counts
  }),
  class_findings: Schema.Struct({ ids: Strings, members: Int }),
  auditor_accuracy_pct: Rate,
  fix_durability_pct: Rate,
  independence: Independence,
  sessions: Schema.Struct({ total: Int, by_outcome: Counts, by_provider: Counts }),
  fix_durability_baseline_pct: Rate,
  reopen_rate_pct: Rate,
  human_interventions: Schema.Struct({
    gates: Int,
    by_gate: Counts,
    norm_rulings: Int,
    human_retakes: Int,
    total: Int
  }),
  false_closure_rate_pct: Rate,
  false_closures: Int,
  closures_recorded: Int,
  tokens: Schema.Struct({
    sessions_finished: Int,
    sessions_measured: Int,
    sessions_unmeasured: Int,
    total: Rate,
    canonical_transitions: Int,
    canonical_transitions_measured: Int,
    coverage_pct: Rate,
    per_canonical_transition: Rate,
    on_sessions_that_moved_nothing: Rate,
    share_that_moved_nothing_pct: Rate,
    scope: Str,
    source: Str
  }),
  telemetry: Schema.Struct({
    sessions_finished: Int,
    by_field: Schema.Record({
      key: Schema.String,
      value: Schema.Struct({ measured: Int, unmeasured: Int, coverage_pct: Rate })
    }),
    by_source: Counts,
    disagreements: Int,
    fields: Strings,
    scope: Str
  }),
  cost_per_accepted_finding: Schema.Struct({
    proxy: Str,
    session_seconds: Int,
    accepted_findings: Int,
    seconds_per_accepted_finding: Rate
  }),
  coverage_completeness_pct: Rate,
  recovery_after_kill_pct: Rate,
  killed_sessions: Int,
  breakdowns: Schema.Struct({
    durability_by_dimension: Schema.Record({ key: Schema.String, value: Rate }),
    durability_by_fix_type: Schema.Record({ key: Schema.String, value: Rate }),
    recurrence_rate_pct: Rate,
    reopen_cause: Counts,
    verification_independence: Independence.annotations({ [XcheckType]: "dict" }),
    human_intervention_rate: Rate,
    seconds_per_closed_finding: Rate,
    residue_pass_share_pct: Rate,
    false_closures_found_later: Int,
    sessions_by_route: Counts
  })
}).annotations(closed)

/** A `status --json` decision detail (ADR 0110): an id, a list (an embargo's entries), or nothing. */
const StatusDetail = Schema.Union(
  Schema.String,
  Schema.Array(Schema.Union(Schema.String, Schema.Array(Schema.Union(Schema.String, Schema.Number, Strings)))),
  Schema.Null
)

/** `status --json` (schema v10). */
export const StatusReport = Schema.Struct({
  output_schema_version: Int,
  xcheck_version: Str,
  project: Str,
  schema_version: Int,
  state_revision: Int,
  head_before: Schema.NullOr(Str),
  passes: Schema.Struct({ done: Int, queued: Strings }),
  findings: Schema.Struct({ total: Int, by_status: Counts }),
  lock: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  decision: Schema.Struct({ kind: Str, detail: StatusDetail }),
  quarantine: Schema.Struct({ pending: Int, bundles: Schema.Array(Schema.Unknown) }),
  full_sweep: Schema.Struct({
    last: Schema.NullOr(Str),
    pass: Schema.NullOr(Str),
    days: Schema.NullOr(Int),
    note: Str
  })
}).annotations(closed)

/** xcheck's type name for a leaf (`int`, `num`, `str`, `list`, `dict`, `null`, `bool`, unions with `|`). */
const leaf = (ast: AST.AST): string => {
  const named = ast.annotations[XcheckType]
  if (typeof named === "string") return named
  switch (ast._tag) {
    case "Refinement":
      return Option.getOrUndefined(AST.getIdentifierAnnotation(ast)) === "Int" ? "int" : leaf(ast.from)
    case "NumberKeyword":
      return "num"
    case "StringKeyword":
      return "str"
    case "BooleanKeyword":
      return "bool"
    case "Literal":
      return ast.literal === null ? "null" : typeof ast.literal === "string" ? "str" : "num"
    case "TupleType":
      return "list"
    case "TypeLiteral":
      return "dict"
    case "Union":
      return [...new Set(ast.types.map(leaf))].join("|")
    default:
      throw new Error(`no xcheck type for a ${ast._tag} in an output schema`)
  }
}

/**
 * The closed type table of a payload Schema: a struct's properties in order, each a nested table
 * (a struct with properties) or its leaf's type union.
 */
export const outputSchemaOf = (schema: Schema.Schema.Any): OutputSchema => {
  const table = (ast: AST.AST): OutputSchema => {
    if (ast._tag !== "TypeLiteral") throw new Error(`an output schema is a struct, found a ${ast._tag}`)
    const out: Record<string, string | OutputSchema> = {}
    for (const p of ast.propertySignatures) {
      const nested = p.type._tag === "TypeLiteral" && p.type.propertySignatures.length > 0 &&
        p.type.annotations[XcheckType] === undefined
      out[String(p.name)] = nested ? table(p.type) : leaf(p.type)
    }
    return out
  }
  return table(schema.ast)
}
