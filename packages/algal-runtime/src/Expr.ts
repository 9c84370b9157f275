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

declare const ResultTypeId: unique symbol
declare const DynamicTypeId: unique symbol

/**
 * The compile-time result type of a built program node. Phantom: at run time a built node is a
 * plain JSON program with no extra property.
 *
 * @since 0.1.0
 * @category builder
 */
export interface Typed<out A> {
  readonly [ResultTypeId]: A
}

/**
 * The result type of a node whose value is only known at run time (`get`, `nth`, …). Accepted
 * wherever a specific type is expected.
 *
 * @since 0.1.0
 * @category builder
 */
export interface Dynamic {
  readonly [DynamicTypeId]: true
}

/**
 * A built op call: a JSON array typed with its result.
 *
 * @since 0.1.0
 * @category builder
 */
export type Call<A> = ReadonlyArray<Json> & Typed<A>

/**
 * A built object literal: a JSON object typed with its result.
 *
 * @since 0.1.0
 * @category builder
 */
export type Fields<A> = { readonly [key: string]: Json } & Typed<A>

/**
 * Any builder argument: a scalar literal or a built node.
 *
 * @since 0.1.0
 * @category builder
 */
export type Any = null | boolean | number | string | Typed<unknown>

/**
 * An argument that must evaluate to a number.
 *
 * @since 0.1.0
 * @category builder
 */
export type Num = number | Typed<number> | Typed<Dynamic>

/**
 * An argument that must evaluate to a string.
 *
 * @since 0.1.0
 * @category builder
 */
export type Text = string | Typed<string> | Typed<Dynamic>

/**
 * An argument that must evaluate to a boolean.
 *
 * @since 0.1.0
 * @category builder
 */
export type Bool = boolean | Typed<boolean> | Typed<Dynamic>

/**
 * An argument that must evaluate to a list.
 *
 * @since 0.1.0
 * @category builder
 */
export type List<A = unknown> = Typed<ReadonlyArray<A>> | Typed<Dynamic>

/**
 * An argument that must evaluate to a map.
 *
 * @since 0.1.0
 * @category builder
 */
export type MapOf<A = unknown> = Typed<{ readonly [key: string]: A }> | Typed<Dynamic>

/**
 * The result type of a builder argument.
 *
 * @since 0.1.0
 * @category builder
 */
export type ResultOf<E> = E extends Typed<infer A> ? A
  : E extends number ? number
  : E extends string ? string
  : E extends boolean ? boolean
  : null

/**
 * The element type of a list argument.
 *
 * @since 0.1.0
 * @category builder
 */
export type ElementOf<L> = L extends Typed<infer A> ? (A extends ReadonlyArray<infer E> ? E : Dynamic) : Dynamic

/**
 * The union of two result types, collapsing to `Dynamic` when either side is dynamic.
 *
 * @since 0.1.0
 * @category builder
 */
export type Join<A, B> = [A] extends [Dynamic] ? Dynamic : [B] extends [Dynamic] ? Dynamic : A | B

/**
 * A binder body: a node, or a function of the bound names (each passed as its `get` node).
 *
 * @since 0.1.0
 * @category builder
 */
export type Body<Args extends ReadonlyArray<unknown>, B extends Any> = B | ((...refs: Args) => B)

const node = <A>(op: string, ...args: ReadonlyArray<unknown>): Call<A> => [op, ...args] as unknown as Call<A>

const bodyOf = (body: unknown, refs: ReadonlyArray<unknown>): unknown =>
  typeof body === "function" ? (body as (...refs: ReadonlyArray<unknown>) => unknown)(...refs) : body

/**
 * Adopt a hand-written JSON program into the builder (typed as dynamic).
 *
 * @since 0.1.0
 * @category builder
 */
export const raw = (program: Json): Call<Dynamic> => program as unknown as Call<Dynamic>

/**
 * An object literal: each field is evaluated (keys are literal).
 *
 * @since 0.1.0
 * @category builder
 */
export const record = <const F extends { readonly [key: string]: Any }>(
  fields: F
): Fields<{ readonly [K in keyof F]: ResultOf<F[K]> }> => {
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(fields)) {
    Object.defineProperty(out, key, { value: fields[key], enumerable: true, writable: true, configurable: true })
  }
  return out as unknown as Fields<{ readonly [K in keyof F]: ResultOf<F[K]> }>
}

