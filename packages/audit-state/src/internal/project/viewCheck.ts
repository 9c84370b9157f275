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

export const checkViews = (
  audit: string,
  doc: State.StateDoc,
  records: ReadonlyArray<State.Finding>,
  options: CheckOptions
): ViewCheck => {
  const drifts: Array<Views.Drift> = []
  const marks: Array<readonly [string, string]> = []
  let refused: string | undefined
  /** Whether the view at `file` (keyed `key`) is known to agree without reading it. */
  const unchanged = (key: string, file: string) => {
    const fp = Files.fingerprint(file)
    const known = options.marks?.get(key)
    return { fp, agrees: fp !== undefined && known !== undefined && known === fp.mark }
  }
  const check = (key: string, file: string, label: string, read: (text: string) => string, expected: () => string) => {
    const { agrees, fp } = unchanged(key, file)
    if (agrees) return
    const r = Files.readText(file)
    if (r._tag === "refused") {
      refused ??= r.message
      return
    }
    const d = Views.compare(label, r._tag === "missing" ? undefined : read(r.text), expected())
    if (d) drifts.push(d)
    else if (fp !== undefined && Files.settled(fp.mtimeMs, options.nowMs)) marks.push([key, fp.mark])
  }
  check(
    LEDGER_MARK,
    nodePath.join(audit, "LEDGER.md"),
    "LEDGER.md",
    (t) => t,
    () => Views.renderLedger(doc, options.ledgerBanner)
  )
  for (const r of records) {
    if (options.only !== undefined && !options.only.has(r.id)) continue
    const file = inside(audit, r.body_path)
    if (file === undefined) continue
    check(
      r.body_path,
      file,
      r.body_path,
      (t) => Views.splitBlock(t).block ?? "",
      () => Views.renderFrontmatter(r, options.frontmatterBanner)
    )
  }
  return { drifts, marks, refused }
}
