/**
 * The state document's records as types (spec §1.2–§1.8).
 *
 * @internal
 */
import type * as Schema from "effect/Schema"
import type * as Json from "../json.js"
import type { ClassFindingSchema, FindingSchema } from "./schema.js"

/**
 * A finding (`findings[]`), as {@link FindingSchema} defines it. Read through `State.records`, a
 * class finding is one too, which is why `members` and `created_by` may appear.
 *
 * @since 0.1.0
 * @category models
 */
export interface Finding extends Schema.Schema.Type<typeof FindingSchema> {
  readonly members?: ReadonlyArray<string>
  readonly created_by?: string
}

/**
 * A class finding (`class_findings[]`): a finding with `members`, as {@link ClassFindingSchema}
 * defines it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClassFinding extends Schema.Schema.Type<typeof ClassFindingSchema> {
  // a class finding has none of a finding's own fields: reading one through either type is safe
  readonly recurrence_of?: never
  readonly class?: never
  readonly locator?: never
  readonly source_hash?: never
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
