/**
 * The bounds a run keeps under hostile input: how much of any text (an error message, a copy of
 * the model's or a tool's input) is stored or shown, how large one event may be, how large a tool
 * input is accepted, and how many invalid tool calls in a row end a run. Everything past a bound
 * is cut with a marker that says how much was cut, so a cut is never silent.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as FrozenJson from "./internal/frozenJson.js"

/**
 * The limits (each optional; `resolve` applies the defaults).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Config = Schema.Struct({
  /** Characters kept of any stored or shown text: error messages, copies of inputs. Default 8,192. */
  maxText: Schema.optional(Schema.Int.pipe(Schema.between(256, 1 << 20))),
  /** Bytes of one event's data as stored JSON. Default 2 MiB. */
  maxEvent: Schema.optional(Schema.Int.pipe(Schema.between(4096, 64 << 20))),
  /** Bytes of one tool call's input as JSON; a larger one is answered with a `tool.error`. Default 1 MiB. */
  maxToolInput: Schema.optional(Schema.Int.pipe(Schema.between(256, 32 << 20))),
  /** Invalid tool calls in a row that settle the run `failed`. Default 3. */
  invalidCalls: Schema.optional(Schema.Int.pipe(Schema.between(1, 1000)))
})

/**
 * @since 0.1.0
 * @category models
 */
export type Config = typeof Config.Type

/**
 * The limits with their defaults applied.
 *
 * @since 0.1.0
 * @category models
 */
export interface Resolved {
  readonly maxText: number
  readonly maxEvent: number
  readonly maxToolInput: number
  readonly invalidCalls: number
}

/**
 * The defaults.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults: Resolved = {
  maxText: 8192,
  maxEvent: 2 * 1024 * 1024,
  maxToolInput: 1024 * 1024,
  invalidCalls: 3
}

/**
 * Apply the defaults (the event bound is raised to hold an accepted tool input with room to spare).
 *
 * @since 0.1.0
 * @category constructors
 */
export const resolve = (config: Config = {}): Resolved => {
  const maxToolInput = config.maxToolInput ?? defaults.maxToolInput
  return {
    maxText: config.maxText ?? defaults.maxText,
    maxEvent: Math.max(config.maxEvent ?? defaults.maxEvent, maxToolInput + 64 * 1024),
    maxToolInput,
    invalidCalls: config.invalidCalls ?? defaults.invalidCalls
  }
}

/**
 * Cut a text to `max` characters; a cut text ends with a marker naming how many were cut.
 *
 * @since 0.1.0
 * @category utils
 */
export const cut = (text: string, max: number = defaults.maxText): string =>
  text.length <= max ? text : `${text.slice(0, max)}… [cut: ${text.length - max} more characters]`

/**
 * A JSON-like value with every string longer than `max` cut (keys kept), for stored copies of
 * inputs. Values whose JSON is within `max` are returned as they are.
 *
 * @since 0.1.0
 * @category utils
 */
export const cutStrings = (value: unknown, max: number = defaults.maxText): unknown => {
  const go = (v: unknown, depth: number): unknown => {
    if (typeof v === "string") return cut(v, max)
    if (typeof v !== "object" || v === null || depth > 64) return v
    if (Array.isArray(v)) return v.map((x) => go(x, depth + 1))
    const out: Record<string, unknown> = {}
    for (const [key, x] of Object.entries(v)) out[key] = go(x, depth + 1)
    return out
  }
  return go(value, 0)
}

/**
 * The size of a value as JSON (characters), or `undefined` when it cannot be written as JSON.
 *
 * @since 0.1.0
 * @category utils
 */
export const jsonSize = (value: unknown): number | undefined => {
  try {
    return FrozenJson.text(value)?.length
  } catch {
    return undefined
  }
}