/**
 * `["quote", value]`: the value verbatim, as data.
 *
 * @since 0.1.0
 * @category builder
 */
export const quote = <const A extends Json>(value: A): Call<A> => node("quote", value)

/**
 * `["list", …]`: a list of the evaluated arguments.
 *
 * @since 0.1.0
 * @category builder
 */
export const list = <const Args extends ReadonlyArray<Any>>(
  ...items: Args
): Call<ReadonlyArray<ResultOf<Args[number]>>> => node("list", ...items)

/**
 * `["get", name, …path]`: a name (lexical binders first, then env) then keys and indexes; a miss is
 * `null`.
 *
 * @since 0.1.0
 * @category builder
 */
export const get = (name: Text, ...path: ReadonlyArray<Text | Num>): Call<Dynamic> => node("get", name, ...path)

/**
 * `["if", cond, then, else]`: only the taken branch is evaluated; `cond` must be a boolean.
 *
 * @since 0.1.0
 * @category builder
 */
export const if_ = <T extends Any, E extends Any>(
  cond: Bool,
  then: T,
  otherwise: E
): Call<Join<ResultOf<T>, ResultOf<E>>> => node("if", cond, then, otherwise)

/**
 * `["let", name, value, body]`: binds `name` in `body`.
 *
 * @since 0.1.0
 * @category builder
 */
export const let_ = <const N extends string, X extends Any, B extends Any>(
  name: N,
  value: X,
  body: Body<[Call<ResultOf<X>>], B>
): Call<ResultOf<B>> => node("let", name, value, bodyOf(body, [get(name)]))

// --------------------------------------------------------------- numbers

type NumOp = (first: Num, ...rest: ReadonlyArray<Num>) => Call<number>

/**
 * `["add", …]`: f64 sum.
 *
 * @since 0.1.0
 * @category builder
 */
export const add: NumOp = (...args) => node("add", ...args)

/**
 * `["mul", …]`: f64 product.
 *
 * @since 0.1.0
 * @category builder
 */
export const mul: NumOp = (...args) => node("mul", ...args)

/**
 * `["sub", a, b]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const sub = (a: Num, b: Num): Call<number> => node("sub", a, b)

/**
 * `["div", a, b]`: float division; a zero divisor is `EXPR_DIV_ZERO`.
 *
 * @since 0.1.0
 * @category builder
 */
export const div = (a: Num, b: Num): Call<number> => node("div", a, b)

/**
 * `["mod", a, b]`: truncated remainder (sign of the dividend).
 *
 * @since 0.1.0
 * @category builder
 */
export const mod = (a: Num, b: Num): Call<number> => node("mod", a, b)

/**
 * `["neg", a]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const neg = (a: Num): Call<number> => node("neg", a)

/**
 * `["min", …]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const min: NumOp = (...args) => node("min", ...args)

/**
 * `["max", …]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const max: NumOp = (...args) => node("max", ...args)

/**
 * `["abs", a]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const abs = (a: Num): Call<number> => node("abs", a)

/**
 * `["floor", a]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const floor = (a: Num): Call<number> => node("floor", a)

/**
 * `["ceil", a]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const ceil = (a: Num): Call<number> => node("ceil", a)

/**
 * `["round", a]`: halves round up (`-2.5 → -2`), as JavaScript's `Math.round`.
 *
 * @since 0.1.0
 * @category builder
 */
export const round = (a: Num): Call<number> => node("round", a)

/**
 * `["clamp", x, lo, hi]`: `lo > hi` is `EXPR_ARG`.
 *
 * @since 0.1.0
 * @category builder
 */
export const clamp = (x: Num, lo: Num, hi: Num): Call<number> => node("clamp", x, lo, hi)

// ------------------------------------------------------------ comparison

interface Compare {
  (a: Num, b: Num): Call<boolean>
  (a: Text, b: Text): Call<boolean>
}

/**
 * `["lt", a, b]`: two numbers, or two strings in UTF-16 code unit order.
 *
 * @since 0.1.0
 * @category builder
 */
