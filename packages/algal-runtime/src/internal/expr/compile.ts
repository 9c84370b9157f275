/**
 * The closure compiler: a checked node tree (`checkProgram`) becomes a tree of JavaScript closures,
 * one per node, with the op dispatch, binder resolution and constant costs settled at compile time.
 *
 * Semantics are exactly those of the tree-walking `Machine` (test/reference/exprTreeWalker.ts), which stays as the reference
 * the differential property tests compare against: the same evaluation order, the same fuel
 * charges in the same order (so exhaustion reports the same `{cost, left}`), the same bound checks
 * and the same first error. What changes is only the cost of getting there:
 *
 * - binders live in fixed slots: lexical scope is static (no functions, no recursion), so the
 *   runtime binder stack always mirrors the static nesting and a binder's slot is its static depth;
 *   a literal `get` name is resolved to its slot (or the env) once;
 * - no per-node allocation for the common arithmetic (argument lists of scalars are never built);
 * - values that are already bound-checked (a `get` result is part of a checked env or binder value;
 *   `if`/`let`/`fold` return the checked result of a child node) are not measured again.
 *
 * @internal
 */
import { ExprFault, fault, typeFault } from "./fault.js"
import { listItemsOp, listOp } from "./listOps.js"
import { type Code, type Compiled, growObject, isIndex, measured, spend, State } from "./machine.js"
import type { Node } from "./node.js"
import { compareOp, scalarOp } from "./scalarOps.js"
import { textOp } from "./textOps.js"
import { BOUNDS, boundsFault, escapedLength, kindOf, type V, valueBytes, type VMap } from "./value.js"

export { type Code, type Compiled, State, workAllowance, workPerFuel } from "./machine.js"

/** Ops whose compiled code charges its own cost and returns a scalar or an already checked value. */
const SELF_PAID: ReadonlySet<string> = new Set([
  "add",
  "mul",
  "sub",
  "div",
  "mod",
  "neg",
  "abs",
  "floor",
  "ceil",
  "round",
  "clamp",
  "lt",
  "lte",
  "gt",
  "gte",
  "eq",
  "neq",
  "and",
  "or",
  "not",
  "if",
  "let",
  "len",
  "nth",
  "fold",
  "slen",
  "isText",
  "isNum",
  "isBool",
  "isList",
  "isMap",
  "isNull"
])

/** A binder in scope at compile time: its name and its slot. */
interface Binder {
  readonly name: string
  readonly slot: number
}

class Compiler {
  slots = 0

  node(node: Node, scope: ReadonlyArray<Binder>): Code {
    switch (node.k) {
      case 0: {
        // A literal from the program is always within every bound.
        const v = node.v
        return (s) => {
          if (s.left < 1) throw fault({ code: "EXPR_FUEL", cost: 1, left: s.left })
          s.left -= 1
          return v
        }
      }
      case 1:
        return this.object(node.keys, node.fields.map((field) => this.node(field, scope)))
      case 2:
        return this.call(node, scope)
    }
  }

