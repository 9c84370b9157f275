/**
 * The role map: which agent runs each audit role (`codex`, `claude-code`, `gemini`, or Steward's
 * own harness with a `PROVIDER:MODEL`). It lives in the operator's profile — `extensions.audit.agents`
 * in the state directory's `config.json`, outside the audited project — because a subject must not
 * set the terms of its own audit: a role key found in the project's `audit/orchestrator.conf` is
 * refused at load, naming the key and the file (ADR 0011).
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as nodePath from "node:path"
import * as Issues from "../../Issues.js"

/**
 * The roles a loop dispatches an agent for.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Role = Schema.Literal("planner", "auditor", "remediator", "verifier")

/**
 * @since 0.1.0
 * @category models
 */
export type Role = typeof Role.Type

/**
 * An external agent CLI, dispatched as a child process. `executable` overrides the binary found on
 * `PATH`; `model` is passed to the CLI (its own default when absent).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ExternalAgent = Schema.Struct({
  agent: Schema.Literal("codex", "claude-code", "gemini"),
  model: Schema.optional(Schema.NonEmptyTrimmedString),
  executable: Schema.optional(Schema.NonEmptyTrimmedString)
})

/**
 * Steward's own harness with one provider model.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StewardAgent = Schema.Struct({
  agent: Schema.Literal("steward"),
  model: Schema.String.pipe(Schema.pattern(/^[a-z][a-z0-9-]*:\S+$/, {
    message: () => "expected PROVIDER:MODEL (openai:MODEL, anthropic:MODEL)"
  }))
})

/**
 * One role's agent.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RoleAgent = Schema.Union(ExternalAgent, StewardAgent)

/**
 * @since 0.1.0
 * @category models
 */
export type RoleAgent = typeof RoleAgent.Type

/**
 * The profile's `extensions.audit.agents` entry: any subset of the roles.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RoleMapEntry = Schema.Struct({
  planner: Schema.optional(RoleAgent),
  auditor: Schema.optional(RoleAgent),
  remediator: Schema.optional(RoleAgent),
  verifier: Schema.optional(RoleAgent)
})

/**
 * The profile's `extensions.audit` area: the settings `steward config set audit.…` accepts.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AuditProfile = Schema.Struct({
  agents: Schema.optional(RoleMapEntry)
})

/**
 * Every role's agent, and whether it came from the profile or the default.
 *
 * @since 0.1.0
 * @category models
 */
export type RoleMap = {
  readonly [R in Role]: { readonly agent: RoleAgent; readonly source: "profile" | "default" }
}

/**
 * xcheck's defaults: planner, auditor and verifier through Codex, the remediator through Claude
 * Code, so the auditor/verifier and the remediator are different providers.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults: { readonly [R in Role]: RoleAgent } = {
  planner: { agent: "codex" },
  auditor: { agent: "codex" },
  remediator: { agent: "claude-code" },
  verifier: { agent: "codex" }
}

/**
 * Why the role map could not be loaded: the profile's entry is invalid, or the audited project
 * tries to set a role key.
 *
 * @since 0.1.0
 * @category errors
 */
export class RoleMapError extends Schema.TaggedError<RoleMapError>()("RoleMapError", {
  code: Schema.Literal("invalid-profile", "role-key-in-project"),
  file: Schema.String,
  key: Schema.optional(Schema.String),
  message: Schema.String
}) {}

const decodeProfile = Schema.decodeUnknown(AuditProfile, { onExcessProperty: "error", errors: "all" })

