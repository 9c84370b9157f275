/**
 * The typed authoring of decision organisms: an `Organism` builder whose `src` input cell
 * (features, params, evidence) and interface are declared for the author, finished by a `decide`
 * cell whose program's type must be a decision. A program that cannot produce one (a missing
 * `head`, a `score` that is text, no value under the reflex's value key) does not compile.
 * @internal
 */
import * as Admission from "@steward/algal-runtime/Admission"
import type * as Expr from "@steward/algal-runtime/Expr"
import type * as Manifest from "@steward/algal-runtime/Manifest"
import * as Organism from "@steward/algal-runtime/Organism"

/** The endpoints of the pre-declared input cell. @internal */
export type SourcePorts = "src.features" | "src.params" | "src.evidence"

type Text = string | Expr.Dynamic
type Num = number | Expr.Dynamic

/** What a decision program must evaluate to: the value under `K`, a gate, a head and a score. @internal */
export type DecisionShape<K extends string> =
  & { readonly [P in K]: Text }
  & { readonly gate: Text; readonly head: Text; readonly score: Num }

/** A built expression program typed as a decision. @internal */
export type DecisionExpr<K extends string> = Expr.Typed<DecisionShape<K>>

/** A finished decision organism for a reflex whose value key is `K`. @internal */
export interface DecisionOrganism<K extends string> {
  readonly _tag: "DecisionOrganism"
  readonly valueKey: K
  /** The normalized `algal.organism.v1` manifest. */
  readonly build: () => Manifest.Manifest
}

/** A decision organism under construction. @internal */
export interface DecisionBuilder<K extends string, Ids extends string, Outs extends string, Ins extends string> {
  /** Add ordinary cells and edges with the `Organism` builder (the `src` cell is already there). */
  readonly cells: <I2 extends string, O2 extends string, N2 extends string>(
    add: (builder: Organism.Builder<Ids, Outs, Ins, SourcePorts>) => Organism.Builder<I2, O2, N2, SourcePorts>
  ) => DecisionBuilder<K, I2, O2, N2>
  /**
   * The decision cell: an `expr` cell whose inputs are wired from producer ports (in the order
   * given) and whose program is typed as a decision. Its output is the interface's `decision`.
   */
  readonly decide: <const Id extends string, const P extends { readonly [port: string]: Outs }>(
    id: Id extends Ids ? never : Id,
    spec: { readonly from: P; readonly program: DecisionExpr<K> }
  ) => DecisionOrganism<K>
}

/** Options of `organism`. @internal */
export interface OrganismOptions<K extends string> {
  readonly key: `organism:${string}`
  readonly name: string
  readonly note?: string
  /** Budgets over the `pure` profile's caps (the default: at the caps, no agent calls). */
  readonly budgets?: Partial<Manifest.Budgets>
  /** The key of the decided value in the decision (`route`, `category`, `verdict`, …). */
  readonly valueKey: K
}

// Decision programs are admitted under the `pure` profile: default to its caps, not the runtime's.
const pureBudgets: Manifest.Budgets = {
  maxSteps: Admission.pureLimits.maxSteps,
  maxAgentCalls: 0,
  maxWork: Admission.pureLimits.maxWork,
  maxContextBytes: Admission.pureLimits.maxContextBytes,
  maxOutputBytes: Admission.pureLimits.maxOutputBytes,
  maxDepth: Admission.pureLimits.maxDepth
}

const json: Manifest.OutputContract = { kind: "json", schema: {} }

// The builder's type-level bookkeeping is checked at the public signatures; inside, it is erased.
type AnyBuilder = {
  readonly expr: (id: string, spec: unknown) => AnyBuilder
  readonly edge: (from: string, to: string) => AnyBuilder
  readonly interface: (spec: unknown) => AnyBuilder
  readonly build: () => Manifest.Manifest
}

const wrap = <K extends string>(valueKey: K, builder: AnyBuilder): DecisionBuilder<K, any, any, any> => ({
  cells: (add) => wrap(valueKey, add(builder as any) as unknown as AnyBuilder),
  decide: (id, spec) => {
    const ports = Object.keys(spec.from)
    let b = builder.expr(id as string, {
      inputs: Object.fromEntries(ports.map((p) => [p, "json"])),
      program: spec.program,
      output: json
    })
    for (const port of ports) b = b.edge(spec.from[port]!, `${id}.${port}`)
    const finished = b.interface({
      inputs: { features: "src.features", params: "src.params", evidence: "src.evidence" },
      outputs: { decision: `${id}.out` }
    })
    return { _tag: "DecisionOrganism", valueKey, build: () => finished.build() }
  }
})

/** Start a decision organism: the `src` input cell is declared. @internal */
export const organism = <const K extends string>(
  options: OrganismOptions<K>
): DecisionBuilder<K, "src", SourcePorts, never> => {
  const { budgets, valueKey, ...head } = options
  const start = Organism.make({ ...head, budgets: { ...pureBudgets, ...budgets } }).input("src", {
    features: "json",
    params: "json",
    evidence: "json"
  })
  return wrap(valueKey, start as unknown as AnyBuilder) as DecisionBuilder<K, "src", SourcePorts, never>
}

/** Whether a value is a finished decision organism. @internal */
export const isDecisionOrganism = (u: unknown): u is DecisionOrganism<string> =>
  typeof u === "object" && u !== null && (u as { _tag?: unknown })._tag === "DecisionOrganism"
