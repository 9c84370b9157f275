/**
 * The fast tier of `algal.expr.v1`: a checked program whose ops all come from a small, common
 * subset (literals and constants, object literals, `get`, `let`, `if`, `fold`, arithmetic,
 * comparisons, logic and type predicates) is also generated as ONE JavaScript function that runs
 * over the caller's plain JSON values, without converting them to runtime values first.
 *
 * The tier only ever answers when the general evaluator (`compile.ts`) would succeed, and then with
 * the very same value and fuel: it follows the same evaluation order and adds the same charges, and
 * it gives up (`BAIL`) on anything that could make the general evaluator fail or differ — a type
 * mismatch, a non-finite number, a division by zero, a missed name, fuel running out, a container
 * where it expects a scalar, a value anywhere near a bound. The caller then runs the general path,
 * which reports exactly what the original reports. So the tier can make a program faster, never
 * different; the differential tests hold it to that.
 *
 * Fuel is counted up and compared with the budget at every loop iteration and at the end: charges
 * only grow, so a total within the budget means no charge on the way failed.
 *
 * Generated code embeds only numbers, JSON string literals, generated identifiers and the fixed
 * op templates below — never program text as code. Where a host forbids `new Function` (a strict
 * content security policy), the tier is simply absent.
 *
 * @internal
 */
import { admitsAsIs } from "./input.js"
import type { Node } from "./node.js"
import { BOUNDS, type V, valueBytes } from "./value.js"

/** The tier gave up: run the general path. @internal */
export const BAIL: unique symbol = Symbol.for("@steward/algal-runtime/expr/fast/bail")

/** A generated program: the value and the fuel spent, or `BAIL`. @internal */
export type Fast = (env: Record<string, unknown>, budget: number) => FastResult | typeof BAIL

/** @internal */
export interface FastResult {
  readonly ok: true
  readonly value: unknown
  readonly fuel: number
}

// Strings up to this length are within string-bytes whatever they hold (6 bytes per UTF-16 unit
// at most, escaped, plus the quotes): no scan needed to know a comparison operand is in bounds.
const SAFE_STRING = Math.floor((BOUNDS.stringBytes - 2) / 6)

/** Keys a generated object literal may have: no array-index-like keys (JS would reorder them) and no `__proto__`. */
const plainKey = (key: string): boolean => key !== "__proto__" && !/^[0-9]/.test(key)

class Unsupported {}
const unsupported = new Unsupported()

/** A generated expression: the JS expression reading its value, and whether the value is "fresh". */
interface Out {
  readonly js: string
  /** A scalar, or an object the program built (flat, canonical key order, no -0): needs no copy. */
  readonly fresh: boolean
}

/** A binder in scope: its name and the JS variable holding it. */
interface Binder {
  readonly name: string
  readonly js: string
}

const NUMBER_OPS = new Set(["sub", "div", "mod", "neg", "abs", "floor", "ceil", "round", "clamp"])
const COMPARE_OPS: Record<string, string> = { lt: "<", lte: "<=", gt: ">", gte: ">=" }
const PREDICATES: Record<string, (x: string) => string> = {
  isText: (x) => `typeof ${x} === "string"`,
  isNum: (x) => `typeof ${x} === "number"`,
  isBool: (x) => `typeof ${x} === "boolean"`,
  isNull: (x) => `${x} === null`,
  isList: (x) => `Array.isArray(${x})`,
  isMap: (x) => `(${x} !== null && typeof ${x} === "object" && !Array.isArray(${x}))`
}

const numberLiteral = (n: number): string => (Object.is(n, -0) ? "-0" : String(n))

const scalarLiteral = (v: V): string => {
  if (v === null) return "null"
  if (typeof v === "number") return numberLiteral(v)
  if (typeof v === "boolean" || typeof v === "string") return JSON.stringify(v)
  throw unsupported
}

/** A quoted constant as plain JSON (keeping -0, which only the output normalizes). */
const constantOf = (v: V): unknown => {
  if (v === null || typeof v !== "object") return v
  if (Array.isArray(v)) return (v as ReadonlyArray<V>).map(constantOf)
  const out: Record<string, unknown> = {}
  for (const [key, value] of v as ReadonlyMap<string, V>) {
    if (key === "__proto__") throw unsupported
    out[key] = constantOf(value)
  }
  return out
}

