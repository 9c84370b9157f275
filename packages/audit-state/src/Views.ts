/**
 * Generated views (spec §5.4): `LEDGER.md` and each record's frontmatter block. Views are
 * rendered from state and never read back as authority; a difference is drift (§5.5).
 *
 * @since 0.1.0
 */
import * as AuditError from "./AuditError.js"
import * as State from "./State.js"

/**
 * The LEDGER banner.
 *
 * @since 0.1.0
 * @category rendering
 */
export const LEDGER_BANNER = [
  "<!-- GENERATED FROM audit/state.json — DO NOT EDIT.",
  "     This table is a VIEW. It is rendered from the state document and is never",
  "     read back as authority. An edit here is refused by every command as drift,",
  "     naming this file and the row: re-render with `xcheck render-views`, or change",
  "     the state itself through an xcheck write verb. -->"
]

const SPECIAL = /[\\|\r\n]/

const cell = (s: string): string =>
  // most cells hold nothing to escape: one test instead of three replacements (10,000 rows a verb)
  SPECIAL.test(s) ? s.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\r?\n|\r/g, " ").trim() : s.trim()

/**
 * Render `LEDGER.md`: findings and class findings sorted by id. `banner` replaces xcheck's
 * comment (a host names its own store and re-render command there; keep it five lines so drift
 * line numbers match xcheck's).
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderLedger = (doc: State.StateDoc, banner: ReadonlyArray<string> = LEDGER_BANNER): string => {
  const rows = [...State.records(doc)].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  const lines = [
    `# LEDGER — ${rows.length} record(s)`,
    "",
    ...banner,
    "",
    "| id | title | severity | status | next | updated |",
    "|---|---|---|---|---|---|",
    ...rows.map((r) =>
      `| ${[r.id, r.title, r.severity, r.status, State.nextOwner(r), r.updated].map(cell).join(" | ")} |`
    )
  ]
  return lines.join("\n") + "\n"
}

const FRONTMATTER_FIELDS: ReadonlyArray<readonly [string, keyof State.Finding, boolean]> = [
  ["id", "id", false],
  ["title", "title", false],
  ["severity", "severity", false],
  ["dimension", "dimension", false],
  ["unit", "unit", false],
  ["status", "status", false],
  ["class", "class", true],
  ["members", "members", false],
  ["attempts", "attempts", false],
  ["recurrence-of", "recurrence_of", true],
  ["blocked", "blocked", true],
  ["norm-ruling", "norm_ruling", true],
  ["refusal", "refusal", true],
  ["admitted-scope", "admitted_scope", true],
  ["pass", "pass", false],
  ["created-by", "created_by", false],
  ["updated", "updated", false],
  ["fixed-by", "fixed_by", false]
]

const yamlValue = (v: unknown): string =>
  Array.isArray(v)
    ? (v.length === 1 ? String(v[0]) : `[${v.map(String).join(", ")}]`)
    : String(v).replace(/\r?\n/g, " ")

/**
 * The frontmatter block's banner: xcheck's two comment lines naming `state.json`. A host that
 * keeps its state elsewhere passes its own (each line a `#` comment; keep two lines so drift line
 * numbers match xcheck's).
 *
 * @since 0.3.0
 * @category rendering
 */
export const FRONTMATTER_BANNER: ReadonlyArray<string> = [
  "# GENERATED FROM audit/state.json — DO NOT EDIT THIS BLOCK",
  "# an edit here is refused as drift; change state with an xcheck write verb"
]

/**
 * The frontmatter block of one record (`---` … `---`, with a trailing newline). `banner`
 * replaces xcheck's comment lines ({@link FRONTMATTER_BANNER}).
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderFrontmatter = (r: State.Finding, banner: ReadonlyArray<string> = FRONTMATTER_BANNER): string => {
  const lines = ["---", ...banner]
  for (const [name, key, nullable] of FRONTMATTER_FIELDS) {
    const v = r[key]
    if (v === undefined || v === null) {
      if (nullable) lines.push(`${name}: null`)
      continue
    }
    lines.push(`${name}: ${yamlValue(v)}`)
  }
  lines.push("---")
  return lines.join("\n") + "\n"
}

/**
 * Split a body file into its leading frontmatter block (if any) and the body below it.
 *
 * @since 0.1.0
 * @category rendering
 */
export const splitBlock = (text: string): { readonly block: string | undefined; readonly body: string } => {
  if (!text.startsWith("---\n")) return { block: undefined, body: text }
  const end = text.indexOf("\n---\n", 3)
  if (end < 0) {
    if (text.endsWith("\n---")) return { block: text + "\n", body: "" }
    return { block: undefined, body: text }
  }
  return { block: text.slice(0, end + 5), body: text.slice(end + 5) }
}

/**
 * Write a record's block into its body text: replaces the leading block or prepends one; the
 * body below is preserved byte for byte, with a leading newline ensured. `banner` as in
 * {@link renderFrontmatter}.
 *
 * @since 0.1.0
 * @category rendering
 */
export const applyFrontmatter = (
  text: string | undefined,
  r: State.Finding,
  banner: ReadonlyArray<string> = FRONTMATTER_BANNER
): string => {
  const { body } = splitBlock(text ?? "")
  return renderFrontmatter(r, banner) + (body.startsWith("\n") ? body : "\n" + body)
}

/**
 * One drifted view line.
 *
 * @since 0.1.0
 * @category drift
 */
export interface Drift {
  /** Path relative to `audit/`. */
  readonly file: string
  /** 1-based line, or 0 when the file is missing. */
  readonly line: number
  readonly found: string
  readonly expected: string
}

/**
 * Compare a view's text with what state renders (trailing whitespace ignored); the first
 * differing line, or `undefined`.
 *
 * @since 0.1.0
 * @category drift
 */
export const compare = (file: string, actual: string | undefined, expected: string): Drift | undefined => {
  if (actual === undefined) return { file, line: 0, found: "the file is missing", expected: expected.split("\n")[0]! }
  const a = actual.split("\n").map((l) => l.trimEnd())
  const e = expected.split("\n").map((l) => l.trimEnd())
  while (a.length > 0 && a[a.length - 1] === "") a.pop()
  while (e.length > 0 && e[e.length - 1] === "") e.pop()
  const n = Math.max(a.length, e.length)
  for (let k = 0; k < n; k++) {
    if (a[k] !== e[k]) return { file, line: k + 1, found: a[k] ?? "<end of file>", expected: e[k] ?? "<end of file>" }
  }
  return undefined
}

/**
 * The verb that repairs drift: the hint a drift refusal carries (ADR 0135).
 *
 * @since 0.3.0
 * @category drift
 */
export const RENDER_VIEWS: AuditError.Hint = { verb: "render-views", args: [] }

/**
 * The drift message every consumer refuses with.
 *
 * @since 0.1.0
 * @category drift
 */
export const driftMessage = (drifts: ReadonlyArray<Drift>): string =>
  `${drifts.length} generated view(s) disagree with state.json:\n${
    drifts.map((d) =>
      d.line === 0
        ? `  - ${d.file} — the file is missing`
        : `  - ${d.file}:${d.line} — the file says '${d.found}', state.json says '${d.expected}'`
    ).join("\n")
  }\nViews are never read back as authority: re-render them with ${
    AuditError.command(RENDER_VIEWS)
  } (xcheck render-views), or change the state through a write verb.`
