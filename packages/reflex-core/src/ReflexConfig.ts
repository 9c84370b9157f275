/**
 * The `extensions.reflexes` entry of the state directory's `config.json`: a mode per reflex/head
 * (`off | observe | auto | active`), whether labels train automatically, and the promotion
 * strategy. Unknown keys are an error naming the key.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { isName, nameRule, StrictRecord } from "./internal/names.js"
import * as ReflexError from "./ReflexError.js"

/**
 * `off`: skip; `observe`: decide and record only; `auto`: act only when the person's own history
 * certifies the head (and never on a held-back turn); `active`: act.
 *
 * @since 0.1.0
 * @category models
 */
export const Mode = Schema.Literal("off", "observe", "auto", "active")

/**
 * @since 0.1.0
 * @category models
 */
export type Mode = typeof Mode.Type

/**
 * `holdout` (default): a fixed hashed fifth of labels is never trained on and decides promotion.
 * `forward`: a challenger trials on the next 48 labels.
 *
 * @since 0.1.0
 * @category models
 */
export const Promotion = Schema.Literal("holdout", "forward")

/**
 * @since 0.1.0
 * @category models
 */
export type Promotion = typeof Promotion.Type

/** A custom reflex's key: `name` or `name.head`. */
const CustomKey = Schema.String.pipe(
  Schema.filter((key) => {
    const parts = key.split(".")
    return (parts.length <= 2 && parts.every(isName)) || `name or name.head, each ${nameRule}`
  })
)

/**
 * The config entry.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ReflexConfig = Schema.Struct({
  route: Schema.optionalWith(Mode, { default: () => "active" as const }),
  settle: Schema.optionalWith(Mode, { default: () => "auto" as const }),
  confirm: Schema.optionalWith(Mode, { default: () => "auto" as const }),
  learn: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  promotion: Schema.optionalWith(Promotion, { default: () => "holdout" as const }),
  /** Modes of user-defined reflexes, by `name` or `name.head`. */
  custom: Schema.optionalWith(
    StrictRecord(CustomKey, Mode),
    { default: () => ({}) }
  )
})

/**
 * @since 0.1.0
 * @category models
 */
export type ReflexConfig = typeof ReflexConfig.Type

/**
 * The defaults: `{"route":"active","settle":"auto","confirm":"auto","learn":true}` (and holdout promotion).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults: ReflexConfig = {
  route: "active",
  settle: "auto",
  confirm: "auto",
  learn: true,
  promotion: "holdout",
  custom: {}
}

const decodeConfig = Schema.decodeUnknownEither(ReflexConfig, { onExcessProperty: "error", errors: "all" })

/**
 * Validate an `extensions.reflexes` value (`undefined` ⇒ defaults). `where` names the file.
 *
 * @since 0.1.0
 * @category constructors
 */
export const decode = Effect.fn("ReflexConfig.decode")(function*(u: unknown, where: string = "extensions.reflexes") {
  if (u === undefined) return defaults
  const result = decodeConfig(u)
  if (result._tag === "Right") return result.right
  const issues = ParseResult.ArrayFormatter.formatErrorSync(result.left).map((issue) => ({
    path: ["extensions", "reflexes", ...issue.path.map(String)].join("."),
    message: issue.message
  }))
  const first = issues[0]
  return yield* ReflexError.make(
    "invalid-config",
    `${where}: ${first === undefined ? "invalid" : `${first.path}: ${first.message}`}`,
    { issues }
  )
})

/**
 * The mode of one head: route heads use `route`; `settle.stopped_short` uses `settle`; `settle.confirm`
 * uses `confirm`, but `settle: off` turns both off and `settle: observe` caps confirm at observe.
 * User-defined reflexes read `custom["name.head"]`, then `custom["name"]`, else `observe`.
 *
 * @since 0.1.0
 * @category accessors
 */
export const modeOf = (config: ReflexConfig, reflex: string, head: string): Mode => {
  if (reflex === "route") return config.route
  if (reflex === "settle") {
    if (config.settle === "off") return "off"
    if (head === "confirm") {
      if (config.confirm === "off") return "off"
      return config.settle === "observe" ? "observe" : config.confirm
    }
    return config.settle
  }
  return config.custom[`${reflex}.${head}`] ?? config.custom[reflex] ?? "observe"
}
