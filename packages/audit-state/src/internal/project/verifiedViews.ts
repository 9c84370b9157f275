/**
 * Views verified at a revision (ADR 0141): the views a drift check found agreeing with the state,
 * each with the mark (ADR 0115) its file had then. While the state is still at that revision and
 * every file still has its mark, every one of those views still agrees — a later check needs to
 * stat them, not to load the state or read a view.
 *
 * @internal
 */
import * as nodePath from "node:path"
import type { FileView } from "../../ProjectFiles.js"
import * as State from "../../State.js"
import { LEDGER_MARK } from "../store/backend.js"
import * as Files from "./files.js"
import * as ViewCheck from "./viewCheck.js"

export interface VerifiedViews {
  /** Each view's file, relative to the audit directory, in check order. */
  readonly files: ReadonlyArray<string>
  /** The four fields of each file's mark (`size:mtimeMs:ctimeMs:id`), file after file. */
  readonly marks: ReadonlyArray<number>
}

/** A mark's four fields, when it is four numbers that print back as the mark. */
const fields = (mark: string): ReadonlyArray<number> | undefined => {
  const parts = mark.split(":")
  if (parts.length !== 4) return undefined
  const numbers = parts.map(Number)
  return numbers.join(":") === mark ? numbers : undefined
}

/**
 * What a check of the views `keys` (`LEDGER.md`, or a record's `body_path`) verified, from the
 * marks it was given (`known`: the views whose file still had its recorded mark) and those it
 * recorded (`seen`: the views it read and found to agree). `undefined` when some view agreed
 * without a mark to keep (`unmarked`) or has no mark — the next check must look at it again.
 */
export const verify = (
  audit: string,
  keys: ReadonlyArray<string>,
  known: ReadonlyMap<string, string>,
  seen: ReadonlyArray<readonly [string, string]>,
  unmarked: number
): VerifiedViews | undefined => {
  if (unmarked > 0) return undefined
  const fresh = new Map(seen)
  const files: Array<string> = []
  const marks: Array<number> = []
  for (const key of keys) {
    const file = ViewCheck.viewFile(audit, key)
    // a record path that leaves the audit directory is not checked (nor kept)
    if (file === undefined) continue
    const mark = fresh.get(key) ?? known.get(key)
    const four = mark === undefined ? undefined : fields(mark)
    if (four === undefined) return undefined
    files.push(file.slice(audit.length + 1))
    marks.push(...four)
  }
  return { files, marks }
}

/**
 * The views verified at the revision a verb wrote, from those verified at the one it started
 * from (`old`): a record the verb did not change renders as before, so its view keeps the mark it
 * was verified with; `LEDGER.md` and the `changed` records take the marks their render recorded
 * (`rendered`). `undefined` when a view has neither.
 */
export const carried = (
  audit: string,
  old: VerifiedViews,
  after: State.StateDoc,
  changed: ReadonlySet<string>,
  rendered: ReadonlyArray<readonly [string, string]>
): VerifiedViews | undefined => {
  const fresh = new Map(rendered)
  const before = new Map<string, number>()
  for (let k = 0; k < old.files.length; k++) before.set(old.files[k]!, 4 * k)
  const files: Array<string> = []
  const marks: Array<number> = []
  const ledger = fresh.get(LEDGER_MARK)
  const ledgerFields = ledger === undefined ? undefined : fields(ledger)
  if (ledgerFields === undefined) return undefined
  files.push("LEDGER.md")
  marks.push(...ledgerFields)
  for (const r of State.records(after)) {
    const file = ViewCheck.viewFile(audit, r.body_path)
    if (file === undefined) continue
    const rel = file.slice(audit.length + 1)
    if (changed.has(r.id)) {
      const mark = fresh.get(r.body_path)
      const four = mark === undefined ? undefined : fields(mark)
      if (four === undefined) return undefined
      marks.push(...four)
    } else {
      const at = before.get(rel)
      if (at === undefined) return undefined
      marks.push(old.marks[at]!, old.marks[at + 1]!, old.marks[at + 2]!, old.marks[at + 3]!)
    }
    files.push(rel)
  }
  return { files, marks }
}

/** Whether every verified view's file still has the mark it had when it was verified. */
export const stillVerified = (view: FileView, audit: string, verified: VerifiedViews): boolean => {
  const { files, marks } = verified
  if (marks.length !== 4 * files.length) return false
  // the real disk compares the stat fields without printing a mark: this loop is the whole cost
  // of `next` on a memo at 10,000 views
  if (view === Files.nodeView) return Files.unchangedSince(audit, files, marks)
  for (let k = 0; k < files.length; k++) {
    const mark = view.mark(nodePath.join(audit, files[k]!))
    if (mark !== `${marks[4 * k]}:${marks[4 * k + 1]}:${marks[4 * k + 2]}:${marks[4 * k + 3]}`) return false
  }
  return true
}
