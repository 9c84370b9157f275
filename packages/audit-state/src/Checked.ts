/**
 * The state with xcheck's full drift check (spec §5.5), the check remembered per revision
 * (ADR 0141): what `status`, `metrics` and a dispatch read. The first load at a revision checks
 * every view (through the view marks, ADR 0115) and remembers every view it verified with its
 * mark; while the store is as that revision's validated write left it, a later load stats the
 * views instead of checking them — any view whose file changed is checked again and refused on
 * drift with xcheck's message. A verb carries the check over to the revision it writes
 * ({@link carry}), so the load after a verb needs no full check either.
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import type * as AuditError from "./AuditError.js"
import type * as AuditStore from "./AuditStore.js"
import * as Remembered from "./internal/project/rememberedCheck.js"
import * as Verified from "./internal/project/verifiedViews.js"
import * as Project from "./Project.js"
import type * as State from "./State.js"

/**
 * Views verified at a revision: each file relative to `audit/`, and the four fields of its mark
 * (size, modification and change times, inode) file after file.
 *
 * @since 0.3.0
 * @category models
 */
export type VerifiedViews = Verified.VerifiedViews

/**
 * The state, after the full drift check: fails with a `drift` error (xcheck's message, naming
 * every disagreeing view) when a view disagrees, with `io` when one cannot be read safely.
 *
 * @since 0.3.0
 * @category drift
 */
export const load = Effect.fn("Checked.load")(function*(
  p: Project.ProjectPaths,
  store: AuditStore.AuditStoreShape
) {
  const doc = yield* store.load
  const known = yield* Remembered.allVerified(p, store, doc.state_revision)
  if (known !== undefined && (yield* Remembered.stillVerified(p, known))) return doc
  const verified = yield* Remembered.checkRemembering(p, store, doc, undefined)
  if (verified !== undefined) yield* Remembered.rememberAll(p, store, doc.state_revision, verified)
  return doc
})

/**
 * The views the store remembers as verified at `doc`'s revision, when it does: read before a
 * verb, to {@link carry} them over to the revision it writes.
 *
 * @since 0.3.0
 * @category drift
 */
export const remembered = (
  p: Project.ProjectPaths,
  store: AuditStore.AuditStoreShape,
  doc: State.StateDoc
): Effect.Effect<VerifiedViews | undefined, AuditError.AuditError> =>
  Remembered.allVerified(p, store, doc.state_revision)

/**
 * Carry the full check across a verb (ADR 0141): `verified` at `before`'s revision, the verb's
 * result `after` (the next revision) and the marks its render recorded for `LEDGER.md` and the
 * records it changed (`Project.renderViews` with `Project.changedRecords`). A record the verb did
 * not change renders as before, so its view is still verified while its file keeps its mark.
 * Returns whether the check was carried (it is not when a view has no mark to carry, or when
 * `after` is not the revision right after `before`).
 *
 * @since 0.3.0
 * @category drift
 */
export const carry = Effect.fn("Checked.carry")(function*(
  p: Project.ProjectPaths,
  store: AuditStore.AuditStoreShape,
  options: {
    readonly before: State.StateDoc
    readonly verified: VerifiedViews
    readonly after: State.StateDoc
    readonly rendered: ReadonlyArray<readonly [string, string]>
  }
) {
  const { after, before, rendered, verified } = options
  if (after.state_revision !== before.state_revision + 1) return false
  const changed = Project.changedRecords(before, after)
  const carried = Verified.carried(p.audit, verified, after, changed, rendered)
  if (carried === undefined) return false
  yield* Remembered.rememberAll(p, store, after.state_revision, carried)
  return true
})
