/**
 * Where hook calls run: once in the calling process (`runOnce`), or in the resident per-user
 * decision server (`serve`) that keeps the parser, compiled policies and open stores warm between
 * calls. The server listens on a Unix socket in a directory only its user can enter, answers one
 * request per connection (one JSON line each way), and exits when idle. It is never required:
 * the lean entry falls back to `runOnce` whenever it cannot be reached (ADR 0006).
 *
 * @since 0.3.0
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import * as Containment from "./Containment.js"
import * as Handle from "./Handle.js"
import * as HookRuntime from "./HookRuntime.js"
import type * as PreTool from "./PreTool.js"
import * as Request from "./Request.js"

/**
 * What the lean entry sends: its raw arguments and context, and the stdin it read.
 *
 * @since 0.3.0
 * @category models
 */
export const Call = Schema.Struct({
  args: Schema.Array(Schema.String),
  home: Schema.String,
  cwd: Schema.String,
  stateDirEnv: Schema.optional(Schema.String),
  stdin: Schema.String
})

/**
 * @since 0.3.0
 * @category models
 */
export type Call = typeof Call.Type

const platform = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)
const runtimeLayer = HookRuntime.layer.pipe(Layer.provideMerge(platform))

const runCall = (call: Call, containment: PreTool.Containment) => {
  const parsed = Request.parseArgs(call.args, call)
  const [client = "", event = ""] = call.args
  if (Either.isLeft(parsed)) return Effect.succeed(Handle.failed(client, event, parsed.left))
  return Handle.handle({ ...parsed.right, stdin: call.stdin }, containment)
}

/**
 * Handle one call in this process (the runtime is built and closed around it), deciding with
 * the gate alone.
 *
 * @since 0.3.0
 * @category running
 */
export const runOnce = (call: Call): Promise<Handle.Outcome> => {
  const [client = "", event = ""] = call.args
  // No boundary here: probing for one is a blocking trial run, and this path must answer inside
  // Steward's deadline. Without it the gate's decision stands — stricter, never looser (an
  // unresolved command is asked). The server probes once when it starts.
  return Effect.runPromise(
    runCall(call, { launcher: undefined }).pipe(
      Effect.provide(runtimeLayer),
      Effect.catchAllCause((cause) => Effect.succeed(Handle.failed(client, event, `cannot start: ${String(cause)}`)))
    )
  )
}

const decodeCall = Schema.decodeUnknownEither(Schema.parseJson(Call))

/** The most a request may hold (the stdin limit plus the envelope). */
const MAX_REQUEST_BYTES = Handle.MAX_STDIN_BYTES + 64 * 1024

/**
 * Serve calls on `socket` until `idleMs` pass without one. Resolves when the server has closed.
 *
 * @since 0.3.0
 * @category running
 */
export const serve = async (socket: string, options: {
  readonly idleMs: number
  readonly entry: string | undefined
}): Promise<void> => {
  const runtime = ManagedRuntime.make(runtimeLayer)
  const containment = await Effect.runPromise(Containment.detect(options.entry))
  // Half-open: the caller ends its side once the request is sent; the answer still goes back.
  const server = net.createServer({ allowHalfOpen: true })
  let timer: NodeJS.Timeout | undefined
  const done = new Promise<void>((resolve) => server.on("close", resolve))
  const idle = () => {
    if (timer !== undefined) clearTimeout(timer)
    timer = setTimeout(() => server.close(), options.idleMs)
    timer.unref()
  }
  server.on("connection", (conn) => {
    idle()
    const chunks: Array<Buffer> = []
    let size = 0
    conn.on("error", () => conn.destroy())
    conn.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_REQUEST_BYTES) return void conn.destroy()
      chunks.push(chunk)
      if (!chunk.includes(10)) return
      const call = decodeCall(Buffer.concat(chunks).toString("utf8").split("\n")[0]!)
      if (Either.isLeft(call)) return void conn.destroy()
      runtime.runPromise(runCall(call.right, containment)).then(
        (outcome) => conn.end(`${JSON.stringify(outcome)}\n`),
        () => conn.destroy()
      )
    })
  })
  await listen(server, socket)
  idle()
  const stop = () => server.close()
  process.once("SIGTERM", stop)
  process.once("SIGINT", stop)
  await done
  await runtime.dispose()
  for (const file of [socket, `${socket}.pid`]) {
    try {
      fs.unlinkSync(file)
    } catch {
      // already gone: another server took the path over
    }
  }
}

// A socket file nobody listens on is left by a server that died: take it over. One that answers
// belongs to a live server: this one is not needed.
const listen = (server: net.Server, socket: string) =>
  new Promise<void>((resolve, reject) => {
    const dir = path.dirname(socket)
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    // Only this user may reach the socket: the directory is its own and closed to others.
    const info = fs.statSync(dir)
    if (info.uid !== (process.getuid?.() ?? info.uid)) return reject(new Error(`${dir} belongs to another user`))
    if ((info.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700)
    server.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EADDRINUSE") return reject(error)
      const probe = net.connect(socket)
      probe.once("connect", () => {
        probe.destroy()
        reject(new Error(`a decision server already listens on ${socket}`))
      })
      probe.once("error", () => {
        fs.rmSync(socket, { force: true })
        server.listen(socket, () => resolve())
      })
    })
    server.listen(socket, () => {
      fs.chmodSync(socket, 0o600)
      fs.writeFileSync(`${socket}.pid`, `${process.pid}\n`)
      resolve()
    })
  })
