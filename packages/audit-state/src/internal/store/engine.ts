/**
 * The store engine shared by both backends: one context (the backend and the cached snapshot)
 * and the operations over it, each in its own module — reads (`read.ts`), creation
 * (`lifecycle.ts`), verbs (`apply.ts`), dispatches (`dispatch.ts`), gates (`gate.ts`) — all
 * writing through `commit.ts`.
 *
 * @internal
 */
import { makeApply } from "./apply.js"
import type { Backend } from "./backend.js"
import { makeContext } from "./context.js"
import { makeFinishDispatch, makeOpenDispatch } from "./dispatch.js"
import { makeRecordGate } from "./gate.js"
import { makeImportState, makeInit } from "./lifecycle.js"
import type { AuditStoreShape } from "./model.js"
import { makeReads } from "./read.js"

export const makeEngine = (backend: Backend): AuditStoreShape => {
  const ctx = makeContext(backend)
  return {
    ...makeReads(ctx),
    init: makeInit(ctx),
    importState: makeImportState(ctx),
    apply: makeApply(ctx),
    openDispatch: makeOpenDispatch(ctx),
    finishDispatch: makeFinishDispatch(ctx),
    recordGate: makeRecordGate(ctx)
  }
}
