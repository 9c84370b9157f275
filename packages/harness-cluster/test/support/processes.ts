import { Effect, Schedule } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

// a module URL, not `__dirname`: the bench scripts load this file as plain ESM under tsx
const here = path.dirname(fileURLToPath(import.meta.url))
const repoRoot = path.resolve(here, "../../../..")
const tsx = path.join(repoRoot, "node_modules/tsx/dist/loader.mjs")
const entry = path.join(here, "node.ts")

/** A cluster process (see `node.ts`), killed with the scope if still running. */
export const start = (args: Record<string, unknown>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const child = spawn(process.execPath, ["--import", tsx, entry, JSON.stringify(args)], {
        cwd: path.resolve(here, "../.."),
        stdio: ["ignore", "ignore", "pipe"],
        // the upstream variables our layers must not read: set to values that would break the runner
        env: { ...process.env, HOST: "203.0.113.1", PORT: "9", SHARD_LOCK_EXPIRATION: "2 hours" }
      })
      let stderr = ""
      child.stderr!.on("data", (d) => (stderr = (stderr + String(d)).slice(-4000)))
      return Object.assign(child, { stderrText: () => stderr })
    }),
    (child) => Effect.sync(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"))
  )

/** kill -9, waiting until the process is gone. */
export const kill9 = (child: ChildProcess) =>
  Effect.async<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.once("exit", () => resume(Effect.void))
    child.kill("SIGKILL")
  })

/** kill -9 by pid (a process found in a file). */
export const kill9Pid = (children: ReadonlyArray<ChildProcess>, pid: number) => {
  const child = children.find((c) => c.pid === pid)
  if (child === undefined) return Effect.dieMessage(`no child process ${pid}`)
  return kill9(child)
}

/** Send `signal` to a child found by pid (SIGSTOP / SIGCONT: a hung runner and its wake-up). */
export const signalPid = (children: ReadonlyArray<ChildProcess>, pid: number, signal: NodeJS.Signals) => {
  const child = children.find((c) => c.pid === pid)
  if (child === undefined) return Effect.dieMessage(`no child process ${pid}`)
  return Effect.sync(() => child.kill(signal))
}

export const lines = (file: string): ReadonlyArray<string> =>
  fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter((l) => l.length > 0) : []

/** Wait (polling, up to `seconds`) until `found` returns a value; dies naming `what` at the deadline. */
export const waitFor = <A>(what: string, seconds: number, found: () => A | undefined, context = () => "") =>
  Effect.suspend(() => {
    const value = found()
    return value === undefined ? Effect.fail("not yet" as const) : Effect.succeed(value)
  }).pipe(
    Effect.retry(Schedule.spaced("100 millis")),
    Effect.timeoutFail({
      duration: `${seconds} seconds`,
      onTimeout: () => new Error(`timed out waiting for ${what} ${context()}`)
    }),
    Effect.orDie
  )

/** A free TCP port on 127.0.0.1. */
export const freePort = Effect.async<number>((resume) => {
  const server = net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const port = (server.address() as net.AddressInfo).port
    server.close(() => resume(Effect.succeed(port)))
  })
})
