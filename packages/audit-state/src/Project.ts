/**
 * The audited project on disk: `<project>/audit/` holds the state database (`state.sqlite`),
 * the generated views (`LEDGER.md`, frontmatter blocks in `findings/…`), pass reports, plans,
 * construal bodies and `orchestrator.conf`. This module renders and verifies views, lints the
 * tree, reads the decision config, and resolves `file-finding` locators against the subject.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as nodePath from "node:path"
import * as AuditError from "./AuditError.js"
import type * as Decision from "./Decision.js"
import * as Config from "./internal/project/config.js"
import * as Files from "./internal/project/files.js"
import * as Paths from "./internal/project/paths.js"
import * as Render from "./internal/project/render.js"
import * as Scope from "./internal/project/scope.js"
import * as Subject from "./internal/project/subject.js"
import * as ViewCheck from "./internal/project/viewCheck.js"
import * as ProjectFiles from "./ProjectFiles.js"
import * as State from "./State.js"
import type * as Verbs from "./Verbs.js"
import * as Views from "./Views.js"
import { PATTERNS, TERMINAL } from "./Vocabulary.js"

/**
 * Paths of one audited project.
 *
 * @since 0.1.0
 * @category models
 */
export interface ProjectPaths {
  readonly project: string
  readonly audit: string
  readonly database: string
  readonly ledger: string
  readonly conf: string
  /** The host's `LEDGER.md` banner (default: xcheck's, {@link Views.LEDGER_BANNER}). */
  readonly ledgerBanner?: ReadonlyArray<string> | undefined
  /** The host's frontmatter banner (default: xcheck's, {@link Views.FRONTMATTER_BANNER}). */
  readonly frontmatterBanner?: ReadonlyArray<string> | undefined
}

/**
 * Resolve a project directory's paths.
 *
 * @since 0.1.0
 * @category constructors
 */
export const paths = (
  project: string,
  options: Pick<ProjectPaths, "ledgerBanner" | "frontmatterBanner"> = {}
): ProjectPaths => {
  const root = nodePath.resolve(project)
  const audit = nodePath.join(root, "audit")
  return {
    project: root,
    audit,
    database: nodePath.join(audit, "state.sqlite"),
    ledger: nodePath.join(audit, "LEDGER.md"),
    conf: nodePath.join(audit, "orchestrator.conf"),
    ...(options.ledgerBanner === undefined ? {} : { ledgerBanner: options.ledgerBanner }),
    ...(options.frontmatterBanner === undefined ? {} : { frontmatterBanner: options.frontmatterBanner })
  }
}

const ioError = (what: string) => (e: { readonly message: string }) => AuditError.make("io", `${what}: ${e.message}`)

/** A project file's text, bounded (issue 16); `undefined` when it is missing. */
const readOptional = (file: string): Effect.Effect<string | undefined, AuditError.AuditError> =>
  Effect.flatMap(ProjectFiles.current, (view) => {
    const r = Files.readText(view, file)
    return r._tag === "refused"
      ? Effect.fail(AuditError.make("io", r.message))
      : Effect.succeed(r._tag === "text" ? r.text : undefined)
  })

const inside = (audit: string, rel: string): string | undefined => {
  const full = nodePath.resolve(audit, rel)
  return full.startsWith(audit + nodePath.sep) ? full : undefined
}

/**
 * Why a path a verb reads or writes on a user's behalf (a body, a report) is not one it may use,
 * or `undefined`: it must be a relative path inside `audit/`, must not name the store's own files
 * (the database, its WAL, shared memory or journal, the lock), and its real path — symlinks
 * resolved through `files` (default: the real disk) — must stay inside `audit/` and must not be a
 * store file either (issue 16).
 *
 * @since 0.2.0
 * @category paths
 */
export const userPathIssue = (
  p: ProjectPaths,
  rel: string,
  what: string,
  files: ProjectFiles.FileView = ProjectFiles.node
): string | undefined => Paths.userPathIssue(files, p.audit, rel, what)

