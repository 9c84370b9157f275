/**
 * The audit write verbs, one command each (xcheck's verb table).
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as State from "@steward/audit-state/State"
import * as Effect from "effect/Effect"
import { common, expectRevision, list, opt, req, resolveProject, u } from "./options.js"
import { withStore } from "./store.js"
import { readBody, SESSION_OF_DISPATCH, verbCommand, writeVerb } from "./write.js"

export const setStatus = verbCommand("set-status", "Move a finding along the §5 transition table", {
  id: Args.text({ name: "ID" }).pipe(Args.withDescription("The finding's id (F-…)")),
  status: Args.text({ name: "STATUS" }).pipe(Args.withDescription("The new status (see the §5 transition table)")),
  next: opt("next", "Set the record's next actor"),
  retake: opt("retake", "human:<label> — clears the ⚠ needs-human flag")
}, (a) => ({ verb: "set-status", id: a.id, status: a.status, next: u(a.next), retake: u(a.retake) }))

export const recordFix = verbCommand("record-fix", "planned -> fixed, recording who fixed it", {
  id: Args.text({ name: "ID" }).pipe(Args.withDescription("The finding's id (F-…)")),
  session: opt("session", "The fixing session (16 hex); default: the open dispatch's (ADR 0023)"),
  plan: opt("plan", "RP-NNNN the fix executed"),
  scope: opt("scope", "The admitted scope of the fix")
}, (a) => ({
  verb: "record-fix",
  id: a.id,
  session: u(a.session) ?? SESSION_OF_DISPATCH,
  plan: u(a.plan),
  scope: u(a.scope)
}))

export const recordVerdict = verbCommand("record-verdict", "fixed -> closed | reopened (never by the fixer)", {
  id: Args.text({ name: "ID" }).pipe(Args.withDescription("The finding's id (F-…)")),
  verdict: req("verdict", "closed | reopened"),
  session: opt("session", "The verifying session (16 hex); default: the open dispatch's (ADR 0023)"),
  reason: opt("reason", "Why (recorded on the event)")
}, (a) => ({
  verb: "record-verdict",
  id: a.id,
  verdict: a.verdict,
  session: u(a.session) ?? SESSION_OF_DISPATCH,
  reason: u(a.reason)
}))

export const admitConstrual = verbCommand("admit-construal", "Admit a proposed construal", {
  key: Args.text({ name: "KEY" }).pipe(Args.withDescription("The construal's key")),
  admitter: req("admitter", "human:<label> or a 16-hex session")
}, (a) => ({ verb: "admit-construal", key: a.key, admitter: a.admitter }))

export const fileFinding = verbCommand(
  "file-finding",
  "File a finding (or mint a class finding absorbing its members)",
  {
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
  },
  (a) => ({
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
  })
)

export const proposeConstrual = verbCommand(
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

export const recordPlan = verbCommand("record-plan", "Record a remediation plan", {
  id: Args.text({ name: "RP-ID" }).pipe(Args.withDescription("The remediation plan's id (RP-…)")),
  findings: req("findings", "Finding ids, comma separated"),
  body: req("body", "The plan body, relative to audit/")
}, (a) => ({ verb: "record-plan", id: a.id, findings: list(a.findings) ?? [], body: a.body }))

export const queuePass = verbCommand("queue-pass", "Queue an audit pass", {
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

export const recordRefusal = Command.make(
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

export const blockOnNorm = verbCommand("block-on-norm", "Block a class finding on norm ratification", {
  id: Args.text({ name: "CF-ID" }).pipe(Args.withDescription("The class finding's id (CF-…)"))
}, (a) => ({ verb: "block-on-norm", id: a.id }))

export const recordRuling = verbCommand("record-ruling", "Record a human norm ruling, lifting the gate (admin)", {
  id: Args.text({ name: "CF-ID" }).pipe(Args.withDescription("The class finding's id (CF-…)")),
  norm: req("norm", "N1 or N1-over-N4"),
  ruledBy: req("ruled-by", "human:<label> — the norm's owner")
}, (a) => ({ verb: "record-ruling", id: a.id, norm: a.norm, ruledBy: a.ruledBy }))

export const recordCoverage = verbCommand("record-coverage", "Record a pass's coverage; the pass is done", {
  id: Args.text({ name: "P-ID" }).pipe(Args.withDescription("The pass's id (P-…)")),
  report: req("report", "The pass report, relative to audit/"),
  findings: opt("findings", "Finding ids the pass reported, comma separated")
}, (a) => ({ verb: "record-coverage", id: a.id, report: a.report, findings: list(u(a.findings)) }))

export const setLimit = verbCommand("set-limit", "Set a limit (admin)", {
  key: Args.text({ name: "KEY" }).pipe(Args.withDescription("The limit's name")),
  value: Args.text({ name: "VALUE" }).pipe(Args.withDescription("The limit's new value"))
}, (a) => ({ verb: "set-limit", key: a.key, value: a.value }))

export const amendPass = verbCommand("amend-pass", "Amend a queued pass (admin)", {
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

export const cancelPass = verbCommand("cancel-pass", "Cancel a queued, unreferenced pass (admin)", {
  id: Args.text({ name: "P-ID" }).pipe(Args.withDescription("The pass's id (P-…)"))
}, (a) => ({ verb: "cancel-pass", id: a.id }))

export const updateCatalog = verbCommand("update-catalog", "Add, amend or remove a catalog entry (admin)", {
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
