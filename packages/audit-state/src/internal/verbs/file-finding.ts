/**
 * `file-finding`: file a finding at 'reported', or mint a class finding that absorbs its members.
 *
 * @internal
 */
import type * as State from "../../State.js"
import { isSeverity, PATTERNS, SEVERITIES, TRANSITIONS } from "../../Vocabulary.js"
import {
  bindSession,
  findRecord,
  pathRefusal,
  pyList,
  type Rec,
  replaceRecord,
  splitLocator,
  without
} from "./common.js"
import { type Handler, refuse } from "./model.js"

/** @internal */
export const fileFinding: Handler<"file-finding"> = (doc, request, ctx) => {
  const v = request.verb
  const today = ctx.today
  const isClass = PATTERNS.classFinding.test(request.id)
  if (!isClass && !PATTERNS.finding.test(request.id)) {
    return refuse(v, "invalid-input", `--id '${request.id}' is not a canonical finding id (F-NNNN or CF-NNNN)`)
  }
  if (findRecord(doc, request.id) !== undefined) return refuse(v, "refused", `${request.id} already exists`)
  const badBody = pathRefusal(v, "--body", request.body)
  if (badBody) return badBody
  if (!isSeverity(request.severity)) {
    return refuse(
      v,
      "invalid-input",
      `--severity '${request.severity}' is not a canonical §2 severity (${SEVERITIES.join(", ")})`
    )
  }
  if (request.recurrenceOf !== undefined) {
    if (isClass) return refuse(v, "refused", "--recurrence-of is not a class-finding field")
    if (findRecord(doc, request.recurrenceOf) === undefined) {
      return refuse(v, "not-found", `--recurrence-of ${request.recurrenceOf} does not exist in this ledger`)
    }
  }
  const base = {
    id: request.id,
    title: request.title,
    severity: request.severity,
    status: "reported" as const,
    dimension: request.dimension,
    unit: request.unit,
    pass: request.pass,
    attempts: 0,
    updated: today,
    body_path: request.body
  }
  if (!isClass) {
    if (request.session !== undefined) {
      return refuse(
        v,
        "refused",
        `--session records who ran the census that escalated a class finding; ${request.id} is an ordinary finding and has no created_by — its provenance is its --pass`
      )
    }
    if (request.members !== undefined) {
      return refuse(
        v,
        "refused",
        `--members belongs to a class finding (CF-NNNN); ${request.id} is an ordinary finding`
      )
    }
    if (request.locator === undefined || request.sourceHash === undefined) {
      return refuse(
        v,
        "refused",
        `${request.id} cannot be filed without --locator PATH[:L[-M]] and --source-hash SHA256: evidence is addressed`
      )
    }
    const loc = splitLocator(request.locator)
    if (loc === undefined) return refuse(v, "invalid-input", `--locator '${request.locator}' is not PATH[:L[-M]]`)
    if (loc.path.startsWith("/") || loc.path.split("/").includes("..")) {
      return refuse(v, "refused", `--locator '${loc.path}' is not a path inside the subject`)
    }
    if (!PATTERNS.sha256.test(request.sourceHash)) {
      return refuse(v, "invalid-input", `--source-hash '${request.sourceHash}' is not a sha-256 hex digest`)
    }
    if (ctx.subject !== undefined) {
      const problem = ctx.subject.check(loc.path, loc.lines, request.sourceHash)
      if (problem !== undefined) return refuse(v, "refused", problem)
    }
    const rec: Rec = {
      ...base,
      locator: request.locator,
      source_hash: request.sourceHash,
      ...(request.recurrenceOf ? { recurrence_of: request.recurrenceOf } : {})
    }
    return {
      doc: { ...doc, findings: [...(doc.findings ?? []), rec] },
      target: rec.id,
      fromStatus: null,
      toStatus: "reported",
      message: `${rec.id} filed at 'reported' (${rec.severity}, ${rec.dimension}, pass ${rec.pass})`
    }
  }
  if (request.locator !== undefined || request.sourceHash !== undefined) {
    return refuse(
      v,
      "refused",
      `${request.id} is a class finding: its evidence is its census and its members' locators, so --locator and --source-hash do not apply`
    )
  }
  if (request.members === undefined || request.members.length === 0) {
    return refuse(v, "refused", `${request.id} is a class finding and requires --members F-1,F-2`)
  }
  let next = doc
  let createdBy: string | undefined
  if (request.session !== undefined) {
    const bound = bindSession(doc, v, request.session, "Remediator")
    if ("_tag" in bound) return bound
    createdBy = request.session
  }
  const seen = new Set<string>()
  for (const m of request.members) {
    if (seen.has(m)) return refuse(v, "refused", `member ${m} is listed twice`)
    seen.add(m)
    if (PATTERNS.classFinding.test(m)) {
      return refuse(v, "refused", `${m}: a class finding cannot be a member of another class`)
    }
    const loc = findRecord(next, m)
    if (loc === undefined || loc.cls) return refuse(v, "not-found", `member ${m} is not an existing finding`)
    const legal = TRANSITIONS[loc.rec.status] ?? []
    if (!legal.includes("superseded-by-class")) {
      return refuse(
        v,
        "refused",
        `${m} is '${loc.rec.status}' and §5 does not allow it to become 'superseded-by-class' (only ${
          pyList(legal)
        }); a census absorbs findings still in the cycle`
      )
    }
    const absorbed: Rec = {
      ...without(loc.rec, "next"),
      status: "superseded-by-class",
      class: request.id,
      updated: today
    }
    next = replaceRecord(next, loc, absorbed)
  }
  const cf: State.ClassFinding = {
    ...base,
    members: request.members,
    ...(createdBy ? { created_by: createdBy } : {})
  }
  return {
    doc: { ...next, class_findings: [...(next.class_findings ?? []), cf] },
    target: cf.id,
    fromStatus: null,
    toStatus: "reported",
    message: `${cf.id} filed at 'reported' absorbing ${request.members.join(", ")} (now superseded-by-class)`
  }
}
