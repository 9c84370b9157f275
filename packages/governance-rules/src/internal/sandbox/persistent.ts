/**
 * A persistent sandbox: bubblewrap started once for a profile (its mounts, network namespace,
 * proxy and rlimits), with the supervisor (`supervisor.ts`) as its PID 1; each command is then a
 * request to the supervisor instead of a new bubblewrap — most of what bubblewrap costs (the
 * namespaces, above all the network one, and the mounts) is paid once per session.
 *
 * Per command, what per-command bubblewrap gave still holds:
 *
 * - **the tree dies with the command**: it is the init of its own PID namespace; a timeout kills
 *   it (and whatever is in its control groups);
 * - **limits per command**: before the supervisor forks, Steward moves it into the command's
 *   control groups (pids, memory), so the command is born there; it moves the supervisor back once
 *   the fork is done (the supervisor is single-threaded: the move is exact). CPU time and file size
 *   are rlimits every process inherits, counted per process as before;
 * - **the boundary is current**: before each command the layout is planned again and checked
 *   against the sandbox's mounts (`freshness.ts`); a secret created on the host since, a protected
 *   path that appeared, or a mounted-over file replaced by a rename (which detaches the mount)
 *   makes the caller start a new sandbox instead;
 * - **nothing carries over**: commands run one at a time; after each, its control groups must be
 *   empty (else the sandbox is closed) and the private `/tmp`, `/var/tmp`, `/dev/shm` and `/run`
 *   are emptied, so the next command starts as in a fresh sandbox (the workspace aside, as before).
 *
 * @internal
 */
import * as childProcess from "node:child_process"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import type * as Sandbox from "../../Sandbox.js"
import type { Profile } from "../../SandboxProfile.js"
import { error, usesNetwork } from "../../SandboxProfile.js"
import * as Bridge from "./bridge.js"
import * as Cgroup from "./cgroup.js"
import * as Freshness from "./freshness.js"
import * as Host from "./host.js"
import * as Layout from "./layout.js"
import * as Placeholders from "./placeholders.js"
import * as Proxy from "./proxy.js"
import { Collector, join } from "./spawn.js"
import * as Supervisor from "./supervisor.js"

/** The programs the persistent mode needs besides bubblewrap. @internal */
export interface Tools {
  readonly perl: string
  readonly mkfifo: string
}

/** The tools, or `null` when one is missing (the caller then runs each command in its own bubblewrap). @internal */
export const tools = (): Tools | null => {
  const perl = Host.which("perl")
  const mkfifo = Host.which("mkfifo")
  return perl === null || mkfifo === null || !Supervisor.supported() ? null : { perl, mkfifo }
}

/** @internal */
export interface StartInput {
  readonly bwrap: string
  readonly tools: Tools
  readonly profile: Profile
  readonly runtime: string
  readonly options: Sandbox.LinuxOptions
}

/** Answers from the supervisor's stdout, one line each, awaited in order. */
class Lines {
  private buffer = ""
  private readonly lines: Array<string> = []
  private readonly waiters: Array<{ resolve: (line: string) => void; reject: (cause: Error) => void }> = []
  private failure: Error | null = null
  push(chunk: string) {
    this.buffer += chunk
    for (let end = this.buffer.indexOf("\n"); end >= 0; end = this.buffer.indexOf("\n")) {
      const line = this.buffer.slice(0, end)
      this.buffer = this.buffer.slice(end + 1)
      const waiter = this.waiters.shift()
      if (waiter === undefined) this.lines.push(line)
      else waiter.resolve(line)
    }
  }
  fail(cause: Error) {
    this.failure = cause
    for (const waiter of this.waiters.splice(0)) waiter.reject(cause)
  }
  next(): Promise<string> {
    const line = this.lines.shift()
    if (line !== undefined) return Promise.resolve(line)
    if (this.failure !== null) return Promise.reject(this.failure)
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }))
  }
}

