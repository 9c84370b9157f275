/**
 * `manifest.compile.v1` (input `plan`: json → output `manifest`: json; cost 50). Compiles a plan of
 * 1–4 steps into a plain, normalized `algal.organism.v1` manifest: a linear chain from the interface
 * input `value` through the steps to the interface output `value`.
 *
 * A plan is `{"steps":[…], "name"?: text}`. A step is either
 * - `{"id", "fn", "in"?, "out"?, "with"?}`: a built-in fn cell; the chain value enters input port
 *   `in` (default `value`, or the fn's only input) and leaves by output port `out` (default `value`,
 *   or the fn's only output); `with` gives constants for the fn's other inputs (one `const` cell
 *   `<id>-with`); or
 * - `{"id", "expr": {"contract":"algal.expr.v1","program":…}}`: an `expr` cell whose program reads the
 *   chain value as `value` and returns any JSON value.
 *
 * Every failure names the offending place (`plan.steps[1].fn`, …). The result is parsed with
 * `Manifest.parseSync` before it is returned. See ADR 0393.
 *
 * @internal
 */
import type { Json } from "../../Canonical.js"
import type { FnDefinition } from "../../FnRegistry.js"
import * as Manifest from "../../Manifest.js"
import { compatible } from "../ports.js"
import { canonicalBytes, failed, guarded, hasOwn, isRecord, shown, succeed, typeName } from "./common.js"

/** The fn's name. @internal */
export const name = "manifest.compile.v1"

/** The most steps a plan may hold. @internal */
export const maxSteps = 4

/** The key of every compiled manifest. @internal */
export const manifestKey = "organism:compiled-plan"

/** The name of a compiled manifest whose plan gives none. @internal */
export const defaultName = "Compiled plan"

/** The id of the interface input cell. @internal */
export const inputCell = "input"

const idPattern = /^[a-z][a-z0-9-]{0,63}$/
const maxStepId = 59 // so that the step's `<id>-with` const cell id is still an id (≤ 64)
const planKeys = new Set(["steps", "name"])
const fnStepKeys = new Set(["id", "fn", "in", "out", "with"])
const exprStepKeys = new Set(["id", "expr"])
const anyJson: Json = { type: ["array", "boolean", "integer", "null", "number", "object", "string"] }

type Port = Manifest.PortDecl

class PlanError {
  constructor(readonly message: string) {}
}

const reject = (message: string): never => {
  throw new PlanError(message)
}

const describePort = (p: Port): string =>
  p.type === "choice" && p.labels !== undefined ? `choice[${p.labels.join(",")}]` : p.type

/** A port declaration a producer may carry (no `optional`/`many`). */
const producerPort = (p: Port): Port => {
  const out: { type: Manifest.PortType; labels?: ReadonlyArray<string>; schema?: Manifest.JsonSchema } = {
    type: p.type
  }
  if (p.labels !== undefined) out.labels = p.labels
  if (p.schema !== undefined) out.schema = p.schema
  return out as Port
}

const checkId = (u: unknown, at: string): string => {
  if (typeof u !== "string" || !idPattern.test(u)) return reject(`${at} must be a lowercase kebab-case id`)
  if (u.length > maxStepId) return reject(`${at} must be at most ${maxStepId} characters`)
  if (u === inputCell || u.endsWith("-with")) return reject(`${at} ${shown(u)} is reserved`)
  return u
}

const closedKeys = (o: Readonly<Record<string, unknown>>, allowed: ReadonlySet<string>, at: string): void => {
  for (const key of Object.keys(o)) {
    if (!allowed.has(key)) reject(`unknown key ${shown(key)} at ${at}`)
  }
}

/** A compiled step: its cells and edges, the port the chain enters and the port it leaves by. */
interface Built {
  readonly cells: Array<Json>
  readonly edges: Array<Json>
  readonly inPort: string
  readonly inDecl: Port
  readonly outPort: string
  readonly outDecl: Port
}

const edge = (fromCell: string, fromPort: string, toCell: string, toPort: string): Json => ({
  from: { cell: fromCell, port: fromPort },
  to: { cell: toCell, port: toPort }
})

const pickPort = (
  ports: Readonly<Record<string, Port>>,
  given: unknown,
  at: string,
  fn: string,
  side: "input" | "output"
): string => {
  const names = Object.keys(ports)
  if (given !== undefined) {
    if (typeof given !== "string" || !hasOwn(ports, given)) {
      return reject(`${at} must name an ${side} port of ${fn} (${names.join(", ")})`)
    }
    return given
  }
  if (hasOwn(ports, "value")) return "value"
  if (names.length === 1) return names[0]!
  return reject(`${at} is required: ${fn} has ${side}s ${names.join(", ")}`)
}

