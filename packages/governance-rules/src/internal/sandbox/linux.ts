/**
 * The Linux `Sandbox` service: bubblewrap for the namespaces and mounts, control groups for the
 * tree's process and memory limits, rlimits for CPU time and file size, and the filtering proxy
 * for allowed domains. A command runs in the profile's session sandbox (`sessions.ts`) when it
 * can, else in its own bubblewrap (`oneShot.ts`).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import type * as Sandbox from "../../Sandbox.js"
import type { Profile } from "../../SandboxProfile.js"
import { error, type SandboxError } from "../../SandboxProfile.js"
import { which } from "./host.js"
import * as OneShot from "./oneShot.js"
import * as ProbeCache from "./probeCache.js"
import * as Sessions from "./sessions.js"

/** @internal */
export const shellPath = (): string => fs.existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh"

interface Probe {
  readonly bwrap: string | null
  readonly availability: Sandbox.Availability
}

const probe = (options: Sandbox.LinuxOptions): Probe => {
  if (process.platform !== "linux") return { bwrap: null, availability: { available: false, reason: "not Linux" } }
  const bwrap = which(options.bwrap ?? "bwrap")
  if (bwrap === null) {
    return {
      bwrap,
      availability: {
        available: false,
        reason: "bubblewrap (bwrap) is not installed (Debian: apt-get install bubblewrap)"
      }
    }
  }
  const key = options.probeCache === undefined ? null : ProbeCache.keyOf(bwrap)
  const cached = key === null ? null : ProbeCache.read(options.probeCache!, key)
  if (cached !== null) return { bwrap, availability: cached }
  const probed = trial(bwrap)
  if (key !== null) ProbeCache.write(options.probeCache!, key, probed)
  return { bwrap, availability: probed }
}

// A bubblewrap run with the namespaces the sandbox needs: whether they can be made here.
const trial = (bwrap: string): Sandbox.Availability => {
  const trial = childProcess.spawnSync(
    bwrap,
    ["--ro-bind", "/", "/", "--unshare-pid", "--unshare-net", "--cap-drop", "ALL", "--", "/bin/true"],
    { encoding: "utf8", timeout: 10_000 }
  )
  if (trial.status !== 0) {
    const why = (trial.stderr ?? "").trim() || trial.error?.message || `exit ${trial.status}`
    return { available: false, reason: `bubblewrap cannot make namespaces here: ${why}` }
  }
  const version = childProcess.spawnSync(bwrap, ["--version"], { encoding: "utf8" }).stdout.trim()
  return { available: true, backend: "bubblewrap", detail: `${version} at ${bwrap}` }
}

const insideWorkspace = (profile: Profile, cwd: string | undefined): string | null => {
  if (cwd === undefined) return profile.workspace
  const resolved = path.resolve(profile.workspace, cwd)
  let real: string
  try {
    real = fs.realpathSync(resolved)
  } catch {
    return null
  }
  return real === profile.workspace || real.startsWith(profile.workspace + path.sep) ? real : null
}

/** @internal */
export interface Linux {
  readonly service: Sandbox.Service
  /** Close every session sandbox (the layer's finalizer); `null` when none was started. */
  readonly close: () => Promise<void> | null
}

/** @internal */
export const make = (options: Sandbox.LinuxOptions): Linux => {
  let probed: Probe | undefined
  const probeOnce = () => probed ??= probe(options)
  const pool = Sessions.make(options)

  const run = (profile: Profile, command: Sandbox.Command) =>
    Effect.gen(function*() {
      const { availability, bwrap } = probeOnce()
      if (!availability.available || bwrap === null) {
        return yield* error("sandbox-unavailable", availability.available ? "no bubblewrap" : availability.reason)
      }
      const cwd = insideWorkspace(profile, command.cwd)
      if (cwd === null) {
        return yield* error("sandbox-invalid", `cwd ${command.cwd} is not a directory inside the workspace`, "cwd")
      }
      return yield* Effect.tryPromise({
        try: async (signal) =>
          await pool.run(bwrap, profile, command, cwd, signal) ??
            OneShot.execute({ options, bwrap, profile, command, cwd, signal }),
        catch: (cause) =>
          cause instanceof Error && "_tag" in cause && cause._tag === "SandboxError"
            ? cause as SandboxError
            : error("sandbox-failed", `the sandbox could not run the command: ${String(cause)}`)
      })
    })

  return {
    service: { availability: Effect.sync(() => probeOnce().availability), run },
    close: pool.close
  }
}
