/**
 * Rules as data: `{ id, action, resource, effect, note?, except? }`. A rule's `resource` is a
 * picomatch glob matched against the *normalized* resource of a check (canonical argv for shell,
 * the workspace-relative or absolute real path for files, the normalized URL for network), never
 * against raw text.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * What a check is about.
 *
 * - `shell`: one command segment (canonical argv, wrappers stripped, flags normalized).
 * - `read` / `write`: one file (write covers edit and patch).
 * - `fetch`: one network destination (normalized URL).
 * - `mcp`: a named tool (MCP or any other host tool).
 * - `agent`: starting a subagent (which inherits the caller's rules).
 *
 * @since 0.1.0
 * @category models
 */
export const Action = Schema.Literal("shell", "read", "write", "fetch", "mcp", "agent")

/**
 * @since 0.1.0
 * @category models
 */
export type Action = typeof Action.Type

/**
 * All actions, in a stable order.
 *
 * @since 0.1.0
 * @category models
 */
export const actions: ReadonlyArray<Action> = ["shell", "read", "write", "fetch", "mcp", "agent"]

/**
 * @since 0.1.0
 * @category models
 */
export const RuleEffect = Schema.Literal("allow", "ask", "deny")

/**
 * @since 0.1.0
 * @category models
 */
export type RuleEffect = typeof RuleEffect.Type

/**
 * One rule. `action` may be `*` (any action). `except` lists globs that, when they match the
 * resource, make the rule not apply (e.g. `.env.example` under a `.env.*` rule).
 *
 * @since 0.1.0
 * @category models
 */
export class Rule extends Schema.Class<Rule>("@steward/governance-rules/Rule")({
  id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)),
  action: Schema.Union(Action, Schema.Literal("*")),
  resource: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2000)),
  effect: RuleEffect,
  note: Schema.optional(Schema.String.pipe(Schema.maxLength(2000))),
  except: Schema.optional(Schema.Array(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2000))))
}) {}

/**
 * Plain-object input for a rule (what a policy file holds).
 *
 * @since 0.1.0
 * @category models
 */
export type RuleInput = typeof Rule.Encoded

/**
 * Build a rule from plain fields.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (input: RuleInput): Rule =>
  new Rule({
    id: input.id,
    action: input.action,
    resource: input.resource,
    effect: input.effect,
    ...(input.note === undefined ? {} : { note: input.note }),
    ...(input.except === undefined ? {} : { except: input.except })
  })

/**
 * Where a decision came from. `universal` denies cannot be loosened by anything; `engine` is a
 * built-in check for what the engine cannot resolve (asks; an unknown program's ask, like a
 * universal or level ask, is loosened by a user rule naming the program, ADR 0218); `level` is the
 * autonomy baseline; `user`
 * is project/user rules; `default` means nothing matched (ask); `sandbox` means the boundary
 * contains what the gate alone would have asked about (`sandbox.contained`, see `Placement`).
 *
 * @since 0.1.0
 * @category models
 */
export const LayerName = Schema.Literal("universal", "engine", "level", "user", "default", "sandbox")

/**
 * @since 0.1.0
 * @category models
 */
export type LayerName = typeof LayerName.Type

/**
 * The citation every decision carries: which layer and rule decided, with which pattern, and
 * the segment or resource that matched, plus the reason in words.
 *
 * @since 0.1.0
 * @category models
 */
export interface Citation {
  readonly layer: LayerName
  readonly ruleId: string | null
  /** Position of the rule inside its layer (0-based), `null` for engine/default. */
  readonly ruleIndex: number | null
  readonly pattern: string | null
  readonly action: Action
  readonly effect: RuleEffect
  /** The normalized resource the rule matched (canonical argv, path, URL, tool name). */
  readonly resource: string
  /** The original shell segment or raw resource the check came from. */
  readonly segment: string
  readonly note: string | null
  /** Where the rule was defined (a policy file), when known. */
  readonly source: string | null
  /**
   * The ask this allow overrode: a user or remembered rule that names a program loosens the
   * engine's, universal or level ask on it (never a deny; ADR 0218).
   */
  readonly overrides?: {
    readonly layer: LayerName
    readonly ruleId: string | null
    readonly note: string | null
  }
  readonly reason: string
}

const rank: Record<RuleEffect, number> = { allow: 0, ask: 1, deny: 2 }

/**
 * Strictness order: deny > ask > allow.
 *
 * @since 0.1.0
 * @category utils
 */
export const strictness = (effect: RuleEffect): number => rank[effect]

/**
 * The stricter of two effects.
 *
 * @since 0.1.0
 * @category utils
 */
export const stricter = (a: RuleEffect, b: RuleEffect): RuleEffect => rank[a] >= rank[b] ? a : b
