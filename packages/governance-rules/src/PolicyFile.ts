/**
 * Policy files: JSON or YAML, validated with Schema. Every error names the file, the JSON path
 * inside it (`rules[3].effect`) and the offending key; unknown keys are errors.
 *
 * ```json
 * {
 *   "version": 1,
 *   "level": "execute",
 *   "rules": [
 *     { "id": "tests", "action": "shell", "resource": "npm test *", "effect": "allow" },
 *     { "id": "no-curl", "action": "shell", "resource": "curl *", "effect": "deny", "note": "use the fetch tool" }
 *   ]
 * }
 * ```
 *
 * A case file (for `steward policy test`) adds `cases`, each a tool call plus the expected
 * decision.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { createRequire } from "node:module"
import type * as YAMLModule from "yaml"
import * as Autonomy from "./Autonomy.js"
import * as GovernanceError from "./GovernanceError.js"
import { readText as readBounded } from "./internal/policy/readText.js"
import * as StrictJson from "./internal/strictJson.js"
import type * as Policy from "./Policy.js"
import * as Rule from "./Rule.js"
import * as SandboxProfile from "./SandboxProfile.js"

/**
 * Files larger than this are refused.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_FILE_BYTES = 4 * 1024 * 1024

/**
 * A policy document.
 *
 * @since 0.1.0
 * @category models
 */
export const PolicyDocument = Schema.Struct({
  $schema: Schema.optional(Schema.String),
  version: Schema.optional(Schema.Literal(1)),
  level: Schema.optional(Autonomy.Level),
  rules: Schema.optionalWith(Schema.Array(Rule.Rule), { default: () => [] }),
  /** The sandbox's network allowlist, loopback ports, limits and extra protected paths. */
  sandbox: Schema.optional(SandboxProfile.SandboxPolicy)
})

/**
 * @since 0.1.0
 * @category models
 */
export type PolicyDocument = typeof PolicyDocument.Type

const RuleEffectField = Rule.RuleEffect

/**
 * One case of a case file: a tool call (`tool` plus `command` / `path` / `paths` / `url` /
 * `name` / `input`) and the expected decision.
 *
 * @since 0.1.0
 * @category models
 */
export const Case = Schema.Struct({
  /** A label for the case (shown in the report). */
  label: Schema.optional(Schema.String),
  /** The tool name, for `mcp` and `agent`. */
  name: Schema.optional(Schema.String),
  tool: Schema.Literal("shell", "read", "write", "fetch", "mcp", "agent"),
  command: Schema.optional(Schema.String),
  path: Schema.optional(Schema.String),
  paths: Schema.optional(Schema.Array(Schema.String)),
  url: Schema.optional(Schema.String),
  input: Schema.optional(Schema.Unknown),
  level: Schema.optional(Autonomy.Level),
  expect: RuleEffectField
})

/**
 * @since 0.1.0
 * @category models
 */
export type Case = typeof Case.Type

/**
 * A case file: optional policy (level, rules) plus the cases.
 *
 * @since 0.1.0
 * @category models
 */
export const CaseFile = Schema.Struct({
  $schema: Schema.optional(Schema.String),
  version: Schema.optional(Schema.Literal(1)),
  level: Schema.optional(Autonomy.Level),
  workspace: Schema.optional(Schema.String),
  rules: Schema.optionalWith(Schema.Array(Rule.Rule), { default: () => [] }),
  cases: Schema.NonEmptyArray(Case)
})

/**
 * @since 0.1.0
 * @category models
 */
export type CaseFile = typeof CaseFile.Type

const pathString = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>(
    (acc, key) => typeof key === "number" ? `${acc}[${key}]` : acc.length === 0 ? String(key) : `${acc}.${String(key)}`,
    ""
  )

const isYaml = (file: string): boolean => /\.ya?ml$/i.test(file)

