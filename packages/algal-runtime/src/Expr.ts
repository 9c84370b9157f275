/**
 * `algal.expr.v1`: ALGAL's bounded, pure expression language (spec §1.6) — the evaluator, the static
 * check, the exact fuel meter, the bounds, the error records and a typed builder.
 *
 * A program is a JSON value: scalars evaluate to themselves, an array is an op call
 * (`["add", 1, 2]`), an object literal evaluates each field. Evaluation is synchronous, never throws
 * and always terminates: every node spends fuel, every intermediate value is bound-checked, and
 * hostile input (huge, deeply nested, cyclic, lone surrogates) ends in a typed error record.
 *
 * The builder mirrors the op table one function per op (`if_` and `let_` carry a trailing
 * underscore because `if`/`let` are reserved words). Builders return plain JSON programs; their
 * result types are tracked at compile time only, so `Expr.add(Expr.sconcat("a"), 1)` is a type
 * error while `Expr.add(Expr.get("x"), 1)` (a dynamic read) is accepted. Binder ops take either a
 * body or a function receiving the bound names as `get` nodes.
 *
 * @example
 * ```ts
 * import { Expr } from "@steward/algal-runtime"
 *
 * const total = Expr.fold(Expr.get("charges"), 0, "acc", "c", (acc) => Expr.add(acc, Expr.get("c", "amt")))
 * // ["fold",["get","charges"],0,"acc","c",["add",["get","acc"],["get","c","amt"]]]
 *
 * Expr.evaluate(total, { charges: [{ amt: 10 }, { amt: 25 }, { amt: 7 }] }, 1_000)
 * // { ok: true, value: 42, fuel: … }
 *
 * Expr.evaluateJson(["get", "x"], { x: 3 }, 100).text
 * // '{"ok":true,"value":3,"fuel":4}'
 *
 * Expr.evaluate(["div", 1, 0], {}, 100)
 * // { ok: false, error: { code: "EXPR_DIV_ZERO", op: "div" }, fuel: 4 }
 *
 * // check and compile once, run many times (identical results, fuel and errors)
 * const compiled = Expr.compile(total, ["charges"])
 * Expr.run(compiled, { charges: [{ amt: 1 }] }, 1_000)
 * ```
 *
 * @since 0.1.0
 */
import type { Json } from "./Canonical.js"
import { checkProgram } from "./internal/expr/check.js"
import type { Compiled as Code } from "./internal/expr/compile.js"
import * as internal from "./internal/expr/evaluate.js"
import { attempt, BAIL, type Fast, generate } from "./internal/expr/fast.js"
import { ExprFault } from "./internal/expr/fault.js"
import { BOUNDS, canonicalText, compareUtf8, fromJson, releaseCaches, toJson } from "./internal/expr/value.js"

// ================================================================= contract

/**
 * The closed set of error codes.
 *
 * @since 0.1.0
 * @category models
 */
export const codes = [
  "EXPR_PARSE",
  "EXPR_OP",
  "EXPR_ARITY",
  "EXPR_TYPE",
  "EXPR_PATH",
  "EXPR_ARG",
  "EXPR_NUM",
  "EXPR_DIV_ZERO",
  "EXPR_BOUNDS",
  "EXPR_FUEL"
] as const

/**
 * @since 0.1.0
 * @category models
 */
export type ExprErrorCode = typeof codes[number]

/**
 * An error record: `{"code": …, …details}`. Details by code: `EXPR_PARSE {what, op?}`,
 * `EXPR_OP {op}`, `EXPR_ARITY {op, want, got}`, `EXPR_TYPE {op, arg, want, got}`,
 * `EXPR_PATH {op, what}`, `EXPR_ARG {op, what}`, `EXPR_NUM {op}`, `EXPR_DIV_ZERO {op}`,
 * `EXPR_BOUNDS {what, max}`, `EXPR_FUEL {cost, left}`.
 *
 * @since 0.1.0
 * @category models
 */
export type ExprError = { readonly code: ExprErrorCode; readonly [detail: string]: unknown }

/**
 * The outcome of an evaluation; `fuel` is the fuel spent (0 for errors found before evaluation).
 * This is also the boundary document of `evaluateJson`.
 *
 * @since 0.1.0
 * @category models
 */
export type Result =
  | { readonly ok: true; readonly value: Json; readonly fuel: number }
  | { readonly ok: false; readonly error: ExprError; readonly fuel: number }

