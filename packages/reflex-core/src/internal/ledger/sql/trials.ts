/**
 * The SQL ledger's open trials and stored certificates (a certificate is replaced only by a newer one).
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Service } from "../../../ReflexLedger.js"
import type { SqlLedger } from "./context.js"

/** @internal */
export const trialQueries = (
  ctx: SqlLedger
): Pick<Service, "trial" | "putTrial" | "deleteTrial" | "certificate" | "putCertificate"> => {
  const { read, sql, write } = ctx
  return {
    trial: (reflex, head) =>
      read(
        "read a trial",
        sql<{ candidate: string; started_at_ms: number; fitted_through: number }>`
        SELECT candidate, started_at_ms, fitted_through FROM reflex_trials WHERE reflex = ${reflex} AND head = ${head}`
      ).pipe(Effect.map((rows) =>
        rows.length === 0
          ? Option.none()
          : Option.some({
            candidate: rows[0]!.candidate,
            startedAtMs: rows[0]!.started_at_ms,
            fittedThrough: rows[0]!.fitted_through
          })
      )),
    putTrial: (reflex, head, trial) =>
      write(
        "start a trial",
        sql`INSERT INTO reflex_trials (reflex, head, candidate, started_at_ms, fitted_through)
        VALUES (${reflex}, ${head}, ${trial.candidate}, ${trial.startedAtMs}, ${trial.fittedThrough})
        ON CONFLICT (reflex, head) DO UPDATE SET candidate = excluded.candidate,
          started_at_ms = excluded.started_at_ms, fitted_through = excluded.fitted_through`
      ).pipe(Effect.asVoid),
    deleteTrial: (reflex, head) =>
      write("close a trial", sql`DELETE FROM reflex_trials WHERE reflex = ${reflex} AND head = ${head}`).pipe(
        Effect.asVoid
      ),
    certificate: (reflex, head) =>
      read(
        "read a certificate",
        sql<{ payload: string; at_ms: number; through: number }>`
        SELECT payload, at_ms, through FROM reflex_certificates WHERE reflex = ${reflex} AND head = ${head}`
      ).pipe(Effect.map((rows) =>
        rows.length === 0
          ? Option.none()
          : Option.some({ payload: rows[0]!.payload, atMs: rows[0]!.at_ms, through: rows[0]!.through })
      )),
    putCertificate: (reflex, head, c) =>
      write(
        "store a certificate",
        Effect.gen(function*() {
          const rows = yield* sql<{ through: number }>`
          SELECT through FROM reflex_certificates WHERE reflex = ${reflex} AND head = ${head}`
          if (rows.length > 0 && rows[0]!.through > c.through) return false
          yield* sql`INSERT INTO reflex_certificates (reflex, head, payload, at_ms, through)
          VALUES (${reflex}, ${head}, ${c.payload}, ${c.atMs}, ${c.through})
          ON CONFLICT (reflex, head) DO UPDATE SET payload = excluded.payload, at_ms = excluded.at_ms,
            through = excluded.through`
          return true
        })
      )
  }
}
