/**
 * A typed authoring API for organisms. Cells are added one at a time; the builder's type tracks
 * every cell id (duplicates are a type error), every producer endpoint (`"cell.port"` outputs) and
 * every consumer endpoint (`"cell.port"` inputs), so edges and interface entries that name a port
 * that does not exist do not compile. Expression programs are written with the `Expr` builder.
 *
 * `build()` emits plain, already-normalized `algal.organism.v1` JSON: parsing and normalizing it
 * returns it unchanged, so its digest is the manifest digest.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Expr, Manifest, Organism } from "@steward/algal-runtime"
 *
 * const json = Organism.make({ key: "organism:double", name: "Double", budgets: { maxAgentCalls: 0 } })
 *   .input("src", { n: "json" })
 *   .expr("calc", { inputs: { n: "json" }, program: Expr.mul(Expr.get("n"), 2), output: { kind: "json", schema: { type: "number" } } })
 *   .fn("sink", "echo.v1")
 *   .edge("src.n", "calc.n")
 *   .edge("calc.out", "sink.value", { guard: Organism.when(Expr.gt(Expr.get("value"), 100)) })
 *   .interface({ inputs: { n: "src.n" }, outputs: { doubled: "calc.out" } })
 *   .build()
 *
 * const digest = Effect.map(Manifest.parse(json), Manifest.digest)
 * ```
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type * as AlgalError from "./AlgalError.js"
import type * as Canonical from "./Canonical.js"
import * as Manifest from "./Manifest.js"

type Json = Canonical.Json

/**
 * A port: a type shorthand or a full declaration.
 *
 * @since 0.1.0
 * @category models
 */
export type PortSpec = Manifest.PortType | Manifest.PortDecl

/**
 * A port map.
 *
 * @since 0.1.0
 * @category models
 */
export type PortsSpec = { readonly [name: string]: PortSpec }

/**
 * Port names of the built-in fns (`FnRegistry.builtins`).
 *
 * @since 0.1.0
 * @category models
 */
export interface BuiltinFnPorts {
  readonly "echo.v1": { readonly in: "value"; readonly out: "value" }
  readonly "coalesce.v1": { readonly in: "a" | "b" | "c"; readonly out: "value" }
  readonly "format.v1": { readonly in: "prefix" | "value"; readonly out: "value" }
  readonly "tag.v1": { readonly in: "tag" | "value"; readonly out: "value" }
  readonly "pick.v1": { readonly in: "record" | "field"; readonly out: "value" }
  readonly "join.v1": { readonly in: "items" | "sep"; readonly out: "value" }
  readonly "assert.v1": { readonly in: "value" | "expect"; readonly out: "value" }
  readonly "inc.v1": { readonly in: "value"; readonly out: "value" }
  readonly "double.v1": { readonly in: "value"; readonly out: "value" }
  readonly "not.v1": { readonly in: "value"; readonly out: "value" }
  readonly "uppercase.v1": { readonly in: "value"; readonly out: "value" }
  readonly "label.v1": { readonly in: "value"; readonly out: "value" }
  readonly "push.v1": { readonly in: "list" | "item"; readonly out: "value" }
  readonly "memory.query.v1": { readonly in: "snapshot" | "program"; readonly out: "result" }
  readonly "context.compact.v1": { readonly in: "source" | "policy"; readonly out: "view" | "archive" }
  readonly "manifest.compile.v1": { readonly in: "plan"; readonly out: "manifest" }
}

/**
 * An expression program: an `Expr` builder value or raw program JSON.
 *
 * @since 0.1.0
 * @category models
 */
export type Program = Json | { readonly [key: string]: unknown } | ReadonlyArray<unknown>

/**
 * Options of an agent-family cell (agent, classifier, gate).
 *
 * @since 0.1.0
 * @category models
 */
export interface AgentSpec<P extends PortsSpec> {
  readonly inputs?: P
  readonly prompt: string
  readonly output: Manifest.OutputContract
  readonly view?: Manifest.View
  readonly route?: { readonly provider?: string; readonly model?: string; readonly preset?: string }
  readonly tools?: ReadonlyArray<string>
  readonly budget?: { readonly [key: string]: number }
  readonly retry?: { readonly attempts: number }
  readonly shadow?: { readonly take: string }
  readonly compact?: { readonly [key: string]: Json }
}

/**
 * Edge options.
 *
 * @since 0.1.0
 * @category models
 */
export interface EdgeOptions {
  readonly guard?: Manifest.Guard
  readonly on?: "fail"
}

type NewId<Id extends string, Ids extends string> = Id extends Ids ? never : Id
type Endpoints<Id extends string, Names> = `${Id}.${Names & string}`

/**
 * An organism under construction. `Ids` are the cell ids so far, `Outs` the producer endpoints,
 * `Ins` the consumer endpoints, `Inputs` the endpoints of `input` cells (valid interface inputs).
 *
 * @since 0.1.0
 * @category models
 */
