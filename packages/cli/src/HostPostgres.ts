/**
 * The PostgreSQL client a host uses when a database URL is configured (ADR 0600): `int8` read
 * as numbers (as SQLite gives them), and every failure message masked so a password in the URL
 * never reaches output or errors.
 *
 * @since 0.1.0
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Cause from "effect/Cause"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Pg from "pg"
import { cannotRun, type CommandFailure } from "./CliError.js"
import { maskText } from "./HostDatabase.js"

// node-postgres returns int8 (bigint, COUNT(*)) as strings; the stores read numbers, as from
// SQLite. Stores refuse integers beyond 2^53 before writing them, so the conversion is exact.
const INT8_OID = 20
const pgTypes: Pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID
      ? (value: string) => Number(value)
      : Pg.types.getTypeParser(oid, format as "text")) as Pg.CustomTypesConfig["getTypeParser"]
}

/**
 * A PostgreSQL client for a URL. Connection failures become a typed `database` error whose
 * message never contains the password.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (url: Redacted.Redacted<string>): Layer.Layer<SqlClient.SqlClient, CommandFailure> =>
  PgClient.layer({ url, types: pgTypes, applicationName: "steward" }).pipe(
    Layer.catchAllCause((cause) =>
      Layer.fail(
        cannotRun("database", `cannot open ${maskText(Redacted.value(url))}: ${maskText(describeCause(cause))}`)
      )
    )
  )

const describeCause = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause) as { readonly message?: unknown; readonly cause?: unknown }
  const inner = error?.cause as { readonly message?: unknown } | undefined
  const parts = [error?.message, inner?.message].filter((part): part is string => typeof part === "string")
  return parts.join(": ") || String(error)
}