/**
 * Every path the state names (record bodies, plan and construal bodies, pass reports) that the
 * store may not use ({@link userPathIssue}), each as its addressed issue.
 *
 * @since 0.1.0
 * @category drift
 */
export const pathsOutsideAudit = (
  p: ProjectPaths,
  doc: State.StateDoc,
  files: ProjectFiles.FileView = ProjectFiles.node
): ReadonlyArray<string> => {
  const named = [
    ...State.records(doc).map((r) => [r.id, r.body_path] as const),
    ...(doc.plans ?? []).map((x) => [x.id, x.body_path] as const),
    ...(doc.construals ?? []).map((x) => [x.key, x.body_path] as const),
    ...(doc.queue ?? []).flatMap((x) => x.coverage ? [[x.id, x.coverage.report_path] as const] : [])
  ]
  const out: Array<string> = []
  for (const [id, rel] of named) {
    const issue = userPathIssue(p, rel, `${id}:`, files)
    if (issue !== undefined) out.push(issue)
  }
  return out
}

/**
 * What a view check found: the drift, and the marks of the views it read and found to agree.
 *
 * @since 0.2.0
 * @category drift
 */
export interface ViewReport {
  readonly drifts: ReadonlyArray<Views.Drift>
  readonly marks: ReadonlyArray<readonly [string, string]>
  /** Views read and found to agree that have no mark to record yet (modified too recently, or symlinks). */
  readonly unmarked: number
}

/**
 * Check the generated views against state (spec §5.5): `LEDGER.md` and each record's block —
 * only the records in `only` when given. A view whose fingerprint equals its recorded mark
 * (`marks`, from {@link AuditStore.AuditStoreShape.viewMarks}) agrees without being read
 * (ADR 0115); every other view is read, bounded (a FIFO, a device or an oversized file is an
 * `io` error naming it), and compared line by line. Returns the drift and the marks of the views
 * it read and found to agree (to record with `markViews`). Files are read through the provided
 * {@link ProjectFiles.ProjectFiles} (the real disk when none is).
 *
 * @since 0.2.0
 * @category drift
 */
export const checkViews = (
  p: ProjectPaths,
  doc: State.StateDoc,
  options: {
    readonly only?: ReadonlySet<string> | undefined
    readonly marks?: ReadonlyMap<string, string> | undefined
  } = {}
): Effect.Effect<ViewReport, AuditError.AuditError> =>
  Effect.flatMap(Effect.zip(Clock.currentTimeMillis, ProjectFiles.current), ([nowMs, view]) =>
    Effect.suspend(() => {
      const checked = ViewCheck.checkViews(view, p.audit, doc, State.records(doc), {
        ...options,
        nowMs,
        ledgerBanner: p.ledgerBanner,
        frontmatterBanner: p.frontmatterBanner
      })
      return checked.refused !== undefined
        ? Effect.fail(AuditError.make("io", checked.refused))
        : Effect.succeed({ drifts: checked.drifts, marks: checked.marks, unmarked: checked.unmarked })
    })).pipe(Effect.withSpan("Project.checkViews"))

/**
 * Compare every generated view with what the state renders.
 *
 * @since 0.1.0
 * @category drift
 */
export const verifyViews = Effect.fn("Project.verifyViews")(function*(
  p: ProjectPaths,
  doc: State.StateDoc,
  only?: ReadonlySet<string>,
  marks?: ReadonlyMap<string, string>
) {
  return (yield* checkViews(p, doc, { only, marks })).drifts
})

/**
 * Fail with a `drift` error when any view disagrees with state. Succeeds with the marks of the
 * views it read and found to agree ({@link checkViews}).
 *
 * @since 0.1.0
 * @category drift
 */
export const refuseOnDrift = Effect.fn("Project.refuseOnDrift")(function*(
  p: ProjectPaths,
  doc: State.StateDoc,
  only?: ReadonlySet<string>,
  marks?: ReadonlyMap<string, string>
) {
  const { drifts, marks: seen } = yield* checkViews(p, doc, { only, marks })
  if (drifts.length > 0) {
    return yield* Effect.fail(AuditError.make("drift", Views.driftMessage(drifts), { drifts }, [Views.RENDER_VIEWS]))
  }
  return seen
})

