/**
 * Reflex definitions: what a reflex reads (its feature extractor and program evidence), its heads
 * and shipped prior, its organism, its label mapping, and the gates that run outside the program.
 * `route` and `settle` are built in; `make` registers a user-defined reflex that goes through the
 * same ledger, training, certification and gates.
 *
 * @since 0.1.0
 */
import type * as Manifest from "@steward/algal-runtime/Manifest"
import * as Either from "effect/Either"
import type * as Features from "./Features.js"
import * as Authoring from "./internal/authoring.js"
import * as Builtin from "./internal/builtins.js"
import { isName, nameRule } from "./internal/names.js"
import * as Params from "./Params.js"
import * as ReflexError from "./ReflexError.js"

/**
 * What a decision extracted from its input: numeric features, the typed (text-free) evidence the
 * program receives, and gate facts computed from the text that never leave this process.
 *
 * @since 0.1.0
 * @category models
 */
export interface Extracted {
  readonly features: Record<string, number>
  readonly evidence: Record<string, unknown>
  /** Text-derived gate facts (e.g. the confirm veto); recorded only as booleans. */
  readonly facts: Readonly<Record<string, boolean>>
  /**
   * Why a gate fact holds, in words naming cue classes from the shipped lists (never the turn's
   * text); explains a decision and is never recorded.
   */
  readonly reasons?: Readonly<Record<string, string>>
}

/**
 * The result of extraction: features, or a turn that must be skipped (never scored).
 *
 * @since 0.1.0
 * @category models
 */
export type Extraction =
  | { readonly _tag: "Extracted"; readonly extracted: Extracted }
  | { readonly _tag: "Skipped"; readonly reason: string }

/**
 * A validated program decision.
 *
 * @since 0.1.0
 * @category models
 */
export interface ProgramDecision {
  readonly value: string
  readonly gate: string
  readonly head: string
  /** logit × 1000, rounded. */
  readonly score: number
}

/**
 * What the gates outside the program made of a decision.
 *
 * @since 0.1.0
 * @category models
 */
export interface Gated {
  /** The value after the runtime floors (e.g. the substantial-prompt route floor). */
  readonly value: string
  /** The confirm veto (risk, hand-off, owner-only, veto stems), reported with every decision. */
  readonly vetoed: boolean
  /** Whether this value is one the head may act on at all, vetoes applied (before mode and certificate). */
  readonly actionable: boolean
  /** When not actionable: why (the veto's cue class, the failed precondition). */
  readonly reason?: string
}

/**
 * One import line after validation, as the reflex reads it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ImportExample {
  readonly head: string
  readonly features: Record<string, number>
  readonly evidence: Record<string, unknown>
}

/**
 * What a decision program must evaluate to: the decided value under the reflex's value key `K`,
 * a gate, a head and a score (text and number positions accept run-time values such as `get`).
 *
 * @since 0.2.0
 * @category authoring
 */
export type DecisionShape<K extends string> = Authoring.DecisionShape<K>

/**
 * An `Expr` program typed as a decision of a reflex whose value key is `K`.
 *
 * @since 0.2.0
 * @category authoring
 */
export type DecisionExpr<K extends string> = Authoring.DecisionExpr<K>

/**
 * A finished decision organism, built with `organism(…)…decide(…)`.
 *
 * @since 0.2.0
 * @category authoring
 */
export type DecisionOrganism<K extends string> = Authoring.DecisionOrganism<K>

/**
 * A decision organism under construction (see `organism`).
 *
 * @since 0.2.0
 * @category authoring
 */
export type DecisionBuilder<K extends string, Ids extends string, Outs extends string, Ins extends string> =
  Authoring.DecisionBuilder<K, Ids, Outs, Ins>

