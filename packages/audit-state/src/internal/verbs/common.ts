/**
 * What the verb handlers share: record lookup and replacement, the addressed refusals every verb
 * words the same way, provenance binding, locator and path checks, independence levels.
 *
 * @internal
 */
import * as AuditError from "../../AuditError.js"
import * as State from "../../State.js"
import { type IndependenceLevel, PATTERNS } from "../../Vocabulary.js"
import { type Refusal, refuse } from "./model.js"
import { carryPositions, positionOf } from "./recordIndex.js"

export type Rec = State.Finding

export const findRecord = (doc: State.StateDoc, id: string): { rec: Rec; cls: boolean; index: number } | undefined => {
  const fi = positionOf(doc.findings ?? [], id)
  if (fi >= 0) return { rec: doc.findings![fi]!, cls: false, index: fi }
  const ci = positionOf(doc.class_findings ?? [], id)
  if (ci >= 0) return { rec: doc.class_findings![ci]!, cls: true, index: ci }
  return undefined
}

export const replaceRecord = (doc: State.StateDoc, loc: { cls: boolean; index: number }, next: Rec): State.StateDoc => {
  const rows = (loc.cls ? doc.class_findings : doc.findings) ?? []
  const arr = [...rows]
  arr[loc.index] = next
  if (rows[loc.index]?.id === next.id) carryPositions(rows, arr)
  return loc.cls ? { ...doc, class_findings: arr as Array<State.ClassFinding> } : { ...doc, findings: arr }
}

export const without = <T extends object>(o: T, ...keys: ReadonlyArray<string>): T => {
  const out: Record<string, unknown> = { ...(o as Record<string, unknown>) }
  for (const k of keys) delete out[k]
  return out as T
}

export const noRecord = (verb: string, doc: State.StateDoc, id: string): Refusal => {
  const all = State.records(doc).map((r) => r.id)
  const shown = all.length > 12 ? `${all.slice(0, 12).join(", ")}, …` : all.join(", ")
  return refuse(
    verb,
    "not-found",
    `no record '${id}' in the state (${all.length} exist${all.length > 0 ? `: ${shown}` : ""})`
  )
}

export const terminalRefusal = (verb: string, r: Rec): Refusal =>
  refuse(
    verb,
    "refused",
    `${r.id} is '${r.status}', which is terminal and immutable (§5); a recurrence is a NEW finding: ${
      AuditError.command(recurrence(r.id))
    } (xcheck: recurrence-of)`,
    [recurrence(r.id)]
  )

const recurrence = (id: string): AuditError.Hint => ({ verb: "file-finding", args: ["…", "--recurrence-of", id] })

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
  const openDispatch: AuditError.Hint = { verb: "dispatch open", args: ["--role", role, "…"] }
  const open = State.openDispatch(doc)
  if (open === undefined) {
    return refuse(
      verb,
      "refused",
      `no dispatch is open — every recorded session (${sessions.length}) is finalised, so --session ${session} cannot be bound; open one with ${
        AuditError.command(openDispatch)
      } (xcheck: dispatch record)`,
      [openDispatch]
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

export const splitLocator = (locator: string): { path: string; lines?: readonly [number, number] } | undefined => {
  const m = /^([^\s:][^\s]*?)(?::(\d+)(?:-(\d+))?)?$/.exec(locator)
  if (!m) return undefined
  if (m[2] === undefined) return { path: m[1]! }
  const a = Number(m[2])
  const b = m[3] === undefined ? a : Number(m[3])
  return { path: m[1]!, lines: [a, b] }
}

/**
 * Independence of a verdict from the fixer's and the verifier's envelopes (§7), with one
 * departure from xcheck (ADR 0026, issue 39): the same known provider and model on both sides is
 * `same` — one model checking its own fix is no independence, whatever the session.
 *
 * @since 0.1.0
 * @category independence
 */
export const independenceLevel = (
  fixerId: string | undefined,
  verifierId: string | undefined,
  fixer: State.Session | undefined,
  verifier: State.Session | undefined
): { readonly level: IndependenceLevel; readonly note: string } => {
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
  if (
    known(fixer.provider) && fixer.provider === verifier.provider && known(fixer.agent_model) &&
    fixer.agent_model === verifier.agent_model
  ) {
    return { level: "same", note: "NO INDEPENDENCE: the same provider and model fixed and verified" }
  }
  return {
    level: "same-provider-different-session",
    note: "DEGRADED: same provider and model, only a different session"
  }
}

export const refusalProse = (body: string | undefined): boolean => {
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

/** xcheck's rendering of a list of statuses: `['a', 'b']` (sorted), or `no transition`. */
export const pyList = (xs: ReadonlyArray<string>): string =>
  xs.length === 0 ? "no transition" : `[${[...xs].sort().map((x) => `'${x}'`).join(", ")}]`

export const isDigits = (s: string) => /^[0-9]+$/.test(s)

export const CLASS_NEVER: ReadonlyArray<string> = ["disputed", "withdrawn", "obsolete"]

/**
 * Whether a body/report path is a plain relative path inside `audit/` (no absolute path, no `..`).
 *
 * @since 0.1.0
 * @category validation
 */
export const isAuditPath = (p: string): boolean =>
  p.trim().length > 0 && !p.startsWith("/") && !p.startsWith("\\") && !/^[A-Za-z]:/.test(p) &&
  !p.split(/[\\/]/).includes("..")

export const pathRefusal = (verb: string, option: string, p: string): Refusal | undefined =>
  isAuditPath(p) ? undefined : refuse(verb, "invalid-input", `${option} '${p}' is not a relative path inside audit/`)

export const catalogRefs = (
  doc: State.StateDoc,
  dimension: string | undefined,
  units: ReadonlyArray<string> | undefined,
  catalog: string
) => {
  const dims = doc.catalogs?.dimensions ?? []
  if (dimension !== undefined && dims.length > 0 && !dims.some((d) => d.key === dimension)) {
    const hint: AuditError.Hint = { verb: "update-catalog", args: ["dimension", dimension, "…"] }
    return {
      text: `--dimension '${dimension}' is not in the ${catalog} (${
        dims.map((d) => d.key).join(", ")
      }) — add it first: ${AuditError.command(hint)}`,
      hint
    }
  }
  const unitMap = doc.catalogs?.units ?? []
  if (units !== undefined && unitMap.length > 0) {
    const missing = units.filter((u) => !unitMap.some((x) => x.id === u))
    if (missing.length > 0) {
      const hint: AuditError.Hint = { verb: "update-catalog", args: ["unit", missing[0]!, "…"] }
      return {
        text: `--units names ${missing.join(", ")}, which the Unit map does not declare — add them first: ${
          AuditError.command(hint)
        }`,
        hint
      }
    }
  }
  return undefined
}
