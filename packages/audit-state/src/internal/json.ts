/**
 * A strict JSON reader and Python-compatible writers. The reader keeps the distinction between
 * `12` and `12.0` (a {@link PyFloat}) so a document written by Python round-trips byte for byte.
 * The reader (scanner and value parser) is `json/reader.ts`, the writers `json/writer.ts`.
 */
export { parse } from "./json/reader.js"
export { JsonSyntaxError, numeric, PyFloat } from "./json/values.js"
export type { Json } from "./json/values.js"
export { codePointCompare, dumpsCompact, dumpsPretty, dumpsPrettySlow, pyFloat } from "./json/writer.js"
