/**
 * The lean entry of `steward hook <client> <event>`: what `bin.ts` loads for a hook call instead
 * of the command tree. Plain Node with no Effect import, so a call that the resident decision
 * server answers costs little more than Node's own start-up (ADR 0006). It reads stdin, arms
 * Steward's own deadline (below the client's hook timeout), asks the server, and falls back to
 * deciding in this process when the server cannot be reached (starting one for the next call).
 * Whatever goes wrong, it prints the fail-closed answer: a deny for a tool call, no opinion
 * otherwise — never a crash, a timeout or invalid JSON, on which every client runs the tool.
 * The answer forms (`hooks/Wire`) load only on that path: the server's answer is printed as is.
 *
 * @internal
 */
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import type * as Host from "../hooks/Host.js"
import type * as Wire from "../hooks/Wire.js"

/** Steward's own deadline: below the 30 s hook timeout `steward hooks install` writes. */
export const DEFAULT_DEADLINE_MS = 20_000
const DEFAULT_IDLE_MS = 10 * 60_000
const MAX_SOCKET_PATH = 100

/**
 * Where this hook call runs from: the lean CommonJS entry `dist/hook.cjs` that `steward hooks
 * install` writes, or the CLI bundle's `steward hook …`. Both run this same code.
 */
export interface Entry {
  /** The entry file: its identity names the server's socket, and the server starts from it. */
  readonly file: string
  /** The words between the entry file and `--serve SOCKET` (`hook` for the CLI bundle). */
  readonly prefix: ReadonlyArray<string>
  /** The CLI bundle (`bin.js`): the server's sandbox rewrite runs `steward sandbox` from it. */
  readonly cli: string
  /** The decision host, loaded only when the server is out of reach or this process serves. */
  readonly host: () => Promise<typeof Host>
}

/**
 * The server's socket for this user and this build (a rebuilt CLI gets a new server), in a
 * directory only this user may enter. `undefined` when no usable path exists.
 */
export const socketPath = (file: string): string | undefined => {
  const base = process.env["STEWARD_HOOK_SOCKET_DIR"] || process.env["XDG_RUNTIME_DIR"] || os.tmpdir()
  const uid = process.getuid?.() ?? 0
  let build: string
  try {
    // The entry file's identity: a rebuilt or moved CLI has another one (no hashing: it is on every call).
    const info = fs.statSync(file)
    build = `${info.ino.toString(36)}-${Math.round(info.mtimeMs).toString(36)}-${info.size.toString(36)}`
  } catch {
    return undefined
  }
  const socket = path.join(base, `steward-hooks-${uid}`, `${build}.sock`)
  return socket.length > MAX_SOCKET_PATH ? undefined : socket
}

/** The socket's directory is this user's alone (else nothing is sent through it). */
const trusted = (socket: string): boolean => {
  try {
    const info = fs.statSync(path.dirname(socket))
    return info.isDirectory() && info.uid === (process.getuid?.() ?? info.uid) && (info.mode & 0o077) === 0
  } catch {
    return false
  }
}

const startServer = async (socket: string, entry: Entry): Promise<void> => {
  if (process.env["STEWARD_HOOK_SERVER"] === "off") return
  try {
    fs.mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 })
    const { spawn } = await import("node:child_process")
    const child = spawn(process.execPath, [...process.execArgv, entry.file, ...entry.prefix, "--serve", socket], {
      detached: true,
      stdio: "ignore",
      env: process.env
    })
    child.on("error", () => undefined)
    child.unref()
  } catch {
    // the next call decides in its own process again
  }
}

const isOutcome = (value: unknown): value is Wire.Outcome =>
  typeof value === "object" && value !== null && typeof (value as Wire.Outcome).stdout === "string" &&
  typeof (value as Wire.Outcome).stderr === "string" &&
  ((value as Wire.Outcome).exitCode === 0 || (value as Wire.Outcome).exitCode === 2)

/** The server's answer, or `undefined` when it cannot be reached (then one is started). */
const askServer = (call: object, entry: Entry): Promise<Wire.Outcome | undefined> =>
  new Promise((resolve) => {
    if (process.env["STEWARD_HOOK_SERVER"] === "off") return resolve(undefined)
    const socket = socketPath(entry.file)
    if (socket === undefined) return resolve(undefined)
    if (!trusted(socket)) return void startServer(socket, entry).then(() => resolve(undefined))
    const conn = net.connect(socket)
    const chunks: Array<Buffer> = []
    conn.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ECONNREFUSED") {
        return void startServer(socket, entry).then(() => resolve(undefined))
      }
      resolve(undefined)
    })
    conn.on("connect", () => conn.end(`${JSON.stringify(call)}\n`))
    conn.on("data", (chunk: Buffer) => void chunks.push(chunk))
    conn.on("end", () => {
      try {
        const value = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown
        resolve(isOutcome(value) ? value : undefined)
      } catch {
        resolve(undefined)
      }
    })
  })

const readStdin = (): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    process.stdin.on("data", (chunk: Buffer) => void chunks.push(chunk))
    process.stdin.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    process.stdin.on("error", reject)
  })

/** Run `steward hook …` (`args`: the words after `hook`). */
export const run = async (args: ReadonlyArray<string>, entry: Entry): Promise<void> => {
  if (args[0] === "--serve" && args[1] !== undefined) {
    const idle = Number(process.env["STEWARD_HOOK_SERVER_IDLE_MS"] ?? DEFAULT_IDLE_MS)
    const host = await entry.host()
    await host.serve(args[1], {
      idleMs: Number.isFinite(idle) && idle > 0 ? idle : DEFAULT_IDLE_MS,
      entry: entry.cli
    })
    return process.exit(0)
  }
  const [client = "", event = ""] = args
  let finished = false
  const finish = (outcome: Wire.Outcome) => {
    if (finished) return
    finished = true
    if (outcome.stderr !== "") process.stderr.write(outcome.stderr)
    process.stdout.write(outcome.stdout, () => process.exit(outcome.exitCode))
  }
  const configured = Number(process.env["STEWARD_HOOK_DEADLINE_MS"] ?? DEFAULT_DEADLINE_MS)
  const deadline = Number.isFinite(configured) && configured > 0 ? configured : DEFAULT_DEADLINE_MS
  const failClosed = async (why: string) => finish((await import("../hooks/Wire.js")).failed(client, event, why))
  setTimeout(() => void failClosed(`Steward's own deadline (${deadline} ms) passed before it decided`), deadline)
  try {
    const stdin = await readStdin()
    const call = {
      args: [...args],
      home: os.homedir(),
      cwd: process.cwd(),
      ...(process.env["STEWARD_STATE_DIR"] === undefined ? {} : { stateDirEnv: process.env["STEWARD_STATE_DIR"] }),
      stdin
    }
    const answered = await askServer(call, entry)
    if (answered !== undefined) return finish(answered)
    finish(await (await entry.host()).runOnce(call))
  } catch (error) {
    await failClosed(error instanceof Error ? error.message : String(error))
  }
}
