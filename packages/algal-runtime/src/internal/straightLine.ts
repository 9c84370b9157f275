/**
 * Straight-line evaluation of pure organisms (ADR 0397). A program whose cells are all `input`,
 * `const` and `expr` (each expr with a generated fast tier), wired by plain edges (no guard, no
 * failure edge, no `many` or optional port), commits every cell when every input port is given and
 * every expr answers. Its scheduling then has exactly one result, so it runs as one generated
 * function: admit the args once, call each expr's generated code in activation order with an env
 * built as an object literal, hand each output to its consumers as it is, and add up the work the
 * scheduler would count.
 *
 * It answers only in that case, with exactly the outcome, outputs and work `evaluate` of the
 * interpreter gives (and only for args `validateArgs` accepts). Anything else — a missing or extra
 * arg, a value near a bound, an expr that gives up, work over budget — is `BAIL`, and the caller
 * runs the interpreter, which reports what the original reports. The differential tests hold it
 * to that.
 *
 * @internal
 */
import type * as Canonical from "../Canonical.js"
import type * as Manifest from "../Manifest.js"
import type * as Program from "../Program.js"
import { BAIL } from "./expr/fast.js"
import { beginAsIs, isPlainObject, valueAsIs } from "./expr/input.js"
import { type ShapeCheck, specialize } from "./expr/shape.js"
import { BOUNDS } from "./expr/value.js"
import {
  checkOne,
  checkValue,
  type Evaluated,
  maxArgsBytes,
  maxEvents,
  maxExprFuel,
  maxValueBytes
} from "./interpreter.js"

type Json = Canonical.Json

/** A compiled plan: the evaluation, or `BAIL`. @internal */
export type Plan = (args: unknown) => Evaluated | typeof BAIL

const plans = new WeakMap<Program.Program, Plan | null>()

class NoPlan {}
const noPlan = new NoPlan()

// Structures remembered per value slot: a slot whose values keep changing structure walks
// generically.
const MAX_SHAPES = 4

/**
 * A value's port check beyond the byte bound (which admission already guarantees): `undefined`
 * when there is none (json without a schema, or an empty schema past version 1), `OBJECT` for an
 * empty version-1 schema (whose one rule is its implied `"type": "object"`), or the declaration
 * for `checkOne`.
 */
type Check = undefined | typeof OBJECT | Manifest.PortDecl

const OBJECT = "object"

const checkOf = (decl: Manifest.PortDecl): Check => {
  if (decl.many === true || decl.optional === true) throw noPlan
  // refs resolve through the blob store and caps must be minted: the interpreter decides those
  if (decl.type === "ref" || decl.type === "cap") throw noPlan
  if (decl.type !== "json") return decl
  if (decl.schema === undefined) return undefined
  if (Object.keys(decl.schema).length > 0) return decl
  return (decl.schemaVersion ?? 1) === 1 ? OBJECT : undefined
}

const passes = (value: Json, check: Check): boolean =>
  check === undefined ||
  (check === OBJECT
    ? value !== null && typeof value === "object" && !Array.isArray(value)
    : checkOne(value, check) === undefined)

// A value's admission size (`valueAsIs`), through the checks specialized to the structures seen at
// its slot; a value of a new structure is walked generically and, when admitted, specialized.
const sizeOf = (shapes: Array<ShapeCheck>, value: unknown, limit: number): number => {
  for (let i = 0; i < shapes.length; i++) {
    const size = shapes[i]!(value, limit, BOUNDS.listLen, BOUNDS.objectKeys)
    if (size >= 0) return size
  }
  const size = valueAsIs(value, limit, BOUNDS.listLen, BOUNDS.objectKeys)
  if (size >= 0 && shapes.length < MAX_SHAPES) {
    const check = specialize(value, 1)
    if (check !== undefined) shapes.push(check)
  }
  return size
}

// The canonical size of a name as `admitsAsIs` counts it. `__proto__` is refused: as an object
// literal key it would set the prototype.
const nameBytes = (name: string): number => {
  const n = valueAsIs(name, BOUNDS.stringBytes, BOUNDS.listLen, BOUNDS.objectKeys)
  if (n < 0 || name === "__proto__") throw noPlan
  return n
}

const literal = (text: string): string => JSON.stringify(text)

/** The generated function's source and the values it closes over. */
class Generator {
  readonly lines: Array<string> = []
  /** Values the code reads by index: fast tiers, checks, const values, shape lists. */
  readonly refs: Array<unknown> = []
  /** Slots whose size variable has been computed. */
  readonly sized = new Set<number>()

