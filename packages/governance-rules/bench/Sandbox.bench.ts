// Issue 31: the cost of starting a command in the sandbox beside starting it without (target:
// at most 10 ms added), and the proxy's added latency per connection beside a direct one. Run alone
// (`node scripts/pnpm.mjs vitest bench --run packages/governance-rules/bench/Sandbox.bench.ts`)
// and report the load (`uptime`) beside the figures.
import { Effect, Layer, ManagedRuntime } from "effect"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import type * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, bench, describe } from "vitest"
import { Sandbox, SandboxProfile } from "../src/index.js"
import * as Proxy from "../src/internal/sandbox/proxy.js"

const available = childProcess.spawnSync("bwrap", ["--version"]).status === 0
const root = fs.mkdtempSync(path.join(import.meta.dirname, "..", "node_modules", ".cache", "bench-"))
const runtime = ManagedRuntime.make(Sandbox.layerLinux().pipe(Layer.orDie))
afterAll(async () => {
  await runtime.dispose()
  fs.rmSync(root, { recursive: true, force: true })
})

const profileOf = (policy: unknown) =>
  runtime.runPromise(SandboxProfile.make({ workspace: root, home: os.homedir(), policy }))
const limited = await profileOf({})
const unlimited = await profileOf({ limits: { processes: null } })
const run = (profile: SandboxProfile.Profile) =>
  runtime.runPromise(Effect.flatMap(Sandbox.Sandbox, (s) => s.run(profile, { argv: ["/bin/true"] })))

const spawnBare = () =>
  new Promise<void>((resolve, reject) => {
    const child = childProcess.spawn("/bin/true", { stdio: "ignore" })
    child.on("error", reject)
    child.on("close", () => resolve())
  })

describe.skipIf(!available)("start a command: bare spawn vs the sandbox", () => {
  bench("bare spawn /bin/true", spawnBare, { iterations: 60, warmupIterations: 5 })
  bench("sandbox /bin/true (limits: pids + memory groups)", () => run(limited).then(() => {}), {
    iterations: 60,
    warmupIterations: 5
  })
  bench("sandbox /bin/true (no process limit)", () => run(unlimited).then(() => {}), {
    iterations: 60,
    warmupIterations: 5
  })
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

describe("a connection: direct vs through the proxy", () => {
  bench("direct GET (new connection)", () => get({ host: "127.0.0.1", port, path: "/" }), { iterations: 300 })
  bench("CONNECT through the proxy, then GET", viaProxy, { iterations: 300 })
})
