/**
 * One command in its own bubblewrap: the proxy, the layout and the placeholders made for the call,
 * the control groups joined before bubblewrap starts, and everything undone when it ends. The
 * `steward sandbox` one-shot, commands that need the caller's terminal, and hosts without what
 * the persistent mode needs run this way.
 *
 * @internal
 */
import * as crypto from "node:crypto"
import * as path from "node:path"
import type * as Sandbox from "../../Sandbox.js"
import type { Profile } from "../../SandboxProfile.js"
import { error, usesNetwork } from "../../SandboxProfile.js"
import * as Bridge from "./bridge.js"
import * as Cgroup from "./cgroup.js"
import * as Host from "./host.js"
import * as Layout from "./layout.js"
import * as Placeholders from "./placeholders.js"
import * as Proxy from "./proxy.js"
import { spawn } from "./spawn.js"

let counter = 0

/** @internal */
export interface Execution {
  readonly options: Sandbox.LinuxOptions
  readonly bwrap: string
  readonly profile: Profile
  readonly command: Sandbox.Command
  readonly cwd: string
  readonly signal: AbortSignal
}

/** Run one command in its own bubblewrap. @internal */
export const execute = async (run: Execution): Promise<Sandbox.Completed> => {
  const { command, profile } = run
  const runtime = Host.runtimeOf(run.options)
  const name = `steward-${process.pid}-${++counter}-${crypto.randomBytes(3).toString("hex")}`
  const proxy = usesNetwork(profile)
    ? await Proxy.start({
      socket: path.join(runtime, `${name}.sock`),
      allowDomains: profile.network.allowDomains,
      loopback: profile.network.loopback,
      ...(run.options.resolve === undefined ? {} : { resolve: run.options.resolve })
    })
    : null
  const layout = Layout.plan({
    workspace: profile.workspace,
    home: profile.home,
    writable: profile.writable,
    cwd: run.cwd,
    emptyDir: path.join(runtime, "empty-dir"),
    fileWith: Host.fileWith(runtime),
    proxySocket: proxy?.socket ?? null,
    extraProtected: profile.protect,
    scanLimit: run.options.scanLimit ?? 20_000
  })
  const registryDir = Placeholders.registryDir(runtime, profile.workspace)
  let groups: Array<Cgroup.Group> = []
  let registry: Placeholders.Registry | null = null
  let locked = false
  try {
    groups = Host.groupsFor(profile, name)
    await Placeholders.lock(registryDir)
    locked = true
    registry = Placeholders.register(registryDir)
    await Placeholders.create(registryDir, layout.placeholders)
    const inner = proxy === null ? command.argv : Bridge.wrap(command.argv, profile.network.loopback)
    const env = Host.environment(command.env ?? process.env)
    const stdin = typeof command.stdin === "string" ? new TextEncoder().encode(command.stdin) : command.stdin ?? null
    const result = await spawn({
      bwrap: run.bwrap,
      bwrapArgs: layout.args,
      limits: Host.limitsOf(profile, groups.some((g) => g.controller === "memory")),
      joins: groups.map((g) => path.join(g.dir, "cgroup.procs")),
      inner,
      env: proxy === null ? env : { ...env, ...Bridge.proxyEnv },
      stdin,
      stdio: command.stdio ?? "pipe",
      timeoutMs: command.timeoutMs ?? null,
      maxOutputBytes: command.maxOutputBytes ?? 16 * 1024 * 1024,
      onStarted: () => {
        if (locked) Placeholders.unlock(registryDir)
        locked = false
      }
    }, run.signal)
    if (!result.started && !result.timedOut) {
      const why = new TextDecoder().decode(result.stderr).trim()
      throw error("sandbox-failed", `bubblewrap could not set up the sandbox: ${why || `exit ${result.exitCode}`}`)
    }
    const killed = groups.reduce((n, g) => n + Cgroup.killAll(g), 0)
    return {
      exitCode: result.timedOut ? null : result.exitCode,
      timedOut: result.timedOut,
      stdout: result.stdout,
      stderr: result.stderr,
      truncated: result.truncated,
      processLimitHit: groups.some((g) => g.controller === "pids" && Cgroup.limitHit(g)),
      memoryLimitHit: groups.some((g) => g.controller === "memory" && Cgroup.limitHit(g)),
      killedAfterExit: killed,
      boundary: {
        backend: "bubblewrap",
        mode: "per-command",
        writable: profile.writable ? [profile.workspace, "/tmp (private)"] : ["/tmp (private)"],
        protectedPaths: layout.protectedPaths,
        maskedPaths: layout.maskedPaths,
        network: proxy === null ? "none" : "proxy",
        allowDomains: profile.network.allowDomains,
        scanTruncated: layout.scanTruncated
      }
    }
  } finally {
    for (const group of groups) Cgroup.remove(group)
    if (!locked) await Placeholders.lock(registryDir)
    try {
      if (registry !== null) await Placeholders.release(registry)
    } finally {
      Placeholders.unlock(registryDir)
    }
    await proxy?.close()
  }
}