/**
 * Start a decision organism with the typed authoring API of `@steward/algal-runtime`. The input
 * cell `src` (ports `features`, `params`, `evidence`) and the interface are declared for you; add
 * cells with `.cells(b => b.expr(…).edge(…))` and finish with `.decide(id, { from, program })`,
 * whose program must be typed as a decision with `valueKey`, `gate`, `head` and `score`. A program
 * that cannot produce a decision, or an edge naming a port that does not exist, does not compile.
 *
 * @example
 * ```ts
 * import { Expr } from "@steward/algal-runtime"
 * import { Reflex } from "@steward/reflex-core"
 *
 * const z = Expr.fold(Expr.get("params", "second", "terms"), Expr.get("params", "second", "bias"), "acc", "t",
 *   Expr.add(Expr.get("acc"), Expr.mul(Expr.get("t", "w"), Expr.get("features", Expr.get("t", "f")))))
 * const program = Reflex.organism({ key: "organism:review", name: "Review", valueKey: "verdict" })
 *   .decide("decide", {
 *     from: { features: "src.features", params: "src.params" },
 *     program: Expr.record({ verdict: Expr.if_(Expr.gte(z, 0), "review", "ship"), gate: "score", head: "second",
 *       score: Expr.round(Expr.mul(z, 1000)) })
 *   })
 * ```
 *
 * @since 0.2.0
 * @category authoring
 */
export const organism: <const K extends string>(
  options: Authoring.OrganismOptions<K>
) => DecisionBuilder<K, "src", Authoring.SourcePorts, never> = Authoring.organism

/**
 * A reflex's organism: a typed decision organism, a manifest document (parsed JSON, e.g. built
 * with `Organism` and `build()`), or its JSON text.
 *
 * @since 0.2.0
 * @category models
 */
export type OrganismSource<K extends string = string> = DecisionOrganism<K> | Manifest.Manifest | string

/**
 * The JSON text of an organism source (what admission reads).
 *
 * @since 0.2.0
 * @category constructors
 */
export const organismText = (source: OrganismSource): string =>
  typeof source === "string"
    ? source
    : JSON.stringify(Authoring.isDecisionOrganism(source) ? source.build() : source)

/**
 * A reflex definition. `I` is the input its extractor reads (and `Reflexes.decide` takes), `K` the
 * key of the decided value in its decision.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReflexDefinition<I = unknown, K extends string = string> {
  readonly name: string
  readonly description: string
  readonly heads: ReadonlyArray<string>
  readonly prior: Params.Params
  /** The shipped organism: typed (`organism(…)`), a manifest document, or its JSON text. */
  readonly organism: OrganismSource<K>
  /** The key of the decided value in the program's `decision` output (`route`, `category`, …). */
  readonly valueKey: K
  readonly values: ReadonlyArray<string>
  readonly extract: (input: I) => Either.Either<Extraction, ReflexError.ReflexError>
  readonly gate: (decision: ProgramDecision, extracted: Extracted) => Gated
  /**
   * Why heads absent from `certification` may still act (`active` mode) without proving themselves
   * first; `status` shows it beside the mode. Absent: such heads only decide and record.
   */
  readonly uncertified?: string | undefined
  /**
   * Head names this reflex used before (old name → current name), still accepted on input for
   * one minor version: in labels, import lines, stored parameters and a custom program's output
   * (ADR 0414). A custom program also finds its parameters under the old names.
   */
  readonly formerHeads?: Readonly<Record<string, string>> | undefined
  /** Certifiable heads: precision floor and which labeled turns count. Heads absent here never certify. */
  readonly certification: Readonly<
    Record<string, { readonly floor: number; readonly actionable?: (features: Features.Features) => boolean }>
  >
  /** Explicit label values (`steward reflex label`): the head labels a value implies, or undefined if unknown. */
  readonly explicitLabels: (
    value: string,
    decidedHead: string
  ) => ReadonlyArray<{ readonly head: string; readonly label: boolean }> | undefined
  /** Features of one import line (`text` plus the line's own fields). */
  readonly importExample?: (line: {
    readonly text: string
    readonly head?: string | undefined
    readonly toolCalls?: number | undefined
    readonly judge?: Features.Judge | undefined
  }) => Either.Either<ImportExample, string>
}

