/**
 * The 16 state-changing write verbs of spec §3.1 as pure functions over a document, plus the
 * dispatch authorization of §2.4. A verb returns the next document and its transition, or a
 * refusal carrying xcheck's key phrase; it never touches storage (see `AuditStore`).
 *
 * @since 0.1.0
 */
import * as State from "./State.js"
import {
  ADMIN_VERBS,
  HARD_TERMINAL,
  LIMIT_RANGES,
  NEEDS_HUMAN,
  NEXT_VALUES,
  PATTERNS,
  REFUSAL_REASONS,
  RESERVED,
  ROLE_ROUTES,
  ROLES,
  SEVERITIES,
  STATUSES,
  TERMINAL,
  TRANSITIONS
} from "./Vocabulary.js"

/**
 * A request to run one write verb (xcheck's argument grammar as data).
 *
 * @since 0.1.0
 * @category models
 */
export type VerbRequest =
  | {
    readonly verb: "set-status"
    readonly id: string
    readonly status: string
    readonly next?: string | undefined
    readonly retake?: string | undefined
  }
  | {
    readonly verb: "record-fix"
    readonly id: string
    readonly session: string
    readonly plan?: string | undefined
    readonly scope?: string | undefined
  }
  | {
    readonly verb: "record-verdict"
    readonly id: string
    readonly verdict: string
    readonly session: string
    readonly reason?: string | undefined
  }
  | { readonly verb: "admit-construal"; readonly key: string; readonly admitter: string }
  | {
    readonly verb: "file-finding"
    readonly id: string
    readonly title: string
    readonly severity: string
    readonly dimension: string
    readonly unit: ReadonlyArray<string>
    readonly pass: string
    readonly body: string
    readonly locator?: string | undefined
    readonly sourceHash?: string | undefined
    readonly recurrenceOf?: string | undefined
    readonly members?: ReadonlyArray<string> | undefined
    readonly session?: string | undefined
  }
  | {
    readonly verb: "propose-construal"
    readonly key: string
    readonly role: string
    readonly charter: string
    readonly session: string
    readonly body: string
  }
  | {
    readonly verb: "record-plan"
    readonly id: string
    readonly findings: ReadonlyArray<string>
    readonly body: string
  }
  | {
    readonly verb: "queue-pass"
    readonly id: string
    readonly dimension: string
    readonly units: ReadonlyArray<string>
    readonly charter: string
    readonly stop: string
    readonly base?: string | undefined
  }
  | {
    readonly verb: "record-refusal"
    readonly id: string
    readonly reason?: string | undefined
    readonly clear?: boolean | undefined
    /** The finding body text (its `## Refusal` section must hold prose). */
    readonly bodyText?: string | undefined
  }
  | { readonly verb: "block-on-norm"; readonly id: string }
  | { readonly verb: "record-ruling"; readonly id: string; readonly norm: string; readonly ruledBy: string }
  | {
    readonly verb: "record-coverage"
    readonly id: string
    readonly report: string
    readonly findings?: ReadonlyArray<string> | undefined
  }
  | { readonly verb: "set-limit"; readonly key: string; readonly value: string }
  | {
    readonly verb: "amend-pass"
    readonly id: string
    readonly dimension?: string | undefined
    readonly units?: ReadonlyArray<string> | undefined
    readonly charter?: string | undefined
    readonly stop?: string | undefined
  }
  | { readonly verb: "cancel-pass"; readonly id: string }
  | {
    readonly verb: "update-catalog"
    readonly kind: string
    readonly key: string
    readonly source?: string | undefined
    readonly scope?: string | undefined
    readonly catches?: string | undefined
    readonly norms?: ReadonlyArray<string> | undefined
    readonly material?: string | undefined
    readonly size?: string | undefined
    readonly responsibility?: string | undefined
    readonly remove?: boolean | undefined
  }

/**
 * The name of a state-changing verb.
 *
 * @since 0.1.0
 * @category models
 */
export type VerbName = VerbRequest["verb"]

/**
 * Checks a `file-finding` locator against the subject (the audited material).
 *
 * @since 0.1.0
 * @category models
 */
export interface SubjectResolver {
  /** `undefined` = the locator resolves and the hash matches; else the addressed problem. */
  readonly check: (path: string, lines: readonly [number, number] | undefined, sourceHash: string) => string | undefined
}

/**
 * What a verb may read besides the document: today's date and the subject resolver.
 *
 * @since 0.1.0
 * @category models
 */
export interface VerbContext {
  readonly today: string
  readonly subject?: SubjectResolver | undefined
}

/**
 * A verb's successful outcome, before the store commits it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Transition {
  readonly doc: State.StateDoc
  readonly target: string
  readonly fromStatus: string | null
  readonly toStatus: string | null
  readonly message: string
  readonly extras?: Readonly<Record<string, unknown>>
}

/**
 * A refused verb: a closed code and the addressed message.
 *
 * @since 0.1.0
 * @category models
 */
export interface Refusal {
  readonly _tag: "Refusal"
  readonly code: "refused" | "invalid-input" | "not-found" | "invalid-state"
  readonly message: string
}

const refuse = (verb: string, code: Refusal["code"], message: string): Refusal => ({
  _tag: "Refusal",
  code,
  message: `${verb}: ${message}`
})

/**
 * Whether an outcome is a refusal.
 *
 * @since 0.1.0
 * @category guards
 */
export const isRefusal = (u: Transition | Refusal): u is Refusal => "_tag" in u && u._tag === "Refusal"

