/**
 * `steward policy`: decide tool calls against the governance rules.
 *
 * - `check [--level L] [--workspace DIR] [--rules FILE] --tool shell -- 'COMMAND'` (also
 *   `--tool read|write --path P…`, `--tool fetch --url U`, `--tool mcp --name N --input JSON`,
 *   `--tool agent --name N`) prints `{decision, citation, segments, reasons}`. Relative paths
 *   resolve against the workspace (default: the current directory). Exit 0 whatever the decision,
 *   unless `--exit-code`: 0 allow, 1 deny, 3 ask (2 stays "could not run").
 * - `explain [--level L] [--workspace DIR] [--rules FILE]` prints the effective rules by layer.
 * - `test FILE [--level L] [--workspace DIR] [--rules FILE]` runs a table of cases; exit 1 on any
 *   mismatch.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Autonomy from "@steward/governance-rules/Autonomy"
import type * as GovernanceError from "@steward/governance-rules/GovernanceError"
import * as Policy from "@steward/governance-rules/Policy"
import * as PolicyFile from "@steward/governance-rules/PolicyFile"
import * as Rule from "@steward/governance-rules/Rule"
import { LayerName } from "@steward/governance-rules/Rule"
import * as ShellParser from "@steward/governance-rules/ShellParser"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as os from "node:os"
import * as path from "node:path"
import { cannotRun, ChildExit, NegativeResult } from "../CliError.js"
import * as GlobalOptions from "../GlobalOptions.js"
import * as Issues from "../Issues.js"
import * as Output from "../Output.js"
import * as PolicySource from "../PolicySource.js"
import * as Stdin from "../Stdin.js"
import * as SandboxCommand from "./sandbox.js"

const level = Options.choice("level", Autonomy.levels).pipe(
  Options.withDescription("Autonomy level: read_only, assist, execute (default), autonomous"),
  Options.optional
)
const workspace = Options.directory("workspace", { exists: "either" }).pipe(
  Options.withDescription("Workspace root (default: the current directory)"),
  Options.optional
)
const rules = Options.file("rules", { exists: "either" }).pipe(
  Options.withDescription("Policy file (JSON or YAML) with project/user rules"),
  Options.optional
)
const common = { ...GlobalOptions.global, level, workspace, rules } as const

// A policy file with several Schema issues: one line per issue (path, and every valid value of a
// literal) instead of the first issue and "(and 10 more)", where the ten are one literal's choices.
const issueLines = (error: GovernanceError.GovernanceError): string | undefined => {
  const detail = error.detail
  if (error.code !== "policy-invalid" || error.file === undefined || !Array.isArray(detail) || detail.length < 2) {
    return undefined
  }
  const raw = detail.filter((d): d is { path: string; message: string } =>
    typeof d?.path === "string" && typeof d?.message === "string"
  )
  if (raw.length !== detail.length) return undefined
  return Issues.merge(raw).map((i) => `${error.file}: ${i.path === "" ? "" : `${i.path}: `}${i.message}`).join("\n")
}

const toFailure = (error: GovernanceError.GovernanceError) => {
  const details = {
    ...(error.file === undefined ? {} : { file: error.file }),
    ...(error.path === undefined ? {} : { path: error.path }),
    ...(error.key === undefined ? {} : { key: error.key })
  }
  return cannotRun(
    error.code,
    issueLines(error) ?? error.message,
    Object.keys(details).length === 0 ? undefined : details
  )
}

// A typo'd --workspace would otherwise judge every path against a folder that does not exist.
const existingDirectory = (flag: string, dir: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const relative = path.isAbsolute(dir) ? "" : ` (${dir} is relative to ${process.cwd()})`
    const info = yield* fs.stat(path.resolve(dir)).pipe(Effect.option)
    if (Option.isNone(info)) {
      return yield* cannotRun("not-found", `${flag} ${path.resolve(dir)}: no such directory${relative}`, { flag })
    }
    if (info.value.type !== "Directory") {
      return yield* cannotRun("invalid-input", `${flag} ${path.resolve(dir)}: not a directory${relative}`, { flag })
    }
  })

interface Resolved {
  readonly config: Policy.Config
  readonly file: string | null
  readonly sandbox: PolicyFile.PolicyDocument["sandbox"]
  /** Where the policy file and the level came from (shown by `policy explain`). */
  readonly source: PolicySourceReport
}