/**
 * Parse text (JSON, or YAML when the file name ends in `.yaml`/`.yml`) into an untyped value.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseText = (text: string, file: string): Effect.Effect<unknown, GovernanceError.GovernanceError> =>
  Effect.suspend(() => {
    if (text.length > MAX_FILE_BYTES) {
      return Effect.fail(
        GovernanceError.make("policy-invalid", `${file}: file is larger than ${MAX_FILE_BYTES} bytes`, {
          file,
          limit: MAX_FILE_BYTES
        })
      )
    }
    try {
      if (isYaml(file)) {
        const doc = YAML().parseDocument(text, { prettyErrors: true, uniqueKeys: true })
        if (doc.errors.length > 0) {
          const first = doc.errors[0]!
          const line = first.linePos?.[0]?.line
          const where = first.linePos?.[0] === undefined
            ? ""
            : ` (line ${first.linePos[0].line}, column ${first.linePos[0].col})`
          // the YAML composer recurses: nesting past the stack is reported as nesting, with the limit
          const deep = /Maximum call stack/.test(first.message)
          const what = deep
            ? `nested deeper than ${MAX_DEPTH} levels`
            : `invalid YAML${where}: ${first.message.split("\n")[0]}`
          return Effect.fail(
            GovernanceError.make("policy-invalid", `${file}: ${what}${deep ? where : ""}`, {
              file,
              ...(line === undefined ? {} : { line }),
              ...(deep ? { limit: MAX_DEPTH } : {})
            })
          )
        }
        const value = doc.toJS({ maxAliasCount: 100 }) as unknown
        const lone = StrictJson.loneSurrogateIn(value)
        return lone === undefined ? Effect.succeed(value) : Effect.fail(invalidText(file, lone))
      }
      const value = JSON.parse(text) as unknown
      // duplicate keys (JSON.parse keeps the last), lone surrogates and nesting past the bound are
      // refused, naming the line (issue 16)
      const problem = StrictJson.firstProblem(text, MAX_DEPTH)
      if (problem === undefined) return Effect.succeed(value)
      return Effect.fail(
        problem.kind === "lone-surrogate"
          ? invalidText(file, problem.path, problem.line)
          : problem.kind === "too-deep"
          ? GovernanceError.make(
            "policy-invalid",
            `${file}: nested deeper than ${MAX_DEPTH} levels at ${problem.path} (line ${problem.line})`,
            { file, path: problem.path, line: problem.line, limit: MAX_DEPTH }
          )
          : GovernanceError.make(
            "policy-invalid",
            `${file}: duplicate key "${problem.key}" at ${problem.path} (line ${problem.line})`,
            { file, path: problem.path, key: problem.key, line: problem.line }
          )
      )
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      return Effect.fail(
        GovernanceError.make("policy-invalid", `${file}: invalid ${isYaml(file) ? "YAML" : "JSON"}: ${message}`, {
          file
        })
      )
    }
  })

// `yaml` is loaded on the first YAML document: a JSON policy (and every command that reads none)
// never loads its modules (start-up, issue 17 item 4).
let yamlModule: typeof YAMLModule | undefined
const YAML = (): typeof YAMLModule => yamlModule ??= createRequire(import.meta.url)("yaml") as typeof YAMLModule

const invalidText = (file: string, path: string, line?: number) =>
  GovernanceError.make(
    "policy-invalid",
    `${file}: invalid UTF-16 (a lone surrogate) in the string at ${path}${line === undefined ? "" : ` (line ${line})`}`,
    { file, path, ...(line === undefined ? {} : { line }) }
  )

/**
 * Documents nested deeper than this are refused before validation.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_DEPTH = 64

const tooDeep = (value: unknown, limit: number): boolean => {
  const stack: Array<readonly [unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!
    if (current === null || typeof current !== "object") continue
    if (depth >= limit) return true
    for (const child of Object.values(current as Record<string, unknown>)) stack.push([child, depth + 1])
  }
  return false
}

const decodeWith = <A, I>(schema: Schema.Schema<A, I>, value: unknown, file: string) =>
  tooDeep(value, MAX_DEPTH)
    ? Effect.fail(
      GovernanceError.make("policy-invalid", `${file}: nested deeper than ${MAX_DEPTH} levels`, {
        file,
        limit: MAX_DEPTH
      })
    )
    : Schema.decodeUnknown(schema, { onExcessProperty: "error", errors: "all" })(value).pipe(
      Effect.mapError((error) => {
        const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
        const first = issues[0]
        const path = first === undefined ? "" : pathString(first.path)
        const last = first?.path[first.path.length - 1]
        const key = typeof last === "string" ? last : undefined
        const what = first === undefined
          ? error.message
          : first._tag === "Unexpected"
          ? `unknown key "${key ?? path}"`
          : first._tag === "Missing"
          ? `missing key "${key ?? path}"`
          : first.message
        const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""
        return GovernanceError.make(
          "policy-invalid",
          `${file}: ${path.length === 0 ? "" : `${path}: `}${what}${more}`,
          {
            file,
            ...(path.length === 0 ? {} : { path }),
            ...(key === undefined ? {} : { key }),
            detail: issues.map((issue) => ({ path: pathString(issue.path), message: issue.message }))
          }
        )
      })
    )

const checkUniqueIds = (
  rules: ReadonlyArray<Rule.Rule>,
  file: string,
  prefix = "rules"
): Effect.Effect<void, GovernanceError.GovernanceError> => {
  const seen = new Map<string, number>()
  for (let i = 0; i < rules.length; i++) {
    const id = rules[i]!.id
    const previous = seen.get(id)
    if (previous !== undefined) {
      return Effect.fail(
        GovernanceError.make(
          "policy-invalid",
          `${file}: ${prefix}[${i}].id: duplicate rule id "${id}" (first at ${prefix}[${previous}])`,
          {
            file,
            path: `${prefix}[${i}].id`,
            key: "id"
          }
        )
      )
    }
    seen.set(id, i)
  }
  return Effect.void
}

/**
 * Parse and validate a policy document from text.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = Effect.fn("PolicyFile.parse")(function*(text: string, file: string) {
  const value = yield* parseText(text, file)
  const doc = yield* decodeWith(PolicyDocument, value, file)
  yield* checkUniqueIds(doc.rules, file)
  return doc
})

/**
 * Read and validate a policy file.
 *
 * @since 0.1.0
 * @category loading
 */