// ---------------------------------------------------------------------------------------------
// authorization

/**
 * Authorize a verb against the open dispatch's role (§2.4). `undefined` = allowed. With no open
 * dispatch the caller is the operator and everything is allowed; admin verbs are refused for
 * every dispatched role; an unrouted verb is refused fail-closed.
 *
 * @since 0.1.0
 * @category authorization
 */
export const authorize = (
  doc: State.StateDoc,
  request: VerbRequest
): { readonly role: string; readonly target: string; readonly reason: string } | undefined => {
  const open = State.openDispatch(doc)
  if (open === undefined) return undefined
  const role = open.role
  const target = targetOf(request)
  const who = `the ${role} session ${open.session_id} (the open dispatch)`
  if (ADMIN_VERBS.has(request.verb)) {
    return { role, target, reason: `${request.verb} is an administrative verb and ${who} may not run it` }
  }
  const route = ROLE_ROUTES[role]?.[request.verb]
  if (route === undefined) {
    const allowed = Object.keys(ROLE_ROUTES[role] ?? {})
    return {
      role,
      target,
      reason: `${who} may not run ${request.verb} (a ${role} may run only: ${allowed.join(", ") || "nothing"})`
    }
  }
  if (request.verb === "set-status") {
    const record = State.records(doc).find((r) => r.id === request.id)
    const from = record?.status
    const owners = Object.entries(ROLE_ROUTES).filter(([, r]) => {
      const s = r["set-status"]
      return s !== undefined && (s.to === undefined || s.to.includes(request.status)) &&
        (s.from === undefined || (from !== undefined && s.from.includes(from)))
    }).map(([name]) => name)
    const okFrom = route.from === undefined || (from !== undefined && route.from.includes(from))
    const okTo = route.to === undefined || route.to.includes(request.status)
    if (!okFrom || !okTo) {
      return {
        role,
        target,
        reason: `${who} may not run set-status ${request.id} ${
          from ?? "?"
        } -> ${request.status}; that move belongs to ${
          owners.length > 0 ? owners.join(" or ") : "the operator (no dispatch open)"
        }`
      }
    }
  }
  return undefined
}

/**
 * The verb's target (id, key, pass, plan or limit).
 *
 * @since 0.1.0
 * @category authorization
 */
export const targetOf = (request: VerbRequest): string => {
  switch (request.verb) {
    case "admit-construal":
    case "propose-construal":
    case "set-limit":
    case "update-catalog":
      return request.key
    default:
      return request.id
  }
}

// ---------------------------------------------------------------------------------------------
// helpers

type Rec = State.Finding

const findRecord = (doc: State.StateDoc, id: string): { rec: Rec; cls: boolean; index: number } | undefined => {
  const fi = (doc.findings ?? []).findIndex((r) => r.id === id)
  if (fi >= 0) return { rec: doc.findings![fi]!, cls: false, index: fi }
  const ci = (doc.class_findings ?? []).findIndex((r) => r.id === id)
  if (ci >= 0) return { rec: doc.class_findings![ci]!, cls: true, index: ci }
  return undefined
}

const replaceRecord = (doc: State.StateDoc, loc: { cls: boolean; index: number }, next: Rec): State.StateDoc => {
  if (loc.cls) {
    const arr = [...(doc.class_findings ?? [])]
    arr[loc.index] = next as State.ClassFinding
    return { ...doc, class_findings: arr }
  }
  const arr = [...(doc.findings ?? [])]
  arr[loc.index] = next
  return { ...doc, findings: arr }
}

const without = <T extends object>(o: T, ...keys: ReadonlyArray<string>): T => {
  const out: Record<string, unknown> = { ...(o as Record<string, unknown>) }
  for (const k of keys) delete out[k]
  return out as T
}

const noRecord = (verb: string, doc: State.StateDoc, id: string): Refusal => {
  const all = State.records(doc).map((r) => r.id)
  const shown = all.length > 12 ? `${all.slice(0, 12).join(", ")}, …` : all.join(", ")
  return refuse(
    verb,
    "not-found",
    `no record '${id}' in the state (${all.length} exist${all.length > 0 ? `: ${shown}` : ""})`
  )
}

const terminalRefusal = (verb: string, r: Rec): Refusal =>
  refuse(
    verb,
    "refused",
    `${r.id} is '${r.status}', which is terminal and immutable (§5); a recurrence is a NEW finding: \`steward audit file-finding … --recurrence-of ${r.id}\` (xcheck: recurrence-of)`
  )

/**
 * Bind a claimed session to the open dispatch (§2.4 provenance). `unbound` when no dispatch
 * was ever recorded.
 *
 * @since 0.1.0
 * @category authorization
 */
export const bindSession = (
  doc: State.StateDoc,
  verb: string,
  session: string,
  role: string
): Refusal | { readonly unbound: boolean } => {
  if (!PATTERNS.hex16.test(session)) {
    return refuse(verb, "invalid-input", `--session '${session}' is not a canonical 16-hex session id`)
  }
  const sessions = doc.sessions ?? []
  if (sessions.length === 0) return { unbound: true }
  const open = State.openDispatch(doc)
  if (open === undefined) {
    return refuse(
      verb,
      "refused",
      `no dispatch is open — every recorded session (${sessions.length}) is finalised, so --session ${session} cannot be bound; open one with \`steward audit dispatch open --role ${role} …\` (xcheck: dispatch record)`
    )
  }
  if (open.session_id !== session) {
    return refuse(
      verb,
      "refused",
      `--session claims session ${session}, but the session dispatched for this write is ${open.session_id} (${open.role}); provenance is bound to the open dispatch (xcheck: dispatch record) — re-run with --session ${open.session_id}`
    )
  }
  return { unbound: false }
}

