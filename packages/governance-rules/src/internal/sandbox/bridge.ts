/**
 * The bridge inside the sandbox. The sandbox has no network but its own loopback, so the proxy's
 * Unix socket (bound in at `PROXY_SOCKET`) is its only way out; most tools speak HTTP proxy over
 * TCP, not over a Unix socket. The bridge — Node's own binary running this small program, started
 * as the sandbox's first process — listens on the sandbox's loopback (`PROXY_PORT`, named by the
 * usual `*_PROXY` variables) and on each opted-in host loopback port (a transparent forward: it
 * opens a `CONNECT 127.0.0.1:PORT` through the proxy), then runs the command and exits with its
 * status. Nothing is decided here: every decision is the proxy's, outside.
 *
 * @internal
 */
import { PROXY_SOCKET } from "./layout.js"

/** The sandbox-loopback port the proxy is reached on. @internal */
export const PROXY_PORT = 47989

const PROXY_URL = `http://127.0.0.1:${PROXY_PORT}`

/** The environment that points tools at the bridge. @internal */
export const proxyEnv: Readonly<Record<string, string>> = {
  HTTP_PROXY: PROXY_URL,
  HTTPS_PROXY: PROXY_URL,
  http_proxy: PROXY_URL,
  https_proxy: PROXY_URL,
  ALL_PROXY: PROXY_URL,
  all_proxy: PROXY_URL,
  // the sandbox's own loopback stays its own (a test's own server)
  NO_PROXY: "localhost,127.0.0.1,::1",
  no_proxy: "localhost,127.0.0.1,::1"
}

// Kept small and dependency-free: it runs as `node -e` inside the sandbox.
const SOURCE = String.raw`
const net = require("node:net"), cp = require("node:child_process")
const [socketPath, proxyPort, forwards, ...argv] = process.argv.slice(1)
const pipeTo = (client, head) => {
  const up = net.connect(socketPath)
  up.on("error", () => client.destroy()); client.on("error", () => up.destroy())
  if (head === null) { client.pipe(up); up.pipe(client); return }
  up.write(head)
  let buf = Buffer.alloc(0)
  const onData = (chunk) => {
    buf = Buffer.concat([buf, chunk]); const end = buf.indexOf("\r\n\r\n")
    if (end < 0) return
    up.off("data", onData)
    if (!/^HTTP\/1\.[01] 200/.test(buf.toString("latin1"))) { client.destroy(); up.destroy(); return }
    if (buf.length > end + 4) client.write(buf.subarray(end + 4))
    client.pipe(up); up.pipe(client)
  }
  up.on("data", onData)
}
const servers = [net.createServer((c) => pipeTo(c, null)).listen(Number(proxyPort), "127.0.0.1")]
for (const port of forwards.split(",").filter(Boolean)) {
  servers.push(net.createServer((c) => pipeTo(c, "CONNECT 127.0.0.1:" + port + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n\r\n")).listen(Number(port), "127.0.0.1"))
}
let ready = 0
for (const s of servers) s.on("listening", () => { if (++ready === servers.length) run() })
for (const s of servers) s.on("error", (e) => { process.stderr.write("steward sandbox bridge: " + e.message + "\n"); process.exit(125) })
const run = () => {
  const child = cp.spawn(argv[0], argv.slice(1), { stdio: "inherit" })
  child.on("error", (e) => { process.stderr.write("steward sandbox: " + argv[0] + ": " + e.message + "\n"); process.exit(e.code === "ENOENT" ? 127 : 126) })
  child.on("exit", (code, signal) => process.exit(code ?? 128 + (require("node:os").constants.signals[signal] ?? 0)))
}
`

/** The argv that runs `argv` behind the bridge. @internal */
export const wrap = (
  argv: ReadonlyArray<string>,
  forwards: ReadonlyArray<number>
): ReadonlyArray<string> => [
  process.execPath,
  "-e",
  SOURCE,
  "--",
  PROXY_SOCKET,
  String(PROXY_PORT),
  forwards.join(","),
  ...argv
]