/**
 * The records whose views `next` checks for drift, beside `LEDGER.md` (ADR 0134): those its
 * decision names — the records it hands to a session or a person — and the members of the class
 * findings among them. Pass them as `only` to {@link refuseOnDrift}.
 *
 * @since 0.3.0
 * @category drift
 */
export const decisionRecords: (doc: State.StateDoc, decision: Decision.Decision) => ReadonlySet<string> =
  Scope.decisionRecords

/**
 * The records whose views `next` checks, as `only` for {@link refuseOnDrift}: `undefined` (every
 * view, xcheck's behaviour) unless `orchestrator.conf` sets `next_drift_scope = decision`, then
 * {@link decisionRecords} (ADR 0134).
 *
 * @since 0.3.0
 * @category drift
 */
export const nextDriftRecords = (
  doc: State.StateDoc,
  decision: Decision.Decision,
  config: Pick<Decision.DecisionConfig, "nextDriftScope">
): ReadonlySet<string> | undefined =>
  config.nextDriftScope === "decision" ? Scope.decisionRecords(doc, decision) : undefined

/**
 * The ids of the records whose row differs between two documents (committed rows are frozen and
 * kept by identity, so this is a pointer comparison per row), plus any id only one side has.
 *
 * @since 0.2.0
 * @category rendering
 */
export const changedRecords = (prev: State.StateDoc, next: State.StateDoc): ReadonlySet<string> => {
  const out = new Set<string>()
  const before = new Map<string, State.Finding>()
  for (const r of State.records(prev)) before.set(r.id, r)
  for (const r of State.records(next)) {
    if (before.get(r.id) !== r) out.add(r.id)
    before.delete(r.id)
  }
  for (const id of before.keys()) out.add(id)
  return out
}

/**
 * Render every view from state (only files whose content changes are written). Returns the
 * drift it overwrote, the number of files written and the marks of the views it wrote or found
 * current (ADR 0115). With `only` (a verb's changed records, {@link changedRecords}) it renders
 * `LEDGER.md` and those records' blocks and reports no drift (the verb verified them first).
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderViews = Effect.fn("Project.renderViews")(function*(
  p: ProjectPaths,
  doc: State.StateDoc,
  only?: ReadonlySet<string>
) {
  // with `only` (a verb's changed records) the caller has already verified them: nothing to report
  const destroyed = only === undefined ? yield* verifyViews(p, doc) : []
  // every target is checked before any file is read or written: a symlink out of audit/ or onto
  // a store file refuses the whole render (issue 16)
  const view = yield* ProjectFiles.current
  const targets: Array<readonly [string, string, State.Finding | undefined]> = [[LEDGER_KEY, p.ledger, undefined]]
  for (const r of State.records(doc)) {
    if (only !== undefined && !only.has(r.id)) continue
    const problem = userPathIssue(p, r.body_path, `${r.id} body_path`, view)
    if (problem !== undefined) return yield* Effect.fail(AuditError.make("invalid-input", problem))
    targets.push([r.body_path, nodePath.resolve(p.audit, r.body_path), r])
  }
  const nowMs = yield* Clock.currentTimeMillis
  const rendered = Render.writeViews(view, doc, targets, nowMs, p)
  return typeof rendered === "string"
    ? yield* Effect.fail(AuditError.make("io", rendered))
    : { destroyed, written: rendered.written, marks: rendered.marks }
})

/** The key `LEDGER.md`'s mark is recorded under. */
const LEDGER_KEY = "LEDGER.md"

/**
 * Read `audit/orchestrator.conf` (`key = value` lines). Known keys are validated and
 * coerced; a bad value is an `invalid-input` error naming the key.
 *
 * @since 0.1.0
 * @category config
 */
export const readConfig = Effect.fn("Project.readConfig")(function*(p: ProjectPaths) {
  const text = yield* readOptional(p.conf)
  return yield* Effect.suspend(() => {
    const parsed = parseConfig(text ?? "")
    return typeof parsed === "string"
      ? Effect.fail(AuditError.make("invalid-input", `orchestrator.conf: ${parsed}`))
      : Effect.succeed(parsed)
  })
})

