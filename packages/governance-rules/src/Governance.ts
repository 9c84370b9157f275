/**
 * The governance gate a session harness composes: decide a tool call, record the decision and
 * the `pre_tool` hooks as evidence (blocked attempts too), resolve `ask` through the
 * `Responder`, and fail closed — `denied` or `ask-unanswered`, always with the citation.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Evidence from "./Evidence.js"
import type * as GovernanceError from "./GovernanceError.js"
import * as Hooks from "./Hooks.js"
import * as Authorize from "./internal/authorize.js"
import { spanWhenTracing } from "./internal/tracing.js"
import * as Policy from "./Policy.js"
import type * as Responder from "./Responder.js"
import * as ShellParser from "./ShellParser.js"

/**
 * A granted call: the decision and who granted it (`policy`, or the responder's name).
 *
 * @since 0.1.0
 * @category models
 */
export interface Authorization {
  readonly decision: Policy.Decision
  readonly grantedBy: string
}

/**
 * Options for one authorization.
 *
 * @since 0.1.0
 * @category models
 */
export interface AuthorizeOptions {
  readonly runId?: string
}

/**
 * The gate.
 *
 * @since 0.1.0
 * @category tags
 */
export class Governance extends Context.Tag("@steward/governance-rules/Governance")<Governance, {
  /** Decide and resolve; fails with `denied` or `ask-unanswered` (with the citation). */
  readonly authorize: (
    call: Policy.ToolCall,
    options?: AuthorizeOptions
  ) => Effect.Effect<Authorization, GovernanceError.GovernanceError>
  /** Report a tool's outcome (fires `post_tool` or `tool_failure` hooks). */
  readonly completed: (
    call: Policy.ToolCall,
    outcome: {
      readonly exitCode?: number
      readonly error?: string
      readonly claimedFiles?: ReadonlyArray<string>
      readonly runId?: string
    }
  ) => Effect.Effect<void>
  /** Report task completion (fires `task_completed` hooks: guardrail and completion evidence). */
  readonly taskCompleted: (
    input: {
      readonly touchedFiles: ReadonlyArray<string>
      readonly claimedFiles?: ReadonlyArray<string>
      readonly mode?: string
      readonly runId?: string
    }
  ) => Effect.Effect<ReadonlyArray<Evidence.EvidenceEvent>>
}>() {}

/**
 * Build the gate.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const resolve = yield* Authorize.make
  const hooks = yield* Hooks.Hooks
  return Governance.of({
    // no span unless the host traces: it is on every tool call's path
    authorize: spanWhenTracing(
      "Governance.authorize",
      (call: Policy.ToolCall, options: AuthorizeOptions = {}) =>
        Effect.flatMap(resolve(call, options), (resolution) =>
          resolution._tag === "Granted"
            ? Effect.succeed({ decision: resolution.decision, grantedBy: resolution.grantedBy })
            : Effect.fail(resolution.error))
    ),
    completed: (call, outcome) =>
      hooks.fire({
        point: outcome.error !== undefined || (outcome.exitCode !== undefined && outcome.exitCode !== 0)
          ? "tool_failure"
          : "post_tool",
        call,
        ...(outcome.exitCode === undefined ? {} : { exitCode: outcome.exitCode }),
        ...(outcome.error === undefined ? {} : { error: outcome.error }),
        ...(outcome.claimedFiles === undefined ? {} : { claimedFiles: outcome.claimedFiles }),
        ...(outcome.runId === undefined ? {} : { runId: outcome.runId })
      }).pipe(Effect.asVoid),
    taskCompleted: (input) =>
      hooks.fire({
        point: "task_completed",
        touchedFiles: input.touchedFiles,
        ...(input.claimedFiles === undefined ? {} : { claimedFiles: input.claimedFiles }),
        ...(input.mode === undefined ? {} : { mode: input.mode }),
        ...(input.runId === undefined ? {} : { runId: input.runId })
      })
  })
})

/**
 * The gate as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<
  Governance,
  never,
  Policy.PolicyEngine | Responder.Responder | Hooks.Hooks | Evidence.EvidenceLog
> = Layer.effect(Governance, make)

/**
 * Options for `layerFrom`: the engine configuration plus extra hooks.
 *
 * @since 0.1.0
 * @category models
 */
export interface StackOptions extends Policy.Config {
  /** The workspace root: the host says where it is (the library never guesses it). */
  readonly workspace: string
  /** The home directory the built-in hooks and the engine resolve `~` against. */
  readonly home: string
  readonly hooks?: ReadonlyArray<Hooks.Hook>
  readonly hookTimeout?: Duration.DurationInput
}

/**
 * The whole gate from a configuration: the parser (scoped), the engine, the built-in hooks plus
 * `hooks`, and the gate — leaving the host to choose the `Responder` and the evidence store
 * (`Evidence.layerMemory` or `Evidence.layerSql`).
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { Evidence, Governance, Responder } from "@steward/governance-rules"
 *
 * const GateLive = Governance.layerFrom({ level: "execute", workspace: "/srv/app", home: "/home/dev" }).pipe(
 *   Layer.provideMerge(Layer.merge(Responder.layerNone, Evidence.layerMemory))
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFrom = (
  options: StackOptions
): Layer.Layer<
  Governance | Policy.PolicyEngine | Hooks.Hooks,
  GovernanceError.GovernanceError,
  Responder.Responder | Evidence.EvidenceLog
> => {
  const { hookTimeout, hooks, ...config } = options
  const engine = Policy.layer(config).pipe(Layer.provide(ShellParser.layer))
  const dispatcher = Hooks.layer({
    workspace: config.workspace,
    home: config.home,
    ...(hooks === undefined ? {} : { extra: hooks }),
    ...(hookTimeout === undefined ? {} : { timeout: hookTimeout })
  })
  return layer.pipe(Layer.provideMerge(Layer.merge(engine, dispatcher)))
}
