/**
 * Network programs decided on what they connect to, not on their text: URLs and host operands,
 * curl's `--resolve`/`--connect-to`/proxies, wget's URL files, socat/nc/openssl addresses, hosts
 * built from expansions (ask; and deny when a resolution of them reaches a universal deny), and
 * the files these programs write (`-o`) or upload (`-T`, `-d @file`).
 *
 * @internal
 */
import * as Network from "../network.js"
import type { Word } from "../shellSyntax.js"
import { type Analyzer, guard, isFlag, newSegment, parseOptions, type Segment, speculate } from "./model.js"
import { addPath } from "./paths.js"

const pushUrl = (segment: Segment, url: string, analyzer?: Analyzer): void => {
  segment.checks.push({ action: "fetch", resource: url })
  for (const host of Network.embeddedHosts(url)) {
    segment.checks.push({ action: "fetch", resource: Network.hostUrl(host) })
  }
  // `file:` URLs read local files: decide them as reads of the real path too.
  const local = Network.fileUrlPath(url)
  if (local !== null && analyzer !== undefined) addPath(analyzer, segment, "read", local)
}

/** A URL argument (anything with a scheme) as a fetch check. @internal */
export const addFetch = (segment: Segment, raw: string, analyzer?: Analyzer): void => {
  if (!Network.isUrl(raw)) return
  const url = Network.normalizeUrl(raw)
  if (url === null || Network.ambiguousAuthority(raw)) guard(segment, "unresolved-host", raw)
  if (url !== null) pushUrl(segment, url, analyzer)
}

/** A host or URL operand (`curl 127.1`, `nc host 80`, `TCP:host:port`). @internal */
export const addHost = (analyzer: Analyzer, segment: Segment, w: Word, port?: string): void => {
  if (!w.resolved) {
    unresolvedHost(analyzer, segment, w.text)
    return
  }
  const raw = port === undefined || Network.isUrl(w.text) ? w.text : `${w.text}:${port}`
  if (Network.ambiguousAuthority(raw)) guard(segment, "unresolved-host", raw)
  const url = Network.normalizeUrl(raw)
  if (url === null) guard(segment, "unresolved-host", raw)
  else pushUrl(segment, url, analyzer)
}

/**
 * A destination behind an expansion asks; every plain resolution of it (expansions empty,
 * constant arithmetic evaluated) is also decided, speculatively, so a metadata address split by
 * an empty variable still denies.
 */