// The supervisor keeps the two capabilities it needs to give each command a PID namespace and to
// drop every capability before the command runs; it is PID 1 (no bubblewrap init in between).
const supervisorArgs = (args: ReadonlyArray<string>, io: string): Array<string> => {
  const out = [...args]
  const drop = out.indexOf("--cap-drop")
  out.splice(drop + 2, 0, "--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETPCAP", "--as-pid-1")
  out.push("--ro-bind", io, Supervisor.IO_DIR)
  return out
}

// A FIFO read to its end: Steward holds a write end too, so the reader never sees an early end
// before the command opens it; closing that end after the command's namespace died ends the read.
const openFifo = (file: string, max: number) => {
  const reader = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
  const writer = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK)
  const collector = new Collector(max)
  const socket = new net.Socket({ fd: reader, readable: true, writable: false })
  socket.on("data", (chunk: Buffer) => collector.add(chunk))
  const ended = new Promise<void>((resolve) => {
    socket.on("close", () => resolve())
    socket.on("error", () => resolve())
  })
  return {
    collector,
    finish: async () => {
      fs.closeSync(writer)
      await ended
    },
    abandon: () => {
      fs.closeSync(writer)
      socket.destroy()
    }
  }
}

const childrenOf = (pid: number): ReadonlyArray<number> => {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(
      Number
    )
  } catch {
    return []
  }
}

// The sandbox's private writable directories, reached through the supervisor's root. Only real
// directories are entered (an absolute link there would resolve on the host) and nothing runs
// inside while they are emptied.
const WIPED = ["tmp", "var/tmp", "dev/shm", "run", "var/run"]
const KEPT_IN_RUN = new Set(["steward"])

const isDir = (p: string) => fs.lstatSync(p, { throwIfNoEntry: false })?.isDirectory() === true

/**
 * Whether a path lies in one of the directories emptied after each command. Such a workspace (one
 * made with `mkdtemp`, say) is bound inside the private `/tmp`: its commands keep per-command
 * bubblewrap, since emptying `/tmp` would take the workspace's mount with it.
 *
 * @internal
 */
export const insideWiped = (p: string): boolean =>
  WIPED.some((relative) => p === `/${relative}` || p.startsWith(`/${relative}/`))

// Remove an entry of the sandbox's own file system: an entry on another device is a mount
// (the workspace, a mask) and is never entered, so emptying can only touch the sandbox's tmpfs.
const removeWithin = (entry: string, device: number): void => {
  const stat = fs.lstatSync(entry, { throwIfNoEntry: false })
  if (stat === undefined || stat.dev !== device) return
  try {
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(entry)) removeWithin(path.join(entry, name), device)
      fs.rmdirSync(entry)
    } else fs.unlinkSync(entry)
  } catch {
    // a directory still holding a mount stays; nothing in it is the sandbox's to remove
  }
}

const wipe = (root: string) => {
  for (const relative of WIPED) {
    let dir = root
    let real = true
    for (const part of relative.split("/")) {
      dir = path.join(dir, part)
      if (!isDir(dir)) real = false
    }
    if (!real) continue
    const device = fs.lstatSync(dir).dev
    for (const name of fs.readdirSync(dir)) {
      if (relative.endsWith("run") && KEPT_IN_RUN.has(name)) continue
      removeWithin(path.join(dir, name), device)
    }
  }
  const steward = path.join(root, "run", "steward")
  if (!isDir(steward)) return
  const device = fs.lstatSync(steward).dev
  for (const name of fs.readdirSync(steward)) {
    if (name !== "io" && name !== "proxy.sock") removeWithin(path.join(steward, name), device)
  }
}

// Kill bubblewrap's process group (the sandbox's PID namespace dies with its init, the supervisor).
const stop = (child: childProcess.ChildProcess): Promise<void> => {
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve()
    else child.on("close", () => resolve())
  })
  try {
    if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
  } catch {
    // gone already
  }
  return exited
}

/** @internal */
export class Persistent {
  busy = false
  private closed = false
  private count = 0
  lastUsed = Date.now()

