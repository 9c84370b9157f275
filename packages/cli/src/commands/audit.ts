/**
 * `steward audit [--project DIR] <verb> …`: xcheck's canonical audit state machine over
 * `<project>/audit/` (state in `audit/state.sqlite`, generated views beside it).
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import {
  AuditError,
  AuditStore,
  Dashboard,
  Decision,
  Metrics,
  Project,
  State,
  type Verbs,
  Views
} from "@steward/audit-state"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Types from "effect/Types"
import { cannotRun, type CommandFailure, NegativeResult, refused } from "../CliError.js"
import * as GlobalOptions from "../GlobalOptions.js"
import * as HostSql from "../HostSql.js"
import * as Output from "../Output.js"

const EXIT_2: ReadonlySet<string> = new Set(["invalid-input", "io", "storage"])

/**
 * Map the package's typed error to the CLI contract (its `code` is kept as the CLI code).
 *
 * @since 0.1.0
 * @category errors
 */
export const toCli = (error: AuditError.AuditError, exit2: ReadonlySet<string> = EXIT_2): CommandFailure =>
  exit2.has(error.code) ? cannotRun(error.code, error.message) : refused(error.code, error.message)

const projectOption = Options.text("project").pipe(
  Options.withDescription("The audited project (holds audit/); default: the current directory"),
  Options.optional
)

/**
 * The `audit` command (parent of every verb).
 *
 * @since 0.1.0
 * @category commands
 */
const audit = Command.make("audit", { project: projectOption })

const common = { ...GlobalOptions.global, project: projectOption }
const expectRevision = Options.integer("expect-revision").pipe(
  Options.withDescription("Refuse (stale-revision) unless the state is at this revision"),
  Options.optional
)
const opt = (name: string, description: string) =>
  Options.text(name).pipe(Options.withDescription(description), Options.optional)
const req = (name: string, description: string) => Options.text(name).pipe(Options.withDescription(description))
const u = <A>(o: Option.Option<A>): A | undefined => Option.getOrUndefined(o)
const list = (s: string | undefined): ReadonlyArray<string> | undefined =>
  s === undefined ? undefined : s.split(",").map((x) => x.trim()).filter((x) => x.length > 0)

const resolveProject = (own: Option.Option<string>) =>
  Effect.map(audit, (parent) => Project.paths(Option.getOrElse(Option.orElse(own, () => parent.project), () => ".")))

const storeLayer = (p: Project.ProjectPaths): Layer.Layer<AuditStore.AuditStore, CommandFailure> =>
  AuditStore.layerSql.pipe(
    Layer.provide(HostSql.layerFile(p.database)),
    Layer.mapError((e) => e instanceof AuditError.AuditError ? toCli(e) : e)
  )

/** Run `f` with the project's store. `create`: make `audit/` and the database if missing. */
const withStore = <A>(
  p: Project.ProjectPaths,
  create: boolean,
  f: (
    store: AuditStore.AuditStoreShape
  ) => Effect.Effect<A, AuditError.AuditError | CommandFailure | NegativeResult, FileSystem.FileSystem | Path.Path>
): Effect.Effect<A, CommandFailure | NegativeResult, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    if (create) {
      yield* fs.makeDirectory(p.audit, { recursive: true }).pipe(
        Effect.mapError((e) => cannotRun("io", `cannot create ${p.audit}: ${e.message}`))
      )
    } else if (!(yield* fs.exists(p.database).pipe(Effect.orElseSucceed(() => false)))) {
      return yield* Effect.fail(
        cannotRun(
          "not-found",
          `no audit state at ${p.database} — run \`steward audit init\` or \`steward audit import-state FILE\` in ${p.project}`
        )
      )
    }
    return yield* Effect.flatMap(AuditStore.AuditStore, f).pipe(
      Effect.provide(storeLayer(p)),
      Effect.catchAllDefect((defect) =>
        Effect.fail(
          cannotRun(
            "storage",
            `cannot open ${p.database}: ${defect instanceof Error ? defect.message : String(defect)}`
          )
        )
      )
    )
  }).pipe(
    Effect.catchIf(
      (e): e is AuditError.AuditError => e instanceof AuditError.AuditError,
      (e) => Effect.fail(toCli(e))
    )
  )

/**
 * The state with its full drift check (read commands and dispatches, spec §5.5). A write verb
 * instead verifies `LEDGER.md` and the blocks of the records it names, inside its transaction
 * (ADR 0113).
 */