export const load = Effect.fn("PolicyFile.load")(function*(file: string) {
  const text = yield* readBounded(file, MAX_FILE_BYTES)
  return yield* parse(text, file)
})

/**
 * The engine configuration a policy document describes (rules cite the file as their source).
 *
 * @since 0.1.0
 * @category constructors
 */
export const toConfig = (
  doc: { readonly level?: Autonomy.Level | undefined; readonly rules: ReadonlyArray<Rule.Rule> },
  file: string | null
): Policy.Config => ({
  ...(doc.level === undefined ? {} : { level: doc.level }),
  rules: doc.rules,
  ruleSources: doc.rules.map((_, i) => file === null ? null : `${file}#rules[${i}]`)
})

/**
 * Turn a case into a tool call; errors name the case and the missing field.
 *
 * @since 0.1.0
 * @category constructors
 */
export const caseToCall = (
  item: Case,
  index: number,
  file: string
): Effect.Effect<Policy.ToolCall, GovernanceError.GovernanceError> => {
  const missing = (key: string) =>
    Effect.fail(
      GovernanceError.make("policy-invalid", `${file}: cases[${index}]: tool "${item.tool}" needs "${key}"`, {
        file,
        path: `cases[${index}].${key}`,
        key
      })
    )
  switch (item.tool) {
    case "shell":
      return item.command === undefined ? missing("command") : Effect.succeed({ tool: "shell", command: item.command })
    case "read":
    case "write": {
      const paths = item.paths ?? (item.path === undefined ? [] : [item.path])
      const [first, ...rest] = paths
      return first === undefined ? missing("path") : Effect.succeed({ tool: item.tool, paths: [first, ...rest] })
    }
    case "fetch":
      return item.url === undefined ? missing("url") : Effect.succeed({ tool: "fetch", url: item.url })
    case "mcp":
      return item.name === undefined
        ? missing("name")
        : Effect.succeed({ tool: "mcp", name: item.name, ...(item.input === undefined ? {} : { input: item.input }) })
    case "agent":
      return item.name === undefined ? missing("name") : Effect.succeed({ tool: "agent", name: item.name })
  }
}

/**
 * Parse and validate a case file from text.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseCases = Effect.fn("PolicyFile.parseCases")(function*(text: string, file: string) {
  const value = yield* parseText(text, file)
  const doc = yield* decodeWith(CaseFile, value, file)
  yield* checkUniqueIds(doc.rules, file)
  const calls = yield* Effect.forEach(doc.cases, (item, i) => caseToCall(item, i, file))
  return { doc, calls }
})

/**
 * Read and validate a case file.
 *
 * @since 0.1.0
 * @category loading
 */
export const loadCases = Effect.fn("PolicyFile.loadCases")(function*(file: string) {
  const text = yield* readBounded(file, MAX_FILE_BYTES)
  return yield* parseCases(text, file)
})
