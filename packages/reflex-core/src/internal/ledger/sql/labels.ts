/**
 * The SQL ledger's labels: writing them (a label replaces another only by the labels rules), the examples a fit reads, per-head counts.
 * @internal
 */
import * as Effect from "effect/Effect"
import type { HeadLabel } from "../../../Labels.js"
import { replaces } from "../../../Labels.js"
import type { Example } from "../../../Learning.js"
import * as ReflexError from "../../../ReflexError.js"
import type { HeadStats, Service } from "../../../ReflexLedger.js"
import { clip } from "../common.js"
import type { SqlLedger } from "./context.js"
import { decodeExamples } from "./rows.js"

/** @internal */
export const labelQueries = (ctx: SqlLedger): Pick<Service, "label" | "examples" | "stats"> => {
  const { read, sql, write } = ctx
  const insertLabels = (reflex: string, observation: string, labels: ReadonlyArray<HeadLabel>, atMs: number) =>
    Effect.gen(function*() {
      const applied: Array<boolean> = []
      for (const l of labels) {
        const existing = yield* sql<{ label: number; weight: number; source: string }>`
        SELECT label, weight, source FROM reflex_labels WHERE observation = ${observation} AND head = ${l.head}`
        const stored = existing[0]
        if (
          stored !== undefined &&
          !replaces({ label: stored.label === 1, weight: stored.weight, source: stored.source }, l)
        ) {
          applied.push(false)
          continue
        }
        const [next] = yield* sql<{ seq: number }>`SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM reflex_labels`
        const seq = next!.seq
        const source = clip(l.source, 48)
        if (stored === undefined) {
          yield* sql`INSERT INTO reflex_labels (observation, reflex, head, label, weight, source, at_ms, seq)
          VALUES (${observation}, ${reflex}, ${l.head}, ${l.label ? 1 : 0}, ${l.weight}, ${source}, ${atMs}, ${seq})`
        } else {
          yield* sql`UPDATE reflex_labels SET label = ${l.label ? 1 : 0}, weight = ${l.weight}, source = ${source},
          at_ms = ${atMs}, seq = ${seq} WHERE observation = ${observation} AND head = ${l.head}`
        }
        applied.push(true)
      }
      // retention never drops a labeled observation: the flag keeps that an index lookup
      if (applied.includes(true)) {
        yield* sql`UPDATE reflex_observations SET labeled = 1 WHERE id = ${observation} AND labeled = 0`
      }
      return applied
    })

  const countLabels = (reflex: string) =>
    sql<{ n: number }>`SELECT COUNT(*) AS n FROM reflex_labels WHERE reflex = ${reflex}`.pipe(
      Effect.map((rows) => rows[0]?.n ?? 0)
    )

  return {
    label: (reflex, observation, labels, atMs) =>
      write(
        "write labels",
        Effect.gen(function*() {
          const found = yield* sql`SELECT 1 FROM reflex_observations WHERE id = ${observation}`
          if (found.length === 0) {
            return yield* ReflexError.make("not-found", `no decision recorded for observation ${observation}`)
          }
          const before = yield* countLabels(reflex)
          const applied = yield* insertLabels(reflex, observation, labels, atMs)
          const after = yield* countLabels(reflex)
          return { before, after, written: applied.filter((x) => x).length, applied }
        })
      ),
    examples: (reflex, head, limit) =>
      read(
        "read labels",
        sql`SELECT l.observation AS observation, l.label AS label, l.weight AS weight, l.source AS source,
          l.seq AS seq, o.features AS features
        FROM reflex_labels l JOIN reflex_observations o ON o.id = l.observation
        WHERE l.reflex = ${reflex} AND l.head = ${head}
        ORDER BY l.seq DESC LIMIT ${limit}`.pipe(Effect.flatMap(decodeExamples))
      ).pipe(Effect.map((rows) =>
        rows.map((r): Example => ({
          observation: r.observation,
          features: r.features,
          label: r.label === 1,
          weight: r.weight,
          source: r.source,
          seq: r.seq
        })).reverse()
      )),
    stats: (reflex) =>
      read(
        "read label counts",
        sql<{ head: string; n: number; pos: number; seq: number }>`
        SELECT head, COUNT(*) AS n, SUM(label) AS pos, MAX(seq) AS seq FROM reflex_labels
        WHERE reflex = ${reflex} GROUP BY head`
      ).pipe(Effect.map((rows) => {
        const out: Record<string, HeadStats> = {}
        for (const r of rows) out[r.head] = { labels: r.n, positives: r.pos ?? 0, maxSeq: r.seq ?? 0 }
        return out
      }))
  }
}