const unresolvedHost = (analyzer: Analyzer, segment: Segment, text: string): void => {
  guard(segment, "unresolved-host", text)
  const candidate = text
    .replace(/\$\(\(\s*(\d+)\s*\)\)/g, "$1")
    .replace(/\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\$\([^)]*\)|`[^`]*`/g, "")
  if (candidate === text) return
  speculate(analyzer, () => {
    const spec = newSegment(analyzer, text)
    spec.canonical = candidate
    const url = Network.normalizeUrl(candidate)
    if (url !== null) pushUrl(spec, url)
    for (const host of Network.metadataIn(candidate)) {
      spec.checks.push({ action: "fetch", resource: Network.hostUrl(host) })
    }
  })
}

const CURL = {
  short: "oxXdDHuUeEKTAbcrwmyYzCFQtP",
  long: [
    "--output",
    "--proxy",
    "--preproxy",
    "--resolve",
    "--connect-to",
    "--url",
    "--data",
    "--data-binary",
    "--data-raw",
    "--data-urlencode",
    "--data-ascii",
    "--json",
    "--form",
    "--header",
    "--user-agent",
    "--cookie",
    "--cookie-jar",
    "--upload-file",
    "--config",
    "--dump-header",
    "--trace",
    "--trace-ascii",
    "--stderr",
    "--output-dir",
    "--socks4",
    "--socks4a",
    "--socks5",
    "--socks5-hostname",
    "--doh-url",
    "--referer",
    "--user",
    "--request",
    "--max-time",
    "--connect-timeout",
    "--retry",
    "--cacert",
    "--cert",
    "--key",
    "--interface",
    "--dns-servers",
    "--unix-socket",
    "--write-out",
    "--libcurl",
    "--netrc-file",
    "--proxy-user"
  ]
}

const CURL_PROXY = new Set([
  "-x",
  "--proxy",
  "--preproxy",
  "--socks4",
  "--socks4a",
  "--socks5",
  "--socks5-hostname",
  "--doh-url"
])
const CURL_WRITES = new Set([
  "-o",
  "--output",
  "-D",
  "--dump-header",
  "-c",
  "--cookie-jar",
  "--trace",
  "--trace-ascii",
  "--stderr",
  "--libcurl",
  "--output-dir"
])
const CURL_UPLOADS = new Set(["-T", "--upload-file", "--cacert", "--cert", "--key", "--netrc-file"])
const CURL_DATA = new Set([
  "-d",
  "--data",
  "--data-binary",
  "--data-urlencode",
  "--data-ascii",
  "--json",
  "-F",
  "--form"
])

const curl = (analyzer: Analyzer, segment: Segment, args: ReadonlyArray<Word>): void => {
  const { operands, options } = parseOptions(args, CURL)
  for (const { name, value } of options) {
    if (value === null) continue
    if (CURL_PROXY.has(name)) addHost(analyzer, segment, value)
    else if (name === "--url") addHost(analyzer, segment, value)
    else if (CURL_WRITES.has(name)) addPath(analyzer, segment, "write", value)
    else if (CURL_UPLOADS.has(name)) addPath(analyzer, segment, "read", value)
    else if (name === "-K" || name === "--config") {
      guard(segment, "unresolved-host", `${name} ${value.text}`)
      addPath(analyzer, segment, "read", value)
    } else if (CURL_DATA.has(name)) {
      const at = value.text.indexOf("@")
      const lt = value.text.indexOf("<")
      const file = at >= 0 && (at === 0 || value.text[at - 1] === "=")
        ? value.text.slice(at + 1)
        : lt > 0
        ? value.text.slice(lt + 1)
        : null
      if (file !== null && file !== "-" && file.length > 0) addPath(analyzer, segment, "read", { ...value, text: file })
    } else if (name === "--resolve") {
      // HOST:PORT:ADDR[,ADDR…]: the name now connects to ADDR.
      const parts = value.text.replace(/^\+/, "").split(":")
      for (const addr of parts.slice(2).join(":").split(",")) {
        if (addr.length > 0) {
          addHost(analyzer, segment, { text: addr.replace(/^\[|\]$/g, ""), resolved: value.resolved })
        }
      }
      if (!value.resolved) guard(segment, "unresolved-host", value.text)
    } else if (name === "--connect-to") {
      // HOST1:PORT1:HOST2:PORT2: connections to HOST1 go to HOST2.
      const m = /^([^:]*):([^:]*):(\[[^\]]*\]|[^:]*):?(.*)$/.exec(value.text)
      if (m === null || !value.resolved) guard(segment, "unresolved-host", value.text)
      else if (m[3]!.length > 0) addHost(analyzer, segment, { text: m[3]!, resolved: true })
    }
  }
  for (const operand of operands) addHost(analyzer, segment, operand)
}

const WGET = {
  short: "OoaPiBeUtTwQlAReDIXnhH",
  long: [
    "--output-document",
    "--output-file",
    "--append-output",
    "--directory-prefix",
    "--input-file",
    "--base",
    "--execute",
    "--user-agent",
    "--tries",
    "--timeout",
    "--wait",
    "--quota",
    "--level",
    "--accept",
    "--reject",
    "--header",
    "--post-data",
    "--post-file",
    "--body-file",
    "--body-data",
    "--method",
    "--user",
    "--password",
    "--load-cookies",
    "--save-cookies",
    "--domains",
    "--include-directories",
    "--exclude-directories"
  ]
}

const wget = (analyzer: Analyzer, segment: Segment, args: ReadonlyArray<Word>): void => {
  const { operands, options } = parseOptions(args, WGET)
  for (const { name, value } of options) {
    if (value === null) continue
    if (
      [
        "-O",
        "--output-document",
        "-o",
        "--output-file",
        "-a",
        "--append-output",
        "-P",
        "--directory-prefix",
        "--save-cookies"
      ].includes(name)
    ) {
      if (value.text !== "-") addPath(analyzer, segment, "write", value)
    } else if (name === "-i" || name === "--input-file") {
      guard(segment, "unresolved-host", `${name} ${value.text}`)
      if (value.text !== "-") addPath(analyzer, segment, "read", value)
    } else if (["--post-file", "--body-file", "--load-cookies"].includes(name)) {
      addPath(analyzer, segment, "read", value)
    } else if (name === "-e" || name === "--execute") guard(segment, "inline-code", `${name} ${value.text}`)
  }
  for (const operand of operands) addHost(analyzer, segment, operand)
}

// `TCP:host:port`, `OPENSSL:host:port`, `PROXY:proxy:host:port`, `EXEC:cmd`.
const socat = (
  analyzer: Analyzer,
  segment: Segment,
  args: ReadonlyArray<Word>,
  run: (source: string) => void
): void => {
  for (const arg of args) {
    if (isFlag(arg.text) && arg.text.length > 1 && !arg.text.includes(":")) continue
    const m = /^([A-Za-z0-9-]+):(.*)$/.exec(arg.text)
    if (m === null) continue
    const kind = m[1]!.toUpperCase()
    const rest = m[2]!.split(",")[0]!
    if (/^(?:TCP|TCP4|TCP6|TCP-CONNECT|OPENSSL|SSL|UDP|UDP4|UDP6|UDP-SENDTO|SCTP|SCTP-CONNECT|DCCP)$/.test(kind)) {
      const hp = /^(\[[^\]]*\]|[^:]*):(.*)$/.exec(rest)
      if (hp !== null) addHost(analyzer, segment, { text: hp[1]!, resolved: arg.resolved }, hp[2]!)
    } else if (/^(?:PROXY|SOCKS4|SOCKS4A|SOCKS5)$/.test(kind)) {
      const parts = rest.split(":")
      if (parts[0]) addHost(analyzer, segment, { text: parts[0], resolved: arg.resolved })
      if (parts[1]) addHost(analyzer, segment, { text: parts[1], resolved: arg.resolved }, parts[2])
    } else if (kind === "EXEC" || kind === "SYSTEM") {
      guard(segment, "inline-code", arg.text)
      if (arg.resolved) run(m[2]!.split(",")[0]!)
    }
  }
}

const NC = { short: "psqwxXiIOTeciGg", long: ["--proxy", "--source", "--wait", "--exec", "--sh-exec", "--lua-exec"] }

const netcat = (
  analyzer: Analyzer,
  segment: Segment,
  args: ReadonlyArray<Word>,
  run: (source: string) => void
): void => {
  const { operands, options } = parseOptions(args, NC)
  for (const { name, value } of options) {
    if (value === null) continue
    if (name === "-x" || name === "--proxy") addHost(analyzer, segment, value)
    else if (name === "-e" || name === "-c" || name === "--exec" || name === "--sh-exec" || name === "--lua-exec") {
      guard(segment, "inline-code", `${name} ${value.text}`)
      if (value.resolved && name !== "--lua-exec") run(value.text)
    }
  }
  const host = operands[0]
  if (host !== undefined) addHost(analyzer, segment, host, operands[1]?.text ?? "80")
}

const RSYNC = { short: "eBfT", long: ["--rsh", "--rsync-path", "--filter", "--exclude", "--include", "--temp-dir"] }
const SSH = { short: "BbcDEeFIiJLlmOopQRSWw", long: [] }
// ssh options whose value is a command run on this machine
const SSH_LOCAL_COMMANDS = /^(?:ProxyCommand|LocalCommand|KnownHostsCommand|RemoteCommand)[\s=]+(.*)$/is

// `ssh -o ProxyCommand=CMD host [COMMAND…]`: the option's command runs here; the remote command
// runs there, but a universal deny spelled in it is still one (read speculatively).
const ssh = (analyzer: Analyzer, segment: Segment, args: ReadonlyArray<Word>, run: (source: string) => void): void => {
  const { options, rest } = parseOptions(args, { ...SSH, stopAtOperand: true })
  for (const { name, value } of options) {
    if (value === null) continue
    const local = name === "-o" ? SSH_LOCAL_COMMANDS.exec(value.text) : null
    if (local !== null) {
      guard(segment, "inline-code", `ssh -o ${value.text}`)
      // ssh takes a value wholly in quotes without them; a quote that only ends the command
      // (`… $'+main'`) is the command's own, and the value as written is read too
      const command = local[1]!
      const inner = /^(["'])(.*)\1$/s.exec(command)?.[2]
      if (value.resolved) run(inner ?? command)
      if (value.resolved && inner !== undefined) speculate(analyzer, () => run(command))
    }
    for (const host of Network.metadataIn(value.text)) {
      segment.checks.push({ action: "fetch", resource: Network.hostUrl(host) })
    }
  }
  const host = args[rest]
  if (host !== undefined) addHost(analyzer, segment, host)
  const remote = args.slice(rest + 1)
  if (remote.length > 0 && remote.every((w) => w.resolved)) {
    speculate(analyzer, () => run(remote.map((w) => w.text).join(" ")))
  }
}

/** Analyse a network program's destinations and files. `run` analyses a nested command. @internal */
export const analyzeNetwork = (
  analyzer: Analyzer,
  segment: Segment,
  name: string,
  args: ReadonlyArray<Word>,
  run: (source: string) => void
): void => {
  switch (name) {
    case "curl":
      return curl(analyzer, segment, args)
    case "wget":
      return wget(analyzer, segment, args)
    case "socat":
      return socat(analyzer, segment, args, run)
    case "nc":
    case "ncat":
    case "netcat":
    case "telnet":
      return netcat(analyzer, segment, args, run)
    case "ssh":
      return ssh(analyzer, segment, args, run)
    case "rsync":
      for (const { name: option, value } of parseOptions(args, RSYNC).options) {
        // `-e CMD`/`--rsh=CMD` is the local program rsync starts to reach the host
        if ((option === "-e" || option === "--rsh") && value !== null) {
          guard(segment, "inline-code", `rsync ${option} ${value.text}`)
          if (value.resolved) run(value.text)
        }
      }
      break
    case "openssl": {
      for (let i = 0; i < args.length; i++) {
        const text = args[i]!.text
        if ((text === "-connect" || text === "-proxy") && args[i + 1] !== undefined) {
          addHost(analyzer, segment, args[i + 1]!)
        }
      }
      return
    }
    default:
      for (const arg of args) {
        const eq = isFlag(arg.text) ? arg.text.indexOf("=") : -1
        const value = eq > 0 ? arg.text.slice(eq + 1) : arg.text
        if (!arg.resolved && /^[a-z]+:\/\//i.test(value)) unresolvedHost(analyzer, segment, value)
        else if (arg.resolved) addFetch(segment, value, analyzer)
      }
      if (["http", "https", "xh", "xhs", "aria2c", "lynx", "w3m", "ftp"].includes(name)) {
        const first = args.find((a) => !isFlag(a.text))
        if (first !== undefined && first.resolved && !Network.isUrl(first.text)) addHost(analyzer, segment, first)
      }
  }
}
