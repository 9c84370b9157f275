/**
 * The drift check whose result is remembered (ADR 0141): check the views, refuse on drift with
 * xcheck's message, record the marks of what was read, and return what was verified — for a memo
 * a later check believes while every verified view keeps its mark.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as AuditError from "../../AuditError.js"
import type * as AuditStore from "../../AuditStore.js"
import * as Project from "../../Project.js"
import * as ProjectFiles from "../../ProjectFiles.js"
import * as State from "../../State.js"
import * as Views from "../../Views.js"
import { LEDGER_MARK } from "../store/backend.js"
import * as Verified from "./verifiedViews.js"

export type VerifiedViews = Verified.VerifiedViews

/** A long array checked in one pass (10,000 views: element-wise decoding was most of a hit's cost). */
const arrayOf = <A>(is: (u: unknown) => u is A, what: string) =>
  Schema.declare((u: unknown): u is ReadonlyArray<A> => Array.isArray(u) && u.every(is), {
    identifier: `ArrayOf${what}`
  })

/** A list of text, checked in one pass. */
export const Strings = arrayOf((u): u is string => typeof u === "string", "String")

/** The fields a memo's verified views are stored as. */
export const verifiedFields = {
  files: Strings,
  marks: arrayOf((u): u is number => typeof u === "number", "Number")
}

/** What else a view check depends on than the state: the host's banners. */
export const bannerBasis = (p: Project.ProjectPaths): ReadonlyArray<unknown> => [
  p.ledgerBanner ?? null,
  p.frontmatterBanner ?? null
]

/** The store's memo name for every view verified at a revision. */
const ALL_VIEWS = "views"
const AllViews = Schema.parseJson(Schema.Struct(verifiedFields))
const decodeAllViews = Schema.decodeOption(AllViews)
const encodeAllViews = Schema.encodeOption(AllViews)

/** Every view verified at `revision`, when the store remembers them for these banners. */
export const allVerified = (p: Project.ProjectPaths, store: AuditStore.AuditStoreShape, revision: number) =>
  Effect.map(
    store.memo(ALL_VIEWS),
    (memo): Verified.VerifiedViews | undefined =>
      memo === undefined || memo.revision !== revision || memo.basis !== JSON.stringify(bannerBasis(p))
        ? undefined
        : Option.getOrUndefined(decodeAllViews(memo.body))
  )

/** Remember every view verified at `revision` (nothing is kept once the store has moved past it). */
export const rememberAll = (
  p: Project.ProjectPaths,
  store: AuditStore.AuditStoreShape,
  revision: number,
  verified: Verified.VerifiedViews
) =>
  Option.match(encodeAllViews(verified), {
    onNone: () => Effect.void,
    onSome: (body) => store.putMemo(ALL_VIEWS, { revision, basis: JSON.stringify(bannerBasis(p)), body })
  })

/**
 * Check `LEDGER.md` and the views of the records in `only` (all when absent) against `doc`,
 * failing with a `drift` error when any disagrees; the views verified, or `undefined` when one
 * cannot be vouched for by its mark yet.
 */
export const checkRemembering = (
  p: Project.ProjectPaths,
  store: AuditStore.AuditStoreShape,
  doc: State.StateDoc,
  only: ReadonlySet<string> | undefined
) =>
  Effect.gen(function*() {
    const keys = [
      LEDGER_MARK,
      ...State.records(doc).filter((r) => only === undefined || only.has(r.id)).map((r) => r.body_path)
    ]
    const known = yield* store.viewMarks(only === undefined ? undefined : keys)
    const report = yield* Project.checkViews(p, doc, { only, marks: known })
    if (report.drifts.length > 0) {
      return yield* Effect.fail(
        AuditError.make("drift", Views.driftMessage(report.drifts), { drifts: report.drifts }, [Views.RENDER_VIEWS])
      )
    }
    yield* store.markViews(doc.state_revision, report.marks)
    return Verified.verify(p.audit, keys, known, report.marks, report.unmarked)
  })

/** Whether every view in `verified` still has the mark it was verified with. */
export const stillVerified = (p: Project.ProjectPaths, verified: Verified.VerifiedViews) =>
  Effect.map(ProjectFiles.current, (view) => Verified.stillVerified(view, p.audit, verified))