const constantFor = (port: Port, value: unknown, at: string): Json => {
  if (port.many === true) return reject(`${at}: a many port cannot take a constant`)
  if (port.type === "ref" || port.type === "cap") return reject(`${at}: a ${port.type} port cannot take a constant`)
  if ((port.type === "text" || port.type === "choice") && typeof value !== "string") {
    return reject(`${at} must be text, got ${typeName(value)}`)
  }
  if (port.type === "choice" && port.labels !== undefined && !port.labels.includes(value as string)) {
    return reject(`${at} must be one of ${port.labels.join(", ")}`)
  }
  const size = canonicalBytes(value)
  if (!size.ok) return reject(`${at} is not canonical JSON: ${size.message}`)
  return { ...(producerPort(port) as unknown as Record<string, Json>), value: value as Json }
}

const fnStep = (
  fns: ReadonlyMap<string, FnDefinition>,
  step: Readonly<Record<string, unknown>>,
  id: string,
  at: string
): Built => {
  closedKeys(step, fnStepKeys, at)
  const fnName = step.fn
  if (typeof fnName !== "string") return reject(`${at}.fn must be text`)
  const fn = fns.get(fnName)
  if (fn === undefined) return reject(`${at}.fn: unknown fn ${shown(fnName)}`)
  const inPort = pickPort(fn.inputs, step.in, `${at}.in`, fnName, "input")
  const outPort = pickPort(fn.outputs, step.out, `${at}.out`, fnName, "output")
  const inDecl = fn.inputs[inPort]!
  if (inDecl.type === "ref" || inDecl.type === "cap") {
    reject(`${at}.in: ${fnName} input ${inPort} is a ${inDecl.type} port and cannot carry the chain value`)
  }
  const cells: Array<Json> = []
  const edges: Array<Json> = []
  const given = step.with === undefined ? {} : step.with
  if (!isRecord(given)) return reject(`${at}.with must be an object, got ${typeName(given)}`)
  const constants: Record<string, Json> = {}
  for (const port of Object.keys(given)) {
    const where = `${at}.with.${port.slice(0, 64)}`
    if (!hasOwn(fn.inputs, port)) reject(`${where}: ${fnName} has no input port ${shown(port)}`)
    if (port === inPort) reject(`${where}: port ${port} already receives the chain value`)
    constants[port] = constantFor(fn.inputs[port]!, given[port], where)
  }
  for (const [port, decl] of Object.entries(fn.inputs)) {
    if (port !== inPort && decl.optional !== true && !hasOwn(constants, port)) {
      reject(`${at}.with.${port} is required: ${fnName} input ${port} is neither the chain input nor a constant`)
    }
  }
  const constPorts = Object.keys(constants)
  if (constPorts.length > 0) {
    const constId = `${id}-with`
    cells.push({ id: constId, kind: "const", outputs: constants })
    for (const port of constPorts) edges.push(edge(constId, port, id, port))
  }
  cells.push({ id, kind: "fn", fn: fnName })
  return { cells, edges, inPort, inDecl, outPort, outDecl: fn.outputs[outPort]! }
}

const exprStep = (step: Readonly<Record<string, unknown>>, id: string, at: string): Built => {
  closedKeys(step, exprStepKeys, at)
  const envelope = step.expr
  if (!isRecord(envelope)) return reject(`${at}.expr must be an algal.expr.v1 envelope {contract, program}`)
  closedKeys(envelope, new Set(["contract", "program"]), `${at}.expr`)
  if (envelope.contract !== "algal.expr.v1") reject(`${at}.expr.contract must be "algal.expr.v1"`)
  if (!hasOwn(envelope, "program")) reject(`${at}.expr.program is missing`)
  const json: Port = { type: "json" }
  return {
    cells: [{
      id,
      kind: "expr",
      inputs: { value: { type: "json" } },
      expr: { contract: "algal.expr.v1", program: envelope.program as Json },
      output: { kind: "json", schema: anyJson }
    }],
    edges: [],
    inPort: "value",
    inDecl: json,
    outPort: "out",
    outDecl: json
  }
}