/**
 * Resolve the role map from the profile's `extensions.audit` area (`undefined`: no entry),
 * filling each missing role with its default. `file` names the profile in errors.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromProfile = Effect.fn("RoleAgents.fromProfile")(function*(audit: unknown, file: string) {
  const profile = audit === undefined ? {} : yield* decodeProfile(audit).pipe(
    Effect.mapError((error) =>
      new RoleMapError({
        code: "invalid-profile",
        file,
        message: `${file}: ${Issues.lines(Issues.fromParseError(error, ["audit"]))}`
      })
    )
  )
  const entry = profile.agents ?? {}
  const resolve = (role: Role) => {
    const own = entry[role]
    return own === undefined
      ? { agent: defaults[role], source: "default" as const }
      : { agent: own, source: "profile" as const }
  }
  return {
    planner: resolve("planner"),
    auditor: resolve("auditor"),
    remediator: resolve("remediator"),
    verifier: resolve("verifier")
  } satisfies RoleMap
})

// A role key: a role name, or `agent(s)`/`role(s)`, alone or as the prefix of a dotted, dashed or
// underscored key (`auditor`, `remediator_cmd`, `agents.verifier`, `role-auditor`).
const ROLE_KEY = /^(planner|auditor|remediator|verifier|agents?|roles?)(?:[._-].*)?$/i

/**
 * Refuse any role key in the project's `orchestrator.conf` text (`key = value` or `key: value`
 * lines, `#` comments): the first one found is named with its line.
 *
 * @since 0.1.0
 * @category validation
 */
export const refuseProjectRoleKeys = (text: string, file: string): Effect.Effect<void, RoleMapError> => {
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/#.*$/, "").trim()
    const key = /^([^=:\s]+)\s*[=:]/.exec(line)?.[1]
    if (key !== undefined && ROLE_KEY.test(key)) {
      return Effect.fail(
        new RoleMapError({
          code: "role-key-in-project",
          file,
          key,
          message: `${file}:${i + 1}: role key '${key}' is refused: the audited project does not choose ` +
            "its own agents; set the role map in the operator's profile (extensions.audit.agents in config.json)"
        })
      )
    }
  }
  return Effect.void
}

/**
 * The provider an agent runs on (for independence: auditor/verifier vs remediator).
 *
 * @since 0.1.0
 * @category accessors
 */
export const providerOf = (agent: RoleAgent): string =>
  agent.agent === "steward"
    ? agent.model.split(":")[0]!
    : agent.agent === "codex"
    ? "openai"
    : agent.agent === "claude-code"
    ? "anthropic"
    : "google"

/**
 * Load the role map for a loop over `project`: refuse role keys in the project's
 * `orchestrator.conf` first (nothing is read from the profile for a project that tries), then
 * resolve the profile's entry. `conf` is the conf file's text (empty when it does not exist).
 *
 * @since 0.1.0
 * @category constructors
 */
export const load = Effect.fn("RoleAgents.load")(function*(options: {
  readonly profile: unknown
  readonly profileFile: string
  readonly conf: string
  readonly confFile: string
}) {
  yield* refuseProjectRoleKeys(options.conf, options.confFile)
  return yield* fromProfile(options.profile, options.profileFile)
})

/**
 * The binary an external agent runs by default (`claude` for Claude Code).
 *
 * @since 0.1.0
 * @category accessors
 */
export const binaryName = (agent: "codex" | "claude-code" | "gemini"): string =>
  agent === "claude-code" ? "claude" : agent

/**
 * The absolute path of the file an external agent runs: its `executable` when the profile names an
 * absolute one, else the first executable regular file of that name (or the default binary) on
 * `searchPath`. Found from the file system alone: nothing is run. `undefined` when there is none.
 *
 * @since 0.1.0
 * @category constructors
 */
export const locate = Effect.fn("RoleAgents.locate")(function*(
  agent: typeof ExternalAgent.Type,
  searchPath: string
) {
  const fs = yield* FileSystem.FileSystem
  const isExecutableFile = (file: string) =>
    fs.stat(file).pipe(
      Effect.map((info) => info.type === "File" && (info.mode & 0o111) !== 0),
      Effect.orElseSucceed(() => false)
    )
  const name = agent.executable ?? binaryName(agent.agent)
  if (nodePath.isAbsolute(name)) return (yield* isExecutableFile(name)) ? name : undefined
  if (name.includes("/")) return undefined // a relative path would depend on the loop's cwd
  for (const dir of searchPath.split(nodePath.delimiter)) {
    if (!nodePath.isAbsolute(dir)) continue // an empty or relative PATH entry is the cwd: never trusted
    const file = nodePath.join(dir, name)
    if (yield* isExecutableFile(file)) return file
  }
  return undefined
})
