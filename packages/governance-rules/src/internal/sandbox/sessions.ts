/**
 * The session sandboxes of one layer: one persistent sandbox per profile, started on the first
 * command, reused while its boundary is current and it is free, closed when idle, when its
 * boundary changed (a new one is started) and when the layer closes.
 *
 * A command runs in its own bubblewrap instead (`null` here) when it needs the caller's terminal
 * (`stdio`/`stdin: "inherit"`: the supervisor cannot hand it over), when the profile's sandbox is
 * busy with another command (commands of a sandbox never overlap), when the host lacks a tool the
 * persistent mode needs, or when the layer was built with `persistent: false`.
 *
 * @internal
 */
import type * as Sandbox from "../../Sandbox.js"
import type { Profile } from "../../SandboxProfile.js"
import * as Host from "./host.js"
import { insideWiped, Persistent, tools } from "./persistent.js"
import * as Supervisor from "./supervisor.js"

// The least recently used sandbox is closed past this many (each holds a bubblewrap and a shell).
const POOL_SIZE = 4
const IDLE_MS = 120_000

/** @internal */
export interface Sessions {
  readonly run: (
    bwrap: string,
    profile: Profile,
    command: Sandbox.Command,
    cwd: string,
    signal: AbortSignal
  ) => Promise<Sandbox.Completed | null>
  /** Close every sandbox; `null` when there is none (nothing to wait for). */
  readonly close: () => Promise<void> | null
}

const eligible = (profile: Profile, command: Sandbox.Command, cwd: string): boolean =>
  command.stdio !== "inherit" && command.stdin !== "inherit" &&
  !insideWiped(profile.workspace) && !insideWiped(cwd) &&
  Supervisor.carriable([
    ...command.argv,
    cwd,
    ...Object.entries(command.env ?? {}).flat().filter((v) => v !== undefined)
  ])

/** @internal */
export const make = (options: Sandbox.LinuxOptions): Sessions => {
  const found = options.persistent === false || process.platform !== "linux" ? null : tools()
  const pool = new Map<string, Promise<Persistent>>()
  const idleMs = options.idleMs ?? IDLE_MS
  const failed = new Set<string>()
  let closing = false

  // The pool entry each sandbox came from: a key is only dropped while it still names that sandbox.
  const entries = new WeakMap<Persistent, Promise<Persistent>>()
  const drop = (key: string, sandbox: Persistent) => {
    if (pool.get(key) === entries.get(sandbox)) pool.delete(key)
    return sandbox.close()
  }

  const idle = (key: string, sandbox: Persistent) => {
    const timer = setTimeout(() => {
      if (!sandbox.busy && Date.now() - sandbox.lastUsed >= idleMs) void drop(key, sandbox)
    }, idleMs + 10)
    timer.unref()
  }

  // An idle sandbox over the pool's size goes (the least recently used first).
  const evict = async () => {
    const all = await Promise.all([...pool].map(async ([key, p]) => [key, await p.catch(() => null)] as const))
    const idleOnes = all.filter(([, s]) => s !== null && !s.busy).sort(([, a], [, b]) => a!.lastUsed - b!.lastUsed)
    while (pool.size >= POOL_SIZE && idleOnes.length > 0) {
      const [key, sandbox] = idleOnes.shift()!
      await drop(key, sandbox!)
    }
  }

  const sandboxFor = async (bwrap: string, profile: Profile, key: string): Promise<Persistent | null> => {
    const existing = pool.get(key)
    if (existing !== undefined) {
      const sandbox = await existing.catch(() => null)
      if (sandbox !== null && sandbox.busy) return null
      if (sandbox !== null && sandbox.current() && sandbox.claim()) return sandbox
      // ended, or its boundary is no longer the workspace's: replaced (a concurrent caller may have been first)
      if (pool.get(key) === existing) pool.delete(key)
      if (sandbox !== null && !sandbox.busy) await sandbox.close()
      if (pool.has(key)) return sandboxFor(bwrap, profile, key)
    }
    if (pool.size >= POOL_SIZE) {
      await evict()
      // another caller may have started this profile's sandbox meanwhile
      if (pool.has(key)) return sandboxFor(bwrap, profile, key)
    }
    const starting = Persistent.start({ bwrap, tools: found!, profile, runtime: Host.runtimeOf(options), options })
    pool.set(key, starting)
    // A sandbox that cannot start leaves its commands to per-command bubblewrap, which reports
    // any real failure of the boundary itself.
    const sandbox = await starting.catch(() => {
      if (pool.get(key) === starting) pool.delete(key)
      failed.add(key)
      return null
    })
    if (sandbox === null) return null
    entries.set(sandbox, starting)
    sandbox.warm()
    if (closing) {
      await drop(key, sandbox)
      return null
    }
    return sandbox.claim() ? sandbox : null
  }

  return {
    run: async (bwrap, profile, command, cwd, signal) => {
      if (found === null || closing || !eligible(profile, command, cwd)) return null
      const key = JSON.stringify(profile)
      if (failed.has(key)) return null
      const sandbox = await sandboxFor(bwrap, profile, key)
      if (sandbox === null) return null
      try {
        return await sandbox.run(command, cwd, signal)
      } finally {
        idle(key, sandbox)
      }
    },
    close: () => {
      closing = true
      const all = [...pool.values()]
      pool.clear()
      // synchronous when nothing was started (a layer used only for `availability` stays runSync-able)
      return all.length === 0
        ? null
        : Promise.all(all.map((p) => p.then((s) => s.close(), () => undefined))).then(() => undefined)
    }
  }
}
