import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as http from "node:http"
import type * as net from "node:net"
import { Sandbox } from "../src/index.js"
import { makeScene, removeScene, runIn, type Scene, skipReason } from "./sandboxHelpers.js"

// The proxy's allowlist, tested with local servers only: the resolver maps the test names to
// 127.0.0.1 (nothing leaves this machine).
const suite = skipReason === null ? describe : describe.skip

const NAMES = new Set(["allowed.test", "api.allowed.test", "denied.test"])
const Live = Sandbox.layerLinux({
  resolve: async (host) => NAMES.has(host) ? ["127.0.0.1"] : Promise.reject(new Error(`${host}: not a test name`))
}).pipe(Layer.orDie)

interface Server {
  readonly port: number
  readonly hits: Array<string>
  readonly close: () => void
}

const serve = Effect.promise(() =>
  new Promise<Server>((resolve) => {
    const hits: Array<string> = []
    const server = http.createServer((request, response) => {
      hits.push(`${request.headers.host} ${request.url}`)
      response.end(`served ${request.url}\n`)
    })
    server.listen(0, "127.0.0.1", () =>
      resolve({
        port: (server.address() as net.AddressInfo).port,
        hits,
        close: () => server.close()
      }))
  })
)

const withServer = <A, E, R>(body: (scene: Scene, server: Server) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.all([Effect.sync(makeScene), serve]),
    ([scene, server]) => body(scene, server),
    ([scene, server]) =>
      Effect.sync(() => {
        server.close()
        removeScene(scene)
      })
  )

const curl = (url: string) => `curl -s -m 5 -o - -w ' status=%{http_code}|' ${url} || echo ' curl-failed|'`

suite("Sandbox (bubblewrap): the filtering proxy", () => {
  it.effect("a session's commands each reach the proxy through their own bridge (one proxy per session sandbox)", () =>
    withServer((scene, server) =>
      Effect.gen(function*() {
        const policy = { allowDomains: ["allowed.test"], loopback: [server.port] }
        for (const step of ["one", "two", "three"]) {
          const done = yield* runIn(scene, curl(`http://allowed.test:${server.port}/${step}`), { policy })
          assert.strictEqual(done.boundary.mode, "persistent")
          assert.match(done.out.replace(/\s+/g, " "), new RegExp(`served /${step} status=200`))
        }
        const refused = yield* runIn(scene, curl(`http://denied.test:${server.port}/x`), { policy })
        assert.match(refused.out, /status=403/)
        assert.deepStrictEqual(server.hits.map((hit) => hit.split(" ")[1]), ["/one", "/two", "/three"])
      })
    ).pipe(Effect.provide(Live)))

  it.effect("allowed domains pass through the proxy; others, IPs and unlisted loopback ports are refused", () =>
    withServer((scene, server) =>
      Effect.gen(function*() {
        const policy = { allowDomains: ["allowed.test", "*.allowed.test"], loopback: [server.port] }
        const done = yield* runIn(
          scene,
          [
            curl(`http://allowed.test:${server.port}/a`),
            curl(`http://api.allowed.test:${server.port}/b`),
            curl(`http://denied.test:${server.port}/c`),
            curl(`http://169.254.169.254/latest/meta-data/`),
            // the opted-in host port, forwarded into the sandbox's own loopback
            curl(`http://127.0.0.1:${server.port}/d`),
            // a CONNECT tunnel (what HTTPS uses), allowed and refused
            curl(`-p http://allowed.test:${server.port}/e`),
            curl(`-p http://denied.test:${server.port}/f`)
          ].join("; "),
          { policy }
        )
        const lines = done.out.split("|").map((line) => line.replace(/\s+/g, " ").trim())
        assert.match(lines[0]!, /served \/a status=200/)
        assert.match(lines[1]!, /served \/b status=200/)
        assert.match(lines[2]!, /not an allowed domain.*status=403/)
        assert.match(lines[3]!, /metadata.*status=403/)
        assert.match(lines[4]!, /served \/d status=200/)
        assert.match(lines[5]!, /served \/e status=200/)
        assert.match(lines[6]!, /status=(403|000)/)
        assert.deepStrictEqual(server.hits.map((hit) => hit.split(" ")[1]), ["/a", "/b", "/d", "/e"])
      })
    ).pipe(Effect.provide(Live)))

  it.effect("a name that resolves to loopback reaches a host port only when that port is opted in", () =>
    withServer((scene, server) =>
      Effect.gen(function*() {
        const done = yield* runIn(scene, curl(`http://allowed.test:${server.port}/rebind`), {
          policy: { allowDomains: ["allowed.test"] }
        })
        assert.match(done.out.replace(/\s+/g, " "), /resolves to loopback.*status=403/)
        assert.deepStrictEqual(server.hits, [])
      })
    ).pipe(Effect.provide(Live)))

  it.effect("without a network policy the host's loopback stays unreachable, and the sandbox's own works", () =>
    withServer((scene, server) =>
      Effect.gen(function*() {
        const own = "node -e \"const h=require('http');const s=h.createServer((q,r)=>r.end('own'))" +
          ".listen(0,'127.0.0.1',()=>h.get('http://127.0.0.1:'+s.address().port,(r)=>{r.on('data',d=>console.log('OWN '+d));r.on('end',()=>s.close())}))\""
        const done = yield* runIn(scene, `${curl(`http://127.0.0.1:${server.port}/x`)}; ${own}`)
        assert.include(done.out, "curl-failed")
        assert.include(done.out, "OWN own")
        assert.deepStrictEqual(server.hits, [])
      })
    ).pipe(Effect.provide(Live)))
})
