/**
 * Compile steps 2–5 (ALGAL v1 §1.4–§1.5), over the resolved ports of step 1: the edges (typed,
 * single-assignment inputs, guards), acyclicity, the interface's endpoints, and the views of the
 * agent-family cells (upstream cells only).
 *
 * @internal
 */
import * as Expr from "../../Expr.js"
import type * as Manifest from "../../Manifest.js"
import type { CompiledEdge } from "../../Program.js"
import { fail } from "../issue.js"
import { compatible } from "../ports.js"
import { hasOwn, own, type Resolved } from "./resolve.js"

/** The edges by consumer, and the cells whose failures a `fail` edge handles. @internal */
export interface Wiring {
  readonly inbound: ReadonlyArray<ReadonlyArray<CompiledEdge>>
  readonly failFrom: ReadonlySet<number>
  readonly adjacency: ReadonlyArray<ReadonlyArray<number>>
}

const checkGuard = (guard: Manifest.Guard, producer: Manifest.PortDecl, at: string): void => {
  if ("expr" in guard) return // any producer type
  if ("field" in guard) {
    if (producer.type !== "json") fail("GUARD_INVALID", "guard does not match producer type", `${at}.guard`)
    return
  }
  if (producer.type !== "choice") fail("GUARD_INVALID", "guard does not match producer type", `${at}.guard`)
  if (producer.labels !== undefined && !producer.labels.includes(guard.equals)) {
    fail("GUARD_INVALID", "guard label not declared", `${at}.guard`)
  }
}

/** Step 2: every edge between existing, compatible ports. @internal */
export const wire = (
  manifest: Manifest.Manifest,
  index: ReadonlyMap<string, number>,
  resolved: ReadonlyArray<Resolved>
): Wiring => {
  const inbound: Array<Array<CompiledEdge>> = manifest.cells.map(() => [])
  const portEdges = new Map<string, { normal: number; fail: number }>()
  const failFrom = new Set<number>()
  const adjacency: Array<Array<number>> = manifest.cells.map(() => [])
  manifest.edges.forEach((e, k) => {
    const at = `$.edges[${k}]`
    const from = index.get(e.from.cell)
    if (from === undefined || !hasOwn(resolved[from]!.outputs, e.from.port)) {
      fail("MANIFEST_INVALID", "unknown producer cell/port", `${at}.from`)
    }
    const to = index.get(e.to.cell)
    if (to === undefined || !hasOwn(resolved[to]!.inputs, e.to.port)) {
      fail("MANIFEST_INVALID", "unknown consumer cell/port", `${at}.to`)
    }
    const producer = resolved[from!]!.outputs[e.from.port]!
    const consumer = resolved[to!]!.inputs[e.to.port]!
    const isFail = e.on === "fail"
    if (isFail) {
      if (consumer.type !== "json") fail("TYPE_MISMATCH", "failure edge requires json consumer", `${at}.to`)
      failFrom.add(from!)
    } else {
      if (e.guard !== undefined) checkGuard(e.guard, producer, at)
      if (!compatible(producer, consumer, producer.many === true)) fail("TYPE_MISMATCH", "incompatible edge ports", at)
    }
    const key = `${to}\u0000${e.to.port}`
    const count = portEdges.get(key) ?? { normal: 0, fail: 0 }
    if (isFail) count.fail += 1
    else count.normal += 1
    portEdges.set(key, count)
    if ((count.fail > 0 && count.normal > 0) || (consumer.many !== true && count.normal + count.fail > 1)) {
      fail("MANIFEST_INVALID", "input is single-assignment or mixes normal/failure edges", `${at}.to`)
    }
    inbound[to!]!.push({
      from: from!,
      fromPort: e.from.port,
      to: to!,
      toPort: e.to.port,
      guard: e.guard,
      fail: isFail,
      many: producer.many === true,
      guardExpr: e.guard !== undefined && "expr" in e.guard ? Expr.compile(e.guard.expr.program, ["value"]) : undefined
    })
    adjacency[from!]!.push(to!)
  })
  return { inbound, failFrom, adjacency }
}