/**
 * Where `policy` took its policy file and level from (ADR 0008).
 *
 * @since 0.4.0
 * @category models
 */
export interface PolicySourceReport {
  readonly file: string | null
  readonly fileFrom: "flag" | "project" | "config" | null
  readonly levelFrom: "flag" | "file" | "config" | "default"
}

const resolveConfig = (options: {
  readonly level: Option.Option<Autonomy.Level>
  readonly workspace: Option.Option<string>
  readonly rules: Option.Option<string>
  readonly stateDir: Option.Option<string>
}, fallbackWorkspace?: string) =>
  Effect.gen(function*() {
    const ws = Option.getOrElse(options.workspace, () => fallbackWorkspace ?? process.cwd())
    if (Option.isSome(options.workspace)) yield* existingDirectory("--workspace", options.workspace.value)
    const chosen = yield* PolicySource.resolve({ ...options, workspace: ws })
    const file = chosen.file
    const doc = file === null ? null : yield* PolicyFile.load(file)
    const fromFile = doc === null ? {} : PolicyFile.toConfig(doc, file!)
    const [lvl, levelFrom] = Option.isSome(options.level)
      ? [options.level.value, "flag" as const]
      : doc?.level !== undefined
      ? [doc.level, "file" as const]
      : chosen.configDefaults.level !== undefined
      ? [chosen.configDefaults.level, "config" as const]
      : [Autonomy.defaultLevel, "default" as const]
    const config: Policy.Config = { ...fromFile, level: lvl, workspace: path.resolve(ws), home: os.homedir() }
    return {
      config,
      file,
      sandbox: doc?.sandbox,
      source: { file, fileFrom: chosen.fileFrom, levelFrom }
    } satisfies Resolved
  })

const mark = (effect: string): string => effect === "allow" ? "allow" : effect === "ask" ? "ASK  " : "DENY "

const citeText = (c: Policy.Decision["citation"]): string =>
  c.ruleId === null
    ? `${c.layer} (no rule matched)`
    : `${c.layer} ${c.ruleId}${c.pattern === null ? "" : ` (${c.action} ${JSON.stringify(c.pattern)})`}`

const renderDecision = (doc: CheckReport): string =>
  [
    Output.table([
      ["decision", doc.decision],
      ["level", doc.level],
      ["workspace", doc.workspace],
      ["runs", doc.sandbox.where + (doc.sandbox.state === "on" ? "" : ` (sandbox ${doc.sandbox.state})`)],
      ["rule", citeText(doc.citation)],
      [
        "matched",
        `${doc.citation.action} ${JSON.stringify(doc.citation.resource)} in ${JSON.stringify(doc.citation.segment)}`
      ]
    ]),
    "segments:",
    ...doc.segments.map((s) =>
      `  ${mark(s.decision)}  ${s.text}${s.canonical !== "" && s.canonical !== s.text ? `  →  ${s.canonical}` : ""}  [${
        s.citation.ruleId ?? s.citation.layer
      }]`
    ),
    "reasons:",
    ...doc.reasons.map((r) => `  - ${r}`)
  ].join("\n")

/**
 * The `policy check --json` document.
 *
 * @since 0.1.0
 * @category models
 */
export interface CheckReport {
  readonly decision: Policy.Decision["decision"]
  readonly citation: Policy.Decision["citation"]
  readonly segments: Policy.Decision["segments"]
  readonly reasons: Policy.Decision["reasons"]
  readonly level: Autonomy.Level
  readonly workspace: string
  readonly call: Policy.ToolCall
  /** Where the call runs and with which grants (issue 31). */
  readonly sandbox: SandboxCommand.SandboxReport
}

const tools = ["shell", "read", "write", "fetch", "mcp", "agent"] as const

