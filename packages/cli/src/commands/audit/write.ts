/**
 * Write verbs: one `VerbRequestText` applied in one transaction, the views re-rendered.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import type * as AuditStore from "@steward/audit-state/AuditStore"
import * as Checked from "@steward/audit-state/Checked"
import * as Next from "@steward/audit-state/Next"
import * as Project from "@steward/audit-state/Project"
import * as State from "@steward/audit-state/State"
import type * as Verbs from "@steward/audit-state/Verbs"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Types from "effect/Types"
import * as BoundedFile from "../../BoundedFile.js"
import { cannotRun, refused } from "../../CliError.js"
import * as Output from "../../Output.js"
import * as Lease from "./lease.js"
import { common, expectRevision, resolveProject, u } from "./options.js"
import { renderAndMark, withStore } from "./store.js"

/** The records a request names (its id, a class finding's members). */
const touchedIds = (request: Verbs.VerbRequestText): ReadonlySet<string> =>
  new Set([
    ..."id" in request ? [request.id] : [],
    ...(request.verb === "file-finding" ? request.members ?? [] : [])
  ])

/**
 * The paths a verb reads or writes for the user — the bodies and reports it names, and the
 * bodies of the records it touches — checked before anything happens (issue 16).
 */
const pathIssues = (p: Project.ProjectPaths, doc: State.StateDoc | undefined, request: Verbs.VerbRequestText) => {
  const named: Array<readonly [string, string]> = []
  if ("body" in request) named.push([request.body, "--body"])
  if (request.verb === "record-coverage") named.push([request.report, "--report"])
  const touched = [
    ..."id" in request ? [request.id] : [],
    ...(request.verb === "file-finding" ? request.members ?? [] : [])
  ]
  if (doc !== undefined) {
    for (const r of State.records(doc)) if (touched.includes(r.id)) named.push([r.body_path, `${r.id} body_path`])
  }
  for (const [rel, what] of named) {
    const issue = Project.userPathIssue(p, rel, what)
    if (issue !== undefined) return `${request.verb}: ${issue} — nothing was written`
  }
  return undefined
}

/**
 * Apply one verb with the project's store: path checks, the lease (refused while another process
 * holds `audit/.lock`; `lease` is the caller's own), the drift check inside the transaction, and
 * the changed views re-rendered.
 *
 * @internal
 */
export const applyVerb = (
  p: Project.ProjectPaths,
  store: AuditStore.AuditStoreShape,
  request: Verbs.VerbRequestText,
  options: { readonly expectRevision?: number | undefined; readonly lease?: string | undefined } = {}
) =>
  Effect.gen(function*() {
    yield* Lease.refuseIfHeld(p, options.lease)
    const before = yield* store.load
    const issue = pathIssues(p, before, request)
    if (issue !== undefined) return yield* Effect.fail(cannotRun("invalid-input", issue))
    const config = yield* Project.readConfig(p)
    const touched = touchedIds(request)
    // the full check remembered at this revision, to carry over to the one the verb writes
    const verified = yield* Checked.remembered(p, store, before)
    const applied = yield* store.apply(request, {
      expectRevision: options.expectRevision,
      subject: Project.workingTreeSubject(p.project),
      headBefore: Project.subjectHead(p.project),
      policy: config.verbPolicy,
      // the drift check runs inside the verb's transaction, as xcheck's does under its lock; views
      // whose fingerprint matches their mark agree unread (ADR 0115)
      guard: (doc, viewMarks) =>
        Effect.gen(function*() {
          const keys = ["LEDGER.md", ...State.records(doc).filter((r) => touched.has(r.id)).map((r) => r.body_path)]
          yield* Project.refuseOnDrift(p, doc, touched, yield* viewMarks(keys))
        })
    })
    // views re-render only what changed: LEDGER.md and the changed records' blocks
    const rendered = yield* renderAndMark(p, store, applied.doc, Project.changedRecords(before, applied.doc))
    // so the `next` and `status` after the verb need no full check of the views (ADR 0141)
    if (
      verified !== undefined &&
      (yield* Checked.carry(p, store, { before, verified, after: applied.doc, rendered: rendered.marks }))
    ) yield* Next.prime(p, store, applied.doc)
    return applied
  })

/**
 * The `--session` of `record-fix` / `record-verdict` when it was omitted: the verb takes the open
 * dispatch's (ADR 0023).
 *
 * @internal
 */
export const SESSION_OF_DISPATCH = ""

