/**
 * The audit verbs as the tools of a governed harness session (`steward audit loop`): one tool per
 * write verb, shaped by audit-state's `VerbRequestSchema`, plus `audit_status`. A session writes
 * only through them: each call passes governance (rules per dispatched role: the role's routed
 * verbs allowed, administrative verbs denied with a citation, the rest denied), then the same
 * path as a hand-run verb (lease, path checks, drift check, one transaction, views) under the
 * loop's lease and the open dispatch's authority. A refused verb comes back to the model as a
 * failed result it can act on.
 *
 * @since 0.1.0
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import type * as AuditStore from "@steward/audit-state/AuditStore"
import * as Project from "@steward/audit-state/Project"
import * as State from "@steward/audit-state/State"
import * as Verbs from "@steward/audit-state/Verbs"
import * as Vocabulary from "@steward/audit-state/Vocabulary"
import type * as Rule from "@steward/governance-rules/Rule"
import type * as Tools from "@steward/harness-sessions/Tools"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as nodeFs from "node:fs"
import * as nodePath from "node:path"
import * as BoundedFile from "../../BoundedFile.js"
import { CommandFailure } from "../../CliError.js"
import { applyVerb } from "./write.js"

/** A finding's body is read with the limit the hand-run verbs use. */
const BODY_LIMITS: BoundedFile.Limits = { maxBytes: 16 * 1024 * 1024 }

/** What every audit tool closes over. */
interface Bound {
  readonly p: Project.ProjectPaths
  readonly store: AuditStore.AuditStoreShape
  /** The loop's lease nonce (its writes pass the lease check). */
  readonly lease: string
  /** The open dispatch's session id (filled in where a verb names the acting session). */
  readonly session: string
  readonly platform: Context.Context<FileSystem.FileSystem | Path.Path>
}

/** The governance name of a verb tool's call. */
const governanceName = (verb: string): string => `audit.${verb}`

/** The tool name of a verb (`file-finding` → `audit_file_finding`). */
export const toolName = (verb: string): string => `audit_${verb.replace(/-/g, "_")}`

type Member = (typeof Verbs.VerbRequestSchema.members)[number]

const verbOf = (member: Member): string =>
  (member.fields.verb as unknown as { readonly literals: [string] }).literals[0]

/** Verbs whose request names the acting session: the tool fills in the dispatch's. */
const ACTING_SESSION = new Set(["record-fix", "record-verdict", "propose-construal"])

const bodyField = (verb: string): "body" | "report" | undefined =>
  verb === "record-coverage"
    ? "report"
    : ["file-finding", "propose-construal", "record-plan"].includes(verb)
    ? "body"
    : undefined

const describeVerb = (verb: string): string => {
  const body = bodyField(verb)
  return [
    `Run \`steward audit ${verb}\` on the audit state.`,
    body === undefined
      ? ""
      : `Give the file's Markdown as \`text\`: it is written at \`${body}\` (under audit/) first.`,
    ACTING_SESSION.has(verb) ? "`session` defaults to this session's dispatch id." : "",
    "A refusal comes back as the verb's message; nothing was written then."
  ].filter((s) => s !== "").join(" ")
}

/** Write a body the model sent, inside audit/ (never through a symlink out of it). */
const writeBody = (b: Bound, rel: string, text: string): string | undefined => {
  const issue = Project.userPathIssue(b.p, rel, "body")
  if (issue !== undefined) return issue
  const file = nodePath.resolve(b.p.audit, rel)
  nodeFs.mkdirSync(nodePath.dirname(file), { recursive: true })
  nodeFs.writeFileSync(file, text)
  return undefined
}

const run = (b: Bound, request: Verbs.VerbRequest): Effect.Effect<Tools.ToolResult> =>
  applyVerb(b.p, b.store, request, { lease: b.lease }).pipe(
    Effect.map((applied): Tools.ToolResult => ({
      ok: true,
      output: `${applied.message} (state revision ${applied.revision})`
    })),
    Effect.catchAll((e) =>
      Effect.succeed<Tools.ToolResult>({
        ok: false,
        output: e instanceof CommandFailure ? `refused (${e.code}): ${e.message}` : `refused: ${e.message}`
      })
    ),
    Effect.provide(b.platform)
  )