class Generator {
  private readonly lines: Array<string> = []
  private temps = 0
  private readonly declared: Array<string> = []
  readonly constants: Array<unknown> = []

  constructor(private readonly names: ReadonlySet<string>) {}

  private temp(): string {
    const name = `t${this.temps++}`
    this.declared.push(name)
    return name
  }

  private emit(line: string): void {
    this.lines.push(line)
  }

  private charge(cost: number): void {
    if (cost !== 0) this.emit(`f += ${cost};`)
  }

  node(node: Node, scope: ReadonlyArray<Binder>): Out {
    switch (node.k) {
      case 0:
        this.charge(1)
        return { js: scalarLiteral(node.v), fresh: true }
      case 1:
        return this.object(node.keys, node.fields, scope)
      case 2:
        return this.call(node, scope)
    }
  }

  /** A value that must be a number (else the general path reports a type fault). */
  private number(node: Node, scope: ReadonlyArray<Binder>): string {
    const out = this.node(node, scope)
    const t = this.temp()
    this.emit(`${t} = ${out.js}; if (typeof ${t} !== "number") return BAIL;`)
    return t
  }

  private boolean(node: Node, scope: ReadonlyArray<Binder>): string {
    const out = this.node(node, scope)
    const t = this.temp()
    this.emit(`${t} = ${out.js}; if (typeof ${t} !== "boolean") return BAIL;`)
    return t
  }

  /** A comparison operand: a scalar; strings short enough to be within every bound. */
  private operand(node: Node, scope: ReadonlyArray<Binder>): string {
    const out = this.node(node, scope)
    const t = this.temp()
    this.emit(
      `${t} = ${out.js}; if ((typeof ${t} === "object" && ${t} !== null) || (typeof ${t} === "string" && ${t}.length > ${SAFE_STRING})) return BAIL;`
    )
    return t
  }

  private object(keys: ReadonlyArray<string>, fields: ReadonlyArray<Node>, scope: ReadonlyArray<Binder>): Out {
    if (keys.length > BOUNDS.objectKeys || !keys.every(plainKey)) throw unsupported
    this.charge(1)
    // fields are evaluated in the program's key order and must be scalars (a container field
    // would need measuring: the general path does it)
    const values: Array<string> = []
    const length = this.temp()
    this.emit(`${length} = 0;`)
    for (const field of fields) {
      const out = this.node(field, scope)
      const t = this.temp()
      this.emit(
        `${t} = ${out.js}; if (typeof ${t} === "object") { if (${t} !== null) return BAIL; } else if (typeof ${t} === "string") ${length} += ${t}.length; else if (${t} === 0) ${t} = 0;`
      )
      values.push(t)
    }
    // every string within string-bytes, and the whole object within value-bytes and output-bytes
    let keyBytes = 2
    for (const key of keys) keyBytes += JSON.stringify(key).length * 3 + 2 + 25
    this.emit(`if (${length} > ${SAFE_STRING} || ${length} * 6 + ${keyBytes} > ${BOUNDS.outputBytes}) return BAIL;`)
    // built in canonical key order (UTF-16 order: no key is array-index-like)
    const order = keys.map((key, i) => [key, values[i]!] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    const t = this.temp()
    this.emit(`${t} = { ${order.map(([key, value]) => `${JSON.stringify(key)}: ${value}`).join(", ")} };`)
    return { js: t, fresh: true }
  }

