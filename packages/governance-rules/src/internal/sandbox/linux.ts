/**
 * The Linux `Sandbox` service: bubblewrap for the namespaces and mounts, control groups for the
 * tree's process and memory limits, rlimits (set by a shell inside, just before the command) for
 * CPU time and file size, and the filtering proxy for allowed domains.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as childProcess from "node:child_process"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type * as Sandbox from "../../Sandbox.js"
import type { Profile } from "../../SandboxProfile.js"
import { error, type SandboxError, usesNetwork } from "../../SandboxProfile.js"
import * as Bridge from "./bridge.js"
import * as Cgroup from "./cgroup.js"
import * as Layout from "./layout.js"
import * as Placeholders from "./placeholders.js"
import * as Proxy from "./proxy.js"
import { spawn } from "./spawn.js"

/** @internal */
export const shellPath = (): string => fs.existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh"

const which = (name: string): string | null => {
  if (name.includes("/")) return fs.existsSync(name) ? name : null
  for (const dir of (process.env["PATH"] ?? "/usr/bin:/bin").split(":")) {
    const candidate = path.join(dir, name)
    try {
      fs.accessSync(candidate, fs.constants.X_OK)
      return candidate
    } catch {
      // next
    }
  }
  return null
}

// Variables whose name says they hold a credential; the command does not inherit them.
const SECRET_ENV = /TOKEN|SECRET|PASSW(OR)?D|CREDENTIAL|API_?KEY|PRIVATE_KEY|ACCESS_KEY|SESSION_KEY|AUTH/i
const DROPPED_ENV = new Set(["SSH_AUTH_SOCK", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS", "LD_PRELOAD"])

const environment = (given: Readonly<Record<string, string | undefined>>): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined || SECRET_ENV.test(name) || DROPPED_ENV.has(name) || /_PROXY$/i.test(name)) continue
    env[name] = value
  }
  env["TMPDIR"] = "/tmp"
  return env
}

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
  const trial = childProcess.spawnSync(
    bwrap,
    ["--ro-bind", "/", "/", "--unshare-pid", "--unshare-net", "--cap-drop", "ALL", "--", "/bin/true"],
    { encoding: "utf8", timeout: 10_000 }
  )
  if (trial.status !== 0) {
    const why = (trial.stderr ?? "").trim() || trial.error?.message || `exit ${trial.status}`
    return { bwrap, availability: { available: false, reason: `bubblewrap cannot make namespaces here: ${why}` } }
  }
  const version = childProcess.spawnSync(bwrap, ["--version"], { encoding: "utf8" }).stdout.trim()
  return { bwrap, availability: { available: true, backend: "bubblewrap", detail: `${version} at ${bwrap}` } }
}

const runtimeOf = (options: Sandbox.LinuxOptions): string => {
  const dir = options.runtimeDir ?? path.join(os.tmpdir(), `steward-sandbox-${process.getuid?.() ?? "user"}`)
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  const emptyDir = path.join(dir, "empty-dir")
  if (!fs.existsSync(emptyDir)) fs.mkdirSync(emptyDir, { mode: 0o555 })
  return dir
}

// A read-only file holding `content` (masks and placeholders are bound from these).
const fileWith = (runtime: string) => (content: string): string => {
  const file = path.join(runtime, `file-${crypto.createHash("sha256").update(content).digest("hex").slice(0, 16)}`)
  if (!fs.existsSync(file)) {
    const temporary = `${file}.${process.pid}.${crypto.randomBytes(4).toString("hex")}`
    fs.writeFileSync(temporary, content, { mode: 0o444 })
    fs.renameSync(temporary, file)
  }
  return file
}

// Per-process rlimits, set by the shell that becomes bubblewrap (every process inherits them).
const limitsOf = (profile: Profile, memoryByGroup: boolean): ReadonlyArray<string> => [
  `ulimit -t ${profile.limits.cpuSeconds}`,
  // dash and bash in POSIX mode count -f in 512-byte blocks
  `ulimit -f ${Math.ceil(profile.limits.fileSizeBytes / 512)}`,
  ...(memoryByGroup ? [] : [`ulimit -d ${Math.ceil(profile.limits.memoryBytes / 1024)}`])
]

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

let counter = 0

/** @internal */
export const make = (options: Sandbox.LinuxOptions): Sandbox.Service => {
  let probed: Probe | undefined
  const probeOnce = () => probed ??= probe(options)

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
        try: (signal) => execute({ options, bwrap, profile, command, cwd, signal }),
        catch: (cause) =>
          cause instanceof Error && "_tag" in cause && cause._tag === "SandboxError"
            ? cause as SandboxError
            : error("sandbox-failed", `the sandbox could not run the command: ${String(cause)}`)
      })
    })

  return {
    availability: Effect.sync(() => probeOnce().availability),
    run
  }
}

interface Execution {
  readonly options: Sandbox.LinuxOptions
  readonly bwrap: string
  readonly profile: Profile
  readonly command: Sandbox.Command
  readonly cwd: string
  readonly signal: AbortSignal
}

const groupsFor = (profile: Profile, name: string) => {
  const groups: Array<Cgroup.Group> = []
  if (profile.limits.processes !== null) {
    const pids = Cgroup.create("pids", name, profile.limits.processes)
    if (pids === null) {
      throw error(
        "sandbox-unavailable",
        "no writable pids control group to enforce the process limit (as root RLIMIT_NPROC does not apply); " +
          "set limits.processes: null to run without one"
      )
    }
    groups.push(pids)
  }
  const memory = Cgroup.create("memory", name, profile.limits.memoryBytes)
  if (memory !== null) groups.push(memory)
  return groups
}

const execute = async (run: Execution): Promise<Sandbox.Completed> => {
  const { command, profile } = run
  const runtime = runtimeOf(run.options)
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
    fileWith: fileWith(runtime),
    proxySocket: proxy?.socket ?? null,
    extraProtected: profile.protect,
    scanLimit: run.options.scanLimit ?? 20_000
  })
  const registryDir = Placeholders.registryDir(runtime, profile.workspace)
  let groups: Array<Cgroup.Group> = []
  let registry: Placeholders.Registry | null = null
  let locked = false
  try {
    groups = groupsFor(profile, name)
    await Placeholders.lock(registryDir)
    locked = true
    registry = Placeholders.register(registryDir)
    await Placeholders.create(registryDir, layout.placeholders)
    const inner = proxy === null ? command.argv : Bridge.wrap(command.argv, profile.network.loopback)
    const env = environment(command.env ?? process.env)
    const stdin = typeof command.stdin === "string" ? new TextEncoder().encode(command.stdin) : command.stdin ?? null
    const result = await spawn({
      bwrap: run.bwrap,
      bwrapArgs: layout.args,
      limits: limitsOf(profile, groups.some((g) => g.controller === "memory")),
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
