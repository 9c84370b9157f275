/**
 * The boundary under the gate: run one command so that what it does stays inside the workspace.
 * The Linux layer builds it with bubblewrap — the filesystem read-only except the workspace and a
 * private `/tmp`; inside the workspace the `ProtectedPaths` read-only (missing ones cannot be
 * created) and secrets masked; no network but the sandbox's own loopback, or allowed domains
 * through Steward's filtering proxy; a new PID namespace whose whole tree is killed when the call
 * ends or times out; CPU, memory, process and file-size limits. Where no boundary can be built the
 * service fails with `sandbox-unavailable` — never runs the command unconfined. The commands of
 * one profile share a persistent sandbox (one bubblewrap; a PID namespace, session and control
 * groups per command), re-checked before each command and replaced when the workspace's secrets
 * or protected paths changed (ADR 0217).
 *
 * Public API for hosts (the harness's shell tool, `steward sandbox`, agent-CLI hooks):
 *
 * - `Sandbox` (tag) with `availability` and `run(profile, command)`;
 * - `layerLinux(options?)` (bubblewrap), `layerUnavailable(reason)`, `layerMemory(handler)` (tests);
 * - `SandboxProfile.make({ workspace, home, level, policy })` builds the profile;
 * - `shell(command)` turns a shell command line into the argv to run.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Sandbox, SandboxProfile } from "@steward/governance-rules"
 *
 * const program = Effect.gen(function*() {
 *   const sandbox = yield* Sandbox.Sandbox
 *   const profile = yield* SandboxProfile.make({ workspace: "/srv/app", home: "/home/dev", level: "execute" })
 *   const done = yield* sandbox.run(profile, { argv: Sandbox.shell("npm test"), timeoutMs: 600_000 })
 *   return done.exitCode
 * }).pipe(Effect.provide(Sandbox.layerLinux()))
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Linux from "./internal/sandbox/linux.js"
import type * as SandboxProfile from "./SandboxProfile.js"
import { error, type SandboxError } from "./SandboxProfile.js"

/**
 * One command to run: its argv (`shell(line)` for a shell command line), the directory it starts
 * in (inside the workspace; default the workspace), its environment (default: the host's, with
 * secret-looking variables removed), stdin, whether output is collected (`pipe`, default) or
 * passed through (`inherit`, for a CLI), a timeout and an output cap.
 *
 * @since 0.1.0
 * @category models
 */
export interface Command {
  readonly argv: readonly [string, ...Array<string>]
  readonly cwd?: string
  readonly env?: Readonly<Record<string, string | undefined>>
  readonly stdin?: Uint8Array | string | "inherit"
  readonly stdio?: "pipe" | "inherit"
  readonly timeoutMs?: number
  /** Per stream; the rest is dropped and `truncated` set (default 16 MiB). */
  readonly maxOutputBytes?: number
}

/**
 * How a call ended. `exitCode` is the command's own (128 + signal when a signal ended it, `null`
 * after a timeout); the limit flags say whether the tree hit its process or memory limit.
 *
 * @since 0.1.0
 * @category models
 */
export interface Completed {
  readonly exitCode: number | null
  readonly timedOut: boolean
  readonly stdout: Uint8Array
  readonly stderr: Uint8Array
  readonly truncated: boolean
  readonly processLimitHit: boolean
  readonly memoryLimitHit: boolean
  /** Processes still alive in the tree's control group after the call, killed by Steward. */
  readonly killedAfterExit: number
  /** What the boundary held: read-only paths, masked paths, allowed domains. */
  readonly boundary: Boundary
}

/**
 * What one call's boundary held (for evidence and `policy check`'s `sandbox` key).
 *
 * @since 0.1.0
 * @category models
 */
export interface Boundary {
  readonly backend: "bubblewrap" | "memory"
  /**
   * `persistent`: the command ran in its profile's session sandbox (one bubblewrap per profile,
   * a PID namespace and control groups per command: ADR 0217); `per-command`: in its own bubblewrap.
   */
  readonly mode: "persistent" | "per-command"
  readonly writable: ReadonlyArray<string>
  readonly protectedPaths: ReadonlyArray<string>
  readonly maskedPaths: ReadonlyArray<string>
  readonly network: "none" | "proxy"
  readonly allowDomains: ReadonlyArray<string>
  /** The secret scan stopped at its limit: secrets past it are not masked. */
  readonly scanTruncated: boolean
}

/**
 * Whether a boundary can be built here, and if not why.
 *
 * @since 0.1.0
 * @category models
 */
export type Availability =
  | { readonly available: true; readonly backend: "bubblewrap" | "memory"; readonly detail: string }
  | { readonly available: false; readonly reason: string }

