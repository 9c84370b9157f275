/**
 * The drift check over the generated views (spec §5.5), sped up by view marks (ADR 0115): a view
 * whose fingerprint equals the mark recorded when it was last written or found to agree — and
 * whose record has not changed since (a commit drops the marks of what it changed) — agrees
 * without being read. Every other view is read (bounded) and compared line by line, as xcheck
 * does.
 *
 * @internal
 */
import * as nodePath from "node:path"
import type { FileView } from "../../ProjectFiles.js"
import type * as State from "../../State.js"
import * as Views from "../../Views.js"
import { LEDGER_MARK } from "../store/backend.js"
import * as Files from "./files.js"

export interface ViewCheck {
  readonly drifts: ReadonlyArray<Views.Drift>
  /** Views read and found to agree whose fingerprint may be recorded (settled, regular files). */
  readonly marks: ReadonlyArray<readonly [string, string]>
  /** A view that could not be read safely (a FIFO, a device, too large): the first such message. */
  readonly refused: string | undefined
  /** Views read and found to agree that have no mark to record (modified too recently, or a symlink). */
  readonly unmarked: number
}

export interface CheckOptions {
  /** Only these records' blocks (and `LEDGER.md`); all records when absent. */
  readonly only?: ReadonlySet<string> | undefined
  /** The recorded marks; none when absent (every view is read). */
  readonly marks?: ReadonlyMap<string, string> | undefined
  readonly nowMs: number
  /** The host's `LEDGER.md` banner (default: xcheck's). */
  readonly ledgerBanner?: ReadonlyArray<string> | undefined
  /** The host's frontmatter banner (default: xcheck's). */
  readonly frontmatterBanner?: ReadonlyArray<string> | undefined
}

/** A plain relative path: no `.`/`..` segment, no empty segment, no backslash, not absolute. */
const PLAIN = /^(?!\/)(?!.*\/\/)(?!(?:.*\/)?\.\.?(?:\/|$))[^\\]+(?<!\/)$/

const inside = (audit: string, rel: string): string | undefined => {
  // a plain path joins by hand (10,000 views: path.resolve per view was a measurable share)
  if (nodePath.sep === "/" && PLAIN.test(rel)) return audit + "/" + rel
  const full = nodePath.resolve(audit, rel)
  return full.startsWith(audit + nodePath.sep) ? full : undefined
}

/**
 * The file of the view keyed `key` (a record's `body_path`, or `LEDGER.md` for the ledger), or
 * `undefined` for a record path that leaves the audit directory (that view is not checked).
 */
export const viewFile = (audit: string, key: string): string | undefined =>
  key === LEDGER_MARK ? nodePath.join(audit, "LEDGER.md") : inside(audit, key)

export const checkViews = (
  view: FileView,
  audit: string,
  doc: State.StateDoc,
  records: ReadonlyArray<State.Finding>,
  options: CheckOptions
): ViewCheck => {
  const drifts: Array<Views.Drift> = []
  const marks: Array<readonly [string, string]> = []
  const known = options.marks
  const only = options.only
  let refused: string | undefined
  let unmarked = 0
  /** Read the view, compare it, and note its mark when it agrees (the rare path: no current mark). */
  const read = (key: string, file: string, mark: string | undefined, r: State.Finding | undefined) => {
    const text = Files.readText(view, file)
    if (text._tag === "refused") {
      refused ??= text.message
      return
    }
    const d = r === undefined
      ? Views.compare(
        "LEDGER.md",
        text._tag === "missing" ? undefined : text.text,
        Views.renderLedger(doc, options.ledgerBanner)
      )
      : Views.compare(
        key,
        text._tag === "missing" ? undefined : Views.splitBlock(text.text).block ?? "",
        Views.renderFrontmatter(r, options.frontmatterBanner)
      )
    if (d) drifts.push(d)
    else if (mark !== undefined && Files.settled(Files.markTime(mark), options.nowMs)) marks.push([key, mark])
    else unmarked++
  }
  const ledger = nodePath.join(audit, "LEDGER.md")
  const ledgerMark = view.mark(ledger)
  if (ledgerMark === undefined || known?.get(LEDGER_MARK) !== ledgerMark) {
    read(LEDGER_MARK, ledger, ledgerMark, undefined)
  }
  // one stat per view and no allocation beyond its mark: 10,000 views is the hot loop of a full check
  for (let k = 0; k < records.length; k++) {
    const r = records[k]!
    if (only !== undefined && !only.has(r.id)) continue
    const file = inside(audit, r.body_path)
    if (file === undefined) continue
    const mark = view.mark(file)
    if (mark !== undefined && known !== undefined && known.get(r.body_path) === mark) continue
    read(r.body_path, file, mark, r)
  }
  return { drifts, marks, refused, unmarked }
}