/** Build the manifest JSON of a plan, and for each built cell the plan step it came from. */
const build = (
  fns: ReadonlyMap<string, FnDefinition>,
  plan: unknown
): { readonly manifest: Json; readonly stepOfCell: ReadonlyArray<number> } => {
  if (!isRecord(plan)) return reject(`plan must be an object {steps, name?}, got ${typeName(plan)}`)
  closedKeys(plan, planKeys, "plan")
  if (hasOwn(plan, "name") && (typeof plan.name !== "string" || plan.name.length === 0 || plan.name.length > 120)) {
    reject("plan.name must be text of 1 to 120 characters")
  }
  const steps = plan.steps
  if (!Array.isArray(steps)) {
    return reject(`plan.steps must be a list of 1 to ${maxSteps} steps, got ${typeName(steps)}`)
  }
  if (steps.length < 1 || steps.length > maxSteps) {
    reject(`plan.steps must hold 1 to ${maxSteps} steps, got ${steps.length}`)
  }
  const seen = new Set<string>()
  const built: Array<Built> = []
  for (let i = 0; i < steps.length; i++) {
    const at = `plan.steps[${i}]`
    const step: unknown = steps[i]
    if (!isRecord(step)) return reject(`${at} must be an object, got ${typeName(step)}`)
    const id = checkId(step.id, `${at}.id`)
    if (seen.has(id)) reject(`${at}.id: duplicate step id ${shown(id)}`)
    seen.add(id)
    const isFn = hasOwn(step, "fn")
    if (isFn === hasOwn(step, "expr")) reject(`${at} must have exactly one of fn, expr`)
    const b = isFn ? fnStep(fns, step, id, at) : exprStep(step, id, at)
    if (i > 0) {
      const prev = built[i - 1]!
      if (!compatible(prev.outDecl, b.inDecl, false)) {
        reject(
          `${at}.in: output ${prev.outPort} (${describePort(prev.outDecl)}) of step ${steps[i - 1].id} ` +
            `cannot feed input ${b.inPort} (${describePort(b.inDecl)})`
        )
      }
    }
    built.push(b)
  }
  const ids = built.map((b, i) => (steps[i] as { id: string }).id)
  const inputDecl = producerPort(built[0]!.inDecl) as unknown as Json
  const cells: Array<Json> = [{ id: inputCell, kind: "input", outputs: { value: inputDecl } }]
  const stepOfCell: Array<number> = [0]
  const edges: Array<Json> = []
  built.forEach((b, i) => {
    for (const c of b.cells) {
      cells.push(c)
      stepOfCell.push(i)
    }
    edges.push(...b.edges)
    edges.push(
      i === 0
        ? edge(inputCell, "value", ids[0]!, b.inPort)
        : edge(ids[i - 1]!, built[i - 1]!.outPort, ids[i]!, b.inPort)
    )
  })
  const last = built.length - 1
  const manifest: Json = {
    contract: "algal.organism.v1",
    key: manifestKey,
    name: typeof plan.name === "string" ? plan.name : defaultName,
    interface: {
      inputs: { value: { cell: inputCell, port: "value" } },
      outputs: { value: { cell: ids[last]!, port: built[last]!.outPort } }
    },
    cells,
    edges
  }
  return { manifest, stepOfCell }
}

const cellIndex = /^\$\.cells\[(\d+)\](.*)$/

/** @internal */
export const make = (fns: () => ReadonlyMap<string, FnDefinition>): FnDefinition => ({
  inputs: { plan: { type: "json" } },
  outputs: { manifest: { type: "json" } },
  cost: 50,
  invoke: guarded(name, (inputs) => {
    if (!hasOwn(inputs, "plan")) return failed(`${name}: input plan is missing`)
    let compiled: ReturnType<typeof build>
    try {
      compiled = build(fns(), inputs.plan)
    } catch (error) {
      if (error instanceof PlanError) return failed(`${name}: ${error.message}`)
      throw error
    }
    const parsed = Manifest.parseSync(compiled.manifest)
    if (!parsed.ok) {
      const path = parsed.error.path ?? "$"
      const m = cellIndex.exec(path)
      const where = m === null
        ? `manifest ${path}`
        : `plan.steps[${compiled.stepOfCell[Number(m[1])] ?? 0}] (cell ${path})`
      return failed(`${name}: ${where}: ${parsed.error.code} ${parsed.error.message}`)
    }
    return succeed({ manifest: Manifest.normalized(parsed.manifest) })
  })
})