  private object(keys: ReadonlyArray<string>, fields: ReadonlyArray<Code>): Code {
    return (s) => {
      spend(s, 1)
      if (keys.length > BOUNDS.objectKeys) throw boundsFault("object-keys", BOUNDS.objectKeys)
      const out = new Map<string, V>()
      let bytes = 2
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!
        const value = fields[i]!(s)
        bytes = growObject(bytes, escapedLength(key) + 1 + (i === 0 ? 0 : 1), out, key, value)
        bytes = growObject(bytes, valueBytes(value, 1), out, key, value)
        out.set(key, value)
      }
      valueBytes(out, 0)
      return out
    }
  }

  private bind(scope: ReadonlyArray<Binder>, names: ReadonlyArray<string>): [Array<Binder>, number] {
    const first = scope.length === 0 ? 0 : scope[scope.length - 1]!.slot + 1
    const inner = scope.slice()
    for (let i = 0; i < names.length; i++) inner.push({ name: names[i]!, slot: first + i })
    if (first + names.length > this.slots) this.slots = first + names.length
    return [inner, first]
  }

  private call(node: Extract<Node, { k: 2 }>, scope: ReadonlyArray<Binder>): Code {
    const { cost, op } = node
    if (op === "get") return this.get(node, scope, cost)
    const args = node.args
    const last = args.length - 1
    let inner: ReadonlyArray<Binder> = scope
    let slot = 0
    if (node.names.length > 0) [inner, slot] = this.bind(scope, node.names)
    // Binders are visible only in the last argument (the body).
    const c: Array<Code> = args.map((arg, i) => this.node(arg, i === last ? inner : scope))
    const body = this.op(op, node, c, slot, cost)
    // These ops charge their own cost first thing, and need no result check: their result is a
    // scalar, or a checked value already (a child's result, or part of a checked value).
    if (SELF_PAID.has(op)) return body
    return (s) => {
      if (cost > s.left) throw fault({ code: "EXPR_FUEL", cost, left: s.left })
      s.left -= cost
      const value = body(s)
      if (measured(value)) valueBytes(value, 0)
      return value
    }
  }

  private op(
    op: string,
    node: Extract<Node, { k: 2 }>,
    c: ReadonlyArray<Code>,
    slot: number,
    cost: number
  ): Code {
    const code = scalarOp(op, node, c, slot, cost) ?? compareOp(op, node, c, slot, cost) ??
      listOp(op, node, c, slot, cost) ?? listItemsOp(op, node, c, slot, cost) ?? textOp(op, node, c, slot, cost)
    if (code !== undefined) return code
    // Unreachable for a checked program; kept as a typed failure rather than a throw.
    return () => {
      throw fault({ code: "EXPR_OP", op })
    }
  }

  /**
   * `get`: its cost, then the name (a literal name costs 1 and is resolved statically: innermost
   * binder slot, else the env; any other name is evaluated and looked up through the same static
   * scope chain at run time), then each path step in order until a miss. A `get` result is part of
   * a checked env or binder value, so it is never measured again.
   */
  private get(node: Extract<Node, { k: 2 }>, scope: ReadonlyArray<Binder>, cost: number): Code {
    const op = "get"
    const head = node.args[0]!
    const stepNodes = node.args.slice(1)
    const n = stepNodes.length
    // literal steps are constants (1 fuel each, as any literal); others are compiled
    const literals: Array<V> = stepNodes.map((step) => (step.k === 0 ? step.v : null))
    const codes: Array<Code | undefined> = stepNodes.map((step) => (step.k === 0 ? undefined : this.node(step, scope)))
    let literal: string | undefined
    let at = -1
    let nameCode: Code | undefined
    const chain = scope.slice()
    if (head.k === 0 && typeof head.v === "string") {
      literal = head.v
      for (let i = scope.length - 1; i >= 0; i--) {
        if (scope[i]!.name === literal) {
          at = scope[i]!.slot
          break
        }
      }
    } else nameCode = this.node(head, scope)
    const name = (s: State): V => {
      let key: string
      let cur: V | undefined
      if (literal !== undefined) {
        if (s.left < 1) throw fault({ code: "EXPR_FUEL", cost: 1, left: s.left })
        s.left -= 1
        key = literal
        cur = at >= 0 ? s.slots[at] : s.env.get(literal)
      } else {
        const v = nameCode!(s)
        if (typeof v !== "string") throw typeFault(op, 0, "name string", kindOf(v))
        key = v
        for (let i = chain.length - 1; i >= 0; i--) {
          if (chain[i]!.name === key) {
            cur = s.slots[chain[i]!.slot]
            break
          }
        }
        if (cur === undefined) cur = s.env.get(key)
      }
      if (cur === undefined) throw fault({ code: "EXPR_PATH", op, what: `unbound name "${key}"` })
      return cur
    }
    if (n === 0) {
      return (s) => {
        if (cost > s.left) throw fault({ code: "EXPR_FUEL", cost, left: s.left })
        s.left -= cost
        return name(s)
      }
    }
    return (s) => {
      if (cost > s.left) throw fault({ code: "EXPR_FUEL", cost, left: s.left })
      s.left -= cost
      let cur: V = name(s)
      for (let i = 0; i < n; i++) {
        let step: V
        const code = codes[i]
        if (code === undefined) {
          if (s.left < 1) throw fault({ code: "EXPR_FUEL", cost: 1, left: s.left })
          s.left -= 1
          step = literals[i]!
        } else step = code(s)
        if (typeof step === "string") {
          if (!(cur instanceof Map)) return null
          const next: V | undefined = cur.get(step)
          if (next === undefined) return null
          cur = next
        } else if (typeof step === "number") {
          if (!isIndex(step)) throw typeFault(op, i + 1, "nonneg integer index", "number")
          if (!Array.isArray(cur) || step >= cur.length) return null
          cur = (cur as ReadonlyArray<V>)[step]!
        } else throw typeFault(op, i + 1, "string key or nonneg integer index", kindOf(step))
      }
      return cur
    }
  }
}

/** Compile a checked program. @internal */
export const compile = (node: Node): Compiled => {
  const compiler = new Compiler()
  const code = compiler.node(node, [])
  return { code, slots: compiler.slots }
}

/** @internal */
export type Outcome =
  | { readonly ok: true; readonly value: V; readonly fuel: number }
  | { readonly ok: false; readonly fault: ExprFault; readonly fuel: number }

/** Run a compiled program. @internal */
export const execute = (compiled: Compiled, env: VMap, budget: number): Outcome => {
  const state = new State(env, budget, compiled.slots)
  try {
    const value = compiled.code(state)
    return { ok: true, value, fuel: budget - state.left }
  } catch (error) {
    if (error instanceof ExprFault) return { ok: false, fault: error, fuel: budget - state.left }
    throw error
  }
}
