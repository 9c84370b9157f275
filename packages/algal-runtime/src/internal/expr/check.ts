/**
 * The static check (`check_program`): program bounds, then a document-order walk checking op heads,
 * the op table, arity, binder identifiers and literal `get` names against the names in scope. The
 * same walk compiles the program into the evaluator's node tree.
 *
 * @internal
 */
import { fault } from "./fault.js"
import { measure } from "./input.js"
import type { Node } from "./node.js"
import { arityWant, isVarName, OPS } from "./ops.js"
import { BOUNDS, boundsFault, compareUtf8, fromJson, type V } from "./value.js"

const walk = (node: unknown, depth: number, scope: Array<string>): Node => {
  if (depth > BOUNDS.programDepth) throw boundsFault("program-depth", BOUNDS.programDepth)
  if (node === null || typeof node !== "object") return { k: 0, v: node as V }
  if (!Array.isArray(node)) {
    const record = node as Record<string, unknown>
    const keys = Object.keys(record)
    if (keys.length > 1) keys.sort(compareUtf8)
    const fields: Array<Node> = []
    for (let i = 0; i < keys.length; i++) fields.push(walk(record[keys[i]!], depth + 1, scope))
    return { k: 1, keys, fields }
  }
  const head: unknown = node[0]
  if (typeof head !== "string") throw fault({ code: "EXPR_PARSE", what: "op head must be a string" })
  const spec = OPS.get(head)
  if (spec === undefined) throw fault({ code: "EXPR_OP", op: head })
  const argc = node.length - 1
  if (argc < spec.min || argc > spec.max) {
    throw fault({ code: "EXPR_ARITY", op: head, want: arityWant(spec), got: argc })
  }
  const binders = spec.binders
  for (let i = 0; i < binders.length; i++) {
    const name: unknown = node[1 + binders[i]!]
    if (typeof name !== "string" || !isVarName(name)) {
      throw fault({
        code: "EXPR_PARSE",
        op: head,
        what: `binder arg ${binders[i]} must be an identifier <= ${BOUNDS.varLen} chars`
      })
    }
  }
  // quote's payload is data, never checked.
  if (head === "quote") return { k: 2, op: head, cost: spec.base, args: [], names: [], quoted: fromJson(node[1]) }
  if (head === "get") {
    const name: unknown = node[1]
    if (typeof name === "string" && !scope.includes(name)) {
      throw fault({ code: "EXPR_PATH", op: head, what: `unbound name "${name}"` })
    }
  }
  // Binders are visible only in the last argument (the body).
  const names = binders.length === 0 ? [] : binders.map((slot) => node[1 + slot] as string)
  const args: Array<Node> = []
  const last = node.length - 1
  for (let i = 1; i < node.length; i++) {
    if (i === last && names.length > 0) {
      for (const name of names) scope.push(name)
      args.push(walk(node[i], depth + 1, scope))
      scope.length -= names.length
    } else args.push(walk(node[i], depth + 1, scope))
  }
  return { k: 2, op: head, cost: head === "get" ? spec.base + argc : spec.base, args, names, quoted: null }
}

/**
 * Check an arbitrary value as a program and compile it. Throws an `ExprFault` with the first error
 * in document order.
 *
 * @internal
 */
export const checkProgram = (program: unknown, names: ReadonlyArray<string>): Node => {
  const measured = measure(program, BOUNDS.programBytes)
  if (measured._tag === "NotJson") {
    throw fault({
      code: "EXPR_PARSE",
      what: `program is not JSON: ${measured.reason}${measured.path === "" ? "" : ` at ${measured.path}`}`
    })
  }
  if (measured._tag === "Over") throw boundsFault("program-bytes", BOUNDS.programBytes)
  if (measured.nodes > BOUNDS.programNodes) throw boundsFault("program-nodes", BOUNDS.programNodes)
  return walk(program, 1, names.slice())
}
