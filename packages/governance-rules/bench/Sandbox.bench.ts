// Issue 31: the cost of starting a command in the sandbox beside starting it without (target:
// at most 10 ms added per command in a session), and the proxy's added latency per connection beside a direct one. Run alone
// (`node scripts/pnpm.mjs vitest bench --run packages/governance-rules/bench/Sandbox.bench.ts`)
// and report the load (`uptime`) beside the figures.
//
// The start-up rows are measured in interleaved rounds (one of each per round, in turn), so a
// load that comes and goes on a shared machine lands on every row alike; the medians and what
// each adds to a bare spawn are printed at the end. The floor row is bubblewrap alone with the
// same namespaces and no mounts of ours: what any bubblewrap sandbox costs on this host. The
// one-shot row starts a bubblewrap per command; the session row runs the command in the profile's
// persistent sandbox (its own PID namespace and control groups, no new bubblewrap: ADR 0217). Both
// Steward rows have the default limits (a pids and a memory group per command).
//
// Figures and their load: docs/performance/governance-rules.md; the floor and our share: ADRs 0212, 0217.
import { Effect, Layer, ManagedRuntime } from "effect"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import type * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, bench, describe } from "vitest"
import { Sandbox, SandboxProfile } from "../src/index.js"
import * as Layout from "../src/internal/sandbox/layout.js"
import * as Proxy from "../src/internal/sandbox/proxy.js"

const available = childProcess.spawnSync("bwrap", ["--version"]).status === 0
const root = fs.mkdtempSync(path.join(import.meta.dirname, "..", "node_modules", ".cache", "bench-"))
// Two layers side by side: every command in its own bubblewrap (what `steward sandbox -- CMD`
// does), and the default (one persistent sandbox per profile: what a session's commands get).
const oneShot = ManagedRuntime.make(Sandbox.layerLinux({ persistent: false }).pipe(Layer.orDie))
const session = ManagedRuntime.make(Sandbox.layerLinux().pipe(Layer.orDie))
afterAll(async () => {
  await oneShot.dispose()
  await session.dispose()
  fs.rmSync(root, { recursive: true, force: true })
})

const limited = await Effect.runPromise(SandboxProfile.make({ workspace: root, home: os.homedir(), policy: {} }))
const run = (runtime: typeof session) => () =>
  runtime.runPromise(Effect.flatMap(Sandbox.Sandbox, (s) => s.run(limited, { argv: ["/bin/true"] }))).then(() => {})

const spawned = (file: string, args: ReadonlyArray<string>) => () =>
  new Promise<void>((resolve, reject) => {
    const child = childProcess.spawn(file, args, { stdio: "ignore" })
    child.on("error", reject)
    child.on("close", () => resolve())
  })

// bubblewrap with the namespaces the sandbox makes, `/` read-only and nothing else of ours
const floorArgs = [
  ...Layout.isolationArgs,
  "--ro-bind",
  "/",
  "/",
  "--dev",
  "/dev",
  "--proc",
  "/proc",
  "--",
  "/bin/true"
]

const rows: ReadonlyArray<readonly [string, () => Promise<void>]> = [
  ["bare spawn /bin/true", spawned("/bin/true", [])],
  ["bubblewrap floor /bin/true", spawned("bwrap", floorArgs)],
  ["Steward one-shot /bin/true (own bubblewrap)", run(oneShot)],
  ["Steward in a session /bin/true (persistent)", run(session)]
]
const samples = new Map<string, Array<number>>(rows.map(([name]) => [name, []]))
let round = 0

const median = (xs: ReadonlyArray<number>) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted.length === 0 ? NaN : sorted[Math.floor(sorted.length / 2)]!
}

afterAll(() => {
  const bare = median(samples.get(rows[0]![0])!)
  if (Number.isNaN(bare)) return
  const lines = rows.map(([name]) => {
    const m = median(samples.get(name)!)
    return `  ${name.padEnd(50)} median ${m.toFixed(2).padStart(6)} ms  +${(m - bare).toFixed(2).padStart(6)} ms  ×${
      (m / bare).toFixed(2)
    }`
  })
  console.log(
    `start a command, ${round} interleaved rounds (load ${os.loadavg()[0]!.toFixed(2)}):\n${lines.join("\n")}`
  )
})

describe.skipIf(!available)("start a command: bare spawn, bubblewrap alone, the sandbox", () => {
  bench("one interleaved round (each row once, rotating order)", async () => {
    const offset = round++ % rows.length
    for (let i = 0; i < rows.length; i++) {
      const [name, start] = rows[(i + offset) % rows.length]!
      const began = performance.now()
      await start()
      samples.get(name)!.push(performance.now() - began)
    }
  }, { iterations: 60, warmupIterations: 3 })
})

// One HTTP request on a new connection: straight to a local server, and through the proxy's
// Unix socket with CONNECT (what the bridge inside the sandbox does for each connection).
const server = http.createServer((_, response) => response.end("ok"))
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
const port = (server.address() as net.AddressInfo).port
const proxy = await Proxy.start({
  socket: path.join(root, "proxy.sock"),
  allowDomains: ["bench.test"],
  loopback: [port],
  resolve: async () => ["127.0.0.1"]
})
afterAll(async () => {
  await proxy.close()
  server.close()
})

const get = (options: http.RequestOptions) =>
  new Promise<void>((resolve, reject) => {
    const request = http.request({ ...options, agent: false }, (response) => {
      response.resume()
      response.on("end", () => resolve())
    })
    request.on("error", reject)
    request.end()
  })

const viaProxy = () =>
  new Promise<void>((resolve, reject) => {
    const request = http.request({ socketPath: proxy.socket, method: "CONNECT", path: `bench.test:${port}` })
    request.on("connect", (_, socket) => {
      socket.write("GET / HTTP/1.1\r\nHost: bench.test\r\nConnection: close\r\n\r\n")
      socket.on("data", () => {})
      socket.on("end", () => resolve())
      socket.on("error", reject)
    })
    request.on("error", reject)
    request.end()
  })

const connections = { direct: [] as Array<number>, proxy: [] as Array<number> }
const timed = (into: Array<number>, start: () => Promise<void>) => async () => {
  const began = performance.now()
  await start()
  into.push(performance.now() - began)
}
afterAll(() => {
  const direct = median(connections.direct)
  const viaTheProxy = median(connections.proxy)
  if (Number.isNaN(direct) || Number.isNaN(viaTheProxy)) return
  console.log(
    `a connection (load ${os.loadavg()[0]!.toFixed(2)}): direct median ${direct.toFixed(2)} ms, through the proxy ` +
      `${viaTheProxy.toFixed(2)} ms: +${(viaTheProxy - direct).toFixed(2)} ms ×${(viaTheProxy / direct).toFixed(2)}`
  )
})

describe("a connection: direct vs through the proxy", () => {
  bench(
    "direct GET (new connection)",
    timed(connections.direct, () => get({ host: "127.0.0.1", port, path: "/" })),
    { iterations: 300 }
  )
  bench("CONNECT through the proxy, then GET", timed(connections.proxy, viaProxy), { iterations: 300 })
})
