/**
 * The policy engine: decides every tool call — allow, ask or deny — from ordered rules that are
 * data, and every decision cites the rule that made it.
 *
 * Layers, in precedence order: **universal** (deny-overrides inside; nothing loosens its denies) >
 * **engine** guards (what cannot be resolved asks) > **level** baseline > **user** (project/user
 * rules). Inside the level and user layers the last matching rule wins; across layers the
 * strictest matching layer wins (deny-overrides); when nothing matches, the answer is ask. A
 * user allow that names a program literally loosens an ask on it, never a deny (ADR 0218).
 * A shell command is split into segments; each segment yields checks (the canonical argv, files
 * read or written, network destinations), every check is decided, and the strictest outcome
 * wins — the same for a batch of resources.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { Policy, ShellParser } from "@steward/governance-rules"
 *
 * const program = Effect.gen(function*() {
 *   const engine = yield* Policy.PolicyEngine
 *   const decision = yield* engine.decide({ tool: "shell", command: "git status && rm -rf ~" })
 *   return decision.decision // "deny", cited by universal rule "universal.rm-home"
 * }).pipe(Effect.provide(Policy.layer({ level: "execute", workspace: "/srv/app", home: "/home/dev" }).pipe(Layer.provide(ShellParser.layer))))
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as Autonomy from "./Autonomy.js"
import * as Files from "./Files.js"
import * as GovernanceError from "./GovernanceError.js"
import type * as Analyze from "./internal/analyze/index.js"
import * as Evaluate from "./internal/evaluate.js"
import * as PolicyCompile from "./internal/policy/compile.js"
import * as PolicyDecide from "./internal/policy/decide.js"
import * as ToolCalls from "./internal/policy/toolCalls.js"
import { spanWhenTracing } from "./internal/tracing.js"
import type { Action, Citation, LayerName, RuleEffect } from "./Rule.js"
import type * as Rule from "./Rule.js"
import { ShellParser } from "./ShellParser.js"

// ---------------------------------------------------------------------------------------------
// Tool calls
// ---------------------------------------------------------------------------------------------

const Paths_ = Schema.NonEmptyArray(Schema.String.pipe(Schema.minLength(1)))

/**
 * A tool call to decide. `read`/`write` take several paths (a multi-file patch is one call);
 * `mcp` names any tool and may carry its JSON input (only top-level `path`/`paths`/`file`/`url`/
 * `command` fields are inspected as resources; nothing nested can grant anything).
 *
 * @since 0.1.0
 * @category models
 */
export const ToolCall = Schema.Union(
  Schema.Struct({ tool: Schema.Literal("shell"), command: Schema.String }),
  Schema.Struct({ tool: Schema.Literal("read"), paths: Paths_ }),
  Schema.Struct({ tool: Schema.Literal("write"), paths: Paths_ }),
  Schema.Struct({ tool: Schema.Literal("fetch"), url: Schema.String }),
  Schema.Struct({
    tool: Schema.Literal("mcp"),
    name: Schema.String.pipe(Schema.minLength(1)),
    input: Schema.optional(Schema.Unknown)
  }),
  Schema.Struct({ tool: Schema.Literal("agent"), name: Schema.String.pipe(Schema.minLength(1)) })
)

/**
 * @since 0.1.0
 * @category models
 */
export type ToolCall =
  | { readonly tool: "shell"; readonly command: string }
  | { readonly tool: "read"; readonly paths: readonly [string, ...Array<string>] }
  | { readonly tool: "write"; readonly paths: readonly [string, ...Array<string>] }
  | { readonly tool: "fetch"; readonly url: string }
  | { readonly tool: "mcp"; readonly name: string; readonly input?: unknown }
  | { readonly tool: "agent"; readonly name: string }

/**
 * Decode an untrusted value as a tool call (typed `input-invalid` error naming the field).
 *
 * @since 0.1.0
 * @category constructors
 */
export const decodeToolCall = (input: unknown): Effect.Effect<ToolCall, GovernanceError.GovernanceError> =>
  Schema.decodeUnknown(ToolCall as unknown as Schema.Schema<ToolCall>, { onExcessProperty: "error" })(input).pipe(
    Effect.map(trusted),
    Effect.mapError((error) => GovernanceError.make("input-invalid", `invalid tool call: ${error.message}`))
  )

// Calls this module decoded (frozen, so they stay what was decoded): the engine does not decode
// them again when a gate hands one on (issue 38 item 3). Any other value is decoded.
const decoded = new WeakSet<ToolCall>()

const trusted = (call: ToolCall): ToolCall => {
  if ("paths" in call) Object.freeze(call.paths)
  decoded.add(Object.freeze(call))
  return call
}

// ---------------------------------------------------------------------------------------------
// Decisions
// ---------------------------------------------------------------------------------------------

