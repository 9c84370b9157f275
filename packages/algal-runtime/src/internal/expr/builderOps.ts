/**
 * The typed builder of `algal.expr.v1` programs, continued (re-exported by `Expr`): lists,
 * strings, maps and type predicates.
 *
 * @internal
 */
import {
  type Any,
  type Body,
  type Bool,
  type Call,
  type Dynamic,
  type ElementOf,
  get,
  type Join,
  type List,
  type MapOf,
  type Num,
  type ResultOf,
  type Text
} from "./builder.js"
import { bodyOf, node } from "./builderNode.js"

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