const splitLocator = (locator: string): { path: string; lines?: readonly [number, number] } | undefined => {
  const m = /^([^\s:][^\s]*?)(?::(\d+)(?:-(\d+))?)?$/.exec(locator)
  if (!m) return undefined
  if (m[2] === undefined) return { path: m[1]! }
  const a = Number(m[2])
  const b = m[3] === undefined ? a : Number(m[3])
  return { path: m[1]!, lines: [a, b] }
}

/**
 * Independence of a verdict from the fixer's and the verifier's envelopes (§7).
 *
 * @since 0.1.0
 * @category independence
 */
export const independenceLevel = (
  fixerId: string | undefined,
  verifierId: string | undefined,
  fixer: State.Session | undefined,
  verifier: State.Session | undefined
): { readonly level: string; readonly note: string } => {
  if (fixerId !== undefined && fixerId === verifierId) {
    return { level: "same", note: "the same session fixed and verified" }
  }
  if (fixer === undefined || verifier === undefined) {
    return { level: "unrecorded", note: "DEGRADED: no envelope for one side — independence is not measurable here" }
  }
  const known = (s: string) => s !== "unknown" && s.length > 0
  if (known(fixer.provider) && known(verifier.provider) && fixer.provider !== verifier.provider) {
    return {
      level: "cross-provider",
      note: "different providers (does NOT prove independent training data or operator)"
    }
  }
  if (
    fixer.provider === verifier.provider && known(fixer.agent_model) && known(verifier.agent_model) &&
    fixer.agent_model !== verifier.agent_model
  ) {
    return { level: "cross-model", note: "same provider, different models" }
  }
  return {
    level: "same-provider-different-session",
    note: "DEGRADED: same provider and model, only a different session"
  }
}