export const lt: Compare = (a: Any, b: Any) => node("lt", a, b)

/**
 * `["lte", a, b]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const lte: Compare = (a: Any, b: Any) => node("lte", a, b)

/**
 * `["gt", a, b]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const gt: Compare = (a: Any, b: Any) => node("gt", a, b)

/**
 * `["gte", a, b]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const gte: Compare = (a: Any, b: Any) => node("gte", a, b)

/**
 * `["eq", a, b]`: deep structural equality (`1 ≡ 1.0`, key order ignored, cross-type false).
 *
 * @since 0.1.0
 * @category builder
 */
export const eq = (a: Any, b: Any): Call<boolean> => node("eq", a, b)

/**
 * `["neq", a, b]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const neq = (a: Any, b: Any): Call<boolean> => node("neq", a, b)

// ----------------------------------------------------------------- logic

/**
 * `["and", …]`: strict booleans, short-circuit.
 *
 * @since 0.1.0
 * @category builder
 */
export const and = (first: Bool, ...rest: ReadonlyArray<Bool>): Call<boolean> => node("and", first, ...rest)

/**
 * `["or", …]`: strict booleans, short-circuit.
 *
 * @since 0.1.0
 * @category builder
 */
export const or = (first: Bool, ...rest: ReadonlyArray<Bool>): Call<boolean> => node("or", first, ...rest)

/**
 * `["not", a]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const not = (a: Bool): Call<boolean> => node("not", a)

// ----------------------------------------------------------------- lists

/**
 * `["len", list]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const len = (items: List): Call<number> => node("len", items)

/**
 * `["nth", list, index]`: out of range is `EXPR_PATH`.
 *
 * @since 0.1.0
 * @category builder
 */
export const nth = <L extends List>(items: L, index: Num): Call<ElementOf<L>> => node("nth", items, index)

/**
 * `["concat", …lists]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const concat = (first: List, ...rest: ReadonlyArray<List>): Call<ReadonlyArray<Dynamic>> =>
  node("concat", first, ...rest)

/**
 * `["map", list, name, body]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const map = <L extends List, const N extends string, B extends Any>(
  items: L,
  name: N,
  body: Body<[Call<ElementOf<L>>], B>
): Call<ReadonlyArray<ResultOf<B>>> => node("map", items, name, bodyOf(body, [get(name)]))

/**
 * `["filter", list, name, body]`: the body must return a boolean.
 *
 * @since 0.1.0
 * @category builder
 */
export const filter = <L extends List, const N extends string>(
  items: L,
  name: N,
  body: Body<[Call<ElementOf<L>>], Bool>
): Call<ReadonlyArray<ElementOf<L>>> => node("filter", items, name, bodyOf(body, [get(name)]))

/**
 * `["fold", list, init, acc, item, body]`: a left fold. A body function receives the accumulator
 * (typed as the initial value) and the item.
 *
 * @since 0.1.0
 * @category builder
 */
export const fold = <L extends List, I extends Any, const A extends string, const N extends string, B extends Any>(
  items: L,
  init: I,
  acc: A,
  item: N,
  body: Body<[Call<ResultOf<I>>, Call<ElementOf<L>>], B>
): Call<Join<ResultOf<I>, ResultOf<B>>> => node("fold", items, init, acc, item, bodyOf(body, [get(acc), get(item)]))

/**
 * `["contains", list, value]`: `eq` membership.
 *
 * @since 0.1.0
 * @category builder
 */
export const contains = (items: List, value: Any): Call<boolean> => node("contains", items, value)

/**
 * `["reverse", list]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const reverse = <L extends List>(items: L): Call<ReadonlyArray<ElementOf<L>>> => node("reverse", items)

/**
 * `["take", list, n]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const take = <L extends List>(items: L, n: Num): Call<ReadonlyArray<ElementOf<L>>> => node("take", items, n)

/**
 * `["drop", list, n]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const drop = <L extends List>(items: L, n: Num): Call<ReadonlyArray<ElementOf<L>>> => node("drop", items, n)

/**
 * `["flat", list]`: one level; every element must be a list.
 *
 * @since 0.1.0
 * @category builder
 */
export const flat = (items: List): Call<ReadonlyArray<Dynamic>> => node("flat", items)

