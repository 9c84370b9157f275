/**
 * What a sandboxed command may do, as data: the workspace it works in, the autonomy level (at
 * `read_only` the workspace is mounted read-only too), the network it may reach (nothing but its
 * own loopback by default; allowed domains and, by opt-in, the host's loopback services through
 * Steward's filtering proxy) and its resource limits. A policy file's `sandbox` section holds the
 * same fields; `make` validates them and resolves the workspace, so a profile is always usable.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { SandboxProfile } from "@steward/governance-rules"
 *
 * const profile = SandboxProfile.make({
 *   workspace: "/srv/app",
 *   home: "/home/dev",
 *   level: "execute",
 *   policy: { allowDomains: ["registry.npmjs.org", "*.pythonhosted.org"], limits: { processes: 256 } }
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Autonomy from "./Autonomy.js"

/**
 * The closed code set of `SandboxError`.
 *
 * - `sandbox-unavailable`: no boundary can be built here (not Linux, bubblewrap missing or unable
 *   to make namespaces, no writable control group for the process limit). Never a silent
 *   fallback: the gate turns a call that needed the boundary into an ask.
 * - `sandbox-invalid`: a profile or command is wrong (names the field).
 * - `sandbox-failed`: the boundary could not be set up for this call (bubblewrap's own error).
 *
 * @since 0.1.0
 * @category models
 */
export const codes = ["sandbox-unavailable", "sandbox-invalid", "sandbox-failed"] as const

/**
 * @since 0.1.0
 * @category models
 */
export type SandboxErrorCode = typeof codes[number]

/**
 * A typed sandbox failure.
 *
 * @since 0.1.0
 * @category errors
 */
export class SandboxError extends Schema.TaggedError<SandboxError>("@steward/governance-rules/SandboxError")(
  "SandboxError",
  {
    code: Schema.Literal(...codes),
    message: Schema.String,
    /** The profile or command field that was wrong, for `sandbox-invalid`. */
    field: Schema.optional(Schema.String)
  }
) {}

/**
 * @since 0.1.0
 * @category constructors
 */
export const error = (code: SandboxErrorCode, message: string, field?: string): SandboxError =>
  new SandboxError({ code, message, ...(field === undefined ? {} : { field }) })

const Positive = Schema.Number.pipe(Schema.int(), Schema.positive())

/**
 * Resource limits. `processes: null` says explicitly that no process limit is wanted; otherwise a
 * boundary that cannot enforce it is unavailable rather than unlimited.
 *
 * @since 0.1.0
 * @category models
 */
export const Limits = Schema.Struct({
  /** CPU seconds per process (`RLIMIT_CPU`). */
  cpuSeconds: Schema.optional(Positive),
  /** Memory of the whole tree (a memory control group; per process `RLIMIT_DATA` where none). */
  memoryBytes: Schema.optional(Positive),
  /** Processes and threads of the whole tree (a pids control group). */
  processes: Schema.optional(Schema.NullOr(Positive)),
  /** The largest file a process may write (`RLIMIT_FSIZE`). */
  fileSizeBytes: Schema.optional(Positive)
})

/**
 * @since 0.1.0
 * @category models
 */
export type Limits = typeof Limits.Type

/**
 * The defaults: 10 CPU minutes, 4 GiB, 1,024 processes, 4 GiB files.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultLimits = {
  cpuSeconds: 600,
  memoryBytes: 4 * 1024 ** 3,
  processes: 1024 as number | null,
  fileSizeBytes: 4 * 1024 ** 3
} as const

const Domain = Schema.String.pipe(
  Schema.pattern(/^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i, {
    message: () => "a domain name (`example.com`) or a wildcard over its subdomains (`*.example.com`)"
  })
)

/**
 * The sandbox section of a policy: allowed domains (reached through the proxy), the host's loopback
 * services by port (off by default; each port is forwarded into the sandbox's own loopback) and
 * limits.
 *
 * @since 0.1.0
 * @category models
 */
export const SandboxPolicy = Schema.Struct({
  allowDomains: Schema.optional(Schema.Array(Domain)),
  loopback: Schema.optional(Schema.Array(Positive.pipe(Schema.lessThanOrEqualTo(65535)))),
  limits: Schema.optional(Limits),
  /** Further workspace paths kept read-only (relative to the workspace). */
  protect: Schema.optional(Schema.Array(Schema.String.pipe(Schema.minLength(1))))
})

