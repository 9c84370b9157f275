/**
 * The filtering proxy Steward runs for one sandboxed call, on a Unix socket that is the sandbox's
 * only way out: HTTP `CONNECT host:port` (any TCP, TLS included) and absolute-form HTTP requests
 * (`GET http://host/…`, forced to one request per connection so a second request cannot name
 * another host). A destination is allowed when its name is on the allowlist (`example.com`, or
 * `*.example.com` for its subdomains) and its addresses are neither a cloud metadata address nor
 * link-local; the host's loopback services only on the ports the policy opted in, whether named
 * by address or by a name that resolves there (so DNS rebinding cannot reach them). IP literals
 * other than opted-in loopback are refused: the allowlist is of names.
 *
 * @internal
 */
import ipaddr from "ipaddr.js"
import * as dns from "node:dns/promises"
import * as fs from "node:fs"
import * as net from "node:net"
import { allowsDomain } from "../../SandboxProfile.js"
import * as Network from "../network.js"

/** @internal */
export interface ProxyOptions {
  readonly socket: string
  readonly allowDomains: ReadonlyArray<string>
  readonly loopback: ReadonlyArray<number>
  readonly resolve?: (host: string) => Promise<ReadonlyArray<string>>
}

/** @internal */
export interface Proxy {
  readonly socket: string
  /** Every decision, in order (for evidence and tests). */
  readonly log: Array<{ readonly host: string; readonly port: number; readonly allowed: boolean; readonly why: string }>
  readonly close: () => Promise<void>
}

const MAX_HEAD = 16 * 1024

const systemResolve = async (host: string): Promise<ReadonlyArray<string>> =>
  (await dns.lookup(host, { all: true })).map((a) => a.address)

const rangeOf = (address: string): string => {
  try {
    const parsed = ipaddr.process(address)
    return parsed.range()
  } catch {
    return "invalid"
  }
}

/** The address to connect to, or why not. @internal */
export const authorize = async (
  options: ProxyOptions,
  rawHost: string,
  port: number
): Promise<{ readonly address: string } | { readonly refused: string }> => {
  const host = rawHost.replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase()
  if (!Number.isInteger(port) || port < 1 || port > 65535) return { refused: "invalid port" }
  if (Network.METADATA_HOSTS.has(Network.canonicalHost(host))) return { refused: "cloud metadata address" }
  const loopbackOk = options.loopback.includes(port)
  if (net.isIP(host) !== 0 || host === "localhost") {
    const address = host === "localhost" ? "127.0.0.1" : ipaddr.process(host).toString()
    if (rangeOf(address) === "loopback") {
      return loopbackOk ? { address } : { refused: `loopback port ${port} is not opted in` }
    }
    return { refused: "an IP address (the allowlist is of domain names)" }
  }
  if (!allowsDomain(options.allowDomains, host)) return { refused: `${host} is not an allowed domain` }
  let addresses: ReadonlyArray<string>
  try {
    addresses = await (options.resolve ?? systemResolve)(host)
  } catch {
    return { refused: `${host} does not resolve` }
  }
  if (addresses.length === 0) return { refused: `${host} does not resolve` }
  for (const address of addresses) {
    const range = rangeOf(address)
    if (Network.METADATA_HOSTS.has(address) || range === "linkLocal" || range === "invalid") {
      return { refused: `${host} resolves to ${address}` }
    }
    if ((range === "loopback" || range === "unspecified") && !loopbackOk) {
      return { refused: `${host} resolves to loopback ${address} and port ${port} is not opted in` }
    }
  }
  return { address: addresses[0]! }
}

const reply = (socket: net.Socket, status: string, why: string) => {
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nsteward sandbox: ${why}\n`)
}

const parseTarget = (head: string) => {
  const line = head.slice(0, head.indexOf("\r\n"))
  const [method = "", target = ""] = line.split(" ")
  if (method === "CONNECT") {
    const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(target)
    return m === null ? null : { connect: true, host: m[1]!, port: Number(m[2]), head }
  }
  let url: URL
  try {
    url = new URL(target)
  } catch {
    return null
  }
  if (url.protocol !== "http:") return null
  // origin-form request line, one request per connection, no proxy headers forwarded
  const rest = head.slice(head.indexOf("\r\n") + 2).split("\r\n").filter((h) =>
    h !== "" && !/^(proxy-connection|connection|proxy-authorization|keep-alive):/i.test(h)
  )
  const forwarded = `${method} ${url.pathname}${url.search} HTTP/1.1\r\n${
    rest.join("\r\n")
  }\r\nConnection: close\r\n\r\n`
  return { connect: false, host: url.hostname, port: Number(url.port || 80), head: forwarded }
}

/** Start the proxy on its socket. @internal */
export const start = (options: ProxyOptions): Promise<Proxy> =>
  new Promise((resolve, reject) => {
    const log: Proxy["log"] = []
    const sockets = new Set<net.Socket>()
    const server = net.createServer((client) => {
      sockets.add(client)
      client.on("close", () => sockets.delete(client))
      client.on("error", () => client.destroy())
      let buffered = Buffer.alloc(0)
      const onData = (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk])
        const end = buffered.indexOf("\r\n\r\n")
        if (end < 0) {
          if (buffered.length > MAX_HEAD) reply(client, "431 Request Header Fields Too Large", "header too large")
          return
        }
        client.off("data", onData)
        client.pause()
        const target = parseTarget(buffered.subarray(0, end + 4).toString("latin1"))
        const body = buffered.subarray(end + 4)
        if (target === null) return reply(client, "400 Bad Request", "only CONNECT and http:// requests")
        void authorize(options, target.host, target.port).then((verdict) => {
          log.push({
            host: target.host,
            port: target.port,
            allowed: "address" in verdict,
            why: "address" in verdict ? "allowed" : verdict.refused
          })
          if (!("address" in verdict)) return reply(client, "403 Forbidden", verdict.refused)
          const upstream = net.connect({ host: verdict.address, port: target.port })
          sockets.add(upstream)
          upstream.on("close", () => sockets.delete(upstream))
          upstream.on("error", () => reply(client, "502 Bad Gateway", "the destination refused the connection"))
          upstream.on("connect", () => {
            if (target.connect) client.write("HTTP/1.1 200 Connection Established\r\n\r\n")
            else upstream.write(target.head, "latin1")
            if (body.length > 0) upstream.write(body)
            client.pipe(upstream).on("error", () => {})
            upstream.pipe(client)
            client.resume()
          })
        })
      }
      client.on("data", onData)
    })
    fs.rmSync(options.socket, { force: true })
    server.once("error", reject)
    server.listen(options.socket, () => {
      fs.chmodSync(options.socket, 0o666)
      resolve({
        socket: options.socket,
        log,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy()
            server.close(() => done())
            fs.rmSync(options.socket, { force: true })
          })
      })
    })
  })
