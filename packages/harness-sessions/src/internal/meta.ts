/**
 * What a session stores about itself: its workspace, level and rules (with the rules saved by
 * approve-and-remember), its guard, budget and reviewer settings, its goal, and the host's data.
 */
import * as Autonomy from "@steward/governance-rules/Autonomy"
import * as Rule from "@steward/governance-rules/Rule"
import * as SandboxProfile from "@steward/governance-rules/SandboxProfile"
import * as Clock from "effect/Clock"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import * as Schema from "effect/Schema"
import * as path from "node:path"
import * as Budget from "../Budget.js"
import { HarnessError } from "../HarnessError.js"
import * as WorkSlice from "../WorkSlice.js"
import { DataKey } from "./dataKey.js"
import * as GoalSpec from "./goalSpec.js"
import * as ReviewerConfig from "./reviewerConfig.js"

const RuleInput = Schema.encodedSchema(Rule.Rule)

export const MetaSchema = Schema.Struct({
  workspace: Schema.String,
  level: Autonomy.Level,
  rules: Schema.Array(RuleInput),
  remembered: Schema.Array(RuleInput),
  workSlice: Schema.optional(WorkSlice.Config),
  budget: Schema.optional(Budget.Config),
  reviewer: Schema.optional(ReviewerConfig.Config),
  /** The policy's sandbox section, for the boundary the session's shell calls run in (ADR 0563). */
  sandbox: Schema.optional(SandboxProfile.SandboxPolicy),
  goal: Schema.NullOr(Schema.Struct({ spec: GoalSpec.Spec, status: Schema.String })),
  lastSubject: Schema.NullOr(Schema.String),
  host: Schema.Record({ key: DataKey, value: Schema.Unknown })
})

/**
 * A session's meta: the type of its Schema, so the stored document and what the runner reads
 * cannot drift apart.
 */
export type Meta = typeof MetaSchema.Type

const decodeMeta = Schema.decodeUnknown(MetaSchema, { onExcessProperty: "error" })

/** Decode a stored meta. */
export const decode = (u: unknown): Effect.Effect<Meta, HarnessError> =>
  decodeMeta(u).pipe(
    Effect.mapError((e) => new HarnessError({ code: "INVALID_INPUT", message: `session settings: ${e.message}` }))
  )

/** The meta of a new session (validated like a stored one). */
export const initial = (options: {
  readonly workspace: string
  readonly level?: Autonomy.Level
  readonly rules?: ReadonlyArray<Rule.RuleInput>
  readonly workSlice?: WorkSlice.Config
  readonly budget?: Budget.Config
  readonly reviewer?: ReviewerConfig.Config
  readonly sandbox?: SandboxProfile.SandboxPolicy
  readonly host?: Readonly<Record<string, unknown>>
}): Effect.Effect<Meta, HarnessError> =>
  decode({
    workspace: path.resolve(options.workspace),
    level: options.level ?? Autonomy.defaultLevel,
    rules: options.rules ?? [],
    remembered: [],
    ...(options.workSlice === undefined ? {} : { workSlice: options.workSlice }),
    ...(options.budget === undefined ? {} : { budget: options.budget }),
    ...(options.reviewer === undefined ? {} : { reviewer: options.reviewer }),
    ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
    goal: null,
    lastSubject: null,
    host: options.host ?? {}
  })

/** A new session id: the UTC time and four random hex digits (`s20260101-120000-ab12`). */
export const newId: Effect.Effect<string> = Effect.gen(function*() {
  const now = new Date(yield* Clock.currentTimeMillis).toISOString()
  const stamp = `${now.slice(0, 10).replace(/-/g, "")}-${now.slice(11, 19).replace(/:/g, "")}`
  const n = yield* Random.nextIntBetween(0, 0x10000)
  return `s${stamp}-${n.toString(16).padStart(4, "0")}`
})

// The home is the host's to say: the option, else its configured HOME — never the OS's guess.
export const homeOf = (explicit: string | undefined): Effect.Effect<string, HarnessError> =>
  explicit !== undefined
    ? Effect.succeed(explicit)
    : Config.string("HOME").pipe(
      Effect.mapError(() =>
        new HarnessError({
          code: "INVALID_INPUT",
          message: "the session needs a home directory (pass `home`, or configure HOME)"
        })
      )
    )