/**
 * @since 0.1.0
 * @category models
 */
export type SandboxPolicy = typeof SandboxPolicy.Type

/**
 * A validated profile: what the Linux layer builds the boundary from.
 *
 * @since 0.1.0
 * @category models
 */
export interface Profile {
  /** The workspace's real path. */
  readonly workspace: string
  readonly home: string
  readonly level: Autonomy.Level
  /** `false` at `read_only`: the workspace is mounted read-only. */
  readonly writable: boolean
  readonly network: {
    readonly allowDomains: ReadonlyArray<string>
    /** Host loopback ports the sandbox may reach (forwarded to the same port inside). */
    readonly loopback: ReadonlyArray<number>
  }
  readonly limits: {
    readonly cpuSeconds: number
    readonly memoryBytes: number
    readonly processes: number | null
    readonly fileSizeBytes: number
  }
  readonly protect: ReadonlyArray<string>
}

/**
 * Input for `make`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ProfileInput {
  readonly workspace: string
  readonly home: string
  readonly level?: Autonomy.Level
  readonly policy?: unknown
}

/**
 * Whether the profile lets anything leave the sandbox's own loopback (through the proxy).
 *
 * @since 0.1.0
 * @category predicates
 */
export const usesNetwork = (profile: Profile): boolean =>
  profile.network.allowDomains.length > 0 || profile.network.loopback.length > 0

/**
 * Whether a host name is on an allowlist: `example.com` names itself, `*.example.com` its
 * subdomains (not itself).
 *
 * @since 0.1.0
 * @category predicates
 */
export const allowsDomain = (allowDomains: ReadonlyArray<string>, host: string): boolean => {
  const name = host.replace(/\.$/, "").toLowerCase()
  return allowDomains.some((pattern) => pattern.startsWith("*.") ? name.endsWith(pattern.slice(1)) : name === pattern)
}

/**
 * Validate the input and resolve the workspace (it must be an existing directory, named by an
 * absolute path). Fails with `sandbox-invalid` naming the field.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fn("SandboxProfile.make")(function*(input: ProfileInput) {
  if (!path.isAbsolute(input.workspace)) {
    return yield* error("sandbox-invalid", `workspace must be an absolute path, got ${input.workspace}`, "workspace")
  }
  if (!path.isAbsolute(input.home)) {
    return yield* error("sandbox-invalid", `home must be an absolute path, got ${input.home}`, "home")
  }
  const workspace = yield* Effect.try({
    try: () => fs.realpathSync(input.workspace),
    catch: () => error("sandbox-invalid", `workspace ${input.workspace} does not exist`, "workspace")
  })
  if (!fs.statSync(workspace).isDirectory()) {
    return yield* error("sandbox-invalid", `workspace ${input.workspace} is not a directory`, "workspace")
  }
  if (workspace === "/" || workspace === path.resolve(input.home)) {
    return yield* error(
      "sandbox-invalid",
      `workspace ${input.workspace} is the root or the home directory`,
      "workspace"
    )
  }
  const level = yield* Schema.decodeUnknown(Autonomy.Level)(input.level ?? Autonomy.defaultLevel).pipe(
    Effect.mapError(() => error("sandbox-invalid", `unknown level ${String(input.level)}`, "level"))
  )
  const policy = yield* Schema.decodeUnknown(SandboxPolicy, { onExcessProperty: "error" })(input.policy ?? {}).pipe(
    Effect.mapError((e) => error("sandbox-invalid", `invalid sandbox policy: ${e.message}`, "policy"))
  )
  return {
    workspace,
    home: input.home,
    level,
    writable: level !== "read_only",
    network: {
      allowDomains: (policy.allowDomains ?? []).map((d) => d.toLowerCase()),
      loopback: policy.loopback ?? []
    },
    limits: {
      cpuSeconds: policy.limits?.cpuSeconds ?? defaultLimits.cpuSeconds,
      memoryBytes: policy.limits?.memoryBytes ?? defaultLimits.memoryBytes,
      processes: policy.limits?.processes === undefined ? defaultLimits.processes : policy.limits.processes,
      fileSizeBytes: policy.limits?.fileSizeBytes ?? defaultLimits.fileSizeBytes
    },
    protect: policy.protect ?? []
  } satisfies Profile
})
