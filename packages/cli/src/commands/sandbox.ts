/**
 * `steward sandbox [--workspace DIR] [--level L] [--allow-domain D]… [--loopback PORT]… -- COMMAND…`
 * runs one command inside the boundary (governance-rules' `Sandbox`: bubblewrap on Linux) and
 * exits with its status — the form an agent CLI's hook uses to wrap a command it did not write.
 * No decision is made here: the gate decides before (`policy check`), the boundary contains.
 * Bad usage exits 2; a host where no boundary can be built is refused (exit 1, code
 * `sandbox-unavailable`), never a run without one.
 *
 * Also the `sandbox` key of `policy check --json`: where the call would run and with which grants.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Autonomy from "@steward/governance-rules/Autonomy"
import * as Placement from "@steward/governance-rules/Placement"
import type * as Policy from "@steward/governance-rules/Policy"
import * as PolicyFile from "@steward/governance-rules/PolicyFile"
import * as ProtectedPaths from "@steward/governance-rules/ProtectedPaths"
import * as Sandbox from "@steward/governance-rules/Sandbox"
import * as SandboxProfile from "@steward/governance-rules/SandboxProfile"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as os from "node:os"
import * as path from "node:path"
import { cannotRun, ChildExit, refused } from "../CliError.js"
import * as GlobalOptions from "../GlobalOptions.js"

/**
 * `--sandbox on|off` of `policy check`: `off` gives the gate's decision alone.
 *
 * @since 0.1.0
 * @category options
 */
export const sandboxOption = Options.choice("sandbox", ["on", "off"] as const).pipe(
  Options.withDefault("on" as const),
  Options.withDescription("on (default): decide with the boundary under the gate; off: the gate's decision alone")
)

/**
 * The `sandbox` key of `policy check --json`.
 *
 * @since 0.1.0
 * @category models
 */
export interface SandboxReport {
  /** `on`, `off` (asked for), or `unavailable` (with the reason). */
  readonly state: "on" | "off" | "unavailable"
  readonly reason?: string
  /** Where the call runs: inside the sandbox, on the host, or nowhere (denied). */
  readonly where: Placement.Where
  /** The gate's decision alone, as if no boundary existed. */
  readonly gate: { readonly decision: Policy.Decision["decision"]; readonly ruleId: string | null }
  /** The gate's asks the boundary contains (rule ids). */
  readonly contained: ReadonlyArray<string | null>
  /** What the sandbox grants when the call runs inside it. */
  readonly grants: {
    readonly writable: ReadonlyArray<string>
    readonly readOnlyInWorkspace: ReadonlyArray<string>
    readonly masked: ReadonlyArray<string>
    readonly network: "none" | "proxy"
    readonly allowDomains: ReadonlyArray<string>
    readonly loopback: ReadonlyArray<number>
    readonly limits: SandboxProfile.Profile["limits"]
  } | null
}

const grantsOf = (profile: SandboxProfile.Profile): NonNullable<SandboxReport["grants"]> => ({
  writable: profile.writable ? [profile.workspace, "/tmp (private)"] : ["/tmp (private)"],
  readOnlyInWorkspace: [...ProtectedPaths.workspaceProtected.map((e) => e.path), ...profile.protect],
  masked: [
    ...ProtectedPaths.homeMasked.map((e) => `~/${e.path}`),
    "workspace secret files (.env*, keys, credentials; not .env.example)"
  ],
  network: SandboxProfile.usesNetwork(profile) ? "proxy" : "none",
  allowDomains: profile.network.allowDomains,
  loopback: profile.network.loopback,
  limits: profile.limits
})

/**
 * Place a decision for `policy check`: probe the boundary (unless `off`) and say where the call
 * runs. Returns the placed decision and the `sandbox` key.
 *
 * @since 0.1.0
 * @category constructors
 */
