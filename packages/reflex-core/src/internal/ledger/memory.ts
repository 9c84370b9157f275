/**
 * The in-memory ledger: the SQL ledger's semantics over maps. State is private to the closure and
 * every operation is one synchronous step, so each multi-row change is atomic. The steps live in
 * `memory/` by what they touch; this module wires them.
 * @internal
 */
import * as Effect from "effect/Effect"
import type { LedgerOptions, Service } from "../../ReflexLedger.js"
import { MAX_OBSERVATIONS } from "./common.js"
import { generationSteps } from "./memory/generations.js"
import { recordSteps } from "./memory/records.js"
import { makeState } from "./memory/state.js"
import { trialSteps } from "./memory/trials.js"

/** Build an in-memory ledger. @internal */
export const makeMemory = (options: LedgerOptions = {}) =>
  Effect.sync(() => {
    const state = makeState(options.maxObservations ?? MAX_OBSERVATIONS)
    const service: Service = { ...generationSteps(state), ...recordSteps(state), ...trialSteps(state) }
    return service
  })
