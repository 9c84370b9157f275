/**
 * One sandboxed call on the host: the control groups joined before bubblewrap starts, bubblewrap's
 * status on an extra descriptor (so a setup failure is told apart from the command's own exit),
 * output collected up to a cap, and on exit or timeout the whole tree killed — the PID namespace
 * dies with its init, and whatever is left in the control group is killed by pid.
 *
 * @internal
 */
import * as childProcess from "node:child_process"
import type { Readable, Writable } from "node:stream"

/** @internal */
export interface SpawnInput {
  readonly bwrap: string
  readonly bwrapArgs: ReadonlyArray<string>
  /** `ulimit` commands run before bubblewrap starts (inherited by everything inside). */
  readonly limits: ReadonlyArray<string>
  /** `cgroup.procs` files the sandbox joins before bubblewrap starts. */
  readonly joins: ReadonlyArray<string>
  /** The command as run inside (after the limits wrapper). */
  readonly inner: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  readonly stdin: Uint8Array | "inherit" | null
  readonly stdio: "pipe" | "inherit"
  readonly timeoutMs: number | null
  readonly maxOutputBytes: number
  /** Called once bubblewrap reports the child started (its mounts are made). */
  readonly onStarted: () => void
}

/** @internal */
export interface SpawnResult {
  readonly started: boolean
  readonly exitCode: number | null
  readonly signal: NodeJS.Signals | null
  readonly timedOut: boolean
  readonly stdout: Uint8Array
  readonly stderr: Uint8Array
  readonly truncated: boolean
}

/**
 * The shell that sets the rlimits (inherited by bubblewrap and every process it starts), joins
 * the control groups, then becomes bubblewrap: every process of the call starts inside them,
 * limited. Its arguments: the `cgroup.procs` files, `--`, then bubblewrap's argv.
 *
 * @internal
 */
export const join = (limits: ReadonlyArray<string>) =>
  `${limits.map((l) => `${l} || exit 125; `).join("")}` +
  "for f in \"$@\"; do case $f in --) break;; esac; echo $$ > \"$f\" || exit 125; shift; done; shift; exec \"$@\""

/** Output kept up to a cap; the rest is counted as truncated. @internal */
export class Collector {
  readonly chunks: Array<Buffer> = []
  size = 0
  truncated = false
  constructor(readonly max: number) {}
  add(chunk: Buffer) {
    const room = this.max - this.size
    if (room <= 0) {
      this.truncated = true
      return
    }
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk
    if (kept.length < chunk.length) this.truncated = true
    this.chunks.push(kept)
    this.size += kept.length
  }
  bytes(): Uint8Array {
    return new Uint8Array(Buffer.concat(this.chunks))
  }
}

/** Run bubblewrap; resolves when it exits and its streams are drained. @internal */
export const spawn = (input: SpawnInput, signal: AbortSignal): Promise<SpawnResult> =>
  new Promise((resolve, reject) => {
    const argv = [
      "-c",
      join(input.limits),
      "steward-sandbox",
      ...input.joins,
      "--",
      input.bwrap,
      "--json-status-fd",
      "3"
    ]
    const child = childProcess.spawn("/bin/sh", [...argv, ...input.bwrapArgs, "--", ...input.inner], {
      env: input.env,
      detached: true,
      stdio: [
        input.stdin === "inherit" ? "inherit" : "pipe",
        input.stdio === "inherit" ? "inherit" : "pipe",
        input.stdio === "inherit" ? "inherit" : "pipe",
        "pipe"
      ]
    })
    const stdout = new Collector(input.maxOutputBytes)
    const stderr = new Collector(input.maxOutputBytes)
    child.stdout?.on("data", (chunk: Buffer) => stdout.add(chunk))
    child.stderr?.on("data", (chunk: Buffer) => stderr.add(chunk))
    let started = false
    let status = ""
    const statusStream = child.stdio[3] as Readable
    statusStream.on("data", (chunk: Buffer) => {
      status += chunk.toString("utf8")
      if (!started && status.includes("\"child-pid\"")) {
        started = true
        input.onStarted()
      }
    })
    statusStream.on("error", () => {})
    if (child.stdin !== null) {
      const sink = child.stdin as Writable
      sink.on("error", () => {})
      sink.end(input.stdin instanceof Uint8Array ? Buffer.from(input.stdin) : undefined)
    }
    let timedOut = false
    const kill = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
      } catch {
        // already gone
      }
    }
    const timer = input.timeoutMs === null ? undefined : setTimeout(() => {
      timedOut = true
      kill()
    }, input.timeoutMs)
    signal.addEventListener("abort", kill, { once: true })
    child.on("error", (cause) => {
      clearTimeout(timer)
      reject(cause)
    })
    child.on("close", (code, sig) => {
      clearTimeout(timer)
      signal.removeEventListener("abort", kill)
      // bubblewrap reports the command's own exit code; its absence means the command never ran.
      const exit = /"exit-code":\s*(\d+)/.exec(status)
      resolve({
        started,
        exitCode: exit !== null ? Number(exit[1]) : sig === null ? code : null,
        signal: sig,
        timedOut,
        stdout: stdout.bytes(),
        stderr: stderr.bytes(),
        truncated: stdout.truncated || stderr.truncated
      })
    })
  })