  private constructor(
    private readonly input: StartInput,
    private readonly name: string,
    private readonly dir: string,
    private readonly child: childProcess.ChildProcess,
    private readonly lines: Lines,
    readonly supervisor: number,
    private readonly layoutInput: Layout.LayoutInput,
    private readonly mounts: Freshness.Mounts,
    readonly layout: Layout.Layout,
    private readonly proxy: Proxy.Proxy | null,
    private readonly registry: Placeholders.Registry,
    private readonly stderr: Collector
  ) {}

  /** Start bubblewrap and the supervisor for a profile. */
  static start = async (input: StartInput): Promise<Persistent> => {
    const { profile, runtime } = input
    const name = `steward-s-${process.pid}-${crypto.randomBytes(4).toString("hex")}`
    const dir = path.join(runtime, name)
    const io = path.join(dir, "io")
    fs.mkdirSync(io, { recursive: true, mode: 0o700 })
    const fifos = childProcess.spawnSync(input.tools.mkfifo, ["-m", "600", path.join(io, "out"), path.join(io, "err")])
    if (fifos.status !== 0) throw new Error(`mkfifo failed: ${fifos.stderr.toString().trim()}`)
    const proxy = usesNetwork(profile)
      ? await Proxy.start({
        socket: path.join(dir, "proxy.sock"),
        allowDomains: profile.network.allowDomains,
        loopback: profile.network.loopback,
        ...(input.options.resolve === undefined ? {} : { resolve: input.options.resolve })
      })
      : null
    const layoutInput: Layout.LayoutInput = {
      workspace: profile.workspace,
      home: profile.home,
      writable: profile.writable,
      cwd: profile.workspace,
      emptyDir: path.join(runtime, "empty-dir"),
      fileWith: Host.fileWith(runtime),
      proxySocket: proxy?.socket ?? null,
      extraProtected: profile.protect,
      scanLimit: input.options.scanLimit ?? 20_000
    }
    const layout = Layout.plan(layoutInput)
    const registryDir = Placeholders.registryDir(runtime, profile.workspace)
    await Placeholders.lock(registryDir)
    let locked = true
    const registry = Placeholders.register(registryDir)
    const unlock = () => {
      if (locked) Placeholders.unlock(registryDir)
      locked = false
    }
    let child: childProcess.ChildProcess | null = null
    try {
      await Placeholders.create(registryDir, layout.placeholders)
      // Recorded before bubblewrap mounts anything: a file replaced in between shows as changed
      // at the first check (a fresh sandbox), never the other way round.
      const mounts = Freshness.record(layout)
      const memoryByGroup = Cgroup.parentOf("memory") !== null
      child = childProcess.spawn("/bin/sh", [
        "-c",
        join(Host.limitsOf(profile, memoryByGroup)),
        "steward-sandbox",
        "--",
        input.bwrap,
        "--json-status-fd",
        "3",
        ...supervisorArgs(layout.args, io),
        "--",
        ...Supervisor.argv(input.tools.perl)
      ], { env: {}, detached: true, stdio: ["pipe", "pipe", "pipe", "pipe"] })
      const lines = new Lines()
      const stderr = new Collector(64 * 1024)
      child.stdout!.on("data", (chunk: Buffer) => lines.push(chunk.toString("utf8")))
      child.stderr!.on("data", (chunk: Buffer) => stderr.add(chunk))
      child.stdin!.on("error", () => {})
      child.on("close", () => lines.fail(new Error(`the sandbox ended: ${new TextDecoder().decode(stderr.bytes())}`)))
      child.on("error", (cause) => lines.fail(cause))
      let status = ""
      const statusStream = child.stdio[3] as NodeJS.ReadableStream
      const started = new Promise<number>((resolve) => {
        statusStream.on("data", (chunk: Buffer) => {
          status += chunk.toString("utf8")
          const pid = /"child-pid":\s*(\d+)/.exec(status)
          if (pid !== null) resolve(Number(pid[1]))
        })
      })
      const ready = await lines.next()
      if (ready !== "ready") throw new Error(`the supervisor did not start: ${ready}`)
      const supervisor = await started
      unlock()
      return new Persistent(
        input,
        name,
        dir,
        child,
        lines,
        supervisor,
        layoutInput,
        mounts,
        layout,
        proxy,
        registry,
        stderr
      )
    } catch (cause) {
      if (child !== null) await stop(child)
      if (!locked) await Placeholders.lock(registryDir)
      try {
        await Placeholders.release(registry)
      } finally {
        Placeholders.unlock(registryDir)
      }
      await proxy?.close()
      fs.rmSync(dir, { recursive: true, force: true })
      throw cause
    }
  }