  private call(node: Extract<Node, { k: 2 }>, scope: ReadonlyArray<Binder>): Out {
    const { args, cost, op } = node
    switch (op) {
      case "get":
        return this.get(node, scope)
      case "quote": {
        this.charge(cost)
        const v = node.quoted
        if (v === null || typeof v !== "object") return { js: scalarLiteral(v), fresh: true }
        // the general path measures a quoted container: one that could fail is left to it
        try {
          valueBytes(v, 0)
        } catch {
          throw unsupported
        }
        this.constants.push(constantOf(v))
        return { js: `C[${this.constants.length - 1}]`, fresh: false }
      }
      case "let": {
        this.charge(cost)
        const value = this.node(args[1]!, scope)
        const slot = this.temp()
        this.emit(`${slot} = ${value.js};`)
        return this.node(args[2]!, [...scope, { name: node.names[0]!, js: slot }])
      }
      case "if": {
        this.charge(cost)
        const test = this.boolean(args[0]!, scope)
        const result = this.temp()
        this.emit(`if (${test}) {`)
        const then = this.node(args[1]!, scope)
        this.emit(`${result} = ${then.js}; } else {`)
        const otherwise = this.node(args[2]!, scope)
        this.emit(`${result} = ${otherwise.js}; }`)
        return { js: result, fresh: then.fresh && otherwise.fresh }
      }
      case "and":
      case "or": {
        this.charge(cost)
        const want = op === "and"
        const result = this.temp()
        this.emit(`${result} = ${want}; ${result}: {`)
        for (const arg of args) {
          const v = this.boolean(arg, scope)
          this.emit(`if (${v} !== ${want}) { ${result} = ${!want}; break ${result}; }`)
        }
        this.emit(`}`)
        return { js: result, fresh: true }
      }
      case "not": {
        this.charge(cost)
        return { js: `!${this.boolean(args[0]!, scope)}`, fresh: true }
      }
      case "fold": {
        this.charge(cost)
        const items = this.temp()
        const list = this.node(args[0]!, scope)
        this.emit(`${items} = ${list.js}; if (!Array.isArray(${items})) return BAIL;`)
        const init = this.node(args[1]!, scope)
        const acc = this.temp()
        const item = this.temp()
        const i = this.temp()
        this.emit(`${acc} = ${init.js};`)
        this.emit(`for (${i} = 0; ${i} < ${items}.length; ${i}++) { f += 1; if (f > budget) return BAIL;`)
        const inner = [...scope, { name: node.names[0]!, js: acc }, { name: node.names[1]!, js: item }]
        this.emit(`${item} = ${items}[${i}];`)
        const body = this.node(args[4]!, inner)
        this.emit(`${acc} = ${body.js}; }`)
        return { js: acc, fresh: init.fresh && body.fresh }
      }
      case "add":
      case "mul": {
        this.charge(cost)
        const isAdd = op === "add"
        const acc = this.temp()
        this.emit(`${acc} = ${isAdd ? 0 : 1};`)
        for (const arg of args) {
          const v = this.number(arg, scope)
          this.emit(`${acc} = ${acc} ${isAdd ? "+" : "*"} ${v};`)
        }
        this.emit(`if (!Number.isFinite(${acc})) return BAIL;`)
        return { js: acc, fresh: true }
      }
      case "min":
      case "max": {
        // not self-paid: the general wrapper charges the cost before the arguments
        this.charge(cost)
        const best = this.temp()
        args.forEach((arg, i) => {
          const v = this.number(arg, scope)
          this.emit(i === 0 ? `${best} = ${v};` : `if (${v} ${op === "min" ? "<" : ">"} ${best}) ${best} = ${v};`)
        })
        if (args.length === 0) this.emit(`${best} = 0;`)
        return { js: best, fresh: true }
      }
      case "eq":
      case "neq": {
        this.charge(cost)
        const x = this.operand(args[0]!, scope)
        const y = this.operand(args[1]!, scope)
        // the general path charges the node counts of both sides (1 each for scalars)
        this.charge(2)
        return { js: `(${x} ${op === "eq" ? "===" : "!=="} ${y})`, fresh: true }
      }
      case "len":
      case "slen": {
        this.charge(cost)
        const out = this.node(args[0]!, scope)
        const t = this.temp()
        const check = op === "len" ? `!Array.isArray(${t})` : `typeof ${t} !== "string"`
        this.emit(`${t} = ${out.js}; if (${check}) return BAIL;`)
        return { js: `${t}.length`, fresh: true }
      }
      case "nth": {
        this.charge(cost)
        const out = this.node(args[0]!, scope)
        const items = this.temp()
        this.emit(`${items} = ${out.js}; if (!Array.isArray(${items})) return BAIL;`)
        const index = this.number(args[1]!, scope)
        const t = this.temp()
        this.emit(
          `if (!(${index} >= 0 && ${index} % 1 === 0 && ${index} < ${items}.length)) return BAIL; ${t} = ${items}[${index}];`
        )
        return { js: t, fresh: false }
      }
    }
    return this.scalar(node, scope)
  }

