/**
 * Budgets: optional per-run limits on tokens and on cost (a price table in config). Crossing one
 * sends one wrap-up turn, then the run settles `interrupted{unfinished}` with the reason.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { DataKey } from "./internal/dataKey.js"

// Finite: a session stores its budget as JSON, where an infinite number would come back `null`.
const PricePerMillion = Schema.NonNegative.pipe(Schema.finite())

/**
 * Prices of one model, in currency units per million tokens.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Price = Schema.Struct({
  input: PricePerMillion,
  cachedInput: Schema.optional(PricePerMillion),
  output: PricePerMillion
})

/**
 * @since 0.1.0
 * @category models
 */
export type Price = typeof Price.Type

/**
 * The budget settings.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Config = Schema.Struct({
  tokens: Schema.optional(Schema.Int.pipe(Schema.positive())),
  cost: Schema.optional(Schema.Number.pipe(Schema.positive(), Schema.finite())),
  /** The price table, by model name (`openai:gpt-…`, `scripted`, …). */
  prices: Schema.optional(Schema.Record({ key: DataKey, value: Price }))
})

/**
 * @since 0.1.0
 * @category models
 */
export type Config = typeof Config.Type

/**
 * One model call's token usage.
 *
 * @since 0.1.0
 * @category models
 */
export interface Usage {
  readonly input: number
  readonly cachedInput: number
  readonly output: number
}

/**
 * Tokens a call counts against a budget: input that was not served from cache, plus output.
 *
 * @since 0.1.0
 * @category accounting
 */
export const tokens = (usage: Usage): number => Math.max(0, usage.input - usage.cachedInput) + usage.output

/**
 * The cost of a call under a price (cached input at its own price, else the input price).
 *
 * @since 0.1.0
 * @category accounting
 */
export const cost = (usage: Usage, price: Price | undefined): number =>
  price === undefined
    ? 0
    : (Math.max(0, usage.input - usage.cachedInput) * price.input +
      usage.cachedInput * (price.cachedInput ?? price.input) + usage.output * price.output) / 1_000_000

/**
 * The first budget crossed by the totals so far, as a reason, or `undefined`.
 *
 * @since 0.1.0
 * @category accounting
 */
export const crossed = (
  config: Config | undefined,
  totals: { readonly tokens: number; readonly cost: number }
): string | undefined => {
  if (config === undefined) return undefined
  if (config.tokens !== undefined && totals.tokens >= config.tokens) {
    return `token budget reached: ${totals.tokens} of ${config.tokens} tokens`
  }
  if (config.cost !== undefined && totals.cost >= config.cost) {
    return `cost budget reached: ${totals.cost.toFixed(4)} of ${config.cost}`
  }
  return undefined
}

/**
 * The wrap-up prompt sent once when a budget is crossed.
 *
 * @since 0.1.0
 * @category prompts
 */
export const wrapUpPrompt = (reason: string): string =>
  [
    `The run's budget is spent (${reason}). Do not start new work and do not call tools.`,
    "Wrap up: summarise what is done, what is not, and name the exact next step.",
    "Do not call the work complete because the budget ran out."
  ].join("\n")
