/**
 * Reading an existing Markdown audit (xcheck's pre-state layout, spec §3.3) into a state
 * document: `AUDIT.md`'s norms, dimensions and unit-map tables, its pass queue lines and limits,
 * and the frontmatter of findings, class findings, plans, construals and pass reports. Pure: the
 * caller reads the files. Every defect is collected (nothing is skipped silently); the caller
 * writes nothing when there is one.
 *
 * @since 0.1.0
 */
import { createRequire } from "node:module"
import type * as YAMLModule from "yaml"

// yaml is loaded on the first frontmatter: every audit command links this module (migrate is one
// of the area's verbs), and loading the package's files cost each of them about 10 ms at start-up
let yamlModule: typeof YAMLModule | undefined
const YAML = (): typeof YAMLModule => yamlModule ??= createRequire(import.meta.url)("yaml") as typeof YAMLModule

/** One Markdown file under `audit/`, by its path relative to `audit/`. */
export interface SourceFile {
  readonly rel: string
  readonly text: string
}

/** What `migrate` read, or every defect it found. */
export type Migrated =
  | { readonly _tag: "Doc"; readonly doc: Record<string, unknown>; readonly counts: Record<string, number> }
  | { readonly _tag: "Defects"; readonly defects: ReadonlyArray<string> }

const LIMIT_KEYS = ["max_findings_per_pass", "remediation_batch_size", "class_threshold", "reopen_limit"]

const stripComments = (text: string): string =>
  // keep line numbers: a comment's newlines stay
  text.replace(/<!--[\s\S]*?-->/g, (c) => c.replace(/[^\n]/g, ""))

interface Section {
  readonly title: string
  readonly start: number
  readonly lines: ReadonlyArray<string>
}

const sections = (text: string): ReadonlyArray<Section> => {
  const lines = text.split(/\r?\n/)
  const out: Array<{ title: string; start: number; lines: Array<string> }> = []
  lines.forEach((line, i) => {
    const m = /^##\s+(?:\d+\.\s*)?(.+?)\s*$/.exec(line)
    if (m !== null) out.push({ title: m[1]!.toLowerCase(), start: i + 2, lines: [] })
    else out.at(-1)?.lines.push(line)
  })
  return out
}

const cells = (line: string): ReadonlyArray<string> =>
  line.trim().replace(/^\|/, "").replace(/\|$/, "").split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"))

/** A Markdown table's rows as header → cell records, with their line numbers. */
const table = (section: Section): ReadonlyArray<{ readonly line: number; readonly row: Record<string, string> }> => {
  const rows = section.lines.map((l, i) => [l, section.start + i] as const).filter(([l]) => l.trim().startsWith("|"))
  if (rows.length < 2) return []
  const header = cells(rows[0]![0]).map((h) => h.toLowerCase())
  return rows.slice(2).map(([l, line]) => {
    const c = cells(l)
    return { line, row: Object.fromEntries(header.map((h, k) => [h, c[k] ?? ""])) }
  })
}

const column = (row: Record<string, string>, ...names: ReadonlyArray<string>): string | undefined => {
  const key = Object.keys(row).find((h) => names.some((n) => h.includes(n)))
  return key === undefined ? undefined : row[key]
}

const find = (all: ReadonlyArray<Section>, word: RegExp): Section | undefined => all.find((s) => word.test(s.title))

const QUEUE_LINE = /^\s*-\s*\[([ xX])\]\s*(P-\d{2})\s*[—–-]+\s*(.+?)\s*×\s*(.+?):\s*(.+?);\s*stop:\s*(.+?)\s*$/

/** Split a frontmatter block off a Markdown file and parse it (YAML). */
const frontmatter = (file: SourceFile): Record<string, unknown> | undefined | string => {
  if (!file.text.startsWith("---\n")) return undefined
  const end = file.text.indexOf("\n---", 4)
  if (end < 0) return `${file.rel}: the frontmatter block is not closed (---)`
  try {
    const value = YAML().parse(file.text.slice(4, end)) as unknown
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      return `${file.rel}: the frontmatter is not a mapping`
    }
    return value as Record<string, unknown>
  } catch (error) {
    return `${file.rel}: the frontmatter is not valid YAML (${(error as Error).message.split("\n")[0]})`
  }
}