  /** The comparisons, type predicates and the other number ops (generated as one expression each). */
  private scalar(node: Extract<Node, { k: 2 }>, scope: ReadonlyArray<Binder>): Out {
    const { args, cost, op } = node
    if (op in COMPARE_OPS) {
      this.charge(cost)
      const x = this.operand(args[0]!, scope)
      const y = this.operand(args[1]!, scope)
      // two numbers or two strings (JS compares strings by UTF-16 code units, as the language)
      this.emit(
        `if (!((typeof ${x} === "number" && typeof ${y} === "number") || (typeof ${x} === "string" && typeof ${y} === "string"))) return BAIL;`
      )
      return { js: `(${x} ${COMPARE_OPS[op]} ${y})`, fresh: true }
    }
    if (op in PREDICATES) {
      this.charge(cost)
      const out = this.node(args[0]!, scope)
      const t = this.temp()
      this.emit(`${t} = ${out.js};`)
      return { js: `(${PREDICATES[op]!(t)})`, fresh: true }
    }
    if (NUMBER_OPS.has(op)) {
      this.charge(cost)
      const x = this.number(args[0]!, scope)
      const t = this.temp()
      switch (op) {
        case "sub":
        case "div":
        case "mod": {
          const y = this.number(args[1]!, scope)
          if (op !== "sub") this.emit(`if (${y} === 0) return BAIL;`)
          this.emit(`${t} = ${x} ${op === "sub" ? "-" : op === "div" ? "/" : "%"} ${y};`)
          break
        }
        case "neg":
          this.emit(`${t} = -${x};`)
          break
        case "abs":
        case "floor":
        case "ceil":
          this.emit(`${t} = Math.${op}(${x});`)
          break
        case "round":
          this.emit(`${t} = Math.floor(${x}); if (${x} - ${t} >= 0.5) ${t} = ${t} + 1;`)
          break
        case "clamp": {
          const lo = this.number(args[1]!, scope)
          const hi = this.number(args[2]!, scope)
          this.emit(`if (${lo} > ${hi}) return BAIL; ${t} = Math.min(Math.max(${x}, ${lo}), ${hi});`)
          return { js: t, fresh: true }
        }
      }
      this.emit(`if (!Number.isFinite(${t})) return BAIL;`)
      return { js: t, fresh: true }
    }
    throw unsupported
  }

  /**
   * `get`: its cost, the name (1 for a literal name, resolved statically), then each step in order
   * until a miss, which makes the whole `get` null (later steps are neither evaluated nor charged).
   */
  private get(node: Extract<Node, { k: 2 }>, scope: ReadonlyArray<Binder>): Out {
    this.charge(node.cost)
    const [head, ...steps] = node.args
    const cur = this.temp()
    if (head!.k === 0 && typeof head!.v === "string") {
      this.charge(1)
      const name = head!.v
      const binder = [...scope].reverse().find((b) => b.name === name)
      if (binder !== undefined) this.emit(`${cur} = ${binder.js};`)
      else if (this.names.has(name)) this.emit(`${cur} = env[${JSON.stringify(name)}];`)
      else this.emit(`return BAIL;`)
    } else {
      const out = this.node(head!, scope)
      const key = this.temp()
      this.emit(`${key} = ${out.js}; if (typeof ${key} !== "string") return BAIL;`)
      // innermost binder first, then the env (only its declared names)
      const chain = [...scope].reverse()
      const tests = chain.map((b) => `${key} === ${JSON.stringify(b.name)} ? ${b.js} : `).join("")
      this.emit(
        `${cur} = ${tests}(names.has(${key}) ? env[${key}] : undefined); if (${cur} === undefined) return BAIL;`
      )
    }
    if (steps.length === 0) return { js: cur, fresh: false }
    const label = this.temp()
    this.emit(`${label}: {`)
    for (const step of steps) {
      if (step.k === 0) {
        this.charge(1)
        const v = step.v
        if (typeof v === "string") {
          const t = this.temp()
          // A name Object.prototype has (toString, __proto__, …) needs the own-property test;
          // any other is own exactly when the read is not undefined (JSON holds no functions, so
          // a function read is inherited: a polluted prototype, read as a miss).
          const own = v in Object.prototype
            ? `hop.call(${cur}, ${JSON.stringify(v)}) ? ${cur}[${JSON.stringify(v)}] : undefined`
            : `${cur}[${JSON.stringify(v)}]`
          this.emit(
            `if (${cur} === null || typeof ${cur} !== "object" || Array.isArray(${cur})) { ${cur} = null; break ${label}; } ${t} = ${own}; if (${t} === undefined || typeof ${t} === "function") { ${cur} = null; break ${label}; } ${cur} = ${t};`
          )
        } else if (typeof v === "number") {
          if (!(v >= 0 && v % 1 === 0)) {
            this.emit(`return BAIL;`)
            continue
          }
          this.emit(
            `if (!Array.isArray(${cur}) || ${v} >= ${cur}.length) { ${cur} = null; break ${label}; } ${cur} = ${cur}[${v}];`
          )
        } else this.emit(`return BAIL;`)
      } else {
        const out = this.node(step, scope)
        const s = this.temp()
        this.emit(`${s} = ${out.js};`)
        this.emit(
          `if (typeof ${s} === "string") { if (${cur} === null || typeof ${cur} !== "object" || Array.isArray(${cur})) { ${cur} = null; break ${label}; } ${s} = ${s} === "__proto__" ? (hop.call(${cur}, ${s}) ? ${cur}[${s}] : undefined) : ${cur}[${s}]; if (${s} === undefined || typeof ${s} === "function") { ${cur} = null; break ${label}; } ${cur} = ${s}; }`
        )
        this.emit(
          `else if (typeof ${s} === "number") { if (!(${s} >= 0 && ${s} % 1 === 0)) return BAIL; if (!Array.isArray(${cur}) || ${s} >= ${cur}.length) { ${cur} = null; break ${label}; } ${cur} = ${cur}[${s}]; }`
        )
        this.emit(`else return BAIL;`)
      }
    }
    this.emit(`}`)
    return { js: cur, fresh: false }
  }

