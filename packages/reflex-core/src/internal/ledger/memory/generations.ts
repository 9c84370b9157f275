/**
 * The in-memory ledger's generations: the history, the active one, promotion and rollback.
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ReflexError from "../../../ReflexError.js"
import type { Service, StoredGeneration } from "../../../ReflexLedger.js"
import { MAX_GENERATIONS } from "../common.js"
import type { MemoryState } from "./state.js"

/** @internal */
export const generationSteps = (
  state: MemoryState
): Pick<Service, "generations" | "activeGeneration" | "promote" | "rollback"> => {
  const { dropTrials, generations } = state
  return {
    generations: (reflex) =>
      Effect.sync(() =>
        generations.filter((g) => g.reflex === reflex).sort((a, b) => a.version - b.version).map((
          { reflex: _, ...g }
        ) => g)
      ),
    activeGeneration: (reflex) =>
      Effect.sync(() => {
        const g = generations.find((x) => x.reflex === reflex && x.active)
        return g === undefined
          ? Option.none()
          : Option.some<StoredGeneration>({
            version: g.version,
            active: true,
            createdAt: g.createdAt,
            payload: g.payload
          })
      }),
    promote: (reflex, expectedActive, atMs, payload) =>
      Effect.suspend(() => {
        const mine = generations.filter((g) => g.reflex === reflex)
        const current = mine.find((g) => g.active)?.version ?? 0
        if (current !== expectedActive) {
          return Effect.fail(ReflexError.make("conflict", "reflex generation changed; train again"))
        }
        const version = mine.reduce((m, g) => Math.max(m, g.version), 0) + 1
        const text = payload(version, current)
        for (let i = 0; i < generations.length; i++) {
          if (generations[i]!.reflex === reflex) generations[i] = { ...generations[i]!, active: false }
        }
        generations.push({ reflex, version, active: true, createdAt: atMs, payload: text })
        if (mine.length + 1 > MAX_GENERATIONS) {
          const oldest = generations.filter((g) => g.reflex === reflex && !g.active).sort((a, b) =>
            a.version - b.version
          )[0]
          if (oldest !== undefined) generations.splice(generations.indexOf(oldest), 1)
        }
        return Effect.succeed(version)
      }),
    rollback: (reflex, version) =>
      Effect.suspend(() => {
        if (version !== 0 && !generations.some((g) => g.reflex === reflex && g.version === version)) {
          return Effect.fail(ReflexError.make("not-found", `reflex generation not found: ${reflex} ${version}`))
        }
        for (let i = 0; i < generations.length; i++) {
          const g = generations[i]!
          if (g.reflex === reflex) generations[i] = { ...g, active: g.version === version }
        }
        dropTrials(reflex)
        return Effect.void
      })
  }
}
