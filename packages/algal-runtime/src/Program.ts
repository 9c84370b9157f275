/**
 * Graph compilation (ALGAL v1 §1.4): resolve every cell's ports (fn signatures from the registry,
 * embedded manifests' interfaces), then check the wiring — unknown endpoints, guards, failure
 * edges, single assignment, port type compatibility, cycles (`GRAPH_CYCLE`), interface and view
 * references. A `Program` is compiled once and run many times.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Manifest, Program } from "@steward/algal-runtime"
 *
 * declare const json: unknown
 * const program = Effect.flatMap(Manifest.parse(json), (manifest) => Program.compile(manifest))
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as AlgalError from "./AlgalError.js"
import * as Expr from "./Expr.js"
import * as FnRegistry from "./FnRegistry.js"
import { fail, Issue } from "./internal/issue.js"
import { compatible } from "./internal/ports.js"
import * as Manifest from "./Manifest.js"

/**
 * Port signature of a host tool (tool cells and agent `tools`).
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolSignature {
  readonly inputs: Readonly<Record<string, Manifest.PortDecl>>
  readonly outputs: Readonly<Record<string, Manifest.PortDecl>>
  /** Whether the tool only reads or also writes host state (default `read`). */
  readonly effect?: "read" | "write"
  /** Work units charged per call (default 0), plus the output's canonical bytes. */
  readonly cost?: number
  /** Largest canonical output the tool may return (default 65,536 bytes). */
  readonly maxOutputBytes?: number
}

/**
 * @since 0.1.0
 * @category models
 */
export interface CompileOptions {
  /** The fn registry (default: the built-ins). */
  readonly fns?: FnRegistry.Registry
  /** Host tools by name. */
  readonly tools?: Readonly<Record<string, ToolSignature>>
  /** Resolve an embedded manifest (organism/repeat/each cells) by digest. */
  readonly manifests?: (digest: string) => Manifest.Manifest | undefined
}

/**
 * A compiled edge (indices into `Program.cells`).
 *
 * @since 0.1.0
 * @category models
 */
export interface CompiledEdge {
  readonly from: number
  readonly fromPort: string
  readonly to: number
  readonly toPort: string
  readonly guard: Manifest.Guard | undefined
  readonly fail: boolean
  /** The producer port is a `many` port (an `each` output): its list is flattened into many ports. */
  readonly many: boolean
  /** The guard's expr program compiled once for the name `value`. */
  readonly guardExpr?: Expr.Compiled | undefined
}

/**
 * A cell with its resolved ports and inbound wiring.
 *
 * @since 0.1.0
 * @category models
 */
export interface CompiledCell {
  readonly index: number
  readonly id: string
  readonly kind: Manifest.CellKind
  readonly cell: Manifest.Cell
  readonly inputs: Readonly<Record<string, Manifest.PortDecl>>
  readonly inputNames: ReadonlyArray<string>
  readonly outputs: Readonly<Record<string, Manifest.PortDecl>>
  /** Inbound edges in manifest edge order. */
  readonly inbound: ReadonlyArray<CompiledEdge>
  /** Distinct producer cells of the inbound edges. */
  readonly producers: ReadonlyArray<number>
  /** Whether some `on: "fail"` edge leaves this cell (its failures are handled). */
  readonly handlesFailure: boolean
  readonly fn: FnRegistry.FnDefinition | undefined
  readonly child: Program | undefined
  /** The host tool signature of a `tool` cell. */
  readonly tool?: ToolSignature | undefined
  /** An `expr` cell's program compiled once for its declared input names. */
  readonly expr?: Expr.Compiled | undefined
}

/**
 * A compiled organism, ready to run.
 *
 * @since 0.1.0
 * @category models
 */
export interface Program {
  readonly manifest: Manifest.Manifest
  /** The manifest digest (program fingerprint). */
  readonly digest: string
  readonly cells: ReadonlyArray<CompiledCell>
  readonly byId: ReadonlyMap<string, CompiledCell>
  readonly fns: FnRegistry.Registry
  /** Interface input ports (name → declaration of the `input` cell port it feeds). */
  readonly interfaceInputs: Readonly<Record<string, Manifest.PortDecl>>
  /** Interface output ports (name → declaration of the producing port). */
  readonly interfaceOutputs: Readonly<Record<string, Manifest.PortDecl>>
  /** The options it was compiled with (`spawn` cells compile delivered manifests with them). */
  readonly options?: CompileOptions
}

/**
 * Compilation bounds for embedded manifests.
 *
 * @since 0.1.0
 * @category constants
 */
export const bounds = { maxInstances: 1024, maxCells: 4096, maxEdges: 16_384, maxDepth: 64 } as const

const json: Manifest.PortDecl = { type: "json" }