/**
 * `["unique", list]`: dedupe by `eq`, first-seen order.
 *
 * @since 0.1.0
 * @category builder
 */
export const unique = <L extends List>(items: L): Call<ReadonlyArray<ElementOf<L>>> => node("unique", items)

/**
 * `["sort", list]`: stable total order null < bool < number < text < list < map.
 *
 * @since 0.1.0
 * @category builder
 */
export const sort = <L extends List>(items: L): Call<ReadonlyArray<ElementOf<L>>> => node("sort", items)

// --------------------------------------------------------------- strings

/**
 * `["slen", s]`: length in UTF-16 code units.
 *
 * @since 0.1.0
 * @category builder
 */
export const slen = (s: Text): Call<number> => node("slen", s)

/**
 * `["sconcat", …]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const sconcat = (first: Text, ...rest: ReadonlyArray<Text>): Call<string> => node("sconcat", first, ...rest)

/**
 * `["upper", s]`: ASCII only.
 *
 * @since 0.1.0
 * @category builder
 */
export const upper = (s: Text): Call<string> => node("upper", s)

/**
 * `["lower", s]`: ASCII only.
 *
 * @since 0.1.0
 * @category builder
 */
export const lower = (s: Text): Call<string> => node("lower", s)

/**
 * `["trim", s]`: ASCII whitespace `" \t\n\r\v\f"` only.
 *
 * @since 0.1.0
 * @category builder
 */
export const trim = (s: Text): Call<string> => node("trim", s)

/**
 * `["split", s, separator]`: literal split; an empty separator is `EXPR_ARG`.
 *
 * @since 0.1.0
 * @category builder
 */
export const split = (s: Text, separator: Text): Call<ReadonlyArray<string>> => node("split", s, separator)

/**
 * `["join", list, separator]`: every element must be a string.
 *
 * @since 0.1.0
 * @category builder
 */
export const join = (items: List, separator: Text): Call<string> => node("join", items, separator)

/**
 * `["scontains", s, part]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const scontains = (s: Text, part: Text): Call<boolean> => node("scontains", s, part)

/**
 * `["starts", s, prefix]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const starts = (s: Text, prefix: Text): Call<boolean> => node("starts", s, prefix)

/**
 * `["ends", s, suffix]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const ends = (s: Text, suffix: Text): Call<boolean> => node("ends", s, suffix)

// ------------------------------------------------------------------ maps

/**
 * `["has", map, key]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const has = (m: MapOf, key: Text): Call<boolean> => node("has", m, key)

/**
 * `["keys", map]`: in canonical key order.
 *
 * @since 0.1.0
 * @category builder
 */
export const keys = (m: MapOf): Call<ReadonlyArray<string>> => node("keys", m)

/**
 * `["values", map]`: in canonical key order.
 *
 * @since 0.1.0
 * @category builder
 */
export const values = (m: MapOf): Call<ReadonlyArray<Dynamic>> => node("values", m)

/**
 * `["merge", …maps]`: shallow, rightmost wins.
 *
 * @since 0.1.0
 * @category builder
 */
export const merge = (first: MapOf, ...rest: ReadonlyArray<MapOf>): Call<{ readonly [key: string]: Dynamic }> =>
  node("merge", first, ...rest)

/**
 * `["toText", value]`: canonical JSON text.
 *
 * @since 0.1.0
 * @category builder
 */
export const toText = (value: Any): Call<string> => node("toText", value)

// ------------------------------------------------------------ predicates

/**
 * `["isText", value]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const isText = (value: Any): Call<boolean> => node("isText", value)

/**
 * `["isNum", value]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const isNum = (value: Any): Call<boolean> => node("isNum", value)

/**
 * `["isBool", value]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const isBool = (value: Any): Call<boolean> => node("isBool", value)

/**
 * `["isList", value]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const isList = (value: Any): Call<boolean> => node("isList", value)

/**
 * `["isMap", value]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const isMap = (value: Any): Call<boolean> => node("isMap", value)

/**
 * `["isNull", value]`.
 *
 * @since 0.1.0
 * @category builder
 */
export const isNull = (value: Any): Call<boolean> => node("isNull", value)