const verbTool = (b: Bound, member: Member): Tools.Any => {
  const verb = verbOf(member)
  const { verb: _verb, ...fields } = member.fields as Record<string, Schema.Schema.Any>
  const body = bodyField(verb)
  const input = Schema.Struct({
    ...(verb === "record-refusal" ? {} : fields),
    ...(verb === "record-refusal"
      ? { id: Schema.String, reason: Schema.optional(Schema.String), clear: Schema.optional(Schema.Boolean) }
      : {}),
    ...(ACTING_SESSION.has(verb) ? { session: Schema.optional(Schema.String) } : {}),
    ...(body === undefined ? {} : { text: Schema.optional(Schema.String) })
  })
  return {
    name: toolName(verb),
    description: describeVerb(verb),
    input,
    governance: () => ({ tool: "mcp", name: governanceName(verb) }),
    execute: (raw: Record<string, unknown>) =>
      Effect.suspend(() => {
        const { text, ...rest } = raw
        if (body !== undefined && typeof text === "string") {
          const problem = writeBody(b, String(rest[body]), text)
          if (problem !== undefined) return Effect.succeed({ ok: false, output: `refused: ${problem}` })
        }
        const request = {
          verb,
          ...rest,
          ...(ACTING_SESSION.has(verb) && rest["session"] === undefined ? { session: b.session } : {})
        } as Verbs.VerbRequest
        if (request.verb !== "record-refusal") return run(b, request)
        // the refusal's prose is read from the finding's body, as the hand-run verb does
        return Effect.flatMap(b.store.load, (doc) => {
          const rel = State.records(doc).find((r) => r.id === request.id)?.body_path
          const file = rel === undefined || Project.userPathIssue(b.p, rel, "body") !== undefined
            ? undefined
            : nodePath.resolve(b.p.audit, rel)
          if (file === undefined) return run(b, { ...request, bodyText: undefined })
          // bounded (issue 16): a FIFO or device is refused unopened, the size checked first
          return BoundedFile.readText(file, BODY_LIMITS).pipe(
            Effect.map((text): string | undefined => text),
            Effect.catchIf((e) => e.reason === "not-found", () => Effect.succeed(undefined)),
            Effect.provide(b.platform),
            Effect.flatMap((bodyText) => run(b, { ...request, bodyText }))
          )
        }).pipe(
          Effect.catchAll((e) => Effect.succeed<Tools.ToolResult>({ ok: false, output: `refused: ${e.message}` }))
        )
      })
  } as Tools.Any
}

const statusTool = (b: Bound): Tools.Any => ({
  name: "audit_status",
  description: "The audit state: passes, findings (id, status, title, body), plans and the open dispatch.",
  input: Schema.Struct({}),
  governance: () => ({ tool: "mcp", name: "audit.status" }),
  execute: () =>
    b.store.load.pipe(
      Effect.map((doc): Tools.ToolResult => ({
        ok: true,
        output: JSON.stringify({
          state_revision: doc.state_revision,
          passes: (doc.queue ?? []).map((q) => ({ id: q.id, dimension: q.dimension, units: q.units, done: q.done })),
          findings: State.records(doc).map((r) => ({
            id: r.id,
            status: r.status,
            severity: r.severity,
            title: r.title,
            body: r.body_path,
            next: State.nextOwner(r)
          })),
          plans: (doc.plans ?? []).map((pl) => ({ id: pl.id, findings: pl.findings, status: pl.status })),
          dispatch: State.openDispatch(doc)?.session_id ?? null
        })
      })),
      Effect.catchAll((e) => Effect.succeed<Tools.ToolResult>({ ok: false, output: e.message }))
    )
})

/**
 * The tools of a loop session.
 *
 * @internal
 */
export const make = (bound: Bound): ReadonlyArray<Tools.Any> => [
  statusTool(bound),
  ...Verbs.VerbRequestSchema.members.map((member) => verbTool(bound, member))
]

/**
 * The session's rules for a dispatched role: `audit_status` and the role's routed verbs
 * allowed, administrative verbs denied (they are the person's), every other verb denied.
 *
 * @internal
 */
export const rules = (role: string): ReadonlyArray<Rule.RuleInput> => {
  const routed = Vocabulary.ROLE_ROUTES[role] ?? {}
  return [
    {
      id: "audit.status",
      action: "mcp",
      resource: "audit.status",
      effect: "allow",
      note: "reading the audit state changes nothing"
    },
    ...Verbs.VerbRequestSchema.members.map(verbOf).map((verb): Rule.RuleInput =>
      Vocabulary.ADMIN_VERBS.has(verb)
        ? {
          id: `audit.admin.${verb}`,
          action: "mcp",
          resource: governanceName(verb),
          effect: "deny",
          note: `${verb} is an administrative verb: the person runs it (xcheck §2.4)`
        }
        : Object.hasOwn(routed, verb)
        ? {
          id: `audit.${role}.${verb}`,
          action: "mcp",
          resource: governanceName(verb),
          effect: "allow",
          note: `a ${role} may run ${verb} (xcheck §2.4)`
        }
        : {
          id: `audit.${role}.not.${verb}`,
          action: "mcp",
          resource: governanceName(verb),
          effect: "deny",
          note: `${verb} is not a ${role}'s verb (a ${role} may run only: ${
            Object.keys(routed).join(", ") || "nothing"
          })`
        }
    )
  ]
}