const buildCall = (input: {
  readonly tool: (typeof tools)[number]
  readonly command: ReadonlyArray<string>
  readonly path: ReadonlyArray<string>
  readonly url: Option.Option<string>
  readonly name: Option.Option<string>
  readonly input: Option.Option<string>
}): Effect.Effect<Policy.ToolCall, ReturnType<typeof cannotRun>> => {
  const usage = (message: string) => Effect.fail(cannotRun("usage", message))
  switch (input.tool) {
    case "shell": {
      if (input.command.length === 0) {
        return usage("--tool shell needs the command after `--`, e.g. steward policy check -- 'git status'")
      }
      return Effect.succeed({ tool: "shell", command: input.command.join(" ") })
    }
    case "read":
    case "write": {
      const [first, ...rest] = input.path
      if (first === undefined) return usage(`--tool ${input.tool} needs --path P (repeat for a batch)`)
      return Effect.succeed({ tool: input.tool, paths: [first, ...rest] })
    }
    case "fetch":
      return Option.match(input.url, {
        onNone: () => usage("--tool fetch needs --url U"),
        onSome: (url) => Effect.succeed({ tool: "fetch" as const, url })
      })
    case "agent":
      return Option.match(input.name, {
        onNone: () => usage("--tool agent needs --name N"),
        onSome: (name) => Effect.succeed({ tool: "agent" as const, name })
      })
    case "mcp": {
      if (Option.isNone(input.name)) return usage("--tool mcp needs --name N")
      const name = input.name.value
      if (Option.isNone(input.input)) return Effect.succeed({ tool: "mcp", name })
      if (input.input.value === "-") {
        return Effect.map(Stdin.readJson("--input"), (parsed) => ({ tool: "mcp" as const, name, input: parsed }))
      }
      try {
        const parsed = JSON.parse(input.input.value) as unknown
        return Effect.succeed({ tool: "mcp", name, input: parsed })
      } catch (error) {
        return Effect.fail(
          cannotRun(
            "input-invalid",
            `--input is not valid JSON: ${error instanceof Error ? error.message : String(error)}`
          )
        )
      }
    }
  }
}

const withEngine = <A, E>(
  config: Policy.Config,
  use: (engine: Policy.Engine) => Effect.Effect<A, E>
) =>
  Effect.scoped(
    Effect.gen(function*() {
      const engine = yield* Policy.make(config)
      return yield* use(engine)
    }).pipe(Effect.provide(ShellParser.layer))
  )

const check = Command.make(
  "check",
  {
    ...common,
    tool: Options.choice("tool", tools).pipe(
      Options.withDefault("shell" as const),
      Options.withDescription("The tool being called")
    ),
    path: Options.text("path").pipe(
      Options.repeated,
      Options.withDescription("A path for --tool read|write (repeat for a batch)")
    ),
    url: Options.text("url").pipe(Options.optional, Options.withDescription("The URL for --tool fetch")),
    name: Options.text("name").pipe(Options.optional, Options.withDescription("The tool name for --tool mcp|agent")),
    input: Options.text("input").pipe(
      Options.optional,
      Options.withDescription("JSON input for --tool mcp (- reads it from stdin)")
    ),
    sandbox: SandboxCommand.sandboxOption,
    exitCode: Options.boolean("exit-code").pipe(
      Options.withDescription("Exit with the decision, like git diff --exit-code: 0 allow, 1 deny, 3 ask")
    ),
    command: Args.text({ name: "COMMAND" }).pipe(Args.repeated, Args.withDescription("The shell command (after --)"))
  },
  (options) =>
    Effect.gen(function*() {
      const call = yield* buildCall(options)
      const { config, sandbox } = yield* resolveConfig(options)
      const decision = yield* withEngine(config, (engine) => engine.decide(call))
      // the decision with the boundary under it (issue 31): `--sandbox off` is the gate's alone
      const { placed, report: where } = yield* SandboxCommand.placeForCheck(decision, call, {
        mode: options.sandbox,
        workspace: config.workspace ?? process.cwd(),
        home: config.home ?? os.homedir(),
        policy: sandbox
      })
      const report: CheckReport = {
        decision: placed.decision,
        citation: placed.citation,
        segments: decision.segments,
        reasons: placed.reasons,
        level: decision.level,
        workspace: config.workspace ?? process.cwd(),
        call,
        sandbox: where
      }
      yield* Output.result(options.json, report, renderDecision)
      // 2 stays "could not decide"; 3 (ask) leaves it free, as `git diff --exit-code` leaves 1 for changes.
      if (options.exitCode && report.decision === "deny") return yield* new NegativeResult({ reason: "denied" })
      if (options.exitCode && report.decision === "ask") return yield* new ChildExit({ status: 3 })
    }).pipe(Effect.catchTag("GovernanceError", (error) => Effect.fail(toFailure(error))))
).pipe(Command.withDescription("Decide one tool call: allow, ask or deny, with the citation"))