  source(root: Out): string {
    // a long string result could be over output-bytes: the general path measures it
    const scalar =
      `if (typeof r === "string" && r.length > ${SAFE_STRING}) return BAIL; return { ok: true, value: r === 0 ? 0 : r, fuel: f };`
    const finish = root.fresh
      ? `r = ${root.js}; ${scalar}`
      : `r = ${root.js}; if (r !== null && typeof r === "object") return finish(r, f); ${scalar}`
    return [
      `return function fast(env, budget) {`,
      `let f = 0, r${this.declared.length > 0 ? ", " + this.declared.join(", ") : ""};`,
      ...this.lines,
      `if (f > budget) return BAIL;`,
      finish,
      `};`
    ].join("\n")
  }
}

/**
 * Generate the fast tier of a checked program for the given env names, or `undefined` when the
 * program uses an op outside the subset (or the host forbids generated code).
 *
 * `finish` turns a container result that is not the program's own (an env part or a constant)
 * into the output value, or `BAIL` when it is not within the output bounds.
 *
 * @internal
 */
export const generate = (
  node: Node,
  names: ReadonlyArray<string>,
  finish: (value: object, fuel: number) => FastResult | typeof BAIL
): Fast | undefined => {
  try {
    const set = new Set(names)
    const generator = new Generator(set)
    const root = generator.node(node, [])
    const source = generator.source(root)

    const make = new Function("BAIL", "C", "hop", "names", "finish", source) as (
      ...args: ReadonlyArray<unknown>
    ) => Fast
    return make(BAIL, generator.constants, Object.prototype.hasOwnProperty, set, finish)
  } catch {
    // an op outside the subset, or no `new Function` here: the general path alone
    return undefined
  }
}

/**
 * Run a generated program on a caller's env, or `BAIL`. The tier reads the env as it is, so only
 * an env the general path would admit as it is qualifies — exactly the compiled names (no
 * re-check for other names), every part well inside every bound — and a valid fuel budget.
 *
 * @internal
 */
export const attempt = (
  fast: Fast,
  names: ReadonlyArray<string>,
  env: unknown,
  fuel: number,
  maxFuel: number
): FastResult | typeof BAIL => {
  if (!Number.isInteger(fuel) || fuel < 0 || fuel > maxFuel) return BAIL
  if (env === null || typeof env !== "object" || Array.isArray(env)) return BAIL
  // exactly the compiled names: as many own keys, each of them one of the names
  let count = 0
  for (const key in env) {
    if (!Object.prototype.hasOwnProperty.call(env, key)) continue
    if (++count > names.length || !names.includes(key)) return BAIL
  }
  if (count !== names.length) return BAIL
  const record = env as Record<string, unknown>
  if (!admitsAsIs(record, names, BOUNDS.envBytes, BOUNDS.listLen, BOUNDS.objectKeys)) return BAIL
  try {
    return fast(record, fuel)
  } catch {
    // only reachable for exotic inputs whose reading throws (a getter, a Proxy trap): the
    // general path reads them its own way and reports
    return BAIL
  }
}
