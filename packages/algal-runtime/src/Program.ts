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
import type * as Expr from "./Expr.js"
import * as FnRegistry from "./FnRegistry.js"
import { fail, Issue } from "./internal/issue.js"
import { checkAcyclic, checkViews, interfacePorts, wire } from "./internal/program/graph.js"
import { resolveCell, type ResolveContext } from "./internal/program/resolve.js"
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

interface State {
  instances: number
  cells: number
  edges: number
  readonly memo: Map<string, Program>
}

// The steps are internal/program/resolve.ts (1: ports) and internal/program/graph.ts (2: edges,
// 3: cycles, 4: interface, 5: views); errors are thrown as `Issue`s in that order.
const compileInto = (manifest: Manifest.Manifest, options: CompileOptions, state: State, depth: number): Program => {
  if (depth > bounds.maxDepth) fail("DEPTH_EXCEEDED", `embedded manifests nest deeper than ${bounds.maxDepth}`)
  state.instances += 1
  state.cells += manifest.cells.length
  state.edges += manifest.edges.length
  if (state.instances > bounds.maxInstances) fail("BUDGET_EXHAUSTED", "compile manifest instances")
  if (state.cells > bounds.maxCells) fail("BUDGET_EXHAUSTED", "compile cell count")
  if (state.edges > bounds.maxEdges) fail("BUDGET_EXHAUSTED", "compile edge count")
  const fns = options.fns ?? FnRegistry.make()
  const index = new Map<string, number>()
  manifest.cells.forEach((c, i) => {
    if (index.has(c.id)) fail("MANIFEST_INVALID", `duplicate cell id ${c.id}`, `$.cells[${i}].id`)
    index.set(c.id, i)
  })
  const context: ResolveContext = {
    fns,
    tools: options.tools ?? {},
    options,
    memo: state.memo,
    compileChild: (child) => compileInto(child, options, state, depth + 1)
  }
  const resolved = manifest.cells.map((c, i) => resolveCell(context, c, i))
  const { failFrom, inbound, adjacency } = wire(manifest, index, resolved)
  checkAcyclic(manifest, adjacency)
  const { interfaceInputs, interfaceOutputs } = interfacePorts(manifest, index, resolved)
  checkViews(manifest, index, resolved, inbound)

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