/** Own-property lookup: ids such as `constructor` must never resolve through the prototype chain. */
const own = <A>(record: Readonly<Record<string, A>>, key: string): A | undefined =>
  Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined
const hasOwn = (record: object, key: string): boolean => Object.prototype.hasOwnProperty.call(record, key)

interface State {
  instances: number
  cells: number
  edges: number
  readonly memo: Map<string, Program>
}

const portsOfContract = (output: Manifest.OutputContract | undefined): Manifest.PortDecl => {
  if (output === undefined || output.kind === "text") return { type: "text" }
  if (output.kind === "json") {
    return output.schemaVersion === undefined
      ? { type: "json", schema: output.schema }
      : { type: "json", schema: output.schema, schemaVersion: output.schemaVersion }
  }
  return { type: "choice", labels: output.labels }
}

const compileInto = (manifest: Manifest.Manifest, options: CompileOptions, state: State, depth: number): Program => {
  if (depth > bounds.maxDepth) fail("DEPTH_EXCEEDED", `embedded manifests nest deeper than ${bounds.maxDepth}`)
  state.instances += 1
  state.cells += manifest.cells.length
  state.edges += manifest.edges.length
  if (state.instances > bounds.maxInstances) fail("BUDGET_EXHAUSTED", "compile manifest instances")
  if (state.cells > bounds.maxCells) fail("BUDGET_EXHAUSTED", "compile cell count")
  if (state.edges > bounds.maxEdges) fail("BUDGET_EXHAUSTED", "compile edge count")
  const fns = options.fns ?? FnRegistry.make()
  const tools = options.tools ?? {}
  const index = new Map<string, number>()
  manifest.cells.forEach((c, i) => {
    if (index.has(c.id)) fail("MANIFEST_INVALID", `duplicate cell id ${c.id}`, `$.cells[${i}].id`)
    index.set(c.id, i)
  })

  // 1. ports
  const resolved = manifest.cells.map((c, i) => {
    const at = `$.cells[${i}]`
    let inputs: Readonly<Record<string, Manifest.PortDecl>> = {}
    let outputs: Readonly<Record<string, Manifest.PortDecl>> = {}
    let fn: FnRegistry.FnDefinition | undefined
    let child: Program | undefined
    let tool: ToolSignature | undefined
    let expr: Expr.Compiled | undefined
    switch (c.kind) {
      case "input":
      case "const":
        outputs = c.outputs
        break
      case "fn": {
        fn = fns.fns.get(c.fn)
        if (fn === undefined) fail("FN_UNKNOWN", `unknown fn ${c.fn}`, `${at}.fn`)
        inputs = fn!.inputs
        outputs = fn!.outputs
        break
      }
      case "expr":
        inputs = c.inputs ?? {}
        outputs = { out: portsOfContract(c.output) }
        expr = Expr.compile(c.expr.program, Object.keys(inputs))
        break
      case "tool": {
        const sig = own(tools, c.tool)
        if (sig === undefined) fail("TOOL_UNKNOWN", `unknown tool ${c.tool}`, `${at}.tool`)
        inputs = sig!.inputs
        outputs = sig!.outputs
        tool = sig
        break
      }
      case "agent":
      case "classifier":
      case "gate":
      case "decide":
        inputs = c.inputs ?? {}
        outputs = { out: c.kind === "decide" ? json : portsOfContract(c.output) }
        for (const [j, name] of (c.tools ?? []).entries()) {
          if (!fns.fns.has(name) && own(tools, name) === undefined) {
            fail("TOOL_UNKNOWN", `unknown tool ${name}`, `${at}.tools[${j}]`)
          }
        }
        break
      case "recall":
        inputs = c.inputs ?? {}
        outputs = { out: json, ref: { type: "ref" } }
        break
      case "organism":
      case "repeat":
      case "each": {
        const digest = c.manifest
        let sub = state.memo.get(digest)
        if (sub === undefined) {
          const m = options.manifests?.(digest)
          if (m === undefined) fail("STORE_MISS", `embedded manifest ${digest} is not in the store`, `${at}.manifest`)
          if (Manifest.digest(m!) !== digest) {
            fail("DIGEST_MISMATCH", `embedded manifest does not hash to ${digest}`, `${at}.manifest`)
          }
          sub = compileInto(m!, options, state, depth + 1)
          state.memo.set(digest, sub)
        }
        child = sub
        const ins: Record<string, Manifest.PortDecl> = {}
        const outs: Record<string, Manifest.PortDecl> = {}
        const carried = new Set(Object.values(c.carry ?? {}))
        for (const [name, decl] of Object.entries(sub.interfaceInputs)) {
          if (c.kind === "each" && name === c.over) ins[name] = json
          else if (c.kind === "repeat" && carried.has(name)) ins[name] = { ...decl, optional: true }
          else ins[name] = decl
        }
        for (const [name, decl] of Object.entries(sub.interfaceOutputs)) {
          outs[name] = c.kind === "each" ? { ...decl, many: true } : decl
        }
        if (c.kind === "each" && !hasOwn(ins, c.over!)) {
          fail("INTERFACE_MISMATCH", `each over ${c.over} is not an interface input`, `${at}.over`)
        }
        if (c.kind === "repeat") {
          for (const [out, inp] of Object.entries(c.carry ?? {})) {
            if (!hasOwn(outs, out) || !hasOwn(ins, inp)) {
              fail("INTERFACE_MISMATCH", `carry ${out} -> ${inp} names no interface port`, `${at}.carry`)
            }
          }
          if (c.until !== undefined && !hasOwn(outs, c.until.output)) {
            fail("INTERFACE_MISMATCH", `until output ${c.until.output} is not an interface output`, `${at}.until`)
          }
        }
        inputs = ins
        outputs = outs
        break
      }
      case "store":
        inputs = { data: json }
        outputs = { ref: { type: "ref" } }
        break
      case "load":
        inputs = { ref: { type: "ref" } }
        outputs = { data: json }
        break
      case "slot":
        inputs = c.mode === "write" ? { data: json } : {}
        outputs = { data: json }
        break
      case "spawn":
        inputs = { manifest: json, args: { type: "json", optional: true } }
        outputs = { data: json, digest: { type: "text" } }
        break
    }
    return { inputs, outputs, fn, child, tool, expr }
  })

  // 2. edges
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
      if (e.guard !== undefined) {
        const g = e.guard
        if ("expr" in g) {
          // any producer type
        } else if ("field" in g) {
          if (producer.type !== "json") fail("GUARD_INVALID", "guard does not match producer type", `${at}.guard`)
        } else {
          if (producer.type !== "choice") fail("GUARD_INVALID", "guard does not match producer type", `${at}.guard`)
          if (producer.labels !== undefined && !producer.labels.includes(g.equals)) {
            fail("GUARD_INVALID", "guard label not declared", `${at}.guard`)
          }
        }
      }
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

  // 3. cycles (Kahn)
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

  // 4. interface
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

  // 5. views
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

  const cells: Array<CompiledCell> = manifest.cells.map((c, i) => {
    const r = resolved[i]!
    const producers = [...new Set(inbound[i]!.map((e) => e.from))]
    return {
      index: i,
      id: c.id,
      kind: c.kind,
      cell: c,
      inputs: r.inputs,
      inputNames: Object.keys(r.inputs),
      outputs: r.outputs,
      inbound: inbound[i]!,
      producers,
      handlesFailure: failFrom.has(i),
      fn: r.fn,
      child: r.child,
      tool: r.tool,
      expr: r.expr
    }
  })
  return {
    manifest,
    digest: Manifest.digest(manifest),
    cells,
    byId: new Map(cells.map((c) => [c.id, c])),
    fns,
    interfaceInputs,
    interfaceOutputs,
    options
  }
}