/**
 * The fuel budget when the caller gives none.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultFuel = 10_000

/**
 * The largest fuel budget a caller may give.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxFuel: typeof internal.maxFuel = internal.maxFuel

/**
 * The bounds table: program bytes/nodes/depth, env bytes/keys, value depth, list length, object
 * keys, string bytes, value bytes (every intermediate), output bytes and binder name length.
 *
 * @since 0.1.0
 * @category constants
 */
export const bounds: {
  readonly programBytes: 16_384
  readonly programNodes: 512
  readonly programDepth: 16
  readonly envBytes: 262_144
  readonly envKeys: 256
  readonly valueDepth: 32
  readonly listLen: 1_024
  readonly objectKeys: 256
  readonly stringBytes: 65_536
  readonly valueBytes: 262_144
  readonly outputBytes: 65_536
  readonly varLen: 64
} = BOUNDS

/**
 * The `what` of every `EXPR_BOUNDS` error, with the bound it reports as `max`.
 *
 * @since 0.1.0
 * @category constants
 */
export const boundNames: typeof internal.boundNames = internal.boundNames

/**
 * The `what` of the `EXPR_BOUNDS` error for a fuel budget that is not an integer in [0, maxFuel].
 *
 * @since 0.1.0
 * @category constants
 */
export const fuelBudgetWhat: typeof internal.fuelBudgetWhat = internal.fuelBudgetWhat

/**
 * Static check (§1.6): program bytes ≤ 16,384, nodes ≤ 512, then a document-order walk (depth ≤ 16,
 * op heads, op table, arity, binder identifiers, literal `get` names against `names` plus enclosing
 * binders). `names` are the env names in scope: the declared input ports, or `["value"]` for a
 * guard. Returns the first error, or `undefined` when the program is admitted.
 *
 * @example
 * ```ts
 * Expr.check(["get", "nope"], ["yes"])
 * // { code: "EXPR_PATH", op: "get", what: 'unbound name "nope"' }
 * ```
 *
 * @since 0.1.0
 * @category checking
 */
export const check = (program: unknown, names: ReadonlyArray<string>): ExprError | undefined => {
  try {
    checkProgram(program, names)
    return undefined
  } catch (error) {
    if (error instanceof ExprFault) return internal.asError(error.record)
    return internal.parseError(`program could not be read: ${internal.describe(error)}`)
  }
}

/**
 * Evaluate a program against an env record under a fuel budget (default 10,000; at most
 * 1,000,000). Runs the static check first with the env keys as the names in scope, exactly as the
 * original does at run time, and enforces the env bounds (≤ 256 keys, ≤ 262,144 canonical bytes,
 * depth ≤ 32), every intermediate value bound and the output bounds. Never throws.
 *
 * @example
 * ```ts
 * Expr.evaluate(["add", 1, 2], {}, 100) // { ok: true, value: 3, fuel: 4 }
 * ```
 *
 * @since 0.1.0
 * @category evaluation
 */
export const evaluate = (
  program: unknown,
  env: Readonly<Record<string, Json>>,
  fuel: number = defaultFuel
): Result => {
  const outcome = internal.evaluateInternal(program, env, fuel)
  return outcome.ok ? { ok: true, value: toJson(outcome.value) as Json, fuel: outcome.fuel } : outcome
}

/**
 * The boundary document of an evaluation, as canonical JSON text (compact, sorted keys:
 * `{"ok":true,"value":3,"fuel":4}` / `{"ok":false,"error":{…},"fuel":4}`) and as a value.
 *
 * @since 0.1.0
 * @category models
 */
export interface Boundary {
  readonly text: string
  readonly document: Result
}

/**
 * `evaluate`, returning the exact boundary document as canonical JSON text and as a value.
 *
 * @example
 * ```ts
 * Expr.evaluateJson(["get", "x"], { x: 3 }, 100).text // '{"ok":true,"value":3,"fuel":4}'
 * ```
 *
 * @since 0.1.0
 * @category evaluation
 */
