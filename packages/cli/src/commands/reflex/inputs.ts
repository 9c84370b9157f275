/**
 * The options a reflex decision reads (`decide` and `features`) and how they become the reflex's
 * input: the judge JSON decoded by Schema, the settle turn's facts.
 *
 * @since 0.2.0
 */
import * as Options from "@effect/cli/Options"
import * as Features from "@steward/reflex-core/Features"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { cannotRun } from "../../CliError.js"

/**
 * @since 0.2.0
 * @category options
 */
export const text = Options.text("text").pipe(
  Options.withDescription("The task (route) or the turn's final text (settle)")
)
/**
 * @since 0.2.0
 * @category options
 */
export const subject = Options.text("subject").pipe(
  Options.withDescription("What the decision is about (task id or task#revision); default: a fresh id"),
  Options.optional
)
/**
 * @since 0.2.0
 * @category options
 */
export const noRecord = Options.boolean("no-record").pipe(
  Options.withDescription("Decide without recording an observation")
)
/**
 * @since 0.2.0
 * @category options
 */
export const judge = Options.text("judge").pipe(
  Options.withDescription("Judge answers as JSON: difficulty, scope, ambiguity, stakes (0..4), frontier (0..1), kind"),
  Options.optional
)
/**
 * @since 0.2.0
 * @category options
 */
export const toolCalls = Options.integer("tool-calls").pipe(
  Options.withDescription("Tool calls of the turn (omit when unknown: the turn is skipped)"),
  Options.optional
)
/**
 * @since 0.2.0
 * @category options
 */
export const turnState = Options.choice("state", Features.TurnState.literals).pipe(
  Options.withDescription("The state the turn ended in (default idle)"),
  Options.optional
)
/**
 * @since 0.2.0
 * @category options
 */
export const limit = Options.boolean("limit").pipe(Options.withDescription("The turn ended on a token or turn limit"))
/**
 * @since 0.2.0
 * @category options
 */
export const effects = Options.choice("effects", Features.Effects.literals).pipe(
  Options.withDescription("How the turn's effects ended (default settled)"),
  Options.withDefault("settled" as const)
)
/**
 * @since 0.2.0
 * @category options
 */
export const eligibleTiers = Options.text("eligible").pipe(
  Options.withDescription("Comma-separated tiers that have an eligible account (route only among them)"),
  Options.optional
)
/**
 * @since 0.2.0
 * @category options
 */
export const task = Options.text("task").pipe(
  Options.withDescription("Task id for the one-in-ten hold-back"),
  Options.optional
)
/**
 * @since 0.2.0
 * @category options
 */
export const revision = Options.integer("revision").pipe(
  Options.withDescription("Task revision for the hold-back"),
  Options.optional
)

const decodeJudge = Schema.decodeUnknownEither(Features.Judge, { onExcessProperty: "error" })

/**
 * @since 0.2.0
 * @category options
 */
export const parseJudge = (raw: Option.Option<string>) =>
  Effect.gen(function*() {
    if (Option.isNone(raw)) return undefined
    const json = yield* Effect.try({
      try: () => JSON.parse(raw.value) as unknown,
      catch: (e) => cannotRun("invalid-input", `--judge: not valid JSON (${(e as Error).message})`)
    })
    const decoded = decodeJudge(json)
    if (Either.isLeft(decoded)) {
      return yield* cannotRun("invalid-input", `--judge: ${ParseResult.TreeFormatter.formatErrorSync(decoded.left)}`)
    }
    return decoded.right
  })

/**
 * @since 0.2.0
 * @category options
 */
export const settleInput = (o: {
  readonly text: string
  readonly toolCalls: Option.Option<number>
  readonly state: Option.Option<Features.TurnState>
  readonly limit: boolean
  readonly effects: typeof Features.Effects.Type
}) => {
  if (Option.isSome(o.toolCalls) && o.toolCalls.value < 0) {
    return Effect.fail(cannotRun("invalid-input", `--tool-calls must be ≥ 0, got ${o.toolCalls.value}`))
  }
  return Effect.succeed({
    text: o.text,
    toolCalls: Option.getOrUndefined(o.toolCalls),
    state: Option.getOrUndefined(o.state),
    facts: { effects: o.effects, terminal: o.limit ? "token_limit" as const : "completed" as const }
  })
}
