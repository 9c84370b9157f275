/**
 * The policy engine: decides every tool call — allow, ask or deny — from ordered rules that are
 * data, and every decision cites the rule that made it.
 *
 * Layers, in precedence order: **universal** (deny-overrides inside; nothing loosens it) >
 * **engine** guards (what cannot be resolved asks) > **level** baseline > **user** (project/user
 * rules). Inside the level and user layers the last matching rule wins; across layers the
 * strictest matching layer wins (deny-overrides); when nothing matches, the answer is ask.
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
 * }).pipe(Effect.provide(Policy.layer({ level: "execute", workspace: process.cwd() }).pipe(Layer.provide(ShellParser.layer))))
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as os from "node:os"
import * as Autonomy from "./Autonomy.js"
import * as Files from "./Files.js"
import * as GovernanceError from "./GovernanceError.js"
import * as Analyze from "./internal/analyze/index.js"
import * as Evaluate from "./internal/evaluate.js"
import * as Network from "./internal/network.js"
import * as Paths from "./internal/paths.js"
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
    Effect.mapError((error) => GovernanceError.make("input-invalid", `invalid tool call: ${error.message}`))
  )

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
  /** Workspace root (default: the current directory). Symlinks are resolved. */
  readonly workspace?: string
  /** Home directory (default: `os.homedir()`). */
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

const ENGINE_PRECEDENCE: Record<LayerName, number> = { universal: 0, engine: 1, level: 2, user: 3, default: 4 }

/**
 * Compile a configuration (patterns compiled once). Fails with `policy-invalid` on a pattern
 * that cannot be compiled or a duplicate rule id.
 *
 * @since 0.1.0
 * @category constructors
 */
export const compile = (config: Config = {}): Effect.Effect<Compiled, GovernanceError.GovernanceError> =>
  Effect.suspend(() => {
    const rules = config.rules ?? []
    const seen = new Set<string>()
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i]!
      if (seen.has(rule.id)) {
        return Effect.fail(
          GovernanceError.make("policy-invalid", `duplicate rule id "${rule.id}" at rules[${i}]`, {
            path: `rules[${i}].id`,
            key: "id",
            ...(config.ruleSources?.[i] ? { file: config.ruleSources[i]! } : {})
          })
        )
      }
      seen.add(rule.id)
      try {
        const kinds = rule.action === "*"
          ? (["path", "text"] as const)
          : [Evaluate.isTextAction(rule.action) ? "text" as const : "path" as const]
        for (const kind of kinds) {
          Evaluate.compilePattern(rule.resource, kind)
          for (const e of rule.except ?? []) Evaluate.compilePattern(e, kind)
        }
      } catch (cause) {
        return Effect.fail(
          GovernanceError.make(
            "policy-invalid",
            `rules[${i}].resource: invalid pattern ${JSON.stringify(rule.resource)}`,
            {
              path: `rules[${i}].resource`,
              key: "resource",
              cause
            }
          )
        )
      }
    }
    const level = config.level ?? Autonomy.defaultLevel
    const files = config.files ?? Files.node
    return Effect.succeed<Compiled>({
      level,
      files,
      workspace: Paths.realDirectory(config.workspace ?? process.cwd(), files),
      home: Paths.realDirectory(config.home ?? os.homedir(), files),
      layers: [
        Evaluate.compileLayer("universal", Autonomy.universalRules, true),
        Evaluate.compileLayer("level", Autonomy.baselineRules(level), false),
        Evaluate.compileLayer("user", rules, false, config.ruleSources)
      ]
    })
  })

const guardCitation = (guard: Analyze.Guard, segment: Analyze.Segment): Citation => ({
  layer: "engine",
  ruleId: `engine.${guard.id}`,
  ruleIndex: null,
  pattern: null,
  action: "shell",
  effect: "ask",
  resource: guard.detail,
  segment: segment.text,
  note: Analyze.guardReasons[guard.id],
  source: null,
  reason: `ask: ${Analyze.guardReasons[guard.id]} (${JSON.stringify(guard.detail.slice(0, 200))})`
})

const better = (candidate: Citation, current: Citation | null): boolean => {
  if (current === null) return true
  const a = Evaluate.rank(candidate.effect)
  const b = Evaluate.rank(current.effect)
  if (a !== b) return a > b
  return ENGINE_PRECEDENCE[candidate.layer] < ENGINE_PRECEDENCE[current.layer]
}

/**
 * Decide analyzed segments against a compiled policy. Pure and synchronous: the hot path.
 *
 * @since 0.1.0
 * @category evaluation
 */