/**
 * The service.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly availability: Effect.Effect<Availability>
  readonly run: (profile: SandboxProfile.Profile, command: Command) => Effect.Effect<Completed, SandboxError>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class Sandbox extends Context.Tag("@steward/governance-rules/Sandbox")<Sandbox, Service>() {}

/**
 * The argv that runs a shell command line (`/bin/bash -c`, or `/bin/sh` where there is no bash).
 *
 * @since 0.1.0
 * @category constructors
 */
export const shell = (command: string): readonly [string, ...Array<string>] => [Linux.shellPath(), "-c", command]

/**
 * Options of the Linux layer.
 *
 * @since 0.1.0
 * @category models
 */
export interface LinuxOptions {
  /** The bubblewrap executable (default: `bwrap` on `PATH`). */
  readonly bwrap?: string
  /** Where per-workspace run records and the proxy's sockets live (default: `$TMPDIR/steward-sandbox-<uid>`). */
  readonly runtimeDir?: string
  /** How the proxy resolves a host name to addresses (default: the system resolver). */
  readonly resolve?: (host: string) => Promise<ReadonlyArray<string>>
  /** At most this many workspace entries are scanned for secrets per call (default 20,000). */
  readonly scanLimit?: number
  /**
   * Run commands in one persistent sandbox per profile, started on its first command and closed
   * with the layer (default `true`); `false`: every command in its own bubblewrap. Commands that
   * inherit the caller's terminal always get their own (ADR 0217).
   */
  readonly persistent?: boolean
  /** A session sandbox idle this long is closed (default 120,000 ms). */
  readonly idleMs?: number
  /**
   * A directory (the host's state directory) where the availability probe's result is kept and
   * reused while the bwrap binary, the kernel, the user and the user-namespace settings are
   * unchanged, so a process start does not spawn a trial bubblewrap each time. Unset: probed in
   * every process (once, on first use).
   */
  readonly probeCache?: string
}

/**
 * The bubblewrap layer. Availability is probed once, on first use; every `run` on an unavailable
 * host fails with `sandbox-unavailable`. The session sandboxes it starts (one per profile, see
 * `LinuxOptions.persistent`) are closed when the layer's scope closes.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerLinux = (options: LinuxOptions = {}): Layer.Layer<Sandbox> =>
  Layer.scoped(
    Sandbox,
    Effect.map(
      Effect.acquireRelease(Effect.sync(() => Linux.make(options)), (linux) =>
        Effect.suspend(() => {
          const closing = linux.close()
          return closing === null ? Effect.void : Effect.promise(() => closing)
        })),
      (linux) => linux.service
    )
  )

/**
 * A layer where no boundary exists (macOS today, or a host that opts out): every `run` fails with
 * `sandbox-unavailable` naming `reason`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerUnavailable = (reason: string): Layer.Layer<Sandbox> =>
  Layer.succeed(
    Sandbox,
    Sandbox.of({
      availability: Effect.succeed({ available: false, reason }),
      run: () => Effect.fail(error("sandbox-unavailable", reason))
    })
  )

/**
 * A test layer: runs nothing; `handler` answers each call (and can record it).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = (
  handler: (
    profile: SandboxProfile.Profile,
    command: Command
  ) => Partial<Pick<Completed, "exitCode" | "stdout" | "stderr" | "timedOut">>
): Layer.Layer<Sandbox> =>
  Layer.succeed(
    Sandbox,
    Sandbox.of({
      availability: Effect.succeed({ available: true, backend: "memory", detail: "in-memory test layer" }),
      run: (profile, command) =>
        Effect.sync(() => {
          const answer = handler(profile, command)
          return {
            exitCode: answer.exitCode ?? 0,
            timedOut: answer.timedOut ?? false,
            stdout: answer.stdout ?? new Uint8Array(),
            stderr: answer.stderr ?? new Uint8Array(),
            truncated: false,
            processLimitHit: false,
            memoryLimitHit: false,
            killedAfterExit: 0,
            boundary: {
              backend: "memory",
              mode: "per-command",
              writable: profile.writable ? [profile.workspace] : [],
              protectedPaths: [],
              maskedPaths: [],
              network: profile.network.allowDomains.length > 0 ? "proxy" : "none",
              allowDomains: profile.network.allowDomains,
              scanTruncated: false
            }
          }
        })
    })
  )

/**
 * The layer for this host: bubblewrap on Linux, `layerUnavailable` elsewhere (macOS has no
 * generated Seatbelt profile yet: ADR 0212).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: LinuxOptions = {}): Layer.Layer<Sandbox> =>
  process.platform === "linux"
    ? layerLinux(options)
    : layerUnavailable(`no sandbox backend on ${process.platform} (Linux with bubblewrap only)`)
