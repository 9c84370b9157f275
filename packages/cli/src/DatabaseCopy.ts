/**
 * Moving up: copy every store of a state directory's SQLite database into PostgreSQL, so a
 * person's reflex history, programs and evidence follow them to the team database.
 *
 * The copy is one transaction on the target; it is verified table by table (row counts and a
 * digest of every row, read back from the target). A target that already holds exactly the
 * source's rows is reported as copied (running twice is safe); a target holding anything else is
 * refused unless the caller asks to merge, which keeps the target's rows and adds the missing ones.
 *
 * @since 0.1.0
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { createHash } from "node:crypto"
import { cannotRun, type CommandFailure, refused } from "./CliError.js"

/**
 * What happened to one table.
 *
 * @since 0.1.0
 * @category models
 */
export interface TableCopy {
  readonly table: string
  readonly rows: number
  readonly copied: number
  readonly digest: string
  readonly verified: boolean
}

/**
 * The result of a copy.
 *
 * @since 0.1.0
 * @category models
 */
export interface CopyReport {
  readonly outcome: "copied" | "already-copied" | "merged"
  readonly tables: ReadonlyArray<TableCopy>
}

const BATCH = 400

type Row = Record<string, unknown>

/** The tables a state database holds: every store's, without the migration bookkeeping. */
const sourceTables = (source: SqlClient.SqlClient) =>
  source<{ readonly name: string }>`SELECT name FROM sqlite_master
    WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%_migrations' ORDER BY name`.pipe(
    Effect.map((rows) => rows.map((row) => row.name))
  )

/** Rows in primary-key order, so the digest does not depend on physical order. */
const readAll = (client: SqlClient.SqlClient, table: string, order: ReadonlyArray<string>) =>
  client.unsafe<Row>(`SELECT * FROM ${quote(table)} ORDER BY ${order.map(quote).join(", ")}`)

const quote = (name: string): string => `"${name.replace(/"/g, "\"\"")}"`

/** A digest of a table's rows, in key order, over a representation both backends agree on. */
const digestRows = (rows: ReadonlyArray<Row>, columns: ReadonlyArray<string>): string => {
  const hash = createHash("sha256")
  for (const row of rows) {
    hash.update(JSON.stringify(columns.map((column) => normalize(row[column]))))
    hash.update("\n")
  }
  return `sha256:${hash.digest("hex")}`
}

const normalize = (value: unknown): unknown =>
  value instanceof Uint8Array ? `bytes:${Buffer.from(value).toString("base64")}` : value ?? null

const columnsOf = (source: SqlClient.SqlClient, table: string) =>
  source.unsafe<{ readonly name: string; readonly pk: number }>(`PRAGMA table_info(${quote(table)})`).pipe(
    Effect.map((info) => {
      const columns = info.map((column) => column.name)
      const keys = info.filter((column) => column.pk > 0).sort((a, b) => a.pk - b.pk).map((column) => column.name)
      return { columns, order: keys.length > 0 ? keys : columns }
    })
  )

/**
 * Copy every table of `source` (SQLite) into `target` (PostgreSQL, already migrated by the stores'
 * own layers). Fails with `refused` when the target holds other rows and `merge` is not set.
 *
 * @since 0.1.0
 * @category copying
 */
export const copy = Effect.fn("DatabaseCopy.copy")(function*(
  source: SqlClient.SqlClient,
  target: SqlClient.SqlClient,
  options: { readonly merge?: boolean } = {}
) {
  const fail = (what: string) => (error: { readonly message: string }) =>
    cannotRun("database", `database copy: ${what}: ${error.message}`)
  const tables = yield* sourceTables(source).pipe(Effect.mapError(fail("listing the source tables")))
  const plans = yield* Effect.forEach(tables, (table) =>
    Effect.gen(function*() {
      const { columns, order } = yield* columnsOf(source, table).pipe(Effect.mapError(fail(`reading ${table}`)))
      const rows = yield* readAll(source, table, order).pipe(Effect.mapError(fail(`reading ${table}`)))
      const present = yield* readAll(target, table, order).pipe(
        Effect.mapError(() =>
          cannotRun("database", `database copy: the target has no table ${table}; is it a Steward database?`)
        )
      )
      return { table, columns, order, rows, present, digest: digestRows(rows, columns) }
    }))

  const nonEmpty = plans.filter((plan) => plan.present.length > 0)
  if (nonEmpty.length > 0) {
    const identical = plans.every((plan) => digestRows(plan.present, plan.columns) === plan.digest)
    if (identical) {
      return {
        outcome: "already-copied",
        tables: plans.map((plan) => ({
          table: plan.table,
          rows: plan.rows.length,
          copied: 0,
          digest: plan.digest,
          verified: true
        }))
      } satisfies CopyReport
    }
    if (options.merge !== true) {
      return yield* refused(
        "database",
        `database copy: the target is not empty (${
          nonEmpty.map((plan) => `${plan.table}: ${plan.present.length} rows`).join(", ")
        }); pass --merge to keep its rows and add the missing ones`
      )
    }
  }

  // Writes and their verification share one transaction: a copy that does not verify leaves the
  // target exactly as it was.
  const report = yield* target.withTransaction(
    Effect.forEach(plans, (plan) =>
      Effect.gen(function*() {
        let copied = 0
        for (let start = 0; start < plan.rows.length; start += BATCH) {
          const batch = plan.rows.slice(start, start + BATCH)
          const inserted = yield* target<Row>`INSERT INTO ${target(plan.table)} ${target.insert(batch as Array<Row>)}
            ON CONFLICT DO NOTHING RETURNING 1 AS one`
          copied += inserted.length
        }
        const after = yield* readAll(target, plan.table, plan.order)
        // Merged tables keep the target's own rows too: every source row must be among them.
        const verified = plan.present.length === 0
          ? after.length === plan.rows.length && digestRows(after, plan.columns) === plan.digest
          : containsAll(after, plan.rows, plan.columns)
        return { table: plan.table, rows: plan.rows.length, copied, digest: plan.digest, verified } satisfies TableCopy
      })).pipe(
        Effect.mapError(fail("writing the target")),
        Effect.tap((tables) => {
          const failed = tables.filter((table) => !table.verified)
          return failed.length === 0 ? Effect.void : Effect.fail(
            refused(
              "database",
              `database copy: verification failed for ${
                failed.map((table) => table.table).join(", ")
              }; nothing was written`
            )
          )
        })
      )
  ).pipe(Effect.catchTag("SqlError", (error) => Effect.fail(fail("committing the target")(error))))
  return { outcome: nonEmpty.length > 0 ? "merged" : "copied", tables: report } satisfies CopyReport
}) as (
  source: SqlClient.SqlClient,
  target: SqlClient.SqlClient,
  options?: { readonly merge?: boolean }
) => Effect.Effect<CopyReport, CommandFailure>

const containsAll = (have: ReadonlyArray<Row>, want: ReadonlyArray<Row>, columns: ReadonlyArray<string>): boolean => {
  const keys = new Set(have.map((row) => JSON.stringify(columns.map((column) => normalize(row[column])))))
  return want.every((row) => keys.has(JSON.stringify(columns.map((column) => normalize(row[column])))))
}
