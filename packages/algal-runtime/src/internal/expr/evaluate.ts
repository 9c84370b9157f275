/**
 * Evaluation of expressions (§1.6–§1.8) behind `Expr`: env admission, the static check and
 * compilation (with a per-program cache that re-checks a program that changed), the metered run
 * and the output bounds. `Expr` keeps the public contract and wraps these.
 *
 * @internal
 */
import type { ExprError } from "../../Expr.js"
import { checkProgram } from "./check.js"
import { compile as compileNode, type Compiled as Code, execute } from "./compile.js"
import { BAIL, type FastResult } from "./fast.js"
import { ExprFault, type ExprRecord } from "./fault.js"
import { admitFast, exceedsDepth, measure } from "./input.js"
import type { Node } from "./node.js"
import {
  BOUNDS,
  compareUtf8,
  exceedsBytes,
  fromJson,
  releaseCaches,
  toJson,
  type V,
  valueBytes,
  valueDepth
} from "./value.js"

/** The largest fuel budget a caller may give. @internal */
export const maxFuel = 1_000_000

/** The `what` of every `EXPR_BOUNDS` error, with the bound it reports as `max`. @internal */
export const boundNames = {
  "program-bytes": BOUNDS.programBytes,
  "program-nodes": BOUNDS.programNodes,
  "program-depth": BOUNDS.programDepth,
  "env-bytes": BOUNDS.envBytes,
  "value-depth": BOUNDS.valueDepth,
  "list-len": BOUNDS.listLen,
  "object-keys": BOUNDS.objectKeys,
  "string-bytes": BOUNDS.stringBytes,
  "value-bytes": BOUNDS.valueBytes,
  "output-bytes": BOUNDS.outputBytes
} as const

/** The `EXPR_BOUNDS` `what` for a fuel budget that is not an integer in [0, maxFuel]. @internal */
export const fuelBudgetWhat = "fuel budget must be an integer in [0, 1000000]"

/** What a compiled program carries for a run: its names in scope, its program copy and its code. @internal */
export interface Prepared {
  readonly names: ReadonlyArray<string>
  readonly program: unknown
  readonly code: Code | ExprError
}

export const asError = (record: ExprRecord): ExprError => record as ExprError

export const parseError = (what: string): ExprError => ({ code: "EXPR_PARSE", what })

const boundsError = (what: keyof typeof boundNames): ExprError => ({ code: "EXPR_BOUNDS", what, max: boundNames[what] })

export const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error))

export type Internal =
  | { readonly ok: true; readonly value: V; readonly fuel: number }
  | { readonly ok: false; readonly error: ExprError; readonly fuel: number }

const admitEnv = (env: unknown): Map<string, V> | ExprError => {
  if (env === null || typeof env !== "object" || Array.isArray(env)) return parseError("env must be a JSON object")
  const keys = Object.keys(env)
  if (keys.length > BOUNDS.envKeys) return boundsError("object-keys")
  if (keys.length > 1) keys.sort(compareUtf8)
  const fast = admitFast(env as Record<string, unknown>, keys, BOUNDS.envBytes, BOUNDS.listLen, BOUNDS.objectKeys)
  if (fast !== undefined) return fast
  const measured = measure(env, BOUNDS.envBytes)
  if (measured._tag === "NotJson") {
    return parseError(`env is not JSON: ${measured.reason}${measured.path === "" ? "" : ` at ${measured.path}`}`)
  }
  if (measured._tag === "Over") return boundsError("env-bytes")
  if (exceedsDepth(env, 1, BOUNDS.valueDepth)) return boundsError("value-depth")
  const record = env as Record<string, unknown>
  const out = new Map<string, V>()
  for (const key of keys) {
    const value = fromJson(record[key])
    valueBytes(value, 1)
    out.set(key, value)
  }
  return out
}

export const evaluateInternal = (program: unknown, env: unknown, fuel: number): Internal => {
  try {
    return runEvaluation(program, undefined, env, fuel)
  } finally {
    releaseCaches()
  }
}

/** The static check and compilation of a program for the given names, or the first error. */
export const prepare = (
  program: unknown,
  names: ReadonlyArray<string>,
  checked?: (node: Node) => void
): Code | ExprError => {
  try {
    const node = checkProgram(program, names)
    checked?.(node)
    return compileNode(node)
  } catch (error) {
    if (error instanceof ExprFault) return asError(error.record)
    // Only reachable for exotic inputs whose reading throws (e.g. a Proxy with a throwing trap).
    return parseError(`input could not be read: ${describe(error)}`)
  }
}

export const isCode = (u: Code | ExprError): u is Code => typeof u.code === "function"

const sameNames = (admitted: Map<string, V>, names: ReadonlyArray<string>): boolean => {
  if (admitted.size !== names.length) return false
  let i = 0
  for (const key of admitted.keys()) if (key !== names[i++]) return false
  return true
}

