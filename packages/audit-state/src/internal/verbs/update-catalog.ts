/**
 * `update-catalog`: add, amend or remove a norm, dimension or unit (admin).
 *
 * @internal
 */
import * as State from "../../State.js"
import { PATTERNS } from "../../Vocabulary.js"
import { type Handler, refuse } from "./model.js"

/** @internal */
export const updateCatalog: Handler<"update-catalog"> = (doc, request, { policy }) => {
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
        `${request.kind} '${request.key}' is refused for removal: ${holders.length} record(s) still reference it (${
          holders.join(", ")
        }) — repoint them first`
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
  if (policy?.refuseNoOpAdmin === true && JSON.stringify(amended) === JSON.stringify(current)) {
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