/**
 * One decided check (a resource of a segment).
 *
 * @since 0.1.0
 * @category models
 */
export interface CheckDecision {
  readonly action: Action
  readonly resource: string
  readonly decision: RuleEffect
  readonly citation: Citation
}

/**
 * One decided segment (a simple shell command, or one resource of a non-shell call).
 *
 * @since 0.1.0
 * @category models
 */
export interface SegmentDecision {
  readonly text: string
  readonly canonical: string
  readonly decision: RuleEffect
  readonly citation: Citation
  readonly checks: ReadonlyArray<CheckDecision>
}

/**
 * The decision on a tool call: the strictest outcome over its segments, the citation of the
 * check that made it, every segment, and the reasons (one per non-allow check, then the
 * deciding reason) in words.
 *
 * @since 0.1.0
 * @category models
 */
export interface Decision {
  readonly decision: RuleEffect
  readonly citation: Citation
  readonly segments: ReadonlyArray<SegmentDecision>
  readonly reasons: ReadonlyArray<string>
  readonly level: Autonomy.Level
}

// ---------------------------------------------------------------------------------------------
// Configuration and compilation
// ---------------------------------------------------------------------------------------------

/**
 * Engine configuration.
 *
 * @since 0.1.0
 * @category models
 */
export interface Config {
  readonly level?: Autonomy.Level
  /**
   * Workspace root (symlinks are resolved). Required by `compile`, `make` and `layer`
   * (`input-invalid` without it): the host says where it is, the library never guesses it.
   */
  readonly workspace?: string
  /** Home directory: explicit, else the `HOME` value of the host's `ConfigProvider`. */
  readonly home?: string
  /** Project/user rules, in order (last match wins inside the layer). */
  readonly rules?: ReadonlyArray<Rule.Rule>
  /** Where each rule came from (same order as `rules`), for citations. */
  readonly ruleSources?: ReadonlyArray<string | null>
  /** The filesystem paths are resolved through (default: the real one; see `Files`). */
  readonly files?: Files.FileView
}

/**
 * A compiled policy: rules compiled once, ready for the hot path.
 *
 * @since 0.1.0
 * @category models
 */
export interface Compiled {
  readonly level: Autonomy.Level
  readonly workspace: string
  readonly home: string
  /** Layers in precedence order: universal, level, user. */
  readonly layers: ReadonlyArray<Evaluate.CompiledLayer>
  readonly files: Files.FileView
}

/**
 * Compile a configuration (patterns compiled once). Fails with `policy-invalid` on a pattern
 * that cannot be compiled or a duplicate rule id, and `input-invalid` without a workspace.
 *
 * @since 0.1.0
 * @category constructors
 */
export const compile = (config: Config): Effect.Effect<Compiled, GovernanceError.GovernanceError> =>
  PolicyCompile.compile(config)

/**
 * Decide analyzed segments against a compiled policy. Pure and synchronous: the hot path.
 *
 * @since 0.1.0
 * @category evaluation
 */
export const decideSegments = (compiled: Compiled, segments: ReadonlyArray<Analyze.Segment>): Decision =>
  PolicyDecide.decideSegments(compiled, segments)

/**
 * Turn a tool call into analyzed segments (shell parsing, path and URL normalization).
 *
 * @since 0.1.0
 * @category evaluation
 */
export const analyzeCall = (
  compiled: Compiled,
  parser: ShellParser["Type"],
  call: ToolCall
): ReadonlyArray<Analyze.Segment> => ToolCalls.analyzeCall(compiled, parser, call)

/**
 * Decide one tool call synchronously (parse cache, path realpaths, matching). A shell command
 * needs a parser that is ready (`ShellParser.ready`); the engine's `decide` sees to it.
 *
 * @since 0.1.0
 * @category evaluation
 */
export const decideSync = (compiled: Compiled, parser: ShellParser["Type"], call: ToolCall): Decision =>
  decideSegments(compiled, analyzeCall(compiled, parser, call))

/**
 * Decide several calls as one batch: the strictest outcome wins.
 *
 * @since 0.1.0
 * @category evaluation
 */
export const decideBatchSync = (
  compiled: Compiled,
  parser: ShellParser["Type"],
  calls: ReadonlyArray<ToolCall>
): Decision => decideSegments(compiled, calls.flatMap((call) => analyzeCall(compiled, parser, call)))

/**
 * The effective rules, by layer, for `steward policy explain`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Explanation {
  readonly level: Autonomy.Level
  readonly workspace: string
  readonly layers: ReadonlyArray<{
    readonly layer: LayerName
    readonly combine: "deny-overrides" | "last-match"
    readonly rules: ReadonlyArray<
      { readonly index: number; readonly source: string | null } & typeof Rule.Rule.Encoded
    >
  }>
  readonly engine: ReadonlyArray<{ readonly id: string; readonly effect: "ask"; readonly reason: string }>
  readonly fallback: "ask"
}

/**
 * @since 0.1.0
 * @category evaluation
 */