/**
 * Parse `orchestrator.conf` text (pure).
 *
 * @since 0.1.0
 * @category config
 */
export const parseConfig: (text: string) => Decision.DecisionConfig | string = Config.parseConfig

/**
 * Lint the project: state + views, referenced files exist, orphan Markdown, refusal prose,
 * norm-ruling tokens. Returns the issues (empty = clean).
 *
 * @since 0.1.0
 * @category lint
 */
export const lint = Effect.fn("Project.lint")(function*(p: ProjectPaths, doc: State.StateDoc) {
  const fsys = yield* FileSystem.FileSystem
  const issues: Array<string> = []
  const drifts = yield* verifyViews(p, doc)
  if (drifts.length > 0) issues.push(Views.driftMessage(drifts))
  const referenced = new Set<string>()
  const need = (rel: string, what: string) =>
    Effect.gen(function*() {
      referenced.add(nodePath.normalize(rel))
      const file = inside(p.audit, rel)
      if (file === undefined) {
        issues.push(`${what}: '${rel}' is not a path inside audit/`)
        return
      }
      if (!(yield* fsys.exists(file).pipe(Effect.mapError(ioError(file))))) {
        issues.push(`${what}: ${rel} does not exist`)
      }
    })
  for (const r of State.records(doc)) {
    yield* need(r.body_path, `${r.id} body`)
    if (r.refusal !== undefined && !TERMINAL.has(r.status)) {
      const text = yield* readOptional(nodePath.join(p.audit, r.body_path))
      if (text === undefined || !/^##\s+Refusal\s*$/m.test(text)) {
        issues.push(`${r.id}: refusal '${r.refusal}' without a '## Refusal' section`)
      }
    }
    if (r.norm_ruling !== undefined && r.norm_ruling !== "pending" && !PATTERNS.normRuling.test(r.norm_ruling)) {
      issues.push(`${r.id}: norm_ruling '${r.norm_ruling}' is not a ruling token (N1, N1-over-N4)`)
    }
  }
  for (const plan of doc.plans ?? []) yield* need(plan.body_path, `${plan.id} body`)
  for (const c of doc.construals ?? []) yield* need(c.body_path, `construal ${c.key} body`)
  for (const pass of doc.queue ?? []) if (pass.coverage) yield* need(pass.coverage.report_path, `${pass.id} report`)
  for (const dir of ["findings", "plans", "construals", "passes"]) {
    const full = nodePath.join(p.audit, dir)
    if (!(yield* fsys.exists(full).pipe(Effect.mapError(ioError(full))))) continue
    const names = yield* fsys.readDirectory(full).pipe(Effect.mapError(ioError(full)))
    for (const name of [...names].sort()) {
      if (!name.endsWith(".md")) continue
      const rel = nodePath.join(dir, name)
      if (!referenced.has(rel)) issues.push(`${rel}: orphan — no state record references it`)
    }
  }
  return issues as ReadonlyArray<string>
})

/**
 * The subject's git HEAD (what xcheck records as `head_before`), read from `.git` without
 * running git: `HEAD`, then the loose ref or `packed-refs`. `undefined` when the project is not
 * a git work tree or HEAD cannot be read. `files`: where to read (default: the real disk).
 *
 * @since 0.2.0
 * @category subject
 */
export const subjectHead = (project: string, files: ProjectFiles.FileView = ProjectFiles.node): string | undefined =>
  Subject.subjectHead(project, files)

/**
 * A subject resolver reading the audited material from the project's working tree: the path
 * must exist, the line range must be inside the file, and the hash must be the sha-256 of
 * its bytes. `files`: where to read (default: the real disk).
 *
 * @since 0.1.0
 * @category subject
 */
export const workingTreeSubject = (
  project: string,
  files: ProjectFiles.FileView = ProjectFiles.node
): Verbs.SubjectResolver => Subject.workingTreeSubject(project, files)
