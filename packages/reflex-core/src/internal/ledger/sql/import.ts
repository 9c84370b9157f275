/**
 * The SQL ledger's history import: batched, idempotent for the same example, refused for a different one.
 * @internal
 */
import * as Effect from "effect/Effect"
import type { Service } from "../../../ReflexLedger.js"
import { clip, importConflict, type StoredImport } from "../common.js"
import type { SqlLedger } from "./context.js"
import { retention } from "./observations.js"

/** @internal */
export const importQueries = (ctx: SqlLedger): Pick<Service, "importRows"> => {
  const { sql, write } = ctx
  const retain = retention(ctx)
  return {
    importRows: (reflex, rows, atMs) =>
      write(
        "import history",
        Effect.gen(function*() {
          // Batched: find the ids already stored, insert the new observations and their labels
          // in multi-row statements (a new observation has no labels yet). A stored id is
          // idempotent only when it is the same example; a different one is refused.
          const chunk = 400
          const existing = new Set<string>()
          for (let i = 0; i < rows.length; i += chunk) {
            const part = rows.slice(i, i + chunk)
            const found = yield* sql<StoredImport>`SELECT o.id AS id, o.features AS features, l.label AS label,
              l.weight AS weight, l.source AS source
              FROM reflex_observations o LEFT JOIN reflex_labels l ON l.observation = o.id AND l.head = o.head
              WHERE ${sql.in("o.id", part.map((r) => r.observation.id))}`
            const byId = new Map(found.map((f) => [f.id, f]))
            for (const row of part) {
              const stored = byId.get(row.observation.id)
              if (stored === undefined) continue
              const conflict = importConflict(row, stored)
              if (conflict !== undefined) return yield* conflict
              existing.add(stored.id)
            }
          }
          const fresh: Array<(typeof rows)[number]> = []
          for (const row of rows) {
            if (existing.has(row.observation.id)) continue
            existing.add(row.observation.id)
            fresh.push(row)
          }
          if (fresh.length > 0) {
            for (let i = 0; i < fresh.length; i += chunk) {
              const values = fresh.slice(i, i + chunk).map(({ observation: o }) => ({
                id: o.id,
                reflex: o.reflex,
                subject: clip(o.subject, 200),
                head: o.head,
                value: o.value,
                gate: clip(o.gate, 32),
                score: o.score,
                features: JSON.stringify(o.features),
                evidence: JSON.stringify(o.evidence),
                params_version: o.paramsVersion,
                program: o.program,
                receipt: o.receipt,
                at_ms: o.atMs,
                labeled: 1
              }))
              yield* sql`INSERT INTO reflex_observations ${sql.insert(values)}`
            }
            const [next] = yield* sql<{ seq: number }>`SELECT COALESCE(MAX(seq), 0) AS seq FROM reflex_labels`
            let seq = next?.seq ?? 0
            const labels = fresh.flatMap((row) =>
              row.labels.map((l) => ({
                observation: row.observation.id,
                reflex,
                head: l.head,
                label: l.label ? 1 : 0,
                weight: l.weight,
                source: clip(l.source, 48),
                at_ms: atMs,
                seq: ++seq
              }))
            )
            for (let i = 0; i < labels.length; i += chunk) {
              yield* sql`INSERT INTO reflex_labels ${sql.insert(labels.slice(i, i + chunk))}`
            }
            yield* sql`INSERT INTO reflex_counts (reflex, observations) VALUES (${reflex}, ${fresh.length})
            ON CONFLICT (reflex) DO UPDATE SET observations = reflex_counts.observations + ${fresh.length}`
          }
          yield* sql`DELETE FROM reflex_trials WHERE reflex = ${reflex}`
          if (fresh.length > 0) yield* retain(reflex)
          return fresh.length
        })
      )
  }
}
