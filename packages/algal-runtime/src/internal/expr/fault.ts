/**
 * The throw-based failure used inside the evaluator: a plain object (no stack capture) carrying the
 * `algal.expr.v1` error record. Always caught at the `Expr` boundary.
 *
 * @internal
 */

/** @internal */
export type ExprCode =
  | "EXPR_PARSE"
  | "EXPR_OP"
  | "EXPR_ARITY"
  | "EXPR_TYPE"
  | "EXPR_PATH"
  | "EXPR_ARG"
  | "EXPR_NUM"
  | "EXPR_DIV_ZERO"
  | "EXPR_BOUNDS"
  | "EXPR_FUEL"

/** @internal */
export type ExprRecord = { readonly code: ExprCode; readonly [detail: string]: unknown }

/** @internal */
export class ExprFault {
  constructor(readonly record: ExprRecord) {}
}

/** @internal */
export const fault = (record: ExprRecord): ExprFault => new ExprFault(record)

/** @internal */
export const typeFault = (op: string, arg: number, want: string, got: string): ExprFault =>
  new ExprFault({ code: "EXPR_TYPE", op, arg, want, got })