/**
 * Route input: the task text, optional judge answers, and the tiers the caller can route to.
 *
 * @since 0.1.0
 * @category models
 */
export interface RouteInput {
  readonly task: string
  readonly judge?: Features.Judge | undefined
}

/**
 * The route reflex: frontier or standard tier for a new task.
 *
 * @since 0.1.0
 * @category reflexes
 */
export const route: ReflexDefinition<RouteInput, "route"> = Builtin.route

/**
 * Settle input: the turn's final text, its tool-call count (undefined ⇒ skipped), the state it
 * ended in and its facts.
 *
 * @since 0.1.0
 * @category models
 */
export interface SettleInput {
  readonly text: string
  readonly toolCalls: number | undefined
  readonly state?: Features.TurnState | undefined
  readonly facts?: Features.TurnFacts | undefined
}

/**
 * The settle reflex: how a finished turn ended (stopped short, asks to confirm, done, …).
 *
 * @since 0.1.0
 * @category reflexes
 */
export const settle: ReflexDefinition<SettleInput, "category"> = Builtin.settle

/**
 * Define a user reflex: its own extractor, heads and prior, organism and label mapping. It is
 * validated here (name, heads, prior) and then runs through the same ledger, training,
 * certification and gates as the built-in reflexes. Its organism must pass the `pure` admission;
 * a typed one (`organism(…)`) must decide under this definition's `valueKey` (checked when
 * compiling, and here).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <I, const K extends string = string>(
  definition: ReflexDefinition<I, K>
): Either.Either<ReflexDefinition<I, K>, ReflexError.ReflexError> => {
  if (!isName(definition.name)) {
    return Either.left(
      ReflexError.make("invalid-input", `reflex name ${JSON.stringify(definition.name)} must be ${nameRule}`)
    )
  }
  if (definition.heads.length < 1 || definition.heads.length > 4) {
    return Either.left(ReflexError.make("invalid-params", `reflex ${definition.name} needs 1..4 heads`))
  }
  const problem = Params.validate(definition.prior, definition.name, definition.heads)
  if (problem !== undefined) return Either.left(ReflexError.make("invalid-params", problem))
  if (definition.prior.version !== 0) {
    return Either.left(ReflexError.make("invalid-params", `reflex ${definition.name}: the prior must be version 0`))
  }
  if (Authoring.isDecisionOrganism(definition.organism) && definition.organism.valueKey !== definition.valueKey) {
    return Either.left(
      ReflexError.make(
        "invalid-input",
        `reflex ${definition.name}: its organism decides ${definition.organism.valueKey}, not ${definition.valueKey}`
      )
    )
  }
  if (definition.values.length === 0) {
    return Either.left(ReflexError.make("invalid-input", `reflex ${definition.name} declares no decision values`))
  }
  for (const [head, c] of Object.entries(definition.certification)) {
    if (!definition.heads.includes(head)) {
      return Either.left(
        ReflexError.make("invalid-input", `reflex ${definition.name}: certification names unknown head ${head}`)
      )
    }
    if (!(c.floor > 0 && c.floor < 1)) {
      return Either.left(ReflexError.make("invalid-input", `reflex ${definition.name}.${head}: floor must be in (0,1)`))
    }
  }
  return Either.right(definition)
}

/**
 * The built-in reflexes.
 *
 * @since 0.1.0
 * @category reflexes
 */
export const builtins: ReadonlyArray<ReflexDefinition<any>> = [route, settle]

/**
 * The inputs of the built-in reflexes by name (what `Reflexes.decide("settle", …)` takes).
 *
 * @since 0.2.0
 * @category models
 */
export interface BuiltinInputs {
  readonly route: RouteInput
  readonly settle: SettleInput
}

/**
 * The input a reflex reads: a definition's `I`, a built-in's input by name, or `unknown` for any
 * other name.
 *
 * @since 0.2.0
 * @category models
 */
export type InputOf<R> = R extends ReflexDefinition<infer I, any> ? I
  : R extends keyof BuiltinInputs ? BuiltinInputs[R]
  : unknown