/**
 * The `policy explain --json` document: the engine's explanation, filtered, and where the policy
 * file and level came from.
 *
 * @since 0.4.0
 * @category models
 */
export interface ExplainReport extends Policy.Explanation {
  readonly source: PolicySourceReport
  readonly filter: { readonly layer: string | null; readonly action: string | null; readonly effect: string | null }
}

const fileFromText = { flag: "--rules", project: "found from the workspace upward", config: "config.json policy.rules" }
const levelFromText = {
  flag: "--level",
  file: "the policy file's level",
  config: "config.json policy.level",
  default: "the default"
}

const renderExplain = (doc: ExplainReport): string =>
  [
    `level ${doc.level} (from ${levelFromText[doc.source.levelFrom]}), workspace ${doc.workspace}`,
    doc.source.file === null
      ? "policy file: none (no --rules, no steward.policy.yaml from the workspace up, no config policy.rules)"
      : `policy file: ${doc.source.file} (${fileFromText[doc.source.fileFrom!]})`,
    ...(doc.filter.layer ?? doc.filter.action ?? doc.filter.effect) === null ? [] : [
      `showing only: ${
        Object.entries(doc.filter).filter(([, v]) => v !== null).map(([k, v]) => `${k} ${v}`).join(", ")
      }`
    ],
    "layers in precedence order (strictest matching layer wins; no match asks):",
    ...doc.layers.flatMap((layer) => [
      `${layer.layer} (${layer.combine}, ${layer.rules.length} rules)`,
      ...layer.rules.map((r) =>
        `  ${String(r.index).padStart(3)}  ${mark(r.effect)}  ${r.action.padEnd(6)} ${
          JSON.stringify(r.resource)
        }  ${r.id}${r.source === null ? "" : `  (${r.source})`}`
      )
    ]),
    ...(doc.engine.length === 0 ? [] : ["engine (always ask):", ...doc.engine.map((g) => `  ${g.id}: ${g.reason}`)])
  ].join("\n")

const effects = ["allow", "ask", "deny"] as const

/** Only the rules that match every filter given; a layer with none left is left out. */
const filtered = (
  doc: Policy.Explanation,
  filter: ExplainReport["filter"]
): Pick<Policy.Explanation, "layers" | "engine"> => {
  const ruleFilter = filter.action !== null || filter.effect !== null
  const layers = doc.layers.filter((l) => filter.layer === null || l.layer === filter.layer).map((l) => ({
    ...l,
    rules: l.rules.filter((r) =>
      (filter.action === null || r.action === filter.action) && (filter.effect === null || r.effect === filter.effect)
    )
  })).filter((l) => !ruleFilter || l.rules.length > 0)
  // The engine's guards are asks about shell commands.
  const engine = (filter.layer === null || filter.layer === "engine") && (filter.effect ?? "ask") === "ask" &&
      (filter.action ?? "shell") === "shell"
    ? doc.engine
    : []
  return { layers, engine }
}

const explain = Command.make("explain", {
  ...common,
  layer: Options.choice("layer", LayerName.literals).pipe(
    Options.optional,
    Options.withDescription("Show only this layer's rules")
  ),
  action: Options.choice("action", Rule.actions).pipe(
    Options.optional,
    Options.withDescription("Show only rules about this action")
  ),
  effect: Options.choice("effect", effects).pipe(
    Options.optional,
    Options.withDescription("Show only rules with this effect")
  )
}, (options) =>
  Effect.gen(function*() {
    const { config, source } = yield* resolveConfig(options)
    const doc = yield* withEngine(config, (engine) => engine.explain)
    const filter = {
      layer: Option.getOrNull(options.layer),
      action: Option.getOrNull(options.action),
      effect: Option.getOrNull(options.effect)
    }
    const report: ExplainReport = { ...doc, ...filtered(doc, filter), source, filter }
    yield* Output.result(options.json, report, renderExplain)
  }).pipe(Effect.catchTag("GovernanceError", (error) => Effect.fail(toFailure(error))))).pipe(
    Command.withDescription(
      "Show the effective rules by layer, where the policy came from; filter by layer, action, effect"
    )
  )

