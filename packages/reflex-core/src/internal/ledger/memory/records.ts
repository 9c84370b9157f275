/**
 * The in-memory ledger's observations and labels: recording (with retention), reading, labeling,
 * the examples a fit reads, counts.
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Example } from "../../../Learning.js"
import * as ReflexError from "../../../ReflexError.js"
import type { HeadStats, Observation, Service } from "../../../ReflexLedger.js"
import type { MemoryState } from "./state.js"

/** @internal */
export const recordSteps = (
  state: MemoryState
): Pick<Service, "record" | "observation" | "latest" | "label" | "examples" | "stats" | "counts"> => {
  const { applyLabels, countLabels, insert, labels, observations, retain } = state
  return {
    record: (observation) =>
      Effect.sync(() => {
        const inserted = insert(observation)
        if (inserted) retain(observation.reflex, observation.id)
        return inserted
      }),
    observation: (id) => Effect.sync(() => Option.fromNullable(observations.get(id))),
    latest: (reflex, subject) =>
      Effect.sync(() => {
        let best: Observation | undefined
        for (const o of observations.values()) {
          if (o.reflex !== reflex || !(o.subject === subject || o.subject.startsWith(subject + "#"))) continue
          if (best === undefined || o.atMs >= best.atMs) best = o
        }
        return Option.fromNullable(best)
      }),
    label: (reflex, observation, incoming, atMs) =>
      Effect.suspend(() => {
        if (!observations.has(observation)) {
          return Effect.fail(ReflexError.make("not-found", `no decision recorded for observation ${observation}`))
        }
        const before = countLabels(reflex)
        const applied = applyLabels(reflex, observation, incoming, atMs)
        return Effect.succeed({
          before,
          after: countLabels(reflex),
          written: applied.filter((x) => x).length,
          applied
        })
      }),
    examples: (reflex, head, limit) =>
      Effect.sync(() => {
        const rows = [...labels.values()]
          .filter((l) => l.reflex === reflex && l.head === head && observations.has(l.observation))
          .sort((a, b) => a.seq - b.seq)
        return rows.slice(Math.max(0, rows.length - limit)).map((l): Example => ({
          observation: l.observation,
          features: observations.get(l.observation)!.features,
          label: l.label,
          weight: l.weight,
          source: l.source,
          seq: l.seq
        }))
      }),
    stats: (reflex) =>
      Effect.sync(() => {
        const out: Record<string, HeadStats> = {}
        for (const l of labels.values()) {
          if (l.reflex !== reflex) continue
          const cur = out[l.head] ?? { labels: 0, positives: 0, maxSeq: 0 }
          out[l.head] = {
            labels: cur.labels + 1,
            positives: cur.positives + (l.label ? 1 : 0),
            maxSeq: Math.max(cur.maxSeq, l.seq)
          }
        }
        return out
      }),
    counts: (reflex) =>
      Effect.sync(() => ({
        observed: [...observations.values()].filter((o) => o.reflex === reflex).length,
        labeled: new Set([...labels.values()].filter((l) => l.reflex === reflex).map((l) => l.observation)).size
      }))
  }
}
