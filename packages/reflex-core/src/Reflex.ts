/**
 * Reflex definitions: what a reflex reads (its feature extractor and program evidence), its heads
 * and shipped prior, its organism, its label mapping, and the gates that run outside the program.
 * `route` and `settle` are built in; `make` registers a user-defined reflex that goes through the
 * same ledger, training, certification and gates.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Features from "./Features.js"
import * as Gates from "./Gates.js"
import { routeOrganism, settleOrganism } from "./internal/organisms.js"
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
 * A reflex definition.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReflexDefinition<I = unknown> {
  readonly name: string
  readonly description: string
  readonly heads: ReadonlyArray<string>
  readonly prior: Params.Params
  /** The shipped organism's source (`algal.organism.v1` JSON). */
  readonly organism: string
  /** The key of the decided value in the program's `decision` output (`route`, `category`, …). */
  readonly valueKey: string
  readonly values: ReadonlyArray<string>
  readonly extract: (input: I) => Either.Either<Extraction, ReflexError.ReflexError>
  readonly gate: (decision: ProgramDecision, extracted: Extracted) => Gated
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

const routeEvidence = (task: string, judge: Features.Judge | undefined) => ({
  substantial: Features.substantial(task),
  judged: judge !== undefined,
  kind: judge?.kind ?? null
})

const routeFeaturesOf = (task: string, judge: Features.Judge | undefined): Record<string, number> => {
  const base = Features.routeFeatures(task)
  return judge === undefined ? base : Features.withJudgeEvidence(base, judge)
}

/**
 * The route reflex: frontier or standard tier for a new task.
 *
 * @since 0.1.0
 * @category reflexes
 */
export const route: ReflexDefinition<RouteInput> = {
  name: "route",
  description: "Frontier or standard model tier for a new task",
  heads: ["judged", "plain"],
  prior: Params.routePrior,
  organism: routeOrganism,
  valueKey: "route",
  values: ["frontier", "standard"],
  extract: (input) => {
    const evidence = routeEvidence(input.task, input.judge)
    return Either.right({
      _tag: "Extracted",
      extracted: {
        features: routeFeaturesOf(input.task, input.judge),
        evidence,
        facts: { substantial: evidence.substantial }
      }
    })
  },
  gate: (decision, extracted) => ({
    value: Gates.routeFloor(decision.value as "frontier" | "standard", extracted.facts["substantial"] === true),
    vetoed: false,
    actionable: true
  }),
  certification: {},
  explicitLabels: (value, decidedHead) =>
    value === "frontier" || value === "standard" ? [{ head: decidedHead, label: value === "frontier" }] : undefined,
  importExample: (line) => {
    if (line.head !== undefined) return Either.left("route lines take no head")
    if (line.toolCalls !== undefined) return Either.left("route lines take no tool_calls")
    return Either.right({
      head: line.judge === undefined ? "plain" : "judged",
      features: routeFeaturesOf(line.text, line.judge),
      evidence: routeEvidence(line.text, line.judge)
    })
  }
}

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
export const settle: ReflexDefinition<SettleInput> = {
  name: "settle",
  description: "Whether a finished turn stopped short or asks to confirm a safe next step",
  heads: ["unfinished", "confirm"],
  prior: Params.settlePrior,
  organism: settleOrganism,
  valueKey: "category",
  values: [
    "done",
    "stopped_short",
    "confirm",
    "interrupted",
    "question",
    "needs_action",
    "needs_approval",
    "blocked",
    "limited",
    "failed",
    "cancelled",
    "uncertain"
  ],
  extract: (input) => {
    const facts = input.facts ?? Features.completedTurn
    const features = Features.settleFeatures(input.text, facts, input.toolCalls)
    if (Option.isNone(features)) {
      return Either.right({ _tag: "Skipped", reason: "tool-call count unknown: the turn is not scored" })
    }
    const f = features.value
    return Either.right({
      _tag: "Extracted",
      extracted: {
        features: f,
        evidence: {
          state: input.state ?? "idle",
          limit: f["limit"]!,
          blocked: f["blocked"]!,
          done_claim: f["done_claim"]!
        },
        facts: { vetoed: Gates.vetoed(f, input.text) }
      }
    })
  },
  gate: (decision, extracted) => {
    const vetoed = extracted.facts["vetoed"] === true
    const f = extracted.features
    if (decision.value === "confirm") return { value: decision.value, vetoed, actionable: !vetoed }
    if (decision.value === "stopped_short") {
      return { value: decision.value, vetoed, actionable: (f["owner_only"] ?? 0) === 0 }
    }
    return { value: decision.value, vetoed, actionable: false }
  },
  certification: {
    unfinished: { floor: 0.75 },
    confirm: { floor: 0.85, actionable: (f) => (f["risk"] ?? 0) === 0 && (f["user_act"] ?? 0) === 0 }
  },
  explicitLabels: (value) => {
    switch (value) {
      case "unfinished":
      case "stopped_short":
        return [{ head: "unfinished", label: true }, { head: "confirm", label: false }]
      case "confirm":
        return [{ head: "confirm", label: true }, { head: "unfinished", label: false }]
      case "done":
        return [{ head: "unfinished", label: false }, { head: "confirm", label: false }]
      default:
        return undefined
    }
  },
  importExample: (line) => {
    if (line.judge !== undefined) return Either.left("settle lines take no judge")
    const head = line.head ?? "unfinished"
    if (head !== "unfinished" && head !== "confirm") return Either.left(`unknown settle head ${JSON.stringify(head)}`)
    const f = Features.settleFeaturesKnown(line.text, Features.completedTurn, line.toolCalls ?? 0)
    return Either.right({
      head,
      features: f,
      evidence: { state: "idle", limit: f["limit"]!, blocked: f["blocked"]!, done_claim: f["done_claim"]! }
    })
  }
}

/**
 * Define a user reflex: its own extractor, heads and prior, organism and label mapping. It is
 * validated here (name, heads, prior) and then runs through the same ledger, training,
 * certification and gates as the built-in reflexes. Its organism must pass the `pure` admission.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <I>(
  definition: ReflexDefinition<I>
): Either.Either<ReflexDefinition<I>, ReflexError.ReflexError> => {
  if (!/^[a-z0-9_]{1,48}$/.test(definition.name)) {
    return Either.left(
      ReflexError.make("invalid-input", `reflex name ${JSON.stringify(definition.name)} must match [a-z0-9_]{1,48}`)
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