  get alive(): boolean {
    return !this.closed && this.child.exitCode === null && this.child.signalCode === null
  }

  /** Whether the boundary this sandbox was built with is still the one the workspace needs. */
  current(): boolean {
    return this.alive && Freshness.holds(this.mounts, Layout.plan(this.layoutInput))
  }

  /** Take the sandbox for one command; `false` when another command holds it. */
  claim(): boolean {
    if (this.busy || !this.alive) return false
    this.busy = true
    return true
  }

  // The next command's init and control groups, made while the sandbox is idle: the supervisor
  // sits in the groups only for the fork, so every process of the command is born in them.
  private prepared:
    | Promise<{ readonly id: string; readonly groups: Array<Cgroup.Group>; readonly go: string }>
    | null = null

  private prepare = async () => {
    const id = String(++this.count)
    const groups = Host.groupsFor(this.input.profile, `${this.name}-${id}`)
    try {
      for (const group of groups) Cgroup.enter(group, this.supervisor)
      this.child.stdin!.write(`prepare ${id}\n`)
      const answer = await this.lines.next()
      const fd = new RegExp(`^prepared ${id} (\\d+)$`).exec(answer)
      if (fd === null) throw new Error(`the supervisor answered ${answer}`)
      return { id, groups, go: `/proc/${this.supervisor}/fd/${fd[1]}` }
    } catch (cause) {
      for (const group of groups) Cgroup.remove(group)
      throw cause
    } finally {
      for (const group of groups) Cgroup.leave(group, this.supervisor)
    }
  }

  /** Make the next command's init ahead, unless a command holds the sandbox (it makes its own). */
  warm = (): void => {
    if (this.prepared !== null || this.busy || !this.alive) return
    this.prepared = this.prepare()
    this.prepared.catch(() => {})
  }

