/**
 * Shared helpers of the built-in fn modules: result constructors and the never-throw guard.
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as Canonical from "../../Canonical.js"
import type { Json } from "../../Canonical.js"
import type { FnResult } from "../../FnRegistry.js"

/** @internal */
export const succeed = (outputs: Readonly<Record<string, Json>>, work?: number): FnResult =>
  work === undefined ? { ok: true, outputs } : { ok: true, outputs, work }

/** @internal */
export const failed = (message: string): FnResult => ({ ok: false, message })

/** @internal */
export const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  u !== null && typeof u === "object" && !Array.isArray(u)

/** @internal */
export const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key)

/** A value's JSON type name, for messages. @internal */
export const typeName = (u: unknown): string =>
  u === null ? "null" : Array.isArray(u) ? "list" : typeof u === "object" ? "object" : typeof u

/** At most 64 UTF-16 units of a name, for messages (a hostile key must not flood an error). @internal */
export const shown = (name: string): string => JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name)

/** Whether `u` is an integer in `[lo, hi]`. @internal */
export const isIntIn = (u: unknown, lo: number, hi: number): u is number =>
  typeof u === "number" && Number.isInteger(u) && u >= lo && u <= hi

/** UTF-8 byte length of a value's canonical JSON, or the reason it has none. @internal */
export const canonicalBytes = (u: unknown): { readonly ok: true; readonly bytes: number } | {
  readonly ok: false
  readonly message: string
} => {
  const result = Canonical.byteLength(u)
  return Either.isRight(result) ? { ok: true, bytes: result.right } : { ok: false, message: result.left.message }
}

/**
 * Run an fn body so that it never throws: fns are invoked directly by hosts with arbitrary values
 * (a Proxy whose traps throw, a getter, a cyclic object) and the registry contract forbids throwing.
 * The bodies are written not to throw for JSON input; this only converts the exotic cases.
 *
 * @internal
 */
export const guarded = (
  name: string,
  body: (inputs: Readonly<Record<string, Json>>) => FnResult
) =>
(inputs: Readonly<Record<string, Json>>): FnResult => {
  try {
    return body(inputs)
  } catch (error) {
    const reason = error instanceof RangeError
      ? "input too deeply nested"
      : `input could not be read: ${error instanceof Error ? error.message : String(error)}`
    return failed(`${name}: ${reason}`)
  }
}