export interface Builder<Ids extends string, Outs extends string, Ins extends string, Inputs extends string> {
  /** An `input` cell: its ports are the run args. */
  readonly input: <const Id extends string, const P extends PortsSpec>(
    id: NewId<Id, Ids>,
    outputs: P
  ) => Builder<Ids | Id, Outs | Endpoints<Id, keyof P>, Ins, Inputs | Endpoints<Id, keyof P>>
  /** A `const` cell. */
  readonly const: <const Id extends string, const P extends { readonly [name: string]: Manifest.ConstPortDecl }>(
    id: NewId<Id, Ids>,
    outputs: P
  ) => Builder<Ids | Id, Outs | Endpoints<Id, keyof P>, Ins, Inputs>
  /** An `fn` cell calling a built-in fn. */
  readonly fn: <const Id extends string, const F extends keyof BuiltinFnPorts>(
    id: NewId<Id, Ids>,
    fn: F
  ) => Builder<
    Ids | Id,
    Outs | Endpoints<Id, BuiltinFnPorts[F]["out"]>,
    Ins | Endpoints<Id, BuiltinFnPorts[F]["in"]>,
    Inputs
  >
  /** An `fn` cell calling a host fn, declaring its port names. */
  readonly hostFn: <const Id extends string, const I extends string, const O extends string>(
    id: NewId<Id, Ids>,
    fn: string,
    ports: { readonly inputs: ReadonlyArray<I>; readonly outputs: ReadonlyArray<O> }
  ) => Builder<Ids | Id, Outs | Endpoints<Id, O>, Ins | Endpoints<Id, I>, Inputs>
  /** An `expr` cell: one output `out`. */
  readonly expr: <const Id extends string, const P extends PortsSpec>(
    id: NewId<Id, Ids>,
    spec: { readonly inputs: P; readonly program: Program; readonly output: Manifest.OutputContract }
  ) => Builder<Ids | Id, Outs | `${Id}.out`, Ins | Endpoints<Id, keyof P>, Inputs>
  /** An agent, classifier or gate cell: one output `out`. */
  readonly agent: <const Id extends string, const P extends PortsSpec = {}>(
    id: NewId<Id, Ids>,
    spec: AgentSpec<P> & { readonly kind?: "agent" | "classifier" | "gate" }
  ) => Builder<Ids | Id, Outs | `${Id}.out`, Ins | Endpoints<Id, keyof P>, Inputs>
  /** A `store` cell: `data` → `ref`. */
  readonly store: <const Id extends string>(
    id: NewId<Id, Ids>
  ) => Builder<Ids | Id, Outs | `${Id}.ref`, Ins | `${Id}.data`, Inputs>
  /** A `load` cell: `ref` → `data`. */
  readonly load: <const Id extends string>(
    id: NewId<Id, Ids>
  ) => Builder<Ids | Id, Outs | `${Id}.data`, Ins | `${Id}.ref`, Inputs>
  /** A read slot: emits `data`. */
  readonly readSlot: <const Id extends string>(
    id: NewId<Id, Ids>,
    name: string,
    defaultValue?: Json
  ) => Builder<Ids | Id, Outs | `${Id}.data`, Ins, Inputs>
  /** A write slot: `data` → `data`. */
  readonly writeSlot: <const Id extends string>(
    id: NewId<Id, Ids>,
    name: string
  ) => Builder<Ids | Id, Outs | `${Id}.data`, Ins | `${Id}.data`, Inputs>
  /** Any other cell (decide, recall, tool, organism, repeat, each, spawn), declaring its port names. */
  readonly cell: <const Id extends string, const I extends string, const O extends string>(
    cell: { readonly id: NewId<Id, Ids>; readonly kind: Manifest.CellKind; readonly [key: string]: unknown },
    ports: { readonly inputs: ReadonlyArray<I>; readonly outputs: ReadonlyArray<O> }
  ) => Builder<Ids | Id, Outs | Endpoints<Id, O>, Ins | Endpoints<Id, I>, Inputs>
  /** An edge from a producer port to a consumer port. */
  readonly edge: (from: Outs, to: Ins, options?: EdgeOptions) => Builder<Ids, Outs, Ins, Inputs>
  /** The interface: inputs name `input` cell ports, outputs name producer ports. */
  readonly interface: (spec: {
    readonly inputs?: { readonly [name: string]: Inputs }
    readonly outputs?: { readonly [name: string]: Outs }
  }) => Builder<Ids, Outs, Ins, Inputs>
  /** The normalized `algal.organism.v1` JSON. */
  readonly build: () => Manifest.Manifest
}

interface State {
  readonly head: {
    readonly key: string
    readonly name: string
    readonly note?: string
    readonly budgets: Manifest.Budgets
  }
  readonly cells: ReadonlyArray<{ readonly [key: string]: unknown }>
  readonly edges: ReadonlyArray<Manifest.Edge>
  readonly interface: Manifest.Interface
}

