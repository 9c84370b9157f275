/**
 * The in-memory ledger's trials and certificates, and the all-or-nothing history import.
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Service } from "../../../ReflexLedger.js"
import { importConflict } from "../common.js"
import type { MemoryState } from "./state.js"

/** @internal */
export const trialSteps = (
  state: MemoryState
): Pick<Service, "trial" | "putTrial" | "deleteTrial" | "certificate" | "putCertificate" | "importRows"> => {
  const { applyLabels, certificates, dropTrials, insert, key, labels, observations, retain, trials } = state
  return {
    trial: (reflex, head) => Effect.sync(() => Option.fromNullable(trials.get(key(reflex, head)))),
    putTrial: (reflex, head, trial) => Effect.sync(() => void trials.set(key(reflex, head), trial)),
    deleteTrial: (reflex, head) => Effect.sync(() => void trials.delete(key(reflex, head))),
    certificate: (reflex, head) => Effect.sync(() => Option.fromNullable(certificates.get(key(reflex, head)))),
    putCertificate: (reflex, head, c) =>
      Effect.sync(() => {
        const stored = certificates.get(key(reflex, head))
        if (stored !== undefined && stored.through > c.through) return false
        certificates.set(key(reflex, head), c)
        return true
      }),
    importRows: (reflex, rows, atMs) =>
      Effect.suspend(() => {
        // all or nothing: every stored id must be the same example before anything is written
        for (const row of rows) {
          const stored = observations.get(row.observation.id)
          if (stored === undefined) continue
          const label = labels.get(key(stored.id, stored.head))
          const conflict = importConflict(row, {
            id: stored.id,
            features: JSON.stringify(stored.features),
            label: label === undefined ? null : label.label ? 1 : 0,
            weight: label?.weight ?? null,
            source: label?.source ?? null
          })
          if (conflict !== undefined) return Effect.fail(conflict)
        }
        let inserted = 0
        for (const row of rows) {
          if (!insert(row.observation)) continue
          inserted++
          applyLabels(reflex, row.observation.id, row.labels, atMs)
        }
        dropTrials(reflex)
        if (inserted > 0) retain(reflex)
        return Effect.succeed(inserted)
      })
  }
}
