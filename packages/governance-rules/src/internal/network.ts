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
  "169.254.169.254",
  "169.254.170.2",
  "100.100.100.200",
  "fd00:ec2::254",
  "metadata.google.internal",
  "metadata.goog"
])

/** Canonical form of a host: IPv4 dotted quad, compressed IPv6 (no brackets), or lower-case name. @internal */
export const canonicalHost = (host: string): string => {
  let h = host.toLowerCase()
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1)
  if (h.endsWith(".")) h = h.slice(0, -1)
  if (ipaddr.isValid(h)) {
    try {
      const parsed = ipaddr.process(h)
      return parsed.toString()
    } catch {
      return h
    }
  }
  return h
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
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`
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
