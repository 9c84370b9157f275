/**
 * The typed builder of `algal.expr.v1` programs, re-exported by `Expr`: the phantom result types,
 * and the builders of literals, reads, conditionals, bindings, numbers, comparisons and booleans
 * (lists, strings, maps and predicates are in `builderOps`). Builders return plain JSON programs.
 *
 * @internal
 */
import type { Json } from "../../Canonical.js"
import { bodyOf, node } from "./builderNode.js"

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
