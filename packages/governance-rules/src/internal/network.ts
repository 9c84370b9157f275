/**
 * Network normalization: URLs parsed with the WHATWG URL parser (which already folds decimal,
 * hex and octal IPv4 forms) and IP literals canonicalised with ipaddr.js (IPv4-mapped IPv6 to
 * IPv4, compressed IPv6). Also finds the cloud metadata address in any encoding inside text.
 *
 * @internal
 */
import ipaddr from "ipaddr.js"

/** Canonical cloud metadata hosts. @internal */
export const METADATA_HOSTS: ReadonlySet<string> = new Set([
  // AWS (IMDS, ECS task credentials, EKS Pod Identity, their IPv6 forms and DNS names)
  "169.254.169.254",
  "169.254.170.2",
  "169.254.170.23",
  "fd00:ec2::254",
  "fd00:ec2::23",
  "instance-data",
  "instance-data.ec2.internal",
  // GCP (names, and the IPv6 metadata address)
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "fd20:ce::254",
  // Alibaba, Tencent, Equinix Metal
  "100.100.100.200",
  // Scaleway, Azure's WireServer, IBM Cloud
  "169.254.42.42",
  "168.63.129.16",
  "api.metadata.cloud.ibm.com",
  "metadata.tencentyun.com",
  "metadata.platformequinix.com"
])

/** Canonical form of a host: IPv4 dotted quad, compressed IPv6 (no brackets), or lower-case name. @internal */
export const canonicalHost = (host: string): string => {
  let h = host.toLowerCase()
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1)
  if (h.endsWith(".")) h = h.slice(0, -1)
  if (ipaddr.isValid(h)) {
    try {
      const parsed = ipaddr.process(h)
      if (parsed.kind() === "ipv6") {
        // IPv4-compatible (`::a9fe:a9fe`) and NAT64 (`64:ff9b::a9fe:a9fe`) addresses reach IPv4.
        const parts = (parsed as ipaddr.IPv6).parts
        const compatible = parts.slice(0, 6).every((p) => p === 0) && (parts[6] !== 0 || parts[7]! > 1)
        const nat64 = parts[0] === 0x64 && parts[1] === 0xff9b && parts.slice(2, 6).every((p) => p === 0)
        if (compatible || nat64) {
          return [parts[6]! >> 8, parts[6]! & 0xff, parts[7]! >> 8, parts[7]! & 0xff].join(".")
        }
      }
      return parsed.toString()
    } catch {
      return h
    }
  }
  return h
}

/**
 * IPv4 addresses a host name embeds (wildcard DNS like `169.254.169.254.nip.io`,
 * `169-254-169-254.sslip.io`, `a9fea9fe.nip.io`): such a name resolves to the address it spells.
 *
 * @internal
 */
export const embeddedHosts = (url: string): Array<string> => {
  let host: string
  try {
    host = new URL(url).hostname
  } catch {
    return []
  }
  if (host.startsWith("[") || ipaddr.isValid(host)) return []
  const out: Array<string> = []
  const labels = host.split(".")
  for (let i = 0; i + 4 <= labels.length; i++) {
    const quad = labels.slice(i, i + 4)
    if (quad.every((l) => /^\d{1,3}$/.test(l))) out.push(canonicalHost(quad.join(".")))
  }
  for (const label of labels) {
    const dashed = /(?:^|-)(\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3})(?:$|-)/.exec(label)
    if (dashed !== null) out.push(canonicalHost(dashed[1]!.replaceAll("-", ".")))
    if (/^[0-9a-f]{8}$/.test(label) && labels.length > 2) out.push(canonicalHost(`0x${label}`))
  }
  return out.filter((h) => ipaddr.isValid(h))
}

/**
 * Whether a URL's authority contains a backslash or whitespace: URL parsers disagree on where its
 * host is (the WHATWG parser reads `http://a\\@b/` as host `a`, curl as host `b`).
 *
 * @internal
 */
export const ambiguousAuthority = (raw: string): boolean => {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(raw.trim())
  return m !== null && /[\\\s]/.test(m[1]!)
}

const hostForUrl = (canonical: string): string => canonical.includes(":") ? `[${canonical}]` : canonical

/**
 * Normalize a URL or bare host (`curl 127.1`, `curl [::1]`): scheme and host lower-cased, IP
 * literals canonical, default port dropped, path normalized, userinfo/query/fragment dropped.
 * Returns `null` when it cannot be parsed.
 *
 * @internal
 */
export const normalizeUrl = (raw: string): string | null => {
  const trimmed = raw.trim()
  if (trimmed.length === 0 || trimmed.length > 4096) return null
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\/|^file:/i.test(trimmed) ? trimmed : `http://${trimmed}`
  let url: URL
  try {
    url = new URL(withScheme)
  } catch {
    return null
  }
  if (url.hostname === "") return `${url.protocol}//${url.pathname}`
  const host = hostForUrl(canonicalHost(url.hostname))
  const port = url.port === "" ? "" : `:${url.port}`
  return `${url.protocol}//${host}${port}${url.pathname}`
}

/** Whether a string looks like a URL with a scheme. @internal */
export const isUrl = (s: string): boolean => /^[a-z][a-z0-9+.-]*:\/\/./i.test(s)

const candidate = /[0-9a-z.:[\]_-]+/gi

/**
 * Every metadata host hidden in `text`, in canonical form (decimal, hex, octal, dotted-short,
 * IPv4-mapped IPv6, bracketed).
 *
 * @internal
 */
export const metadataIn = (text: string): ReadonlyArray<string> => {
  if (!/[0-9]|metadata/i.test(text)) return []
  const found: Array<string> = []
  for (const match of text.matchAll(candidate)) {
    const token = match[0]
    if (token.length < 7 && !/metadata/i.test(token)) continue
    let host = canonicalHost(token)
    if (!METADATA_HOSTS.has(host) && /^[0-9a-fx.]+$/i.test(token)) {
      try {
        host = canonicalHost(new URL(`http://${token}/`).hostname)
      } catch {
        continue
      }
    }
    if (METADATA_HOSTS.has(host) && !found.includes(host)) found.push(host)
  }
  return found
}

/** `http://<host>/` for a canonical host. @internal */
export const hostUrl = (host: string): string => `http://${hostForUrl(host)}/`

/** The local path of a normalized `file:` URL, or `null`. @internal */
export const fileUrlPath = (url: string): string | null => {
  if (!url.startsWith("file:")) return null
  try {
    const path = decodeURIComponent(new URL(url).pathname)
    return path.length > 0 ? path : "/"
  } catch {
    return null
  }
}
