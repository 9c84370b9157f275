/**
 * The in-memory ledger's state (private maps) and the steps its operations share: applying labels,
 * inserting an observation, retention at the cap. Every step is synchronous, so each multi-row
 * change is atomic.
 * @internal
 */
import type { HeadLabel } from "../../../Labels.js"
import { replaces } from "../../../Labels.js"
import type { Observation, StoredCertificate, StoredGeneration, Trial } from "../../../ReflexLedger.js"
import { clip } from "../common.js"

/** A stored label. @internal */
export interface MemoryLabel extends HeadLabel {
  readonly observation: string
  readonly reflex: string
  readonly atMs: number
  readonly seq: number
}

/** The maps and the shared steps. @internal */
export interface MemoryState {
  readonly generations: Array<{ readonly reflex: string } & StoredGeneration>
  readonly observations: Map<string, Observation>
  readonly labels: Map<string, MemoryLabel>
  readonly trials: Map<string, Trial>
  readonly certificates: Map<string, StoredCertificate>
  readonly key: (a: string, b: string) => string
  readonly applyLabels: (
    reflex: string,
    observation: string,
    incoming: ReadonlyArray<HeadLabel>,
    atMs: number
  ) => Array<boolean>
  readonly retain: (reflex: string, keep?: string) => void
  readonly insert: (o: Observation) => boolean
  readonly countLabels: (reflex: string) => number
  readonly dropTrials: (reflex: string) => void
}

/** Fresh state under a cap. @internal */
export const makeState = (maxObservations: number): MemoryState => {
  const generations: Array<{ readonly reflex: string } & StoredGeneration> = []
  const observations = new Map<string, Observation>()
  const labels = new Map<string, MemoryLabel>()
  const trials = new Map<string, Trial>()
  const certificates = new Map<string, StoredCertificate>()
  const labeled = new Set<string>()
  const counts = new Map<string, number>()
  const state = { seq: 0 }
  const key = (a: string, b: string) => `${a}\0${b}`

  const applyLabels = (reflex: string, observation: string, incoming: ReadonlyArray<HeadLabel>, atMs: number) => {
    const applied: Array<boolean> = []
    for (const l of incoming) {
      const k = key(observation, l.head)
      const stored = labels.get(k)
      if (stored !== undefined && !replaces(stored, l)) {
        applied.push(false)
        continue
      }
      state.seq++
      labels.set(k, { ...l, source: clip(l.source, 48), observation, reflex, atMs, seq: state.seq })
      labeled.add(observation)
      applied.push(true)
    }
    return applied
  }

  // As in SQL: past the cap, the oldest unlabeled observations go, down to 1% under the cap, in
  // one batch; labeled observations are never dropped (ADR 0407).
  const retain = (reflex: string, keep = "") => {
    const count = counts.get(reflex) ?? 0
    if (count <= maxObservations) return
    const target = maxObservations - Math.floor(maxObservations / 100)
    const unlabeled = [...observations.values()].filter((o) =>
      o.reflex === reflex && !labeled.has(o.id) && o.id !== keep
    )
    const order = unlabeled.sort((a, b) => a.atMs - b.atMs)
    for (const o of order.slice(0, count - target)) observations.delete(o.id)
    counts.set(reflex, count - Math.min(order.length, count - target))
  }

  const insert = (o: Observation): boolean => {
    if (observations.has(o.id)) return false
    observations.set(o.id, { ...o, subject: clip(o.subject, 200), gate: clip(o.gate, 32) })
    counts.set(o.reflex, (counts.get(o.reflex) ?? 0) + 1)
    return true
  }

  const countLabels = (reflex: string) => {
    let n = 0
    for (const l of labels.values()) if (l.reflex === reflex) n++
    return n
  }

  const dropTrials = (reflex: string) => {
    for (const k of [...trials.keys()]) if (k.startsWith(`${reflex}\0`)) trials.delete(k)
  }

  return {
    generations,
    observations,
    labels,
    trials,
    certificates,
    key,
    applyLabels,
    retain,
    insert,
    countLabels,
    dropTrials
  }
}