/**
 * The `policy test --json` document.
 *
 * @since 0.1.0
 * @category models
 */
export interface TestReport {
  readonly file: string
  readonly ok: boolean
  readonly total: number
  readonly passed: number
  readonly failed: number
  readonly results: ReadonlyArray<{
    readonly index: number
    readonly label: string | null
    readonly tool: string
    readonly input: string
    readonly level: Autonomy.Level
    readonly expect: string
    readonly actual: string
    readonly ok: boolean
    readonly ruleId: string | null
    readonly reason: string
  }>
}

const describeCall = (call: Policy.ToolCall): string => {
  switch (call.tool) {
    case "shell":
      return call.command
    case "read":
    case "write":
      return call.paths.join(" ")
    case "fetch":
      return call.url
    case "mcp":
    case "agent":
      return call.name
  }
}

const renderTest = (doc: TestReport): string =>
  [
    ...doc.results.map((r) =>
      `${r.ok ? "ok  " : "FAIL"}  ${String(r.index).padStart(3)}  ${r.level.padEnd(10)} ${r.tool.padEnd(5)} ${
        JSON.stringify(r.input.length > 80 ? `${r.input.slice(0, 80)}…` : r.input)
      }  expect ${r.expect}, got ${r.actual}${r.ok ? "" : `  [${r.ruleId ?? "default"}]`}`
    ),
    `${doc.passed}/${doc.total} passed${doc.failed > 0 ? `, ${doc.failed} failed` : ""} (${doc.file})`
  ].join("\n")

const test = Command.make(
  "test",
  {
    ...common,
    file: Args.file({ name: "FILE", exists: "either" }).pipe(Args.withDescription("Case file (JSON or YAML)"))
  },
  (options) =>
    Effect.gen(function*() {
      const file = path.resolve(options.file)
      const { calls, doc } = yield* PolicyFile.loadCases(file)
      const fileWorkspace = doc.workspace === undefined ? undefined : path.resolve(path.dirname(file), doc.workspace)
      const { config } = yield* resolveConfig(options, fileWorkspace)
      const inline = PolicyFile.toConfig(doc, file)
      const rulesAll = [...(config.rules ?? []), ...(inline.rules ?? [])]
      const sources = [...(config.ruleSources ?? []), ...(inline.ruleSources ?? [])]
      const baseLevel = Option.getOrElse(options.level, () => doc.level ?? config.level ?? Autonomy.defaultLevel)
      const results = yield* Effect.scoped(
        Effect.gen(function*() {
          const engines = new Map<Autonomy.Level, Policy.Engine>()
          const engineFor = (lvl: Autonomy.Level) =>
            engines.has(lvl)
              ? Effect.succeed(engines.get(lvl)!)
              : Effect.tap(
                Policy.make({ ...config, level: lvl, rules: rulesAll, ruleSources: sources }),
                (e) => Effect.sync(() => engines.set(lvl, e))
              )
          return yield* Effect.forEach(doc.cases, (item, index) =>
            Effect.gen(function*() {
              const lvl = item.level ?? baseLevel
              const engine = yield* engineFor(lvl)
              const call = calls[index]!
              const decision = yield* engine.decide(call)
              return {
                index,
                label: item.label ?? null,
                tool: call.tool,
                input: describeCall(call),
                level: lvl,
                expect: item.expect,
                actual: decision.decision,
                ok: decision.decision === item.expect,
                ruleId: decision.citation.ruleId,
                reason: decision.citation.reason
              }
            }))
        }).pipe(Effect.provide(ShellParser.layer))
      )
      const failed = results.filter((r) => !r.ok).length
      const report: TestReport = {
        file,
        ok: failed === 0,
        total: results.length,
        passed: results.length - failed,
        failed,
        results
      }
      yield* Output.result(options.json, report, renderTest)
      if (failed > 0) {
        return yield* new NegativeResult({ reason: `${failed} of ${results.length} policy cases did not match` })
      }
    }).pipe(Effect.catchTag("GovernanceError", (error) => Effect.fail(toFailure(error))))
).pipe(Command.withDescription("Run a table of cases against the policy; exit 1 on any mismatch"))

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("policy").pipe(
  Command.withDescription("Governance rules: decide tool calls (allow / ask / deny) with citations"),
  Command.withSubcommands([check, explain, test])
)