const refusalProse = (body: string | undefined): boolean => {
  if (body === undefined) return false
  const lines = body.split(/\r?\n/)
  const start = lines.findIndex((l) => /^##\s+Refusal\s*$/.test(l))
  if (start < 0) return false
  const section: Array<string> = []
  for (const l of lines.slice(start + 1)) {
    if (/^#{1,2}\s/.test(l)) break
    section.push(l)
  }
  const stripped = section.join("\n").replace(/<!--[\s\S]*?-->/g, "")
  return /[\p{L}\p{N}]/u.test(stripped)
}

const isDigits = (s: string) => /^[0-9]+$/.test(s)

const CLASS_NEVER: ReadonlyArray<string> = ["disputed", "withdrawn", "obsolete"]

/**
 * Whether a body/report path is a plain relative path inside `audit/` (no absolute path, no `..`).
 *
 * @since 0.1.0
 * @category validation
 */
export const isAuditPath = (p: string): boolean =>
  p.trim().length > 0 && !p.startsWith("/") && !p.startsWith("\\") && !/^[A-Za-z]:/.test(p) &&
  !p.split(/[\\/]/).includes("..")

const pathRefusal = (verb: string, option: string, p: string): Refusal | undefined =>
  isAuditPath(p) ? undefined : refuse(verb, "invalid-input", `${option} '${p}' is not a relative path inside audit/`)

// ---------------------------------------------------------------------------------------------
// the verbs

/**
 * Run one verb over a (valid) document. Pure: the same document, request and context always
 * give the same outcome. The caller validates the result, bumps the revision and commits.
 *
 * @since 0.1.0
 * @category verbs
 */
export const apply = (doc: State.StateDoc, request: VerbRequest, ctx: VerbContext): Transition | Refusal => {
  const v = request.verb
  const today = ctx.today
  switch (request.verb) {
    case "set-status": {
      if (!(STATUSES as ReadonlyArray<string>).includes(request.status)) {
        return refuse(
          v,
          "invalid-input",
          `'${request.status}' is not a canonical §5 status (one of ${STATUSES.join(", ")})`
        )
      }
      const loc = findRecord(doc, request.id)
      if (loc === undefined) return noRecord(v, doc, request.id)
      const r = loc.rec
      if (r.status === request.status) {
        return refuse(v, "refused", `${r.id} is already '${r.status}' — nothing to change`)
      }
      const terminalHere = HARD_TERMINAL.has(r.status) ||
        (r.status === "superseded-by-class" && request.status !== "accepted")
      if (terminalHere) return terminalRefusal(v, r)
      const legal = TRANSITIONS[r.status] ?? []
      if (!legal.includes(request.status as never)) {
        return refuse(
          v,
          "refused",
          `${r.id} ${r.status} -> ${request.status}: §5 allows only [${legal.join(", ")}] from '${r.status}'`
        )
      }
      if (r.status === "superseded-by-class" && r.class !== undefined) {
        // ADR 0104: a member goes back to accepted only when its class finding was rejected
        const cf = (doc.class_findings ?? []).find((c) => c.id === r.class)
        if (cf !== undefined && cf.status !== "rejected") {
          return refuse(
            v,
            "refused",
            `${r.id} is absorbed by ${cf.id}, which is '${cf.status}': a member returns to 'accepted' only after its class finding is rejected (§8)`
          )
        }
      }
      if (loc.cls && CLASS_NEVER.includes(request.status)) {
        return refuse(
          v,
          "refused",
          `${r.id} is a class finding and never reaches '${request.status}' (§5/§8, ADR 0104); triage rejects a class instead`
        )
      }
      const reserved = RESERVED.find((x) => x.from === r.status && x.to === request.status)
      if (reserved !== undefined) {
        return refuse(
          v,
          "refused",
          `${r.id} ${r.status} -> ${request.status} is reserved to its own verb: use \`steward audit ${reserved.verb}\` (xcheck ${reserved.verb})`
        )
      }
      let retook = false
      if (r.next === NEEDS_HUMAN) {
        if (request.retake === undefined || !/^human:.+/.test(request.retake)) {
          return refuse(
            v,
            "refused",
            `${r.id} is flagged '${NEEDS_HUMAN}' after ${r.attempts} reopens — the automatic cycle stopped for a human. Re-run with \`--retake human:<who sanctioned it>\` to resume`
          )
        }
        retook = true
      }
      if (request.status === "superseded-by-class" && (r.class === undefined || r.id.startsWith("CF-"))) {
        return refuse(
          v,
          "refused",
          `${r.id} has no class: a record becomes superseded-by-class when a class finding absorbs it (\`steward audit file-finding --id CF-… --members ${r.id}\`)`
        )
      }
      if (request.next !== undefined && !NEXT_VALUES.has(request.next)) {
        return refuse(v, "invalid-input", `--next '${request.next}' is not a canonical \`next\` actor`)
      }
      let next: Rec = without(r, "next")
      next = { ...next, status: request.status, updated: today }
      if (request.next !== undefined) next = { ...next, next: request.next }
      if (retook) next = { ...next, attempts: 0 }
      const summary = `${r.id}: ${r.status} -> ${request.status}${
        retook ? ` (retake sanctioned by ${request.retake})` : ""
      }`
      return {
        doc: replaceRecord(doc, loc, next),
        target: r.id,
        fromStatus: r.status,
        toStatus: request.status,
        message: retook ? `${summary}; attempts reset to 0` : summary
      }
    }
    case "record-fix": {
      const bound = bindSession(doc, v, request.session, "Remediator")
      if ("_tag" in bound) return bound
      const loc = findRecord(doc, request.id)
      if (loc === undefined) return noRecord(v, doc, request.id)
      const r = loc.rec
      if (r.status !== "planned") {
        return refuse(v, "refused", `${r.id} is '${r.status}': record-fix applies only on a 'planned' finding`)
      }
      if (r.blocked !== undefined) {
        return refuse(
          v,
          "refused",
          `${r.id} is blocked ('${r.blocked}') — the §8 norm-ratification gate is fail-closed: a human rules first (\`steward audit record-ruling ${r.id} --norm … --ruled-by human:…\`)`
        )
      }
      if (request.plan !== undefined) {
        if (!PATTERNS.plan.test(request.plan)) {
          return refuse(v, "invalid-input", `--plan '${request.plan}' is not a plan id (RP-NNNN)`)
        }
        const plan = (doc.plans ?? []).find((p) => p.id === request.plan)
        if (plan === undefined) return refuse(v, "not-found", `--plan ${request.plan} is not a recorded plan`)
        if (!plan.findings.includes(r.id)) return refuse(v, "refused", `plan ${plan.id} does not cover ${r.id}`)
      }
      let next: Rec = without(r, "next")
      next = { ...next, status: "fixed", fixed_by: request.session, updated: today }
      if (request.scope !== undefined) next = { ...next, admitted_scope: request.scope }
      const msg = `${r.id}: planned -> fixed by session ${request.session}${
        request.plan ? ` under ${request.plan}` : ""
      }${
        bound.unbound
          ? " — provenance UNBOUND: no dispatch was ever recorded, the claimed session is taken as given"
          : ""
      }`
      return {
        doc: replaceRecord(doc, loc, next),
        target: r.id,
        fromStatus: "planned",
        toStatus: "fixed",
        message: msg,
        ...(request.plan ? { extras: { plan: request.plan } } : {})
      }
    }
    case "record-verdict": {
      if (request.verdict !== "closed" && request.verdict !== "reopened") {
        return refuse(v, "invalid-input", `--verdict '${request.verdict}' must be closed or reopened`)
      }
      const bound = bindSession(doc, v, request.session, "Verifier")
      if ("_tag" in bound) return bound
      const loc = findRecord(doc, request.id)
      if (loc === undefined) return noRecord(v, doc, request.id)
      const r = loc.rec
      if (r.status !== "fixed") {
        return refuse(v, "refused", `${r.id} is '${r.status}': a verdict applies only on a 'fixed' finding`)
      }
      const fixerId = r.fixed_by?.split(":")[0]
      if (fixerId === request.session) {
        return refuse(
          v,
          "refused",
          `session ${request.session} recorded the fix on ${r.id} and cannot also return the verdict on it (the verifier is never the fixer)`
        )
      }
      const sessions = doc.sessions ?? []
      const ind = independenceLevel(
        fixerId,
        request.session,
        sessions.find((s) => s.session_id === fixerId),
        State.openDispatch(doc)
      )
      let next: Rec = { ...r, status: request.verdict, independence: ind.level, updated: today }
      let flagged = false
      if (request.verdict === "reopened") {
        const attempts = r.attempts + 1
        next = without({ ...next, attempts }, "next")
        if (attempts >= State.limit(doc, "reopen_limit")) {
          next = { ...next, next: NEEDS_HUMAN }
          flagged = true
        }
      } else {
        next = without(next, "next")
      }
      const msg = `${r.id}: fixed -> ${request.verdict} (independence: ${ind.level} — ${ind.note})${
        flagged
          ? `; reopened ${next.attempts} time(s), reaching reopen_limit ${
            State.limit(doc, "reopen_limit")
          }: flagged '${NEEDS_HUMAN}' — the automatic cycle stops here and a human decides`
          : ""
      }`
      return {
        doc: replaceRecord(doc, loc, next),
        target: r.id,
        fromStatus: "fixed",
        toStatus: request.verdict,
        message: msg,
        extras: { verdict: request.verdict, reason: request.reason ?? "unrecorded" }
      }
    }
    case "admit-construal": {
      const idx = (doc.construals ?? []).findIndex((c) => c.key === request.key)
      if (idx < 0) return refuse(v, "not-found", `no construal '${request.key}'`)
      const c = doc.construals![idx]!
      if (c.status === "admitted") return refuse(v, "refused", `construal ${c.key} is already 'admitted'`)
      if (c.status !== "proposed") {
        return refuse(v, "refused", `construal ${c.key} is '${c.status}', only a 'proposed' construal can be admitted`)
      }
      if (request.admitter === c.session) {
        return refuse(v, "refused", `session ${c.session} WROTE construal ${c.key} and may not admit it`)
      }
      if (!PATTERNS.human.test(request.admitter) && !PATTERNS.hex16.test(request.admitter)) {
        return refuse(
          v,
          "invalid-input",
          `--admitter '${request.admitter}' is not an admitter (human:<label> or a 16-hex session id)`
        )
      }
      const arr = [...doc.construals!]
      arr[idx] = { ...c, status: "admitted", admitted_by: request.admitter, admitted_at: today }
      return {
        doc: { ...doc, construals: arr },
        target: c.key,
        fromStatus: null,
        toStatus: null,
        message: `construal ${c.key} (${c.role}: ${c.charter}) admitted by ${request.admitter}`
      }
    }
    case "file-finding": {
      const isClass = PATTERNS.classFinding.test(request.id)
      if (!isClass && !PATTERNS.finding.test(request.id)) {
        return refuse(v, "invalid-input", `--id '${request.id}' is not a canonical finding id (F-NNNN or CF-NNNN)`)
      }
      if (findRecord(doc, request.id) !== undefined) return refuse(v, "refused", `${request.id} already exists`)
      const badBody = pathRefusal(v, "--body", request.body)
      if (badBody) return badBody
      if (!(SEVERITIES as ReadonlyArray<string>).includes(request.severity)) {
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
      const base: Rec = {
        id: request.id,
        title: request.title,
        severity: request.severity,
        status: "reported",
        dimension: request.dimension,
        unit: request.unit,
        pass: request.pass,
        attempts: 0,
        updated: today,
        body_path: request.body
      }
      if (!isClass) {
        if (request.members !== undefined || request.session !== undefined) {
          return refuse(
            v,
            "refused",
            "--members and --session belong to a class finding (CF-NNNN), not an ordinary finding"
          )
        }
        if (request.locator === undefined || request.sourceHash === undefined) {
          return refuse(
            v,
            "refused",
            "an ordinary finding requires --locator PATH[:L[-M]] and --source-hash SHA256 (evidence is addressed)"
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
          "--locator/--source-hash are not class-finding fields (a class is evidenced by its census)"
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
            `member ${m} is '${loc.rec.status}'; only accepted|validated|planned|reopened findings can be absorbed by a class`
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
    case "propose-construal": {
      if (!PATTERNS.hex16.test(request.session)) {
        return refuse(v, "invalid-input", `--session '${request.session}' is not a canonical 16-hex session id`)
      }
      if (!(ROLES as ReadonlyArray<string>).includes(request.role)) {
        return refuse(v, "invalid-input", `--role '${request.role}' is not a role (${ROLES.join(", ")})`)
      }
      if ((doc.construals ?? []).some((c) => c.key === request.key)) {
        return refuse(v, "refused", `construal ${request.key} already exists`)
      }
      const badConstrualBody = pathRefusal(v, "--body", request.body)
      if (badConstrualBody) return badConstrualBody
      const expected = State.construalKey(request.role, request.charter)
      if (request.key !== expected) {
        return refuse(v, "refused", `key ${request.key} is not construal_key(${request.role}, charter) = ${expected}`)
      }
      const c: State.Construal = {
        key: request.key,
        role: request.role,
        charter: request.charter,
        session: request.session,
        status: "proposed",
        created: today,
        body_path: request.body
      }
      return {
        doc: { ...doc, construals: [...(doc.construals ?? []), c] },
        target: c.key,
        fromStatus: null,
        toStatus: null,
        message: `construal ${c.key} proposed for ${c.role}: ${c.charter}`
      }
    }
    case "record-plan": {
      if (!PATTERNS.plan.test(request.id)) {
        return refuse(v, "invalid-input", `'${request.id}' is not a plan id (RP-NNNN)`)
      }
      if ((doc.plans ?? []).some((p) => p.id === request.id)) {
        return refuse(v, "refused", `${request.id} already exists`)
      }
      const badPlanBody = pathRefusal(v, "--body", request.body)
      if (badPlanBody) return badPlanBody
      const missing = request.findings.filter((f) => findRecord(doc, f) === undefined)
      if (missing.length > 0) return refuse(v, "not-found", `unknown finding id(s): ${missing.join(", ")}`)
      const p: State.Plan = {
        id: request.id,
        findings: request.findings,
        status: "open",
        updated: today,
        body_path: request.body,
        attempts: 0
      }
      return {
        doc: { ...doc, plans: [...(doc.plans ?? []), p] },
        target: p.id,
        fromStatus: null,
        toStatus: null,
        message: `${p.id} recorded over ${p.findings.join(", ")}`
      }
    }
    case "queue-pass": {
      if (!PATTERNS.pass.test(request.id)) {
        return refuse(v, "invalid-input", `'${request.id}' is not a canonical pass id (P-NN)`)
      }
      if ((doc.queue ?? []).some((p) => p.id === request.id)) {
        return refuse(v, "refused", `${request.id} already exists in the queue`)
      }
      const catalogIssue = catalogRefs(doc, request.dimension, request.units)
      if (catalogIssue !== undefined) return refuse(v, "refused", catalogIssue)
      const p: State.Pass = {
        id: request.id,
        dimension: request.dimension,
        units: request.units,
        charter: request.charter,
        stop: request.stop,
        done: false,
        ...(request.base !== undefined ? { base: request.base } : {})
      }
      return {
        doc: { ...doc, queue: [...(doc.queue ?? []), p] },
        target: p.id,
        fromStatus: null,
        toStatus: null,
        message: `${p.id} queued (${p.dimension} × ${p.units.join(", ")})`
      }
    }
    case "record-refusal": {
      const loc = findRecord(doc, request.id)
      if (loc === undefined) return noRecord(v, doc, request.id)
      const r = loc.rec
      if (TERMINAL.has(r.status)) return terminalRefusal(v, r)
      if (request.clear === true) {
        if (request.reason !== undefined) return refuse(v, "invalid-input", "--clear takes no --reason")
        if (r.refusal === undefined) return refuse(v, "refused", `${r.id} carries no refusal to clear`)
        return {
          doc: replaceRecord(doc, loc, { ...without(r, "refusal"), updated: today }),
          target: r.id,
          fromStatus: r.status,
          toStatus: r.status,
          message: `${r.id}: refusal '${r.refusal}' cleared`
        }
      }
      if (request.reason === undefined) return refuse(v, "invalid-input", "--reason is required (or --clear)")
      if (!(REFUSAL_REASONS as ReadonlyArray<string>).includes(request.reason)) {
        return refuse(
          v,
          "invalid-input",
          `--reason '${request.reason}' is not in the closed §5 vocabulary (${REFUSAL_REASONS.join(", ")})`
        )
      }
      if (r.refusal === request.reason) return refuse(v, "refused", `${r.id} already carries refusal '${r.refusal}'`)
      if (!refusalProse(request.bodyText)) {
        return refuse(
          v,
          "refused",
          `${r.id}: write the prose half FIRST — a '## Refusal' section with real content in ${r.body_path} (why the charter cannot be executed)`
        )
      }
      return {
        doc: replaceRecord(doc, loc, { ...r, refusal: request.reason, updated: today }),
        target: r.id,
        fromStatus: r.status,
        toStatus: r.status,
        message: `${r.id}: refusal '${request.reason}' recorded; status stays '${r.status}'`
      }
    }
    case "block-on-norm": {
      const loc = findRecord(doc, request.id)
      if (loc === undefined) return noRecord(v, doc, request.id)
      const r = loc.rec
      if (!loc.cls) {
        return refuse(v, "refused", `${r.id} is a finding, not a class finding — the §8 norm gate applies to classes`)
      }
      if (r.blocked !== undefined) return refuse(v, "refused", `${r.id} is already blocked ('${r.blocked}')`)
      if (r.status !== "validated" && r.status !== "planned") {
        return refuse(
          v,
          "refused",
          `${r.id} is '${r.status}'; block-on-norm applies to a validated or planned class finding`
        )
      }
      return {
        doc: replaceRecord(doc, loc, { ...r, blocked: "norm-ratification", norm_ruling: "pending", updated: today }),
        target: r.id,
        fromStatus: r.status,
        toStatus: r.status,
        message: `${r.id}: blocked on norm ratification (norm_ruling pending)`
      }
    }
    case "record-ruling": {
      const loc = findRecord(doc, request.id)
      if (loc === undefined) return noRecord(v, doc, request.id)
      const r = loc.rec
      if (r.blocked === undefined) return refuse(v, "refused", `${r.id} is not blocked — there is nothing to rule`)
      if (!/^human:.+/.test(request.ruledBy)) {
        return refuse(
          v,
          "refused",
          `--ruled-by '${request.ruledBy}': a norm conflict is ruled by the norm's OWNER, who is a human (§8 rule 8) — pass --ruled-by human:<label>`
        )
      }
      if (request.norm.trim() === "" || request.norm === "pending") {
        return refuse(v, "invalid-input", "--norm must name the ruling (e.g. N1 or N1-over-N4), not 'pending'")
      }
      if (!PATTERNS.normRuling.test(request.norm)) {
        return refuse(v, "invalid-input", `--norm '${request.norm}' is not a ruling token (N1, N1-over-N4, …)`)
      }
      const normIds = new Set((doc.catalogs?.norms ?? []).map((n) => n.id))
      if (normIds.size > 0) {
        const unknown = request.norm.split("-over-").filter((n) => !normIds.has(n))
        if (unknown.length > 0) {
          return refuse(v, "refused", `--norm names ${unknown.join(", ")}, not in the norms catalog`)
        }
      }
      return {
        doc: replaceRecord(doc, loc, { ...without(r, "blocked"), norm_ruling: request.norm, updated: today }),
        target: r.id,
        fromStatus: r.status,
        toStatus: r.status,
        message: `${r.id}: norm ruling ${request.norm} by ${request.ruledBy}; the gate is lifted`
      }
    }
    case "record-coverage": {
      const idx = (doc.queue ?? []).findIndex((p) => p.id === request.id)
      if (idx < 0) return refuse(v, "not-found", `${request.id} is not a pass in the queue`)
      const p = doc.queue![idx]!
      if (p.coverage !== undefined) {
        return refuse(
          v,
          "refused",
          `${p.id} already has coverage (${p.coverage.report_path}) — a pass has exactly ONE canonical record; queue a new pass for new work`
        )
      }
      const badReport = pathRefusal(v, "--report", request.report)
      if (badReport) return badReport
      const findings = request.findings ?? []
      const missing = findings.filter((f) => findRecord(doc, f) === undefined)
      if (missing.length > 0) return refuse(v, "not-found", `unknown finding id(s): ${missing.join(", ")}`)
      const arr = [...doc.queue!]
      arr[idx] = {
        ...p,
        done: true,
        coverage: { report_path: request.report, findings, updated: today, status: "done" }
      }
      return {
        doc: { ...doc, queue: arr },
        target: p.id,
        fromStatus: null,
        toStatus: null,
        message: `${p.id}: coverage recorded (${request.report}, ${findings.length} finding(s)); pass done`
      }
    }
    case "set-limit": {
      const range = LIMIT_RANGES[request.key]
      if (range === undefined) {
        return refuse(
          v,
          "invalid-input",
          `'${request.key}' is not a limit this tool reads (known: ${Object.keys(LIMIT_RANGES).join(", ")})`
        )
      }
      if (!isDigits(request.value)) {
        return refuse(v, "invalid-input", `${request.key} must be a whole number, got '${request.value}'`)
      }
      const n = Number(request.value)
      const [lo, hi] = range
      if (n < lo || n > hi) {
        return refuse(
          v,
          "invalid-input",
          `${request.key} ${n} is outside the legal range ${lo}..${hi}${
            request.key === "reopen_limit" && n < lo
              ? " — at 0 the mandatory human stop after repeated failures never fires"
              : ""
          }`
        )
      }
      if (doc.limits?.[request.key] === n) return refuse(v, "refused", `${request.key} is already ${n}`)
      return {
        doc: { ...doc, limits: { ...(doc.limits ?? {}), [request.key]: n } },
        target: request.key,
        fromStatus: null,
        toStatus: null,
        message: `limit ${request.key} = ${n}`
      }
    }
    case "amend-pass": {
      const idx = (doc.queue ?? []).findIndex((p) => p.id === request.id)
      if (idx < 0) {
        return refuse(
          v,
          "not-found",
          `${request.id} is not in the queue (${
            (doc.queue ?? []).map((p) => p.id).join(", ") || "empty"
          }); add it with \`steward audit queue-pass\``
        )
      }
      const p = doc.queue![idx]!
      if (p.done) {
        return refuse(
          v,
          "refused",
          `${p.id} is done (report ${
            p.coverage?.report_path ?? "?"
          }); amending it would make its record describe work nobody did — queue a new pass with \`steward audit queue-pass\``
        )
      }
      if (
        request.dimension === undefined && request.units === undefined && request.charter === undefined &&
        request.stop === undefined
      ) return refuse(v, "invalid-input", "nothing to change (give --dimension, --units, --charter or --stop)")
      if (request.units !== undefined && request.units.length === 0) {
        return refuse(v, "invalid-input", "--units is empty")
      }
      const catalogIssue = catalogRefs(doc, request.dimension, request.units)
      if (catalogIssue !== undefined) return refuse(v, "refused", catalogIssue)
      const amended: State.Pass = {
        ...p,
        ...(request.dimension !== undefined ? { dimension: request.dimension } : {}),
        ...(request.units !== undefined ? { units: request.units } : {}),
        ...(request.charter !== undefined ? { charter: request.charter } : {}),
        ...(request.stop !== undefined ? { stop: request.stop } : {})
      }
      if (Object.keys(amended).every((k) => JSON.stringify((amended as any)[k]) === JSON.stringify((p as any)[k]))) {
        return refuse(v, "refused", `${p.id} already says that — nothing to change`)
      }
      const arr = [...doc.queue!]
      arr[idx] = amended
      return { doc: { ...doc, queue: arr }, target: p.id, fromStatus: null, toStatus: null, message: `${p.id} amended` }
    }
    case "cancel-pass": {
      const idx = (doc.queue ?? []).findIndex((p) => p.id === request.id)
      if (idx < 0) return refuse(v, "not-found", `${request.id} is not in the queue`)
      const p = doc.queue![idx]!
      const holders = State.records(doc).filter((r) => r.pass === p.id).map((r) => r.id)
      if (holders.length > 0) {
        return refuse(
          v,
          "refused",
          `${p.id} is referenced by ${
            holders.join(", ")
          } — cancelling it would leave them pointing at a pass that does not exist`
        )
      }
      if (p.done) {
        return refuse(
          v,
          "refused",
          `${p.id} is done (report ${p.coverage?.report_path ?? "?"}); a done pass is history`
        )
      }
      const arr = [...doc.queue!]
      arr.splice(idx, 1)
      return {
        doc: { ...doc, queue: arr },
        target: p.id,
        fromStatus: null,
        toStatus: null,
        message: `${p.id} cancelled`
      }
    }
    case "update-catalog":
      return updateCatalog(doc, request)
  }
}

const catalogRefs = (doc: State.StateDoc, dimension: string | undefined, units: ReadonlyArray<string> | undefined) => {
  const dims = doc.catalogs?.dimensions ?? []
  if (dimension !== undefined && dims.length > 0 && !dims.some((d) => d.key === dimension)) {
    return `dimension '${dimension}' is not in the dimension catalog — add it first: \`steward audit update-catalog dimension ${dimension} …\``
  }
  const unitMap = doc.catalogs?.units ?? []
  if (units !== undefined && unitMap.length > 0) {
    const missing = units.filter((u) => !unitMap.some((x) => x.id === u))
    if (missing.length > 0) {
      return `unit(s) ${
        missing.join(", ")
      } are not in the unit map — add them first: \`steward audit update-catalog unit ${missing[0]} …\``
    }
  }
  return undefined
}

const updateCatalog = (
  doc: State.StateDoc,
  request: Extract<VerbRequest, { verb: "update-catalog" }>
): Transition | Refusal => {
  const v = "update-catalog"
  const kinds: Record<string, { group: "norms" | "dimensions" | "units"; id: string; fields: ReadonlyArray<string> }> =
    {
      norm: { group: "norms", id: "id", fields: ["source", "scope"] },
      dimension: { group: "dimensions", id: "key", fields: ["catches", "norms"] },
      unit: { group: "units", id: "id", fields: ["material", "size", "responsibility"] }
    }
  const kind = kinds[request.kind]
  if (kind === undefined) {
    return refuse(v, "invalid-input", `'${request.kind}' is not a catalog (dimension, norm, unit)`)
  }
  const given: Record<string, unknown> = {}
  for (const f of kind.fields) {
    const value = (request as Record<string, unknown>)[f]
    if (value !== undefined) given[f] = value
  }
  const all = ["source", "scope", "catches", "norms", "material", "size", "responsibility"]
  const foreign = all.filter((f) => !kind.fields.includes(f) && (request as Record<string, unknown>)[f] !== undefined)
  if (foreign.length > 0) return refuse(v, "invalid-input", `--${foreign.join(", --")} not valid for a ${request.kind}`)
  const rows = (doc.catalogs?.[kind.group] ?? []) as ReadonlyArray<Record<string, unknown>>
  const idx = rows.findIndex((r) => r[kind.id] === request.key)
  const setGroup = (next: ReadonlyArray<Record<string, unknown>>): State.StateDoc => ({
    ...doc,
    catalogs: { ...(doc.catalogs ?? {}), [kind.group]: next }
  })
  if (request.remove === true) {
    if (idx < 0) return refuse(v, "not-found", `${request.kind} '${request.key}' is not in the catalog`)
    const holders: Array<string> = []
    if (request.kind === "norm") {
      for (const d of doc.catalogs?.dimensions ?? []) {
        if (d.norms.includes(request.key)) holders.push(`dimension ${d.key}`)
      }
    } else {
      const uses = (r: { dimension: string; unit?: ReadonlyArray<string>; units?: ReadonlyArray<string> }) =>
        request.kind === "dimension" ? r.dimension === request.key : (r.unit ?? r.units ?? []).includes(request.key)
      for (const r of State.records(doc)) if (uses(r)) holders.push(r.id)
      for (const p of doc.queue ?? []) if (uses(p)) holders.push(`pass ${p.id}`)
    }
    if (holders.length > 0) {
      return refuse(
        v,
        "refused",
        `${request.kind} '${request.key}' is still used by ${holders.join(", ")} — it cannot be removed`
      )
    }
    const next = [...rows]
    next.splice(idx, 1)
    return {
      doc: setGroup(next),
      target: request.key,
      fromStatus: null,
      toStatus: null,
      message: `${request.kind} ${request.key} removed`
    }
  }
  if (request.kind === "norm" && !PATTERNS.norm.test(request.key)) {
    return refuse(v, "invalid-input", `'${request.key}' is not a norm id (N<digits>)`)
  }
  if (request.kind === "dimension" && given.norms !== undefined) {
    const normIds = new Set((doc.catalogs?.norms ?? []).map((n) => n.id))
    const missing = (given.norms as ReadonlyArray<string>).filter((n) => !normIds.has(n))
    if (missing.length > 0) return refuse(v, "refused", `norm(s) ${missing.join(", ")} are not in the norms catalog`)
  }
  if (idx < 0) {
    const missing = kind.fields.filter((f) => given[f] === undefined)
    if (missing.length > 0) {
      return refuse(
        v,
        "invalid-input",
        `${request.kind} '${request.key}' does not exist yet, so this is an ADD and every field is required: missing --${
          missing.join(", --")
        }`
      )
    }
    const row = { [kind.id]: request.key, ...given }
    return {
      doc: setGroup([...rows, row]),
      target: request.key,
      fromStatus: null,
      toStatus: null,
      message: `${request.kind} ${request.key} added`
    }
  }
  if (Object.keys(given).length === 0) {
    return refuse(v, "invalid-input", `nothing to change on ${request.kind} '${request.key}'`)
  }
  const current = rows[idx]!
  const amended = { ...current, ...given }
  if (JSON.stringify(amended) === JSON.stringify(current)) {
    return refuse(v, "refused", `${request.kind} '${request.key}' already says that`)
  }
  const next = [...rows]
  next[idx] = amended
  return {
    doc: setGroup(next),
    target: request.key,
    fromStatus: null,
    toStatus: null,
    message: `${request.kind} ${request.key} amended`
  }
}
