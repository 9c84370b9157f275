/**
 * The state with xcheck's full drift check (spec §5.5), the check remembered per revision
 * (ADR 0141): what `status`, `metrics` and a dispatch read. The first load at a revision checks
 * every view (through the view marks, ADR 0115) and records a memo of every view it verified with
 * its mark; while the store is as that revision's validated write left it, a later load stats the
 * views instead of checking them — any view whose file changed is checked again and refused on
 * drift with xcheck's message.
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as AuditStore from "./AuditStore.js"
import * as Remembered from "./internal/project/rememberedCheck.js"
import type * as Project from "./Project.js"

/** The store's memo name for the full check (ADR 0141). */
const MEMO = "views"

const Body = Schema.parseJson(Schema.Struct(Remembered.verifiedFields))
const decodeBody = Schema.decodeOption(Body)
const encodeBody = Schema.encodeOption(Body)

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
  const basis = JSON.stringify(Remembered.bannerBasis(p))
  const memo = yield* store.memo(MEMO)
  const doc = yield* store.load
  const body = memo === undefined || memo.basis !== basis || memo.revision !== doc.state_revision
    ? undefined
    : Option.getOrUndefined(decodeBody(memo.body))
  if (body !== undefined && (yield* Remembered.stillVerified(p, body))) return doc
  const verified = yield* Remembered.checkRemembering(p, store, doc, undefined)
  const encoded = verified === undefined ? Option.none() : encodeBody(verified)
  if (Option.isSome(encoded)) yield* store.putMemo(MEMO, { revision: doc.state_revision, basis, body: encoded.value })
  return doc
})
