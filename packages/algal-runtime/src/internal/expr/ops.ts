/**
 * The `algal.expr.v1` op table: arity, binder slots and base fuel cost of every op.
 *
 * @internal
 */

/** @internal */
export interface OpSpec {
  readonly min: number
  /** `Infinity` for variadic ops. */
  readonly max: number
  /** 0-based argument slots that must be literal identifiers (binders). */
  readonly binders: ReadonlyArray<number>
  /** Charged before any argument is evaluated (`get` adds its argument count). */
  readonly base: number
}

const spec = (min: number, max: number, base = 2, binders: ReadonlyArray<number> = []): OpSpec => ({
  min,
  max,
  binders,
  base
})

const V = Infinity

/** @internal */
export const OPS: ReadonlyMap<string, OpSpec> = new Map<string, OpSpec>([
  ["add", spec(1, V)],
  ["mul", spec(1, V)],
  ["sub", spec(2, 2)],
  ["div", spec(2, 2)],
  ["mod", spec(2, 2)],
  ["neg", spec(1, 1)],
  ["min", spec(1, V)],
  ["max", spec(1, V)],
  ["abs", spec(1, 1)],
  ["floor", spec(1, 1)],
  ["ceil", spec(1, 1)],
  ["round", spec(1, 1)],
  ["clamp", spec(3, 3)],
  ["lt", spec(2, 2)],
  ["lte", spec(2, 2)],
  ["gt", spec(2, 2)],
  ["gte", spec(2, 2)],
  ["eq", spec(2, 2)],
  ["neq", spec(2, 2)],
  ["and", spec(1, V, 1)],
  ["or", spec(1, V, 1)],
  ["not", spec(1, 1, 1)],
  ["if", spec(3, 3, 1)],
  ["let", spec(3, 3, 1, [0])],
  ["get", spec(1, V, 2)],
  ["list", spec(0, V, 1)],
  ["len", spec(1, 1)],
  ["nth", spec(2, 2)],
  ["concat", spec(1, V)],
  ["map", spec(3, 3, 2, [1])],
  ["filter", spec(3, 3, 2, [1])],
  ["fold", spec(5, 5, 2, [2, 3])],
  ["contains", spec(2, 2)],
  ["reverse", spec(1, 1)],
  ["take", spec(2, 2)],
  ["drop", spec(2, 2)],
  ["flat", spec(1, 1)],
  ["unique", spec(1, 1)],
  ["sort", spec(1, 1)],
  ["slen", spec(1, 1)],
  ["sconcat", spec(1, V)],
  ["upper", spec(1, 1)],
  ["lower", spec(1, 1)],
  ["trim", spec(1, 1)],
  ["split", spec(2, 2)],
  ["join", spec(2, 2)],
  ["scontains", spec(2, 2)],
  ["starts", spec(2, 2)],
  ["ends", spec(2, 2)],
  ["has", spec(2, 2)],
  ["keys", spec(1, 1)],
  ["values", spec(1, 1)],
  ["merge", spec(1, V)],
  ["toText", spec(1, 1)],
  ["isText", spec(1, 1, 1)],
  ["isNum", spec(1, 1, 1)],
  ["isBool", spec(1, 1, 1)],
  ["isList", spec(1, 1, 1)],
  ["isMap", spec(1, 1, 1)],
  ["isNull", spec(1, 1, 1)],
  ["quote", spec(1, 1, 1)]
])

/** The `want` of an arity error: `"min.."` or `"min..max"`. @internal */
export const arityWant = (s: OpSpec): string => (s.max === Infinity ? `${s.min}..` : `${s.min}..${s.max}`)

const identifier = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/

/** A binder name: an ASCII identifier of at most 64 bytes. @internal */
export const isVarName = (name: string): boolean => identifier.test(name)