/**
 * Compile synchronously.
 *
 * @since 0.1.0
 * @category constructors
 */
export const compileSync = (
  manifest: Manifest.Manifest,
  options: CompileOptions = {}
): { readonly ok: true; readonly program: Program } | { readonly ok: false; readonly error: AlgalError.AlgalError } => {
  try {
    return {
      ok: true,
      program: compileInto(manifest, options, { instances: 0, cells: 0, edges: 0, memo: new Map() }, 0)
    }
  } catch (error) {
    if (error instanceof Issue) return { ok: false, error: Manifest.toError(error) }
    // Not reachable for manifests produced by `Manifest.parse`; a hand-built malformed value lands here.
    return { ok: false, error: AlgalError.make("INTERNAL", `compile failed: ${String(error)}`) }
  }
}

/**
 * Compile a parsed manifest into a runnable program.
 *
 * @since 0.1.0
 * @category constructors
 */
export const compile: (
  manifest: Manifest.Manifest,
  options?: CompileOptions
) => Effect.Effect<Program, AlgalError.AlgalError> = Effect.fn("Program.compile")(
  function*(manifest: Manifest.Manifest, options?: CompileOptions) {
    const result = compileSync(manifest, options)
    if (!result.ok) return yield* result.error
    return result.program
  }
)

/**
 * A manifest resolver over a list of manifests (e.g. sibling files or a bundle), keyed by digest.
 *
 * @since 0.1.0
 * @category constructors
 */
export const resolverOf = (
  manifests: Iterable<Manifest.Manifest>
): (digest: string) => Manifest.Manifest | undefined => {
  const map = new Map<string, Manifest.Manifest>()
  for (const m of manifests) map.set(Manifest.digest(m), m)
  return (digest) => map.get(digest)
}