const port = (spec: PortSpec): Manifest.PortDecl => (typeof spec === "string" ? { type: spec } : spec)
const portMap = (spec: PortsSpec): Record<string, Manifest.PortDecl> => {
  const out: Record<string, Manifest.PortDecl> = {}
  for (const name of Object.keys(spec)) out[name] = port(spec[name]!)
  return out
}
const endpoint = (text: string): Manifest.Endpoint => {
  const dot = text.indexOf(".")
  return { cell: text.slice(0, dot), port: text.slice(dot + 1) }
}
const withInputs = (inputs: PortsSpec | undefined): { inputs?: Record<string, Manifest.PortDecl> } =>
  inputs === undefined || Object.keys(inputs).length === 0 ? {} : { inputs: portMap(inputs) }
const expr = (program: Program): Manifest.ExprEnvelope => ({ contract: "algal.expr.v1", program: program as Json })

const builder = (state: State): Builder<never, never, never, never> => {
  const add = (cell: { readonly [key: string]: unknown }) => builder({ ...state, cells: [...state.cells, cell] })
  const self = {
    input: (id: string, outputs: PortsSpec) => add({ id, kind: "input", outputs: portMap(outputs) }),
    const: (id: string, outputs: { readonly [name: string]: Manifest.ConstPortDecl }) =>
      add({ id, kind: "const", outputs }),
    fn: (id: string, fn: string) => add({ id, kind: "fn", fn }),
    hostFn: (id: string, fn: string) => add({ id, kind: "fn", fn }),
    expr: (id: string, spec: { inputs: PortsSpec; program: Program; output: Manifest.OutputContract }) =>
      add({ id, kind: "expr", ...withInputs(spec.inputs), expr: expr(spec.program), output: spec.output }),
    agent: (id: string, spec: AgentSpec<PortsSpec> & { kind?: "agent" | "classifier" | "gate" }) => {
      const { inputs, kind, view, ...rest } = spec
      return add({ id, kind: kind ?? "agent", ...withInputs(inputs), ...rest, view: view ?? { inputs: "*" } })
    },
    store: (id: string) => add({ id, kind: "store" }),
    load: (id: string) => add({ id, kind: "load" }),
    readSlot: (id: string, name: string, defaultValue?: Json) =>
      add({ id, kind: "slot", name, mode: "read", ...(defaultValue === undefined ? {} : { default: defaultValue }) }),
    writeSlot: (id: string, name: string) => add({ id, kind: "slot", name, mode: "write" }),
    cell: (cell: { readonly [key: string]: unknown }) => add(cell),
    edge: (from: string, to: string, options: EdgeOptions = {}) =>
      builder({
        ...state,
        edges: [...state.edges, {
          from: endpoint(from),
          to: endpoint(to),
          ...(options.guard === undefined ? {} : { guard: options.guard }),
          ...(options.on === undefined ? {} : { on: options.on })
        }]
      }),
    interface: (spec: { inputs?: Record<string, string>; outputs?: Record<string, string> }) => {
      const side = (entries: Record<string, string> | undefined) => {
        const out: Record<string, Manifest.Endpoint> = {}
        for (const name of Object.keys(entries ?? {})) out[name] = endpoint(entries![name]!)
        return out
      }
      return builder({ ...state, interface: { inputs: side(spec.inputs), outputs: side(spec.outputs) } })
    },
    build: () =>
      ({
        contract: "algal.organism.v1",
        key: state.head.key,
        name: state.head.name,
        ...(state.head.note === undefined ? {} : { note: state.head.note }),
        budgets: state.head.budgets,
        interface: state.interface,
        cells: state.cells,
        edges: state.edges
      }) as unknown as Manifest.Manifest
  }
  return self as unknown as Builder<never, never, never, never>
}

/**
 * Start an organism: key (`organism:<id>`), name, optional note and budgets (missing budgets take
 * the defaults).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: {
  readonly key: `organism:${string}`
  readonly name: string
  readonly note?: string
  readonly budgets?: Partial<Manifest.Budgets>
}): Builder<never, never, never, never> =>
  builder({
    head: {
      key: options.key,
      name: options.name,
      ...(options.note === undefined ? {} : { note: options.note }),
      budgets: { ...Manifest.defaultBudgets, ...options.budgets }
    },
    cells: [],
    edges: [],
    interface: { inputs: {}, outputs: {} }
  })

/**
 * An `expr` guard: the program sees the delivered value as `value` and must return a boolean.
 *
 * @since 0.1.0
 * @category guards
 */
export const when = (program: Program): Manifest.Guard => ({ expr: expr(program) })

/**
 * A choice guard: fires when the producer's label equals `label`.
 *
 * @since 0.1.0
 * @category guards
 */
export const equals = (label: string): Manifest.Guard => ({ equals: label })

/**
 * A field guard: fires when the producer's json object has `field` strictly equal to `value`.
 *
 * @since 0.1.0
 * @category guards
 */
export const field = (name: string, value: string): Manifest.Guard => ({ field: name, equals: value })

/**
 * Build and validate: the parsed manifest (fails with the same typed errors as `Manifest.parse`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const manifest = (
  organism: { readonly build: () => Manifest.Manifest }
): Effect.Effect<Manifest.Manifest, AlgalError.AlgalError> => Manifest.parse(organism.build())