  /** Run one command (after `claim`). */
  run = async (command: Sandbox.Command, cwd: string, signal: AbortSignal): Promise<Sandbox.Completed> => {
    const { profile } = this.input
    const io = path.join(this.dir, "io")
    const max = command.maxOutputBytes ?? 16 * 1024 * 1024
    let groups: Array<Cgroup.Group> = []
    let out: ReturnType<typeof openFifo> | null = null
    let err: ReturnType<typeof openFifo> | null = null
    let clean = false
    try {
      const prepared = await (this.prepared ?? this.prepare())
      this.prepared = null
      const id = prepared.id
      groups = prepared.groups
      let input = "/dev/null"
      if (command.stdin instanceof Uint8Array || typeof command.stdin === "string") {
        fs.writeFileSync(path.join(io, "in"), command.stdin, { mode: 0o600 })
        input = `${Supervisor.IO_DIR}/in`
      }
      out = openFifo(path.join(io, "out"), max)
      err = openFifo(path.join(io, "err"), max)
      const env = Host.environment(command.env ?? process.env)
      const argv = this.proxy === null ? command.argv : Bridge.wrap(command.argv, profile.network.loopback)
      const request = Supervisor.encode({
        cwd,
        stdin: input,
        env: this.proxy === null ? env : { ...env, ...Bridge.proxyEnv },
        argv
      })
      fs.writeFileSync(path.join(io, "request"), request, { mode: 0o600 })
      // the init waits on its pipe; the supervisor already waits for the init
      // (non-blocking: an init that is gone fails the open instead of hanging it)
      const go = fs.openSync(prepared.go, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK)
      try {
        fs.writeSync(go, "go\n")
      } finally {
        fs.closeSync(go)
      }
      let timedOut = false
      const kill = () => {
        for (const pid of childrenOf(this.supervisor)) {
          try {
            process.kill(pid, "SIGKILL")
          } catch {
            // gone already
          }
        }
        for (const group of groups) Cgroup.killAll(group)
      }
      const timer = command.timeoutMs === undefined ? undefined : setTimeout(() => {
        timedOut = true
        kill()
      }, command.timeoutMs)
      signal.addEventListener("abort", kill, { once: true })
      const exited = await this.lines.next().finally(() => {
        clearTimeout(timer)
        signal.removeEventListener("abort", kill)
      })
      const status = new RegExp(`^exited ${id} (\\d+)$`).exec(exited)
      if (status === null) throw new Error(`the supervisor answered ${exited}`)
      const killed = groups.reduce((n, g) => n + Cgroup.killAll(g), 0)
      await Promise.all([out.finish(), err.finish()])
      const [stdout, stderr] = [out.collector, err.collector]
      out = err = null
      const processLimitHit = groups.some((g) => g.controller === "pids" && Cgroup.limitHit(g))
      const memoryLimitHit = groups.some((g) => g.controller === "memory" && Cgroup.limitHit(g))
      if (!groups.every((group) => Cgroup.remove(group))) throw new Error("a control group of the command stayed busy")
      groups = []
      wipe(`/proc/${this.supervisor}/root`)
      clean = true
      setImmediate(this.warm)
      return {
        exitCode: timedOut ? null : Number(status[1]),
        timedOut,
        stdout: stdout.bytes(),
        stderr: stderr.bytes(),
        truncated: stdout.truncated || stderr.truncated,
        processLimitHit,
        memoryLimitHit,
        killedAfterExit: killed,
        boundary: {
          backend: "bubblewrap",
          mode: "persistent",
          writable: profile.writable ? [profile.workspace, "/tmp (private)"] : ["/tmp (private)"],
          protectedPaths: this.layout.protectedPaths,
          maskedPaths: this.layout.maskedPaths,
          network: this.proxy === null ? "none" : "proxy",
          allowDomains: profile.network.allowDomains,
          scanTruncated: this.layout.scanTruncated
        }
      }
    } catch (cause) {
      throw cause instanceof Error && "_tag" in cause
        ? cause
        : error("sandbox-failed", `the session sandbox could not run the command: ${String(cause)}`)
    } finally {
      out?.abandon()
      err?.abandon()
      for (const group of groups) Cgroup.remove(group)
      fs.rmSync(path.join(io, "in"), { force: true })
      fs.rmSync(path.join(io, "request"), { force: true })
      this.lastUsed = Date.now()
      this.busy = false
      // anything left unexplained (a group that stayed busy, a supervisor that answered wrong):
      // this sandbox is not reused
      if (!clean) void this.close()
    }
  }

  /** Stop the sandbox: the supervisor's namespace dies with it; placeholders go when no run needs them. */
  close = async (): Promise<void> => {
    if (this.closed) return
    this.closed = true
    await stop(this.child)
    const prepared = await this.prepared?.catch(() => null)
    for (const group of prepared?.groups ?? []) Cgroup.remove(group)
    const registryDir = this.registry.dir
    await Placeholders.lock(registryDir)
    try {
      await Placeholders.release(this.registry)
    } finally {
      Placeholders.unlock(registryDir)
    }
    await this.proxy?.close()
    fs.rmSync(this.dir, { recursive: true, force: true })
  }

  /** What the supervisor wrote to stderr (diagnostics). */
  diagnostics = (): string => new TextDecoder().decode(this.stderr.bytes())
}
