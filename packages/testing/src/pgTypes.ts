/**
 * Result parsing for PostgreSQL that matches what the stores read from SQLite: `bigint` and
 * `COUNT(*)` come back as numbers (node-postgres returns int8 as a string by default). Stores refuse
 * integers beyond 2^53 before they are written, so the conversion is exact.
 *
 * @internal
 */
import * as Pg from "pg"

const INT8 = 20

/** @internal */
export const pgTypes: Pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8
      ? (value: string) => Number(value)
      : Pg.types.getTypeParser(oid, format as "text")) as Pg.CustomTypesConfig["getTypeParser"]
}