/** Step 3: the graph is acyclic (Kahn). @internal */
export const checkAcyclic = (manifest: Manifest.Manifest, adjacency: ReadonlyArray<ReadonlyArray<number>>): void => {
  const indegree = manifest.cells.map(() => 0)
  for (const targets of adjacency) for (const t of targets) indegree[t]! += 1
  const queue: Array<number> = []
  indegree.forEach((d, i) => d === 0 && queue.push(i))
  let seen = 0
  while (queue.length > 0) {
    const n = queue.shift()!
    seen += 1
    for (const t of adjacency[n]!) {
      indegree[t]! -= 1
      if (indegree[t] === 0) queue.push(t)
    }
  }
  if (seen !== manifest.cells.length) {
    fail("GRAPH_CYCLE", "manifest graph contains a cycle; organisms must be acyclic", "$.edges")
  }
}

/** Step 4: the interface's inputs name input-cell ports, its outputs existing ports. @internal */
export const interfacePorts = (
  manifest: Manifest.Manifest,
  index: ReadonlyMap<string, number>,
  resolved: ReadonlyArray<Resolved>
) => {
  const interfaceInputs: Record<string, Manifest.PortDecl> = {}
  for (const [name, ep] of Object.entries(manifest.interface.inputs)) {
    const at = `$.interface.inputs.${name}`
    const i = index.get(ep.cell)
    if (i === undefined) fail("INTERFACE_MISMATCH", `interface input ${name} names unknown cell ${ep.cell}`, at)
    if (manifest.cells[i!]!.kind !== "input") {
      fail("INTERFACE_MISMATCH", `interface input ${name} must name an input cell`, at)
    }
    const decl = own(resolved[i!]!.outputs, ep.port)
    if (decl === undefined) {
      fail("INTERFACE_MISMATCH", `interface input ${name} names unknown port ${ep.cell}.${ep.port}`, at)
    }
    interfaceInputs[name] = decl!
  }
  const interfaceOutputs: Record<string, Manifest.PortDecl> = {}
  for (const [name, ep] of Object.entries(manifest.interface.outputs)) {
    const at = `$.interface.outputs.${name}`
    const i = index.get(ep.cell)
    if (i === undefined) fail("INTERFACE_MISMATCH", `interface output ${name} names unknown cell ${ep.cell}`, at)
    const decl = own(resolved[i!]!.outputs, ep.port)
    if (decl === undefined) {
      fail("INTERFACE_MISMATCH", `interface output ${name} names unknown port ${ep.cell}.${ep.port}`, at)
    }
    interfaceOutputs[name] = decl!
  }
  return { interfaceInputs, interfaceOutputs }
}

/** Step 5: an agent-family cell's view names its own inputs and upstream cells' ports. @internal */
export const checkViews = (
  manifest: Manifest.Manifest,
  index: ReadonlyMap<string, number>,
  resolved: ReadonlyArray<Resolved>,
  inbound: ReadonlyArray<ReadonlyArray<CompiledEdge>>
): void => {
  const ancestors = (target: number): Set<number> => {
    const out = new Set<number>()
    const stack = inbound[target]!.map((e) => e.from)
    while (stack.length > 0) {
      const n = stack.pop()!
      if (out.has(n)) continue
      out.add(n)
      for (const e of inbound[n]!) stack.push(e.from)
    }
    return out
  }
  manifest.cells.forEach((c, i) => {
    if (c.kind !== "agent" && c.kind !== "classifier" && c.kind !== "gate" && c.kind !== "decide") return
    const at = `$.cells[${i}].view`
    const view = c.view
    if (Array.isArray(view.inputs)) {
      for (const name of view.inputs as ReadonlyArray<string>) {
        if (!hasOwn(resolved[i]!.inputs, name)) {
          fail("MANIFEST_INVALID", `view input ${name} is not a declared input`, at)
        }
      }
    }
    if (view.graph === true && view.cells === undefined) fail("MANIFEST_INVALID", "view graph requires view cells", at)
    if (view.cells !== undefined) {
      const up = ancestors(i)
      for (const ref of view.cells) {
        const j = index.get(ref.cell)
        if (j === undefined || !up.has(j)) {
          fail("MANIFEST_INVALID", `view cell ${ref.cell} is not upstream of ${c.id}`, at)
        }
        for (const port of ref.ports ?? []) {
          if (!hasOwn(resolved[j!]!.outputs, port)) {
            fail("MANIFEST_INVALID", `view port ${ref.cell}.${port} does not exist`, at)
          }
        }
      }
    }
  })
}
