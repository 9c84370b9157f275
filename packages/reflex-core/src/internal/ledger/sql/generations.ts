/**
 * The SQL ledger's generations: the history, the active one, promotion and rollback.
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ReflexError from "../../../ReflexError.js"
import type { Service, StoredGeneration } from "../../../ReflexLedger.js"
import { MAX_GENERATIONS } from "../common.js"
import type { SqlLedger } from "./context.js"
import { decodeGenerations } from "./rows.js"

/** @internal */
export const generationQueries = (
  ctx: SqlLedger
): Pick<Service, "generations" | "activeGeneration" | "promote" | "rollback"> => {
  const { read, sql, write } = ctx
  const generations = (reflex: string) =>
    read(
      "read generations",
      sql`SELECT version, active, created_at, payload FROM reflex_generations WHERE reflex = ${reflex} ORDER BY version`
        .pipe(Effect.flatMap(decodeGenerations))
    ).pipe(Effect.map((rows) =>
      rows.map((r): StoredGeneration => ({
        version: r.version,
        active: r.active === 1,
        createdAt: r.created_at,
        payload: r.payload
      }))
    ))

  const activeGeneration = (reflex: string) =>
    read(
      "read the active generation",
      sql`SELECT version, active, created_at, payload FROM reflex_generations WHERE reflex = ${reflex} AND active = 1 LIMIT 1`
        .pipe(Effect.flatMap(decodeGenerations))
    ).pipe(Effect.map((rows) =>
      rows.length === 0
        ? Option.none()
        : Option.some<StoredGeneration>({
          version: rows[0]!.version,
          active: true,
          createdAt: rows[0]!.created_at,
          payload: rows[0]!.payload
        })
    ))

  return {
    generations,
    activeGeneration,
    promote: (reflex, expectedActive, atMs, payload) =>
      write(
        "promote a generation",
        Effect.gen(function*() {
          const active = yield* sql<{ version: number }>`
          SELECT version FROM reflex_generations WHERE reflex = ${reflex} AND active = 1`
          const current = active[0]?.version ?? 0
          if (current !== expectedActive) {
            return yield* ReflexError.make("conflict", "reflex generation changed; train again")
          }
          const [max] = yield* sql<{ v: number }>`
          SELECT COALESCE(MAX(version), 0) AS v FROM reflex_generations WHERE reflex = ${reflex}`
          const version = (max?.v ?? 0) + 1
          yield* sql`UPDATE reflex_generations SET active = 0 WHERE reflex = ${reflex}`
          yield* sql`INSERT INTO reflex_generations (reflex, version, active, created_at, payload)
          VALUES (${reflex}, ${version}, 1, ${atMs}, ${payload(version, current)})`
          const [count] = yield* sql<
            { n: number }
          >`SELECT COUNT(*) AS n FROM reflex_generations WHERE reflex = ${reflex}`
          if ((count?.n ?? 0) > MAX_GENERATIONS) {
            yield* sql`DELETE FROM reflex_generations WHERE reflex = ${reflex} AND version = (
            SELECT MIN(version) FROM reflex_generations WHERE reflex = ${reflex} AND active = 0)`
          }
          return version
        })
      ),
    rollback: (reflex, version) =>
      write(
        "roll back",
        Effect.gen(function*() {
          if (version !== 0) {
            const found = yield* sql`SELECT 1 FROM reflex_generations WHERE reflex = ${reflex} AND version = ${version}`
            if (found.length === 0) {
              return yield* ReflexError.make("not-found", `reflex generation not found: ${reflex} ${version}`)
            }
          }
          yield* sql`UPDATE reflex_generations SET active = CASE WHEN version = ${version} THEN 1 ELSE 0 END
          WHERE reflex = ${reflex}`
          yield* sql`DELETE FROM reflex_trials WHERE reflex = ${reflex}`
        })
      )
  }
}
