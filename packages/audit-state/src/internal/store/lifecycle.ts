/**
 * Creating a state: `init` (empty, revision 0) and `importState` (xcheck's `state.json` and its
 * `events.jsonl`, verified against the anchor, re-chained), each into an empty store only.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as AuditError from "../../AuditError.js"
import * as Events from "../../Events.js"
import * as State from "../../State.js"
import type { Tx } from "./backend.js"
import type { EngineContext } from "./context.js"
import type { AuditStoreShape } from "./model.js"

const refuseExisting = (tx: Tx, verb: "init" | "import") =>
  Effect.flatMap(tx.marker, (m) =>
    m === undefined ? Effect.void : Effect.fail(
      AuditError.make(
        "refused",
        `an audit state already exists (revision ${m.revision}); ${verb} refuses to overwrite it`
      )
    ))

export const makeInit = (ctx: EngineContext): AuditStoreShape["init"] =>
  Effect.fn("AuditStore.init")(function*(generatedBy: string) {
    return yield* ctx.backend.transact(true, (tx) =>
      Effect.gen(function*() {
        yield* refuseExisting(tx, "init")
        const doc = State.empty(generatedBy)
        yield* tx.persist(undefined, doc, 0)
        yield* tx.seal({ revision: 0, events: 0, head: Events.GENESIS })
        ctx.cache = { doc, revision: 0, events: 0, head: Events.GENESIS, status: "intact" }
        return doc
      }))
  })

/** The imported stream, verified and anchored by the imported state, re-chained from genesis. */
const importedLines = (doc: State.StateDoc, eventsText: string | undefined) =>
  Effect.gen(function*() {
    const rawLines = eventsText === undefined ? [] : eventsText.split("\n").filter((l) => l.trim().length > 0)
    const v = Events.verify(rawLines)
    if (Events.isDefect(v)) {
      return yield* Effect.fail(AuditError.make("ledger", `import events.jsonl: ${v.message} (${v.state})`))
    }
    const status = Events.anchorStatus(doc.ledger_anchor, rawLines.length, (k) => v.heads[k])
    if (status !== "intact") {
      return yield* Effect.fail(
        AuditError.make(
          "ledger",
          `import: the event stream does not match the state's ledger_anchor (${status}) — import the events.jsonl the state was written with`
        )
      )
    }
    let head = Events.GENESIS
    const lines = v.events.map((e) => {
      const l = Events.link(head, e)
      head = l.head
      return l
    })
    return { lines, head, legacyChained: v.legacy }
  })

export const makeImportState = (ctx: EngineContext): AuditStoreShape["importState"] =>
  Effect.fn("AuditStore.importState")(function*(stateText: string, eventsText?: string) {
    const doc = yield* State.decodeText(stateText, "import state.json")
    const { head, legacyChained, lines } = yield* importedLines(doc, eventsText)
    return yield* ctx.backend.transact(true, (tx) =>
      Effect.gen(function*() {
        yield* refuseExisting(tx, "import")
        yield* tx.reset
        yield* tx.persist(undefined, doc, lines.length)
        if (lines.length > 0) yield* tx.append(0, lines, false)
        yield* tx.seal({ revision: doc.state_revision, events: lines.length, head })
        ctx.cache = { doc, revision: doc.state_revision, events: lines.length, head, status: "intact" }
        return { revision: doc.state_revision, records: State.records(doc).length, events: lines.length, legacyChained }
      }))
  })