  ref(value: unknown): string {
    this.refs.push(value)
    return `R[${this.refs.length - 1}]`
  }

  emit(line: string): void {
    this.lines.push(line)
  }
}

const generate = (program: Program.Program): Plan => {
  const cells = program.cells
  const budgets = program.manifest.budgets
  // every cell activates once: within maxSteps and the receipt's event bound (start, end, one each)
  if (cells.length > budgets.maxSteps || cells.length + 2 > maxEvents - 1) throw noPlan
  for (const cell of cells) {
    if (cell.kind !== "input" && cell.kind !== "const" && cell.kind !== "expr") throw noPlan
    for (const e of cell.inbound) if (e.guard !== undefined || e.fail || e.many) throw noPlan
  }
  const g = new Generator()
  // value slot of a cell's port: `v<slot>` holds it, `z<slot>` its admission size
  const slots = new Map<string, number>()
  const slot = (cell: number, port: string): number => {
    const key = `${cell}\u0000${port}`
    let s = slots.get(key)
    if (s === undefined) {
      s = slots.size
      slots.set(key, s)
      g.emit(`let v${s}, z${s} = -1;`)
    }
    return s
  }
  // a slot's size, computed at its first use
  const size = (s: number, limit: number): string => {
    if (!g.sized.has(s)) {
      g.sized.add(s)
      g.emit(`z${s} = size(${g.ref([])}, v${s}, ${limit}); if (z${s} < 0) return BAIL;`)
    }
    return `z${s}`
  }
  const check = (value: string, c: Check): void => {
    if (c === OBJECT) {
      g.emit(`if (${value} === null || typeof ${value} !== "object" || Array.isArray(${value})) return BAIL;`)
    } else if (c !== undefined) g.emit(`if (!passes(${value}, ${g.ref(c)})) return BAIL;`)
  }
  const notPlain = (x: string) =>
    `${x} === null || typeof ${x} !== "object" || ((${x}.__proto__ !== OP || hop.call(${x}, "__proto__")) && !plain(${x}))`

  // Admission of the args: exactly the input cells, each record exactly its declared ports, every
  // value qualifying as it is, the whole within the run-args bound. Keys are tested against the
  // declared names (so any order does), after making sure Object.prototype lends no enumerable key.
  g.emit(`for (const k in {}) return BAIL;`)
  g.emit(`if (${notPlain("args")} || Array.isArray(args)) return BAIL;`)
  const inputs = cells.filter((c) => c.kind === "input")
  let argsBytes = inputs.length > 1 ? inputs.length + 1 : 2
  const countKeys = (record: string, names: ReadonlyArray<string>): void => {
    const cases = names.map((n) => `case ${literal(n)}: `).join("")
    g.emit(`c = 0; for (const k in ${record}) { switch (k) { ${cases}c++; break; default: return BAIL; } }`)
    g.emit(`if (c !== ${names.length}) return BAIL;`)
  }
  g.emit(`let c = 0, work = ${100 * cells.length};`)
  g.emit(`beginAsIs();`)
  countKeys("args", inputs.map((c) => c.id))
  const sizes: Array<string> = []
  inputs.forEach((cell, i) => {
    const ports = Object.keys(cell.outputs)
    g.emit(`const r${i} = args[${literal(cell.id)}]; if (${notPlain(`r${i}`)} || Array.isArray(r${i})) return BAIL;`)
    countKeys(`r${i}`, ports)
    argsBytes += nameBytes(cell.id) + 1 + (ports.length > 1 ? ports.length + 1 : 2)
    for (const port of ports) {
      argsBytes += nameBytes(port) + 1
      const s = slot(cell.index, port)
      g.emit(`v${s} = r${i}[${literal(port)}];`)
      sizes.push(size(s, maxValueBytes))
    }
  })
  g.emit(`if (${argsBytes} + ${sizes.join(" + ") || "0"} > ${maxArgsBytes}) return BAIL;`)

  // The scheduler's sweeps: activate, in declared order, every cell whose producers all committed.
  const order: Array<Program.CompiledCell> = []
  const done = new Uint8Array(cells.length)
  for (let progress = true; progress;) {
    progress = false
    for (const cell of cells) {
      if (done[cell.index] === 1 || cell.producers.some((p) => done[p] === 0)) continue
      done[cell.index] = 1
      order.push(cell)
      progress = true
    }
  }
  if (order.length !== cells.length) throw noPlan

  for (const cell of order) {
    const c = cell.cell
    if (c.kind === "input") {
      for (const port of Object.keys(cell.outputs)) check(`v${slot(cell.index, port)}`, checkOf(cell.outputs[port]!))
    } else if (c.kind === "const") {
      for (const port of Object.keys(c.outputs)) {
        const value = c.outputs[port]!.value
        checkOf(cell.outputs[port]!)
        // a const the interpreter would refuse makes the run fail: its business
        if (checkValue(value, cell.outputs[port]!) !== undefined) throw noPlan
        g.emit(`v${slot(cell.index, port)} = ${g.ref(value)};`)
      }
    } else if (c.kind === "expr") {
      const compiled = cell.expr
      if (compiled === undefined || compiled.fast === undefined || compiled.error !== undefined) throw noPlan
      const fields: Array<string> = []
      const envSizes: Array<string> = []
      let envBytes = cell.inputNames.length > 1 ? cell.inputNames.length + 1 : 2
      for (const name of cell.inputNames) {
        // the first inbound edge in manifest order delivers (every producer commits)
        const edge = cell.inbound.find((e) => e.toPort === name)
        if (edge === undefined) throw noPlan
        const from = cells[edge.from]!
        if (from.kind === "expr" ? edge.fromPort !== "out" : !Object.hasOwn(from.outputs, edge.fromPort)) throw noPlan
        const s = slot(edge.from, edge.fromPort)
        check(`v${s}`, checkOf(cell.inputs[name]!))
        envSizes.push(size(s, BOUNDS.envBytes))
        envBytes += nameBytes(name) + 1
        fields.push(`${literal(name)}: v${s}`)
      }
      if (envSizes.length > 0) g.emit(`if (${envBytes} + ${envSizes.join(" + ")} > ${BOUNDS.envBytes}) return BAIL;`)
      const out = cell.outputs["out"]
      if (out === undefined || Object.keys(cell.outputs).length !== 1) throw noPlan
      const s = slot(cell.index, "out")
      const e = `e${cell.index}`
      // the env as one object literal: one shape per cell, which the generated expr code reads
      g.emit(
        `const ${e} = ${g.ref(compiled.fast)}({ ${
          fields.join(", ")
        } }, ${maxExprFuel}); if (${e} === BAIL) return BAIL;`
      )
      g.emit(`work += ${e}.fuel; v${s} = ${e}.value;`)
      check(`v${s}`, checkOf(out))
    }
  }
  g.emit(`if (work > ${budgets.maxWork}) return BAIL;`)

  const outputs: Array<string> = []
  for (const [name, ep] of Object.entries(program.manifest.interface.outputs)) {
    const cell = program.byId.get(ep.cell)!
    // a port the cell does not produce is simply not an output (as the interpreter's)
    if (cell.kind === "expr" ? ep.port === "out" : Object.hasOwn(cell.outputs, ep.port)) {
      nameBytes(name)
      outputs.push(`${literal(name)}: v${slot(cell.index, ep.port)}`)
    }
  }
  g.emit(
    `return { outcome: "complete", outputs: { ${
      outputs.join(", ")
    } }, work: { steps: ${cells.length}, agentCalls: 0, units: work } };`
  )
  // the per-slot shape lists are the refs created by `size` (each `[]`): fresh, mutable, per plan
  const source = `return function straight(args) {\n${g.lines.join("\n")}\n};`
  const make = new Function("R", "BAIL", "OP", "hop", "plain", "size", "passes", "beginAsIs", source) as (
    ...args: ReadonlyArray<unknown>
  ) => Plan
  return make(g.refs, BAIL, Object.prototype, Object.prototype.hasOwnProperty, isPlainObject, sizeOf, passes, beginAsIs)
}

/**
 * The straight-line plan of a program, or `undefined` when its shape needs the scheduler (or the
 * host forbids generated code).
 *
 * @internal
 */
export const planOf = (program: Program.Program): Plan | undefined => {
  // a host evaluates one program many times in a row: skip the WeakMap lookup for it
  if (program === lastProgram) return lastPlan
  let plan = plans.get(program)
  if (plan === undefined) {
    try {
      plan = generate(program)
    } catch {
      // a shape the plan does not cover (or no `new Function` here): the interpreter runs it
      plan = null
    }
    plans.set(program, plan)
  }
  lastProgram = program
  lastPlan = plan ?? undefined
  return lastPlan
}

let lastProgram: Program.Program | undefined
let lastPlan: Plan | undefined

/**
 * Run a plan on args, or `BAIL`. Never throws.
 *
 * @internal
 */
export const runPlan = (plan: Plan, args: unknown): Evaluated | typeof BAIL => {
  try {
    return plan(args)
  } catch {
    // only reachable for exotic args whose reading throws (a getter, a Proxy trap)
    return BAIL
  }
}