// `evaluate` remembers the compiled form of each program object it has admitted, with a private
// copy of the program as it was then. A later call with the same object reuses it only if the
// program is still structurally identical to that copy (a walk with no allocation, much cheaper
// than the check) and the env has the same names — so the result is always that of checking the
// program as it is now. Keyed weakly: a program that is no longer referenced is forgotten.
interface Remembered {
  readonly copy: unknown
  readonly names: ReadonlyArray<string>
  readonly code: Code
}

const remembered = new WeakMap<object, Remembered>()

const isPlainObject = (u: object): boolean => {
  const proto = Object.getPrototypeOf(u)
  return proto === Object.prototype || proto === null
}

// Whether a live value is structurally identical to a private copy of an admitted program: same
// scalars (`Object.is`), same array lengths, same plain-object keys in the same order.
const sameJson = (live: unknown, copy: unknown): boolean => {
  if (live === null || typeof live !== "object" || copy === null || typeof copy !== "object") {
    return Object.is(live, copy)
  }
  if (Array.isArray(copy)) {
    if (!Array.isArray(live) || live.length !== copy.length) return false
    for (let i = 0; i < copy.length; i++) if (!sameJson(live[i], copy[i])) return false
    return true
  }
  if (Array.isArray(live) || !isPlainObject(live)) return false
  const keys = Object.keys(live)
  const want = Object.keys(copy)
  if (keys.length !== want.length) return false
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    if (key !== want[i]) return false
    if (!sameJson((live as Record<string, unknown>)[key], (copy as Record<string, unknown>)[key])) return false
  }
  return true
}

const unchanged = (program: object, known: Remembered): boolean => {
  try {
    return sameJson(program, known.copy)
  } catch {
    // an exotic program whose reading throws: the full check reports it
    return false
  }
}

const prepareCached = (program: unknown, admitted: Map<string, V>): Code | ExprError => {
  const cacheable = program !== null && typeof program === "object"
  if (cacheable) {
    const known = remembered.get(program)
    if (known !== undefined && sameNames(admitted, known.names) && unchanged(program, known)) return known.code
  }
  const names = Array.from(admitted.keys())
  const code = prepare(program, names)
  if (cacheable && isCode(code)) remembered.set(program, { copy: copyJson(program), names, code })
  return code
}

export const runEvaluation = (
  program: unknown,
  compiled: Prepared | undefined,
  env: unknown,
  fuel: number
): Internal => {
  try {
    const admitted = admitEnv(env)
    if (!(admitted instanceof Map)) return { ok: false, error: admitted, fuel: 0 }
    // The check runs with the env keys as the names in scope: a program compiled for other names
    // is checked again (exactly what `evaluate` does).
    const code = compiled !== undefined
      ? sameNames(admitted, compiled.names) ? compiled.code : prepare(compiled.program, Array.from(admitted.keys()))
      : prepareCached(program, admitted)
    if (!isCode(code)) return { ok: false, error: code, fuel: 0 }
    if (!Number.isInteger(fuel) || fuel < 0 || fuel > maxFuel) {
      return { ok: false, error: { code: "EXPR_BOUNDS", what: fuelBudgetWhat, max: maxFuel }, fuel: 0 }
    }
    const outcome = execute(code, admitted, fuel)
    if (!outcome.ok) return { ok: false, error: asError(outcome.fault.record), fuel: outcome.fuel }
    if (exceedsBytes(outcome.value, BOUNDS.outputBytes)) {
      return { ok: false, error: boundsError("output-bytes"), fuel: outcome.fuel }
    }
    if (valueDepth(outcome.value) > BOUNDS.valueDepth) {
      return { ok: false, error: boundsError("value-depth"), fuel: outcome.fuel }
    }
    return outcome
  } catch (error) {
    // Faults raised while admitting the inputs (before any fuel is spent).
    if (error instanceof ExprFault) return { ok: false, error: asError(error.record), fuel: 0 }
    // Only reachable for exotic inputs whose reading throws (e.g. a Proxy with a throwing trap).
    return { ok: false, error: parseError(`input could not be read: ${describe(error)}`), fuel: 0 }
  }
}

// A private copy of an admitted program (≤ 16 KiB of JSON, so the recursion is shallow).
export const copyJson = (u: unknown): unknown => {
  if (u === null || typeof u !== "object") return u
  if (Array.isArray(u)) return u.map(copyJson)
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(u)) {
    Object.defineProperty(out, key, {
      value: copyJson((u as Record<string, unknown>)[key]),
      enumerable: true,
      writable: true,
      configurable: true
    })
  }
  return out
}

// A container result the program did not build (part of the env or a constant): the output is a
// canonical copy of it, as the general path's, when it is within the output bounds.
export const finishContainer = (value: object, fuel: number): FastResult | typeof BAIL => {
  try {
    const v = fromJson(value)
    if (exceedsBytes(v, BOUNDS.outputBytes) || valueDepth(v) > BOUNDS.valueDepth) return BAIL
    return { ok: true, value: toJson(v), fuel }
  } finally {
    releaseCaches()
  }
}