export const decideSegments = (compiled: Compiled, segments: ReadonlyArray<Analyze.Segment>): Decision => {
  const decided: Array<SegmentDecision> = []
  let top: Citation | null = null
  const cited: Array<Citation> = []
  for (const segment of segments) {
    if (segment.checks.length === 0 && segment.guards.length === 0) continue
    if (segment.speculative === true) {
      // One possible reading of something unresolved: it only counts when it is denied.
      const denied = speculativeDeny(compiled, segment)
      if (denied === null) continue
      cited.push(denied)
      decided.push({ text: segment.text, canonical: segment.canonical, decision: "deny", citation: denied, checks: [] })
      if (better(denied, top)) top = denied
      continue
    }
    const checks: Array<CheckDecision> = []
    let best: Citation | null = null
    for (const guard of segment.guards) {
      const citation = guardCitation(guard, segment)
      checks.push({ action: "shell", resource: guard.detail, decision: "ask", citation })
      if (better(citation, best)) best = citation
    }
    for (const check of segment.checks) {
      const citation = Evaluate.decideCheck(compiled.layers, check.action, check.resource, segment.text)
      checks.push({ action: check.action, resource: check.resource, decision: citation.effect, citation })
      if (better(citation, best)) best = citation
    }
    for (const check of checks) if (check.decision !== "allow") cited.push(check.citation)
    decided.push({ text: segment.text, canonical: segment.canonical, decision: best!.effect, citation: best!, checks })
    if (better(best!, top)) top = best
  }
  if (top === null) {
    const source = segments[0]?.text ?? ""
    top = Evaluate.defaultCitation("shell", source, source)
    cited.push(top)
    decided.push({ text: source, canonical: "", decision: "ask", citation: top, checks: [] })
  }
  if (top.effect === "allow") cited.push(top)
  const decisive = top
  let reasons: ReadonlyArray<string> | undefined
  // Reasons are rendered on first read (the deciding one first).
  return {
    decision: decisive.effect,
    citation: decisive,
    segments: decided,
    get reasons() {
      return reasons ??= dedupe([decisive.reason, ...cited.map((c) => c.reason)])
    },
    level: compiled.level
  }
}

const dedupe = (items: ReadonlyArray<string>): Array<string> => [...new Set(items)]

const speculativeDeny = (compiled: Compiled, segment: Analyze.Segment): Citation | null => {
  for (const check of segment.checks) {
    const citation = Evaluate.decideCheck(compiled.layers, check.action, check.resource, segment.text)
    if (citation.effect === "deny") return citation
  }
  return null
}

const pathContext = (compiled: Compiled): Paths.PathContext => ({
  workspace: compiled.workspace,
  home: compiled.home,
  cwd: compiled.workspace,
  files: compiled.files
})

const pathSegment = (compiled: Compiled, action: "read" | "write", raw: string): Analyze.Segment => {
  const context = pathContext(compiled)
  const segment: Analyze.Segment = { text: raw, canonical: "", checks: [], guards: [] }
  if (Analyze.hasNonPrinting(raw)) segment.guards.push({ id: "non-printing", detail: raw })
  const real = Paths.realPath(raw, context)
  const shown = Paths.display(real, context)
  segment.canonical = shown
  segment.checks.push({ action, resource: shown })
  return segment
}

const fetchSegment = (compiled: Compiled, raw: string): Analyze.Segment => {
  const segment: Analyze.Segment = { text: raw, canonical: "", checks: [], guards: [] }
  if (Analyze.hasNonPrinting(raw)) segment.guards.push({ id: "non-printing", detail: raw })
  const url = Network.normalizeUrl(raw)
  if (Network.ambiguousAuthority(raw)) segment.guards.push({ id: "unresolved-host", detail: raw })
  if (url === null) {
    segment.guards.push({ id: "parse-error", detail: raw })
    segment.canonical = raw
  } else {
    segment.canonical = url
    segment.checks.push({ action: "fetch", resource: url })
    for (const host of Network.embeddedHosts(url)) {
      segment.checks.push({ action: "fetch", resource: Network.hostUrl(host) })
    }
    // `file:` URLs read local files: decide them as reads of the real path too.
    const local = Network.fileUrlPath(url)
    if (local !== null) {
      const context = pathContext(compiled)
      segment.checks.push({ action: "read", resource: Paths.display(Paths.realPath(local, context), context) })
    }
  }
  for (const host of Network.metadataIn(raw)) segment.checks.push({ action: "fetch", resource: Network.hostUrl(host) })
  return segment
}

const WRITE_TOOL = /write|edit|patch|create|delete|remove|move|rename|mkdir|update|put|upload/i