export const explainCompiled = (compiled: Compiled): Explanation => PolicyCompile.explain(compiled)

// ---------------------------------------------------------------------------------------------
// Service
// ---------------------------------------------------------------------------------------------

/**
 * The shape of the policy engine service.
 *
 * @since 0.1.0
 * @category models
 */
export interface Engine {
  readonly level: Autonomy.Level
  readonly workspace: string
  /** Decide one call (untrusted input is decoded first). */
  readonly decide: (call: ToolCall) => Effect.Effect<Decision, GovernanceError.GovernanceError>
  /** Decide a batch (a multi-file patch, a multi-resource call): the strictest outcome wins. */
  readonly decideBatch: (calls: ReadonlyArray<ToolCall>) => Effect.Effect<Decision, GovernanceError.GovernanceError>
  /** The effective rules by layer. */
  readonly explain: Effect.Effect<Explanation>
  /**
   * The engine a subagent runs under: the same layers plus the caller's extra rules, of which only
   * `ask`/`deny` count, so a subagent can be narrowed but never granted more than its caller.
   */
  readonly forSubagent: (extra?: ReadonlyArray<Rule.Rule>) => Effect.Effect<Engine, GovernanceError.GovernanceError>
}

/**
 * The policy engine service.
 *
 * @since 0.1.0
 * @category tags
 */
export class PolicyEngine extends Context.Tag("@steward/governance-rules/PolicyEngine")<PolicyEngine, Engine>() {}

const validate = (call: ToolCall) => decoded.has(call) ? Effect.succeed(call) : decodeToolCall(call)

// Whether deciding a call parses a shell command (a shell call, or an MCP call naming a command):
// only then is the parser's grammar loaded (ADR 0208).
const parses = (call: ToolCall): boolean => {
  if (call.tool === "shell") return true
  if (call.tool !== "mcp" || call.input === null || typeof call.input !== "object") return false
  const fields = call.input as Record<string, unknown>
  return typeof fields["command"] === "string" || typeof fields["cmd"] === "string"
}

const makeEngine = (compiled: Compiled, parser: ShellParser["Type"]): Engine => {
  const self: Engine = PolicyEngine.of({
    level: compiled.level,
    workspace: compiled.workspace,
    // no span unless the host traces: the span would cost more than the decision
    decide: spanWhenTracing(
      "Policy.decide",
      Effect.fnUntraced(function*(call: ToolCall) {
        const valid = yield* validate(call)
        if (parses(valid)) yield* parser.ready
        return decideSync(compiled, parser, valid)
      })
    ),
    decideBatch: spanWhenTracing(
      "Policy.decideBatch",
      Effect.fnUntraced(function*(calls: ReadonlyArray<ToolCall>) {
        if (calls.length === 0) {
          return yield* GovernanceError.make("input-invalid", "a batch needs at least one tool call")
        }
        const valid = yield* Effect.forEach(calls, validate)
        if (valid.some(parses)) yield* parser.ready
        return decideBatchSync(compiled, parser, valid)
      })
    ),
    explain: Effect.sync(() => explainCompiled(compiled)),
    forSubagent: Effect.fn("Policy.forSubagent")(function*(extra?: ReadonlyArray<Rule.Rule>) {
      if (extra === undefined || extra.length === 0) return self
      const narrowing = yield* compile({
        rules: extra,
        level: compiled.level,
        workspace: compiled.workspace,
        home: compiled.home,
        files: compiled.files
      })
      // Only the tightening effects of the extra rules count: allow rules are dropped.
      const tighten = narrowing.layers[2]!.rules.filter((c) => c.rule.effect !== "allow").map((c) => c.rule)
      const child: Compiled = {
        ...compiled,
        layers: [...compiled.layers, Evaluate.compileLayer("user", tighten, false)]
      }
      return makeEngine(child, parser)
    })
  })
  return self
}

/**
 * Build the engine from a configuration.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fn("Policy.make")(function*(config: Config) {
  const parser = yield* ShellParser
  // Paths resolve through the `Files` service when one is provided (the real disk otherwise).
  const provided = yield* Effect.serviceOption(Files.Files)
  const files = config.files ?? (provided._tag === "Some" ? provided.value : undefined)
  const compiled = yield* compile(files === undefined ? config : { ...config, files })
  return makeEngine(compiled, parser)
})

/**
 * The engine as a layer (needs a `ShellParser`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (config: Config): Layer.Layer<PolicyEngine, GovernanceError.GovernanceError, ShellParser> =>
  Layer.effect(PolicyEngine, make(config))