/** Hyphenated keys renamed, YAML nulls dropped, dates as `YYYY-MM-DD`. */
const record = (raw: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(raw)) {
    if (v === null || v === undefined) continue
    out[k.replace(/-/g, "_")] = v instanceof Date ? v.toISOString().slice(0, 10) : v
  }
  return out
}

const asList = (v: unknown): ReadonlyArray<string> =>
  Array.isArray(v)
    ? v.map(String)
    : typeof v === "string"
    ? v.split(",").map((s) => s.trim()).filter((s) => s !== "")
    : []

/** The norms, dimensions and unit-map tables; `unitId` resolves a material name to its unit. */
const catalogs = (all: ReadonlyArray<Section>, defects: Array<string>) => {
  const norms = table(find(all, /norm/) ?? { title: "", start: 0, lines: [] }).map(({ line, row }) => ({
    line,
    id: column(row, "id", "norm") ?? "",
    source: column(row, "source", "path") ?? "",
    scope: column(row, "scope") ?? ""
  })).filter((n) => n.id !== "")
  const dimensions = table(find(all, /dimension/) ?? { title: "", start: 0, lines: [] }).flatMap(({ line, row }) => {
    const key = row["key"] ?? column(row, "dimension") ?? ""
    if (key === "") return []
    const source = column(row, "norm") ?? ""
    const ids = [...source.matchAll(/\bN\d+\b/g)].map((m) => m[0])
    if (ids.length === 0) {
      defects.push(`AUDIT.md:${line}: dimension '${key}' names no norm id (N1, N2…) in its norm source '${source}'`)
    }
    return [{ key, catches: column(row, "catch") ?? "", norms: [...new Set(ids)] }]
  })
  const units = table(find(all, /unit/) ?? { title: "", start: 0, lines: [] }).map(({ row }) => ({
    id: column(row, "unit", "id") ?? "",
    material: column(row, "material") ?? "",
    size: column(row, "size", "kloc") ?? "",
    responsibility: column(row, "responsib") ?? ""
  })).filter((u) => u.id !== "")
  // material names resolve to unit ids when exactly one unit has that material
  const unitId = (name: string): string => {
    if (units.some((u) => u.id === name)) return name
    const byMaterial = units.filter((u) => u.material === name)
    return byMaterial.length === 1 ? byMaterial[0]!.id : name
  }

  return { norms, dimensions, units, unitId }
}

/** Each checked pass's one report becomes its coverage and marks it done. */
const coverage = (
  queue: ReadonlyArray<Record<string, unknown>>,
  checked: ReadonlyArray<string>,
  reports: ReadonlyMap<string, ReadonlyArray<{ readonly rel: string; readonly fm: Record<string, unknown> }>>,
  defects: Array<string>
): void => {
  const REPORT_KEYS = ["dimension", "findings", "id", "status", "units", "updated"]
  for (const id of checked) {
    const found = reports.get(id) ?? []
    if (found.length !== 1) {
      defects.push(
        `pass ${id} is checked in AUDIT.md but ${found.length === 0 ? "no" : found.length} report(s) in passes/ ` +
          `carry its frontmatter (${
            found.map((f) => f.rel).join(", ") || "expected passes/" + id + "-*.md"
          }); exactly one is needed`
      )
      continue
    }
    const { fm, rel } = found[0]!
    const keys = Object.keys(fm).sort()
    if (keys.join(",") !== REPORT_KEYS.join(",")) {
      defects.push(
        `${rel}: a pass report's frontmatter has exactly ${REPORT_KEYS.join(", ")}; found ${keys.join(", ")}`
      )
      continue
    }
    const entry = queue.find((q) => q.id === id)!
    const updated = fm["updated"] instanceof Date ? fm["updated"].toISOString().slice(0, 10) : String(fm["updated"])
    entry["done"] = true
    entry["coverage"] = { report_path: rel, findings: asList(fm["findings"]), updated, status: String(fm["status"]) }
  }
}

/**
 * Read a Markdown audit. `audit` is `AUDIT.md`'s text; `files` every Markdown file under
 * `findings/`, `plans/`, `construals/` and `passes/`.
 *
 * @internal
 */