const collectStrings = (value: unknown, out: Array<string>, depth: number): void => {
  if (depth > 64 || out.length > 10_000) return
  if (typeof value === "string") out.push(value)
  else if (Array.isArray(value)) { for (const v of value) collectStrings(v, out, depth + 1) }
  else if (value !== null && typeof value === "object") {
    for (const v of Object.values(value as Record<string, unknown>)) collectStrings(v, out, depth + 1)
  }
}

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
): ReadonlyArray<Analyze.Segment> => {
  switch (call.tool) {
    case "shell":
      return Analyze.analyze(parser.parseSync(call.command), { ...pathContext(compiled), parse: parser.parseSync })
    case "read":
    case "write":
      return call.paths.map((p) => pathSegment(compiled, call.tool, p))
    case "fetch":
      return [fetchSegment(compiled, call.url)]
    case "agent": {
      const segment: Analyze.Segment = { text: call.name, canonical: call.name, checks: [], guards: [] }
      segment.checks.push({ action: "agent", resource: call.name })
      return [segment]
    }
    case "mcp": {
      const segment: Analyze.Segment = { text: call.name, canonical: call.name, checks: [], guards: [] }
      if (Analyze.hasNonPrinting(call.name)) segment.guards.push({ id: "non-printing", detail: call.name })
      segment.checks.push({ action: "mcp", resource: call.name })
      const out: Array<Analyze.Segment> = [segment]
      const input = call.input
      if (input !== null && typeof input === "object" && !Array.isArray(input)) {
        const fields = input as Record<string, unknown>
        const action = WRITE_TOOL.test(call.name) ? "write" : "read"
        for (const key of ["path", "file", "filePath", "file_path", "paths", "files"]) {
          const value = fields[key]
          const list = typeof value === "string" ? [value] : Array.isArray(value) ? value : []
          for (const p of list) if (typeof p === "string" && p.length > 0) out.push(pathSegment(compiled, action, p))
        }
        for (const key of ["url", "uri"]) {
          const value = fields[key]
          if (typeof value === "string") out.push(fetchSegment(compiled, value))
        }
        for (const key of ["command", "cmd"]) {
          const value = fields[key]
          if (typeof value === "string") out.push(...analyzeCall(compiled, parser, { tool: "shell", command: value }))
        }
      }
      // Anything anywhere in the input that names the cloud metadata address is denied; nothing
      // nested can grant.
      const strings: Array<string> = []
      collectStrings(input, strings, 0)
      for (const s of strings) {
        for (const host of Network.metadataIn(s)) {
          segment.checks.push({ action: "fetch", resource: Network.hostUrl(host) })
        }
      }
      return out
    }
  }
}

/**
 * Decide one tool call synchronously (parse cache, path realpaths, matching).
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
export const explainCompiled = (compiled: Compiled): Explanation => ({
  level: compiled.level,
  workspace: compiled.workspace,
  layers: compiled.layers.map((layer) => ({
    layer: layer.name,
    combine: layer.strictest ? "deny-overrides" as const : "last-match" as const,
    rules: layer.rules.map((c) => ({
      index: c.index,
      source: c.source,
      id: c.rule.id,
      action: c.rule.action,
      resource: c.rule.resource,
      effect: c.rule.effect,
      ...(c.rule.note === undefined ? {} : { note: c.rule.note }),
      ...(c.rule.except === undefined ? {} : { except: c.rule.except })
    }))
  })),
  engine: (Object.keys(Analyze.guardReasons) as Array<Analyze.GuardId>).map((id) => ({
    id: `engine.${id}`,
    effect: "ask" as const,
    reason: Analyze.guardReasons[id]
  })),
  fallback: "ask"
})

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

const validate = (call: ToolCall) => decodeToolCall(call)

const makeEngine = (compiled: Compiled, parser: ShellParser["Type"]): Engine => {
  const self: Engine = PolicyEngine.of({
    level: compiled.level,
    workspace: compiled.workspace,
    decide: Effect.fn("Policy.decide")(function*(call: ToolCall) {
      const valid = yield* validate(call)
      return decideSync(compiled, parser, valid)
    }),
    decideBatch: Effect.fn("Policy.decideBatch")(function*(calls: ReadonlyArray<ToolCall>) {
      if (calls.length === 0) {
        return yield* GovernanceError.make("input-invalid", "a batch needs at least one tool call")
      }
      const valid = yield* Effect.forEach(calls, validate)
      return decideBatchSync(compiled, parser, valid)
    }),
    explain: Effect.sync(() => explainCompiled(compiled)),
    forSubagent: Effect.fn("Policy.forSubagent")(function*(extra?: ReadonlyArray<Rule.Rule>) {
      if (extra === undefined || extra.length === 0) return self
      const narrowing = yield* compile({ rules: extra, level: compiled.level })
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
export const layer = (config: Config = {}): Layer.Layer<PolicyEngine, GovernanceError.GovernanceError, ShellParser> =>
  Layer.effect(PolicyEngine, make(config))