/**
 * Bind an omitted `--session` to the dispatch the verb runs under: the loop's
 * `STEWARD_AUDIT_SESSION`, else the open dispatch record; neither is a usage error naming
 * `--session`. A given `--session` other than `STEWARD_AUDIT_SESSION` is refused (and one other
 * than the open dispatch's is refused by the binding itself).
 */
const bindSession = (store: AuditStore.AuditStoreShape, request: Verbs.VerbRequestText, env: string | undefined) =>
  Effect.gen(function*() {
    if (request.verb !== "record-fix" && request.verb !== "record-verdict") return request
    if (request.session !== SESSION_OF_DISPATCH) {
      if (env !== undefined && request.session !== env) {
        return yield* refused(
          "refused",
          `--session claims session ${request.session}, but this process runs in dispatch ${env} (STEWARD_AUDIT_SESSION); provenance is bound to the open dispatch — omit --session or pass ${env}`
        )
      }
      return request
    }
    const doc = yield* store.load
    const open = doc === undefined ? undefined : State.openDispatch(doc)
    const session = env ?? open?.session_id
    if (session === undefined) {
      return yield* cannotRun(
        "usage",
        `${request.verb} needs --session: no dispatch is open and STEWARD_AUDIT_SESSION is not set`,
        { option: "--session" }
      )
    }
    return { ...request, session }
  })

/** A write verb: drift check, one transaction, views re-rendered, one line (or JSON) printed. */
export const writeVerb = (
  json: boolean,
  p: Project.ProjectPaths,
  request: Verbs.VerbRequestText,
  expect: Option.Option<number>
) =>
  withStore(p, false, (store) =>
    Effect.gen(function*() {
      // a session the loop dispatched writes under the loop's lease (xcheck's XCHECK_LOCK_INHERITED)
      const inherited = yield* Config.option(Config.nonEmptyString("STEWARD_AUDIT_LOCK_INHERITED")).pipe(
        Effect.orElseSucceed(() => Option.none<string>())
      )
      const session = yield* Config.option(Config.nonEmptyString("STEWARD_AUDIT_SESSION")).pipe(
        Effect.orElseSucceed(() => Option.none<string>())
      )
      const bound = yield* bindSession(store, request, Option.getOrUndefined(session))
      const applied = yield* applyVerb(p, store, bound, {
        expectRevision: u(expect),
        lease: Option.getOrUndefined(inherited)
      })
      yield* Output.result(
        json,
        {
          verb: request.verb,
          target: applied.event.target ?? null,
          state_revision: applied.revision,
          message: applied.message,
          event: applied.event
        },
        (r) => `${r.message} (state revision ${r.state_revision})`
      )
    }))

/**
 * A write verb command: the shared options (`--json`, `--state-dir`, `--project`, `--expect-revision`)
 * plus the verb's own, turned into one `VerbRequest` and applied by `writeVerb`.
 */
export const verbCommand = <const Config extends Command.Command.Config>(
  name: string,
  description: string,
  config: Config,
  toRequest: (args: Types.Simplify<Command.Command.ParseConfig<Config>>) => Verbs.VerbRequestText
) =>
  Command.make(name, { ...common, expect: expectRevision, ...config }, (parsed) => {
    // TypeScript cannot see through the generic spread; the shared keys are present by construction.
    const a = parsed as unknown as SharedArgs & Types.Simplify<Command.Command.ParseConfig<Config>>
    return Effect.flatMap(resolveProject(a.project), (p) => writeVerb(a.json, p, toRequest(a), a.expect))
  }).pipe(Command.withDescription(description))

export interface SharedArgs {
  readonly json: boolean
  readonly project: Option.Option<string>
  readonly expect: Option.Option<number>
}

/** The largest body file a verb reads. */
const BODY_MAX_BYTES = 16 * 1024 * 1024

/**
 * A record's body text (`undefined` when it is missing): never through a symlink out of audit/
 * (or onto a store file), and bounded (issue 16) — a FIFO, a device or an oversized body is
 * refused naming the file and the limit.
 */
export const readBody = (p: Project.ProjectPaths, rel: string) =>
  Effect.gen(function*() {
    if (Project.userPathIssue(p, rel, "body") !== undefined) return undefined
    return yield* BoundedFile.readText(`${p.audit}/${rel}`, { maxBytes: BODY_MAX_BYTES }).pipe(
      Effect.catchIf((e) => e.reason === "not-found", () => Effect.succeed(undefined)),
      Effect.mapError((e) => BoundedFile.toFailure(e))
    )
  })
