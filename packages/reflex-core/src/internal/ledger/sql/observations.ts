/**
 * The SQL ledger's observations: recording one (with retention at the cap, ADR 0407), reading one, counts.
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Observation, Service } from "../../../ReflexLedger.js"
import { clip } from "../common.js"
import type { SqlLedger } from "./context.js"
import { decodeObservation, toObservation } from "./rows.js"

/**
 * Past the cap, drop the oldest unlabeled observations down to the low-water mark in one batch.
 * @internal
 */
export const retention = (ctx: SqlLedger) => {
  const { insertionOrder, maxObservations, sql } = ctx
  // The per-reflex observation count lives in `reflex_counts` (kept in the same transactions), so
  // the retention check is one primary-key read instead of a scan.
  // Past the cap, drop the oldest unlabeled observations down to the low-water mark in one batch
  // (1% under the cap), found through the (reflex, labeled, at_ms) index: a write costs what it
  // drops, not a sort of the ledger. Labeled observations are never dropped, nor the one just
  // recorded (ADR 0407).
  const retain = (reflex: string, keep = "") =>
    Effect.gen(function*() {
      const [row] = yield* sql<{ n: number }>`SELECT observations AS n FROM reflex_counts WHERE reflex = ${reflex}`
      const count = Number(row?.n ?? 0)
      if (count <= maxObservations) return
      const target = maxObservations - Math.floor(maxObservations / 100)
      const dropped = yield* sql<{ id: string }>`SELECT id FROM reflex_observations
        WHERE reflex = ${reflex} AND labeled = 0 AND id <> ${keep}
        ORDER BY at_ms, ${insertionOrder} LIMIT ${count - target}`
      if (dropped.length === 0) return
      for (let i = 0; i < dropped.length; i += 400) {
        const ids = dropped.slice(i, i + 400).map((d) => d.id)
        yield* sql`DELETE FROM reflex_observations WHERE ${sql.in("id", ids)}`
      }
      yield* sql`UPDATE reflex_counts SET observations = reflex_counts.observations - ${dropped.length}
        WHERE reflex = ${reflex}`
    })

  return retain
}

/** @internal */
export const observationQueries = (
  ctx: SqlLedger
): Pick<Service, "record" | "observation" | "latest" | "counts"> => {
  const { insertionOrder, read, sql, write } = ctx
  const retain = retention(ctx)
  const insertObservation = (o: Observation) =>
    sql`INSERT INTO reflex_observations
    (id, reflex, subject, head, value, gate, score, features, evidence, params_version, program, receipt, at_ms)
    VALUES (${o.id}, ${o.reflex}, ${clip(o.subject, 200)}, ${o.head}, ${o.value}, ${clip(o.gate, 32)}, ${o.score},
      ${JSON.stringify(o.features)}, ${JSON.stringify(o.evidence)}, ${o.paramsVersion}, ${o.program}, ${o.receipt},
      ${o.atMs}) ON CONFLICT DO NOTHING RETURNING id`.pipe(
      Effect.map((inserted) => inserted.length > 0),
      Effect.tap((inserted) =>
        inserted
          ? sql`INSERT INTO reflex_counts (reflex, observations) VALUES (${o.reflex}, 1)
            ON CONFLICT (reflex) DO UPDATE SET observations = reflex_counts.observations + 1`
          : Effect.void
      )
    )

  return {
    record: (observation) =>
      write(
        "record an observation",
        Effect.gen(function*() {
          const inserted = yield* insertObservation(observation)
          if (inserted) yield* retain(observation.reflex, observation.id)
          return inserted
        }),
        true
      ),
    observation: (id) =>
      read(
        "read an observation",
        sql`SELECT * FROM reflex_observations WHERE id = ${id}`.pipe(
          Effect.flatMap((rows) =>
            rows.length === 0
              ? Effect.succeed(Option.none<Observation>())
              : Effect.map(decodeObservation(rows[0]), (r) => Option.some(toObservation(r)))
          )
        )
      ),
    latest: (reflex, subject) =>
      read(
        "read the latest observation",
        sql`SELECT * FROM reflex_observations WHERE reflex = ${reflex}
        AND (subject = ${subject} OR substr(subject, 1, ${subject.length + 1}) = ${subject + "#"})
        ORDER BY at_ms DESC, ${insertionOrder} DESC LIMIT 1`.pipe(
          Effect.flatMap((rows) =>
            rows.length === 0
              ? Effect.succeed(Option.none<Observation>())
              : Effect.map(decodeObservation(rows[0]), (r) => Option.some(toObservation(r)))
          )
        )
      ),
    counts: (reflex) =>
      read(
        "count observations",
        Effect.all([
          sql<{ n: number }>`SELECT COUNT(*) AS n FROM reflex_observations WHERE reflex = ${reflex}`,
          sql<{ n: number }>`SELECT COUNT(DISTINCT observation) AS n FROM reflex_labels WHERE reflex = ${reflex}`
        ])
      ).pipe(Effect.map(([o, l]) => ({ observed: o[0]?.n ?? 0, labeled: l[0]?.n ?? 0 })))
  }
}
