/**
 * The values the JSON reader produces and the writers accept.
 *
 * @internal
 */

/** An integral-valued number that was written as a float (`12.0`, `1e3`). */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** Any JSON value as read by the reader. */
export type Json = null | boolean | number | string | PyFloat | ReadonlyArray<Json> | { readonly [k: string]: Json }

/** A parse failure with Python-style 1-based line/column. */
export class JsonSyntaxError {
  constructor(readonly message: string, readonly line: number, readonly column: number) {}
}

/** A number read by the reader, whichever way it was written. */
export const numeric = (v: unknown): number | undefined =>
  typeof v === "number" ? v : v instanceof PyFloat ? v.value : undefined

/** A JSON object (not an array, not a {@link PyFloat}). */
export const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof PyFloat)