export const placeForCheck = (
  decision: Policy.Decision,
  call: Policy.ToolCall,
  options: {
    readonly mode: "on" | "off"
    readonly workspace: string
    readonly home: string
    readonly policy: SandboxProfile.SandboxPolicy | undefined
  }
) =>
  Effect.gen(function*() {
    const profile = yield* SandboxProfile.make({
      workspace: options.workspace,
      home: options.home,
      level: decision.level,
      policy: options.policy ?? {}
    }).pipe(Effect.option)
    const availability = options.mode === "off"
      ? null
      : yield* Effect.flatMap(Sandbox.Sandbox, (s) => s.availability).pipe(Effect.provide(Sandbox.layer()))
    const boundary: Placement.BoundaryState = availability === null
      ? { state: "off" }
      : !availability.available
      ? { state: "unavailable", reason: availability.reason }
      : Option.isNone(profile)
      ? { state: "unavailable", reason: `the workspace ${options.workspace} cannot be sandboxed` }
      : { state: "on", allowDomains: profile.value.network.allowDomains, writable: profile.value.writable }
    const placed = Placement.place(decision, call, boundary)
    const report: SandboxReport = {
      state: boundary.state,
      ...(boundary.state === "unavailable" ? { reason: boundary.reason } : {}),
      where: placed.where,
      gate: { decision: decision.decision, ruleId: decision.citation.ruleId },
      contained: placed.contained.map((c) => c.ruleId),
      grants: placed.where === "sandbox" && Option.isSome(profile) ? grantsOf(profile.value) : null
    }
    return { placed, report }
  })

const insideOf = (workspace: string, dir: string) => dir === workspace || dir.startsWith(workspace + path.sep)

const run = Command.make(
  "sandbox",
  {
    ...GlobalOptions.global,
    workspace: Options.directory("workspace", { exists: "either" }).pipe(
      Options.withDescription("Workspace root, the only writable place (default: the current directory)"),
      Options.optional
    ),
    level: Options.choice("level", Autonomy.levels).pipe(
      Options.withDescription("Autonomy level (read_only mounts the workspace read-only too; default execute)"),
      Options.optional
    ),
    rules: Options.file("rules", { exists: "either" }).pipe(
      Options.withDescription("Policy file whose `sandbox` section (domains, loopback ports, limits) applies"),
      Options.optional
    ),
    allowDomain: Options.text("allow-domain").pipe(
      Options.repeated,
      Options.withDescription("A domain the command may reach through Steward's proxy (repeat; *.example.com)")
    ),
    loopback: Options.integer("loopback").pipe(
      Options.repeated,
      Options.withDescription("A port of a service on the host's 127.0.0.1 the command may reach (repeat)")
    ),
    command: Args.text({ name: "COMMAND" }).pipe(Args.repeated, Args.withDescription("The command and its arguments"))
  },
  (options) =>
    Effect.gen(function*() {
      const [program, ...args] = options.command
      if (program === undefined) {
        return yield* cannotRun(
          "usage",
          "steward sandbox needs the command after `--`, e.g. steward sandbox -- npm test"
        )
      }
      const doc = Option.isSome(options.rules) ? yield* PolicyFile.load(path.resolve(options.rules.value)) : null
      const fromFile = doc?.sandbox ?? {}
      const policy = {
        ...fromFile,
        allowDomains: [...(fromFile.allowDomains ?? []), ...options.allowDomain],
        loopback: [...(fromFile.loopback ?? []), ...options.loopback]
      }
      const profile = yield* SandboxProfile.make({
        workspace: path.resolve(Option.getOrElse(options.workspace, () => process.cwd())),
        home: os.homedir(),
        level: Option.getOrElse(options.level, () => doc?.level ?? Autonomy.defaultLevel),
        policy
      })
      const sandbox = yield* Sandbox.Sandbox
      const done = yield* sandbox.run(profile, {
        argv: [program, ...args],
        // the caller's directory when it is inside the workspace, else the workspace
        ...(insideOf(profile.workspace, process.cwd()) ? { cwd: process.cwd() } : {}),
        stdin: "inherit",
        stdio: "inherit"
      })
      if (done.timedOut) return yield* refused("failed", "the command timed out inside the sandbox")
      if (done.exitCode !== 0) return yield* new ChildExit({ status: done.exitCode ?? 1 })
    }).pipe(
      Effect.provide(Sandbox.layer()),
      Effect.catchTags({
        SandboxError: (error) =>
          Effect.fail(
            error.code === "sandbox-invalid"
              ? cannotRun(
                "invalid-input",
                error.message,
                error.field === undefined ? undefined : { field: error.field }
              )
              : refused(error.code, error.message)
          ),
        GovernanceError: (error) => Effect.fail(cannotRun(error.code, error.message))
      })
    )
).pipe(Command.withDescription("Run one command inside the OS boundary and exit with its status"))

/**
 * @since 0.1.0
 * @category commands
 */
export const command = run
