/**
 * The reference pipeline of `Expr.evaluate`, for differential tests: the tree-walking machine
 * behind the original `evaluate` (the exact env admission walks, the static check on every call,
 * `Machine`, the output bounds).
 */
import { Expr } from "../../src/index.js"
import { checkProgram } from "../../src/internal/expr/check.js"
import { ExprFault } from "../../src/internal/expr/fault.js"
import { exceedsDepth, measure } from "../../src/internal/expr/input.js"
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
} from "../../src/internal/expr/value.js"
import { run as runTree } from "./exprTreeWalker.js"

// The reference pipeline: the tree-walking machine behind the original `evaluate` (the exact env
// admission walks, the static check on every call, `Machine`, the output bounds). The closure
// compiler, the fast env admission and `compile`/`run` must agree with it on every value, every
// fuel figure and every error.
export const reference = (program: unknown, env: unknown, fuel: number): Expr.Result => {
  const fail = (error: Record<string, unknown>, spent = 0): Expr.Result => ({
    ok: false,
    error: error as Expr.ExprError,
    fuel: spent
  })
  try {
    if (env === null || typeof env !== "object" || Array.isArray(env)) {
      return fail({ code: "EXPR_PARSE", what: "env must be a JSON object" })
    }
    const keys = Object.keys(env)
    if (keys.length > BOUNDS.envKeys) return fail({ code: "EXPR_BOUNDS", what: "object-keys", max: BOUNDS.objectKeys })
    const measured = measure(env, BOUNDS.envBytes)
    if (measured._tag === "NotJson") {
      return fail({
        code: "EXPR_PARSE",
        what: `env is not JSON: ${measured.reason}${measured.path === "" ? "" : ` at ${measured.path}`}`
      })
    }
    if (measured._tag === "Over") return fail({ code: "EXPR_BOUNDS", what: "env-bytes", max: BOUNDS.envBytes })
    if (exceedsDepth(env, 1, BOUNDS.valueDepth)) {
      return fail({ code: "EXPR_BOUNDS", what: "value-depth", max: BOUNDS.valueDepth })
    }
    const admitted = new Map<string, V>()
    for (const key of keys.sort(compareUtf8)) {
      const value = fromJson((env as Record<string, unknown>)[key])
      valueBytes(value, 1)
      admitted.set(key, value)
    }
    const node = checkProgram(program, Array.from(admitted.keys()))
    if (!Number.isInteger(fuel) || fuel < 0 || fuel > Expr.maxFuel) {
      return fail({ code: "EXPR_BOUNDS", what: Expr.fuelBudgetWhat, max: Expr.maxFuel })
    }
    const outcome = runTree(node, admitted, fuel)
    if (!outcome.ok) return fail(outcome.fault.record, outcome.fuel)
    if (exceedsBytes(outcome.value, BOUNDS.outputBytes)) {
      return fail({ code: "EXPR_BOUNDS", what: "output-bytes", max: BOUNDS.outputBytes }, outcome.fuel)
    }
    if (valueDepth(outcome.value) > BOUNDS.valueDepth) {
      return fail({ code: "EXPR_BOUNDS", what: "value-depth", max: BOUNDS.valueDepth }, outcome.fuel)
    }
    return { ok: true, value: toJson(outcome.value) as any, fuel: outcome.fuel }
  } catch (error) {
    if (error instanceof ExprFault) return fail(error.record)
    throw error
  } finally {
    releaseCaches()
  }
}