export const read = (
  audit: string,
  files: ReadonlyArray<SourceFile>,
  meta: { readonly generatedBy: string; readonly head?: string | undefined }
): Migrated => {
  const defects: Array<string> = []
  const all = sections(stripComments(audit))
  const { dimensions, norms, unitId, units } = catalogs(all, defects)

  const queue: Array<Record<string, unknown>> = []
  const checked: Array<string> = []
  stripComments(audit).split(/\r?\n/).forEach((line, i) => {
    if (!/^\s*-\s*\[[ xX]\]/.test(line) || !/\bP-\d+/.test(line)) return
    const m = QUEUE_LINE.exec(line)
    if (m === null) {
      defects.push(
        `AUDIT.md:${i + 1}: a queue line that does not parse — expected \`- [ ] P-NN — <dimension> × <units>: ` +
          `<charter>; stop: <stop>\`, found '${line.trim()}' (a pass is never dropped silently)`
      )
      return
    }
    const [, mark, id, dimension, unitText, charter, stop] = m as unknown as Array<string>
    queue.push({
      id,
      dimension,
      units: unitText!.split(/[\s,+]+/).filter((u) => u !== "").map(unitId),
      charter,
      stop,
      done: false
    })
    if (mark !== " ") checked.push(id!)
  })

  const limits: Record<string, number> = {}
  for (const [k, line] of (find(all, /limit/)?.lines ?? []).entries()) {
    const m = /^\s*([a-z_]+)\s*:\s*(\S+)\s*$/.exec(line)
    if (m === null) continue
    const where = `AUDIT.md:${find(all, /limit/)!.start + k}`
    if (!LIMIT_KEYS.includes(m[1]!)) {
      defects.push(`${where}: '${m[1]}' is not a limit (known: ${LIMIT_KEYS.join(", ")})`)
    } else if (!/^\d+$/.test(m[2]!)) defects.push(`${where}: ${m[1]} must be a whole number, found '${m[2]}'`)
    else limits[m[1]!] = Number(m[2])
  }

  const findings: Array<Record<string, unknown>> = []
  const classFindings: Array<Record<string, unknown>> = []
  const plans: Array<Record<string, unknown>> = []
  const construals: Array<Record<string, unknown>> = []
  const reports = new Map<string, Array<{ readonly rel: string; readonly fm: Record<string, unknown> }>>()
  for (const file of files) {
    const fm = frontmatter(file)
    if (typeof fm === "string") {
      defects.push(fm)
      continue
    }
    if (fm === undefined) continue // a body without a block (plans and reports need none)
    const r = record(fm)
    const dir = file.rel.split("/")[0]
    if (dir === "findings") {
      const out = { ...r, unit: asList(r["unit"]).map(unitId), body_path: file.rel }
      if (String(r["id"] ?? "").startsWith("CF-")) classFindings.push({ ...out, members: asList(r["members"]) })
      else findings.push(out)
    } else if (dir === "plans") plans.push({ ...r, findings: asList(r["findings"]), body_path: file.rel })
    else if (dir === "construals") construals.push({ ...r, body_path: file.rel })
    else if (dir === "passes") {
      const id = String(r["id"] ?? "")
      reports.set(id, [...(reports.get(id) ?? []), { rel: file.rel, fm }])
    }
  }
  coverage(queue, checked, reports, defects)
  if (defects.length > 0) return { _tag: "Defects", defects }
  const doc: Record<string, unknown> = {
    schema_version: 1,
    state_revision: 1,
    generated_by: meta.generatedBy,
    ...(meta.head !== undefined && /^[0-9a-f]{7,40}$/.test(meta.head) ? { head_before: meta.head } : {}),
    findings,
    class_findings: classFindings,
    queue,
    plans,
    construals,
    sessions: [],
    limits,
    catalogs: {
      norms: norms.map(({ id, scope, source }) => ({ id, source, scope })),
      dimensions,
      units
    }
  }
  return {
    _tag: "Doc",
    doc,
    counts: {
      norms: norms.length,
      dimensions: dimensions.length,
      units: units.length,
      passes: queue.length,
      done: checked.length,
      findings: findings.length + classFindings.length,
      plans: plans.length,
      construals: construals.length
    }
  }
}