export const evaluateJson = (
  program: unknown,
  env: Readonly<Record<string, Json>>,
  fuel: number = defaultFuel
): Boundary => {
  const outcome = internal.evaluateInternal(program, env, fuel)
  if (outcome.ok) {
    return {
      text: `{"ok":true,"value":${canonicalText(outcome.value)},"fuel":${outcome.fuel}}`,
      document: { ok: true, value: toJson(outcome.value) as Json, fuel: outcome.fuel }
    }
  }
  return {
    text: `{"ok":false,"error":${canonicalText(fromJson(outcome.error))},"fuel":${outcome.fuel}}`,
    document: outcome
  }
}

const CompiledTypeId: unique symbol = Symbol.for("@steward/algal-runtime/Expr/Compiled")

/**
 * A program checked and compiled once for a set of env names (`compile`), to be run many times
 * (`run`). Holds a private copy of the program: later changes to the program value do not affect it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Compiled {
  readonly [CompiledTypeId]: typeof CompiledTypeId
  /** The names in scope it was checked with, in UTF-8 byte order. */
  readonly names: ReadonlyArray<string>
  /** The static check's first error, when the program was rejected. */
  readonly error: ExprError | undefined
  /** @internal */
  readonly program: unknown
  /** @internal */
  readonly code: Code | ExprError
  /** The generated fast tier, when every op of the program is in its subset. @internal */
  readonly fast: Fast | undefined
}

/**
 * Check and compile a program once for the env names it will run with (an expr cell's declared
 * input ports, `["value"]` for a guard). `run(compile(p, keys(env)), env, fuel)` returns exactly
 * what `evaluate(p, env, fuel)` returns — same value, same fuel, same error — without repeating the
 * static check; when `run` is given an env whose keys differ from `names` it checks the program
 * again for those keys, so the equivalence holds for every env. Never throws.
 *
 * @example
 * ```ts
 * const compiled = Expr.compile(["add", ["get", "x"], 1], ["x"])
 * Expr.run(compiled, { x: 2 }, 100) // { ok: true, value: 3, fuel: 7 }
 * ```
 *
 * @since 0.1.0
 * @category evaluation
 */
export const compile = (program: unknown, names: ReadonlyArray<string>): Compiled => {
  const given: ReadonlyArray<unknown> = Array.isArray(names) ? names : []
  const sorted = Array.from(new Set(given.filter((name): name is string => typeof name === "string"))).sort(compareUtf8)
  try {
    let fast: Fast | undefined
    const code = internal.prepare(program, sorted, (node) => {
      fast = generate(node, sorted, internal.finishContainer)
    })
    return {
      [CompiledTypeId]: CompiledTypeId,
      names: sorted,
      error: internal.isCode(code) ? undefined : code,
      program: internal.isCode(code) ? internal.copyJson(program) : program,
      code,
      fast
    }
  } finally {
    releaseCaches()
  }
}

/**
 * Evaluate a compiled program against an env record under a fuel budget: the same result, fuel and
 * error as `evaluate` of the program (env admission and bounds, the static check's error, the fuel
 * budget check, the metered run and the output bounds, in that order). Never throws.
 *
 * @example
 * ```ts
 * const guard = Expr.compile(["gt", ["get", "value"], 100], ["value"])
 * Expr.run(guard, { value: 120 }, 10_000) // { ok: true, value: true, fuel: 7 }
 * ```
 *
 * @since 0.1.0
 * @category evaluation
 */
export const run = (compiled: Compiled, env: Readonly<Record<string, Json>>, fuel: number = defaultFuel): Result => {
  if (compiled.fast !== undefined) {
    const fast = attempt(compiled.fast, compiled.names, env, fuel, maxFuel)
    if (fast !== BAIL) return fast as Result
  }
  try {
    const outcome = internal.runEvaluation(undefined, compiled, env, fuel)
    return outcome.ok ? { ok: true, value: toJson(outcome.value) as Json, fuel: outcome.fuel } : outcome
  } finally {
    releaseCaches()
  }
}

/**
 * Canonical JSON text of an error record (the form an `EXPR_FAILED` receipt message embeds).
 *
 * @since 0.1.0
 * @category errors
 */
export const errorText = (error: ExprError): string => canonicalText(fromJson(error))

/**
 * Whether a value is an error record with a code from the closed set.
 *
 * @since 0.1.0
 * @category guards
 */
export const isExprError = (u: unknown): u is ExprError =>
  typeof u === "object" && u !== null && (codes as ReadonlyArray<unknown>).includes((u as { code?: unknown }).code)

// ================================================================== builder

export * from "./internal/expr/builder.js"
export * from "./internal/expr/builderOps.js"
