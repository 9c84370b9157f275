/**
 * The in-memory ledger: the SQL ledger's semantics over maps. State is private to the closure and
 * every operation is one synchronous step, so each multi-row change is atomic.
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { HeadLabel } from "../../Labels.js"
import { replaces } from "../../Labels.js"
import type { Example } from "../../Learning.js"
import * as ReflexError from "../../ReflexError.js"
import type {
  HeadStats,
  LedgerOptions,
  Observation,
  Service,
  StoredCertificate,
  StoredGeneration,
  Trial
} from "../../ReflexLedger.js"
import { clip, importConflict, MAX_GENERATIONS, MAX_OBSERVATIONS } from "./common.js"

interface MemoryLabel extends HeadLabel {
  readonly observation: string
  readonly reflex: string
  readonly atMs: number
  readonly seq: number
}

/** Build an in-memory ledger. @internal */
export const makeMemory = (options: LedgerOptions = {}) =>
  Effect.sync(() => {
    const maxObservations = options.maxObservations ?? MAX_OBSERVATIONS
    const generations: Array<{ readonly reflex: string } & StoredGeneration> = []
    const observations = new Map<string, Observation>()
    const labels = new Map<string, MemoryLabel>()
    const trials = new Map<string, Trial>()
    const certificates = new Map<string, StoredCertificate>()
    const labeled = new Set<string>()
    const counts = new Map<string, number>()
    let seq = 0
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
        seq++
        labels.set(k, { ...l, source: clip(l.source, 48), observation, reflex, atMs, seq })
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

    const service: Service = {
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
            const oldest = generations.filter((g) =>
              g.reflex === reflex && !g.active
            ).sort((a, b) => a.version - b.version)[0]
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
        }),
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
        })),
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
    return service
  })