const loadChecked = (p: Project.ProjectPaths, store: AuditStore.AuditStoreShape) =>
  Effect.gen(function*() {
    const doc = yield* store.load
    yield* Project.refuseOnDrift(p, doc)
    return doc
  })

/** The records a request names (its id, a class finding's members). */
const touchedIds = (request: Verbs.VerbRequest): ReadonlySet<string> =>
  new Set([
    ..."id" in request ? [request.id] : [],
    ...(request.verb === "file-finding" ? request.members ?? [] : [])
  ])

const today = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString().slice(0, 10))

/**
 * The paths a verb reads or writes for the user — the bodies and reports it names, and the
 * bodies of the records it touches — checked before anything happens (issue 16).
 */
const pathIssues = (p: Project.ProjectPaths, doc: State.StateDoc | undefined, request: Verbs.VerbRequest) => {
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

/** A write verb: drift check, one transaction, views re-rendered, one line (or JSON) printed. */
const writeVerb = (
  json: boolean,
  p: Project.ProjectPaths,
  request: Verbs.VerbRequest,
  expect: Option.Option<number>
) =>
  withStore(p, false, (store) =>
    Effect.gen(function*() {
      const before = yield* store.load
      const issue = pathIssues(p, before, request)
      if (issue !== undefined) return yield* Effect.fail(cannotRun("invalid-input", issue))
      const config = yield* Project.readConfig(p)
      const platform = yield* Effect.context<FileSystem.FileSystem | Path.Path>()
      const applied = yield* store.apply(request, {
        expectRevision: u(expect),
        subject: Project.workingTreeSubject(p.project),
        headBefore: Project.subjectHead(p.project),
        policy: config.verbPolicy,
        // the drift check runs inside the verb's transaction, as xcheck's does under its lock
        guard: (doc) => Effect.provide(Project.refuseOnDrift(p, doc, touchedIds(request)), platform)
      })
      // views re-render only what changed: LEDGER.md and the changed records' blocks
      yield* Project.renderViews(p, applied.doc, Project.changedRecords(before, applied.doc))
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
const verbCommand = <const Config extends Command.Command.Config>(
  name: string,
  description: string,
  config: Config,
  toRequest: (args: Types.Simplify<Command.Command.ParseConfig<Config>>) => Verbs.VerbRequest
) =>
  Command.make(name, { ...common, expect: expectRevision, ...config }, (parsed) => {
    // TypeScript cannot see through the generic spread; the shared keys are present by construction.
    const a = parsed as unknown as SharedArgs & Types.Simplify<Command.Command.ParseConfig<Config>>
    return Effect.flatMap(resolveProject(a.project), (p) => writeVerb(a.json, p, toRequest(a), a.expect))
  }).pipe(Command.withDescription(description))

interface SharedArgs {
  readonly json: boolean
  readonly project: Option.Option<string>
  readonly expect: Option.Option<number>
}

const readBody = (p: Project.ProjectPaths, rel: string) =>
  Effect.gen(function*() {
    // never read through a symlink out of audit/ (or onto a store file)
    if (Project.userPathIssue(p, rel, "body") !== undefined) return undefined
    const fs = yield* FileSystem.FileSystem
    const file = `${p.audit}/${rel}`
    return (yield* fs.exists(file).pipe(Effect.orElseSucceed(() => false)))
      ? yield* fs.readFileString(file).pipe(Effect.orElseSucceed(() => undefined))
      : undefined
  })

// ---------------------------------------------------------------------------------------------
// lifecycle commands

const init = Command.make(
  "init",
  {
    ...common,
    generatedBy: Options.text("generated-by").pipe(
      Options.withDescription("Who created the state, as recorded in it"),
      Options.withDefault("steward audit init")
    )
  },
  ({ generatedBy, json, project }) =>
    Effect.gen(function*() {
      const p = yield* resolveProject(project)
      yield* withStore(p, true, (store) =>
        Effect.gen(function*() {
          const doc = yield* store.init(generatedBy)
          const fs = yield* FileSystem.FileSystem
          for (const dir of ["findings", "passes", "plans", "construals"]) {
            yield* fs.makeDirectory(`${p.audit}/${dir}`, { recursive: true }).pipe(
              Effect.mapError((e) => AuditError.make("io", `cannot create ${p.audit}/${dir}: ${e.message}`))
            )
          }
          yield* Project.renderViews(p, doc)
          yield* Output.result(
            json,
            { project: p.project, database: p.database, state_revision: doc.state_revision },
            (r) => `initialised an empty audit state in ${r.database} (state revision ${r.state_revision})`
          )
        }))
    })
).pipe(Command.withDescription("Create an empty audit state (revision 0) in <project>/audit/"))

const statusPayload = (p: Project.ProjectPaths, store: AuditStore.AuditStoreShape) =>
  Effect.gen(function*() {
    const doc = yield* loadChecked(p, store)
    const config = yield* Project.readConfig(p)
    // the embargo reads the dispatch history (§4.3); the stream is only read when it is on
    const history = config.embargo === true ? yield* store.embargoHistory : []
    const decision = Decision.stateAndDecision(doc, config, history)
    return { doc, decision, status: Metrics.status(doc, decision, p.project, yield* today) }
  })

const metricsPayload = (p: Project.ProjectPaths, store: AuditStore.AuditStoreShape, doc: State.StateDoc) =>
  Effect.map(store.events, (events) => Metrics.metrics(doc, events, p.project))

const checked = <A>(value: A, schema: Metrics.OutputSchema, name: string) => {
  const out = Metrics.checkOutput(value, schema, name)
  return out instanceof AuditError.AuditError ? Effect.fail(out) : Effect.succeed(out)
}

const status = Command.make("status", common, ({ json, project }) =>
  Effect.gen(function*() {
    const p = yield* resolveProject(project)
    yield* withStore(p, false, (store) =>
      Effect.gen(function*() {
        const { status } = yield* statusPayload(p, store)
        const payload = yield* checked(status, Metrics.STATUS_SCHEMA, "status")
        yield* Output.result(json, payload, (s) =>
          [
            `project: ${s.project} (xcheck ${s.xcheck_version} semantics)`,
            `state: schema ${s.schema_version}, revision ${s.state_revision}, head ${s.head_before ?? "unknown"}`,
            `passes: ${s.passes.done} done, ${s.passes.queued.length} queued [${s.passes.queued.join(", ")}]`,
            `findings: ${s.findings.total} total — ${
              Object.entries(s.findings.by_status).map(([k, v]) => `${k}:${v}`).join(" ")
            }`,
            `full sweep: ${
              s.full_sweep.last === null
                ? s.full_sweep.note
                : `${s.full_sweep.pass} on ${s.full_sweep.last} (${s.full_sweep.days} day(s) ago)`
            }`,
            `decision: ${s.decision.kind} -> ${JSON.stringify(s.decision.detail)}`,
            Decision.describe({ kind: s.decision.kind, detail: s.decision.detail as Decision.Detail })
          ].join("\n"))
      }))
  })).pipe(Command.withDescription("Show the state, the passes, the findings and the decision"))

const next = Command.make(
  "next",
  { ...common, dryRun: Options.boolean("dry-run").pipe(Options.withDescription("Print the decision; record nothing")) },
  ({ dryRun, json, project }) =>
    Effect.gen(function*() {
      const p = yield* resolveProject(project)
      yield* withStore(p, false, (store) =>
        Effect.gen(function*() {
          const { decision, doc } = yield* statusPayload(p, store)
          const rc = Decision.roleAndCharter(decision)
          const isGate = !decision.kind.startsWith("run-")
          // a gate is recorded either way (xcheck's `next --dry-run` appends gate_reached too)
          if (isGate) yield* store.recordGate(decision, { dryRun })
          const construal = decision.kind === "run-construal" ? (decision.detail as ReadonlyArray<string>) : undefined
          const out = {
            decision,
            message: Decision.describe(decision),
            state_revision: doc.state_revision,
            session: rc !== undefined
              ? { role: rc.role, charter: rc.charter, construal_key: State.construalKey(rc.role, rc.charter) }
              : construal !== undefined
              ? {
                role: construal[0]!,
                charter: construal[1]!,
                construal_key: construal[2]!,
                prompt: Decision.construalPrompt(construal[0]!, construal[1]!, construal[3]!)
              }
              : null,
            dry_run: dryRun
          }
          yield* Output.result(json, out, (o) => {
            const lines = [`decision: ${o.decision.kind} -> ${JSON.stringify(o.decision.detail)}`, o.message]
            if (o.session !== null && "prompt" in o.session) lines.push(String(o.session.prompt))
            if (o.session !== null) {
              lines.push(`=== ${o.session.role} session ===`, `charter: ${o.session.charter}`)
              lines.push(
                `dispatch it with: steward audit dispatch open --role ${o.session.role} --charter '${o.session.charter}' --executable <agent> --prompt-file <file>`
              )
            }
            if (o.dry_run) lines.push("dry-run: not executing.")
            return lines.join("\n")
          })
        }))
    })
).pipe(Command.withDescription("Decide what happens next (a session to dispatch, or a gate for a human)"))

// ---------------------------------------------------------------------------------------------
// write verbs

const setStatus = verbCommand("set-status", "Move a finding along the §5 transition table", {
  id: Args.text({ name: "ID" }).pipe(Args.withDescription("The finding's id (F-…)")),
  status: Args.text({ name: "STATUS" }).pipe(Args.withDescription("The new status (see the §5 transition table)")),
  next: opt("next", "Set the record's next actor"),
  retake: opt("retake", "human:<label> — clears the ⚠ needs-human flag")
}, (a) => ({ verb: "set-status", id: a.id, status: a.status, next: u(a.next), retake: u(a.retake) }))

const recordFix = verbCommand("record-fix", "planned -> fixed, recording who fixed it", {
  id: Args.text({ name: "ID" }).pipe(Args.withDescription("The finding's id (F-…)")),
  session: req("session", "The fixing session (16 hex), bound to the open dispatch"),
  plan: opt("plan", "RP-NNNN the fix executed"),
  scope: opt("scope", "The admitted scope of the fix")
}, (a) => ({ verb: "record-fix", id: a.id, session: a.session, plan: u(a.plan), scope: u(a.scope) }))

const recordVerdict = verbCommand("record-verdict", "fixed -> closed | reopened (never by the fixer)", {
  id: Args.text({ name: "ID" }).pipe(Args.withDescription("The finding's id (F-…)")),
  verdict: req("verdict", "closed | reopened"),
  session: req("session", "The verifying session (16 hex)"),
  reason: opt("reason", "Why (recorded on the event)")
}, (a) => ({ verb: "record-verdict", id: a.id, verdict: a.verdict, session: a.session, reason: u(a.reason) }))

const admitConstrual = verbCommand("admit-construal", "Admit a proposed construal", {
  key: Args.text({ name: "KEY" }).pipe(Args.withDescription("The construal's key")),
  admitter: req("admitter", "human:<label> or a 16-hex session")
}, (a) => ({ verb: "admit-construal", key: a.key, admitter: a.admitter }))

const fileFinding = verbCommand("file-finding", "File a finding (or mint a class finding absorbing its members)", {
  id: req("id", "F-NNNN or CF-NNNN"),
  title: req("title", "One line"),
  severity: req("severity", "critical | major | minor | info"),
  dimension: req("dimension", "A dimension key of the catalog"),
  unit: req("unit", "Unit ids, comma separated"),
  pass: req("pass", "The pass that found it (P-NN)"),
  body: req("body", "The finding body, relative to audit/"),
  locator: opt("locator", "PATH[:L[-M]] inside the subject"),
  sourceHash: opt("source-hash", "sha-256 of the located file"),
  recurrenceOf: opt("recurrence-of", "The finding this recurs"),
  members: opt("members", "Class members F-1,F-2 (CF only)"),
  session: opt("session", "The census session (CF only)")
}, (a) => ({
  verb: "file-finding",
  id: a.id,
  title: a.title,
  severity: a.severity,
  dimension: a.dimension,
  unit: list(a.unit) ?? [],
  pass: a.pass,
  body: a.body,
  locator: u(a.locator),
  sourceHash: u(a.sourceHash),
  recurrenceOf: u(a.recurrenceOf),
  members: list(u(a.members)),
  session: u(a.session)
}))

const proposeConstrual = verbCommand(
  "propose-construal",
  "Propose an operational construal of a charter",
  {
    key: Args.text({ name: "KEY" }).pipe(Args.withDescription("The construal's key")),
    role: req("role", "The role"),
    charter: req("charter", "The exact charter text"),
    session: req("session", "The proposing session (16 hex)"),
    body: req("body", "The construal body, relative to audit/")
  },
  (a) => ({ verb: "propose-construal", key: a.key, role: a.role, charter: a.charter, session: a.session, body: a.body })
)

const recordPlan = verbCommand("record-plan", "Record a remediation plan", {
  id: Args.text({ name: "RP-ID" }).pipe(Args.withDescription("The remediation plan's id (RP-…)")),
  findings: req("findings", "Finding ids, comma separated"),
  body: req("body", "The plan body, relative to audit/")
}, (a) => ({ verb: "record-plan", id: a.id, findings: list(a.findings) ?? [], body: a.body }))

const queuePass = verbCommand("queue-pass", "Queue an audit pass", {
  id: Args.text({ name: "P-ID" }).pipe(Args.withDescription("The pass's id (P-…)")),
  dimension: req("dimension", "A dimension key"),
  units: req("units", "Unit ids, comma separated"),
  charter: req("charter", "What the pass does"),
  stop: req("stop", "When it stops"),
  base: opt("base", "The revision a diff-scoped pass is scoped against")
}, (a) => ({
  verb: "queue-pass",
  id: a.id,
  dimension: a.dimension,
  units: list(a.units) ?? [],
  charter: a.charter,
  stop: a.stop,
  base: u(a.base)
}))

const recordRefusal = Command.make(
  "record-refusal",
  {
    ...common,
    expect: expectRevision,
    id: Args.text({ name: "ID" }).pipe(Args.withDescription("The finding's id (F-…)")),
    reason: opt("reason", "One of the six §5 refusal reasons"),
    clear: Options.boolean("clear").pipe(Options.withDescription("Remove the refusal"))
  },
  (a) =>
    Effect.gen(function*() {
      const p = yield* resolveProject(a.project)
      const bodyPath = yield* withStore(p, false, (store) =>
        Effect.map(store.load, (doc) =>
          State.records(doc).find((r) => r.id === a.id)?.body_path))
      const bodyText = bodyPath === undefined ? undefined : yield* readBody(p, bodyPath)
      yield* writeVerb(
        a.json,
        p,
        { verb: "record-refusal", id: a.id, reason: u(a.reason), clear: a.clear ? true : undefined, bodyText },
        a.expect
      )
    })
).pipe(Command.withDescription("Record (or clear) a typed refusal; the body's ## Refusal section comes first"))

const blockOnNorm = verbCommand("block-on-norm", "Block a class finding on norm ratification", {
  id: Args.text({ name: "CF-ID" }).pipe(Args.withDescription("The class finding's id (CF-…)"))
}, (a) => ({ verb: "block-on-norm", id: a.id }))

const recordRuling = verbCommand("record-ruling", "Record a human norm ruling, lifting the gate (admin)", {
  id: Args.text({ name: "CF-ID" }).pipe(Args.withDescription("The class finding's id (CF-…)")),
  norm: req("norm", "N1 or N1-over-N4"),
  ruledBy: req("ruled-by", "human:<label> — the norm's owner")
}, (a) => ({ verb: "record-ruling", id: a.id, norm: a.norm, ruledBy: a.ruledBy }))

const recordCoverage = verbCommand("record-coverage", "Record a pass's coverage; the pass is done", {
  id: Args.text({ name: "P-ID" }).pipe(Args.withDescription("The pass's id (P-…)")),
  report: req("report", "The pass report, relative to audit/"),
  findings: opt("findings", "Finding ids the pass reported, comma separated")
}, (a) => ({ verb: "record-coverage", id: a.id, report: a.report, findings: list(u(a.findings)) }))

const setLimit = verbCommand("set-limit", "Set a limit (admin)", {
  key: Args.text({ name: "KEY" }).pipe(Args.withDescription("The limit's name")),
  value: Args.text({ name: "VALUE" }).pipe(Args.withDescription("The limit's new value"))
}, (a) => ({ verb: "set-limit", key: a.key, value: a.value }))

const amendPass = verbCommand("amend-pass", "Amend a queued pass (admin)", {
  id: Args.text({ name: "P-ID" }).pipe(Args.withDescription("The pass's id (P-…)")),
  dimension: opt("dimension", "New dimension"),
  units: opt("units", "New units"),
  charter: opt("charter", "New charter"),
  stop: opt("stop", "New stop condition")
}, (a) => ({
  verb: "amend-pass",
  id: a.id,
  dimension: u(a.dimension),
  units: list(u(a.units)),
  charter: u(a.charter),
  stop: u(a.stop)
}))

const cancelPass = verbCommand("cancel-pass", "Cancel a queued, unreferenced pass (admin)", {
  id: Args.text({ name: "P-ID" }).pipe(Args.withDescription("The pass's id (P-…)"))
}, (a) => ({ verb: "cancel-pass", id: a.id }))

const updateCatalog = verbCommand("update-catalog", "Add, amend or remove a catalog entry (admin)", {
  kind: Args.text({ name: "KIND" }).pipe(Args.withDescription("The catalog section (e.g. norm)")),
  key: Args.text({ name: "KEY" }).pipe(Args.withDescription("The entry's key")),
  source: opt("source", "norm source"),
  scope: opt("scope", "norm scope"),
  catches: opt("catches", "what a dimension catches"),
  norms: opt("norms", "a dimension's norms, comma separated"),
  material: opt("material", "a unit's material"),
  size: opt("size", "a unit's size"),
  responsibility: opt("responsibility", "a unit's responsibility"),
  remove: Options.boolean("remove").pipe(Options.withDescription("Remove the entry"))
}, (a) => ({
  verb: "update-catalog",
  kind: a.kind,
  key: a.key,
  source: u(a.source),
  scope: u(a.scope),
  catches: u(a.catches),
  norms: list(u(a.norms)),
  material: u(a.material),
  size: u(a.size),
  responsibility: u(a.responsibility),
  remove: a.remove ? true : undefined
}))

const renderViewsCommand = Command.make("render-views", common, ({ json, project }) =>
  Effect.gen(function*() {
    const p = yield* resolveProject(project)
    yield* withStore(p, false, (store) =>
      Effect.gen(function*() {
        const doc = yield* store.load
        const { destroyed, written } = yield* Project.renderViews(p, doc)
        yield* Output.result(json, { written, drifted: destroyed }, (r) =>
          r.drifted.length === 0
            ? `views rendered (${r.written} file(s) written)`
            : `${r.drifted.length} view(s) had drifted and were re-rendered from state; the hand edits destroyed:\n${
              Views.driftMessage(r.drifted).split("\n").slice(1, -1).join("\n")
            }`)
      }))
  })).pipe(Command.withDescription("Re-render LEDGER.md and every frontmatter block from state (repairs drift)"))

// ---------------------------------------------------------------------------------------------
// dispatch, read-only, import/export

const dispatchOpen = Command.make(
  "open",
  {
    ...common,
    role: req("role", "The dispatched role"),
    executable: req("executable", "The agent executable (its basename names the provider)"),
    charter: req("charter", "The exact charter text"),
    prompt: opt("prompt", "The exact prompt text"),
    promptFile: opt("prompt-file", "A file holding the exact prompt"),
    model: opt("model", "The agent model"),
    provider: opt("provider", "The provider (default: from the executable)"),
    session: opt("session", "The session id (16 hex; default derived)"),
    sandboxProfile: opt("sandbox-profile", "The sandbox profile"),
    headBefore: opt("head-before", "The subject commit before the session"),
    concurrentGroup: opt("concurrent-group", "A parallel group sharing one open window")
  },
  (a) =>
    Effect.gen(function*() {
      const p = yield* resolveProject(a.project)
      const fs = yield* FileSystem.FileSystem
      const promptFile = u(a.promptFile)
      const prompt = u(a.prompt) ?? (promptFile === undefined
        ? undefined
        : yield* fs.readFileString(promptFile).pipe(
          Effect.mapError((e) => cannotRun("io", `${promptFile}: ${e.message}`))
        ))
      if (prompt === undefined) {
        return yield* Effect.fail(cannotRun("usage", "dispatch open needs --prompt or --prompt-file"))
      }
      yield* withStore(p, false, (store) =>
        Effect.gen(function*() {
          yield* loadChecked(p, store)
          const applied = yield* store.openDispatch({
            role: a.role,
            executable: a.executable,
            charter: a.charter,
            prompt,
            agentModel: u(a.model),
            provider: u(a.provider),
            sessionId: u(a.session),
            sandboxProfile: u(a.sandboxProfile),
            headBefore: u(a.headBefore),
            concurrentGroup: u(a.concurrentGroup)
          })
          yield* printDispatch(a.json, applied)
        }))
    })
).pipe(Command.withDescription("Record a dispatched session's envelope (the open dispatch)"))

/** What `dispatch open|finish` print: the session, the new revision and the verb's message. */
const printDispatch = (
  json: boolean,
  applied: { readonly event: { readonly session_id?: unknown }; readonly revision: number; readonly message: string }
) =>
  Output.result(
    json,
    { session_id: applied.event.session_id, state_revision: applied.revision, message: applied.message },
    (r) => `${r.message} (state revision ${r.state_revision})`
  )

const dispatchFinish = Command.make(
  "finish",
  {
    ...common,
    session: opt("session", "The open session (default: the one open dispatch)"),
    outcome: req("outcome", "ok | refused | blocked | provider-error | timeout | crash | cancelled | stalled"),
    exitStatus: Options.integer("exit-status").pipe(
      Options.withDescription("The session process's exit status"),
      Options.optional
    ),
    duration: Options.float("duration").pipe(Options.withDescription("Seconds"), Options.optional),
    headAfter: opt("head-after", "The subject commit after the session"),
    logDigest: opt("log-digest", "sha-256 of the session log"),
    tokens: Options.integer("tokens").pipe(Options.withDescription("Tokens the session used"), Options.optional),
    note: opt("note", "A note")
  },
  (a) =>
    Effect.gen(function*() {
      const p = yield* resolveProject(a.project)
      yield* withStore(p, false, (store) =>
        Effect.gen(function*() {
          yield* loadChecked(p, store)
          const applied = yield* store.finishDispatch({
            sessionId: u(a.session),
            outcome: a.outcome,
            exitStatus: u(a.exitStatus),
            durationS: u(a.duration),
            headAfter: u(a.headAfter),
            logDigest: u(a.logDigest),
            tokens: u(a.tokens),
            note: u(a.note)
          })
          yield* printDispatch(a.json, applied)
        }))
    })
).pipe(Command.withDescription("Finalise the open dispatch"))

const dispatch = Command.make("dispatch").pipe(
  Command.withDescription("Open or finish a dispatched session (invocation envelopes)"),
  Command.withSubcommands([dispatchOpen, dispatchFinish])
)

const lint = Command.make("lint", common, ({ json, project }) =>
  Effect.gen(function*() {
    const p = yield* resolveProject(project)
    yield* withStore(p, false, (store) =>
      Effect.gen(function*() {
        const doc = yield* store.load
        const stream = yield* store.streamStatus
        const issues = [...(yield* Project.lint(p, doc))]
        if (stream.state !== "intact") {
          issues.push(`events: the stream is ${stream.state}${stream.detail ? ` (${stream.detail})` : ""}`)
        }
        yield* Output.result(json, { clean: issues.length === 0, issues }, (r) =>
          r.clean
            ? `steward audit lint: clean (${State.records(doc).length} record(s), ${stream.events} event(s))`
            : `steward audit lint: ${r.issues.length} issue(s)\n${r.issues.map((i) => `  - ${i}`).join("\n")}`)
        if (issues.length > 0) return yield* Effect.fail(new NegativeResult({ reason: "lint issues" }))
      }))
  })).pipe(Command.withDescription("Check state, views, referenced files, orphans, refusal prose and ruling tokens"))

const metrics = Command.make("metrics", common, ({ json, project }) =>
  Effect.gen(function*() {
    const p = yield* resolveProject(project)
    yield* withStore(p, false, (store) =>
      Effect.gen(function*() {
        const doc = yield* loadChecked(p, store)
        const payload = yield* checked(yield* metricsPayload(p, store, doc), Metrics.METRICS_SCHEMA, "metrics")
        yield* Output.result(json, payload, Metrics.renderMetrics)
      }))
  })).pipe(Command.withDescription("The eight health metrics (read-only; launches nothing, appends no event)"))

const dashboard = Command.make("dashboard", common, ({ json, project }) =>
  Effect.gen(function*() {
    const p = yield* resolveProject(project)
    const fs = yield* FileSystem.FileSystem
    yield* withStore(p, false, (store) =>
      Effect.gen(function*() {
        const { doc, status } = yield* statusPayload(p, store)
        const s = yield* checked(status, Metrics.STATUS_SCHEMA, "status")
        const m = yield* checked(yield* metricsPayload(p, store, doc), Metrics.METRICS_SCHEMA, "metrics")
        const file = `${p.audit}/dashboard.html`
        yield* fs.writeFileString(file, Dashboard.render(s, m)).pipe(
          Effect.mapError((e) => AuditError.make("io", `${file}: ${e.message}`))
        )
        if (json) {
          yield* Console.log(
            JSON.stringify({ output_schema_version: s.output_schema_version, status: s, metrics: m }, null, 2)
          )
        } else yield* Console.log(`wrote ${file}`)
      }))
  })).pipe(Command.withDescription("Write audit/dashboard.html (self-contained, no script) from status + metrics"))

const EXIT_2_IMPORT: ReadonlySet<string> = new Set(["invalid-input", "io", "storage", "invalid-state", "ledger"])

const importState = Command.make(
  "import-state",
  {
    ...common,
    file: Args.file({ name: "FILE", exists: "yes" }).pipe(Args.withDescription("xcheck's state.json to import")),
    events: Options.file("events", { exists: "yes" }).pipe(
      Options.withDescription("xcheck's events.jsonl to import with the state"),
      Options.optional
    )
  },
  ({ events, file, json, project }) =>
    Effect.gen(function*() {
      const p = yield* resolveProject(project)
      const fs = yield* FileSystem.FileSystem
      const read = (f: string) =>
        Effect.flatMap(
          fs.readFile(f).pipe(Effect.mapError((e) => cannotRun("io", `${f}: ${e.message}`))),
          (bytes) =>
            Effect.try({
              try: () => new TextDecoder("utf-8", { fatal: true }).decode(bytes),
              catch: () => cannotRun("invalid-state", `${f}: not valid UTF-8`)
            })
        )
      const stateText = yield* read(file)
      const eventsText = Option.isSome(events) ? yield* read(events.value) : undefined
      // Validate before creating anything on disk: bad input writes nothing.
      const doc = yield* State.decodeText(stateText, file).pipe(Effect.mapError((e) => toCli(e, EXIT_2_IMPORT)))
      const outside = Project.pathsOutsideAudit(p, doc)
      if (outside.length > 0) {
        return yield* Effect.fail(
          cannotRun(
            "invalid-input",
            `${file}: ${outside.join("; ")} — nothing was imported`
          )
        )
      }
      yield* withStore(p, true, (store) =>
        Effect.gen(function*() {
          const report = yield* store.importState(stateText, eventsText).pipe(
            Effect.mapError((e) => toCli(e, EXIT_2_IMPORT))
          )
          yield* Project.renderViews(p, yield* store.load)
          yield* Output.result(
            json,
            report,
            (r) =>
              `imported revision ${r.revision}: ${r.records} record(s), ${r.events} event(s)${
                r.legacyChained > 0 ? ` (${r.legacyChained} legacy line(s) chained)` : ""
              }`
          )
        }))
    })
).pipe(Command.withDescription("Import xcheck's state.json (and events.jsonl) into an empty project"))

const exportState = Command.make(
  "export-state",
  {
    ...common,
    file: Args.text({ name: "FILE" }).pipe(
      Args.withDescription("Where to write state.json (default: stdout)"),
      Args.optional
    ),
    eventsOut: opt("events-out", "Also write the chained events.jsonl here")
  },
  ({ eventsOut, file, json, project }) =>
    Effect.gen(function*() {
      const p = yield* resolveProject(project)
      const fs = yield* FileSystem.FileSystem
      yield* withStore(p, false, (store) =>
        Effect.gen(function*() {
          const text = yield* store.exportState
          const write = (f: string, content: string) =>
            fs.writeFileString(f, content).pipe(Effect.mapError((e) => AuditError.make("io", `${f}: ${e.message}`)))
          if (Option.isSome(eventsOut)) yield* write(eventsOut.value, yield* store.exportEvents)
          if (Option.isSome(file)) {
            yield* write(file.value, text)
            yield* Output.result(
              json,
              { file: file.value, bytes: Buffer.byteLength(text) },
              (r) => `wrote ${r.file} (${r.bytes} bytes)`
            )
          } else if (json) {
            yield* Console.log(JSON.stringify({ state: JSON.parse(text) }, null, 2))
          } else {
            yield* Effect.sync(() => process.stdout.write(text))
          }
        }))
    })
).pipe(Command.withDescription("Export the canonical state.json (byte-compatible with xcheck schema 1)"))

/**
 * `steward audit …`
 *
 * @since 0.1.0
 * @category commands
 */
export const command = audit.pipe(
  Command.withDescription("The xcheck audit state machine: findings, passes, verbs, next, events, views, metrics"),
  Command.withSubcommands([
    init,
    status,
    next,
    setStatus,
    recordFix,
    recordVerdict,
    fileFinding,
    recordCoverage,
    queuePass,
    amendPass,
    cancelPass,
    recordPlan,
    setLimit,
    blockOnNorm,
    recordRuling,
    updateCatalog,
    recordRefusal,
    proposeConstrual,
    admitConstrual,
    renderViewsCommand,
    dispatch,
    lint,
    metrics,
    importState,
    exportState,
    dashboard
  ])
)
