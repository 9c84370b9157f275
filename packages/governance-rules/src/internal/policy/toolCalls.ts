/**
 * Turning a tool call into analyzed segments: shell commands are parsed and analyzed, paths
 * resolved through the policy's file view, URLs normalized (with the hosts they embed), and an MCP
 * call's top-level resource fields decided as the reads, writes, fetches and commands they name.
 *
 * @internal
 */
import type { Compiled, ToolCall } from "../../Policy.js"
import type { ShellParser } from "../../ShellParser.js"
import * as Analyze from "../analyze/index.js"
import * as Network from "../network.js"
import * as Paths from "../paths.js"

const pathContext = (compiled: Compiled): Paths.PathContext => ({
  workspace: compiled.workspace,
  home: compiled.home,
  cwd: compiled.workspace,
  files: compiled.files
})

const pathSegment = (compiled: Compiled, action: "read" | "write", raw: string): Analyze.Segment => {
  const context = pathContext(compiled)
  const segment: Analyze.Segment = { text: raw, canonical: "", checks: [], guards: [] }
  if (Analyze.hasNonPrinting(raw)) segment.guards.push({ id: "non-printing", detail: raw })
  const real = Paths.realPath(raw, context)
  const shown = Paths.display(real, context)
  segment.canonical = shown
  segment.checks.push({ action, resource: shown })
  return segment
}

const fetchSegment = (compiled: Compiled, raw: string): Analyze.Segment => {
  const segment: Analyze.Segment = { text: raw, canonical: "", checks: [], guards: [] }
  if (Analyze.hasNonPrinting(raw)) segment.guards.push({ id: "non-printing", detail: raw })
  const url = Network.normalizeUrl(raw)
  if (Network.ambiguousAuthority(raw)) segment.guards.push({ id: "unresolved-host", detail: raw })
  if (url === null) {
    segment.guards.push({ id: "parse-error", detail: raw })
    segment.canonical = raw
  } else {
    segment.canonical = url
    segment.checks.push({ action: "fetch", resource: url })
    for (const host of Network.embeddedHosts(url)) {
      segment.checks.push({ action: "fetch", resource: Network.hostUrl(host) })
    }
    // `file:` URLs read local files: decide them as reads of the real path too.
    const local = Network.fileUrlPath(url)
    if (local !== null) {
      const context = pathContext(compiled)
      segment.checks.push({ action: "read", resource: Paths.display(Paths.realPath(local, context), context) })
    }
  }
  for (const host of Network.metadataIn(raw)) segment.checks.push({ action: "fetch", resource: Network.hostUrl(host) })
  return segment
}

const WRITE_TOOL = /write|edit|patch|create|delete|remove|move|rename|mkdir|update|put|upload/i

const collectStrings = (value: unknown, out: Array<string>, depth: number): void => {
  if (depth > 64 || out.length > 10_000) return
  if (typeof value === "string") out.push(value)
  else if (Array.isArray(value)) { for (const v of value) collectStrings(v, out, depth + 1) }
  else if (value !== null && typeof value === "object") {
    for (const v of Object.values(value as Record<string, unknown>)) collectStrings(v, out, depth + 1)
  }
}

/** @internal */
export const analyzeCall = (
  compiled: Compiled,
  parser: ShellParser["Type"],
  call: ToolCall
): ReadonlyArray<Analyze.Segment> => {
  switch (call.tool) {
    case "shell":
      return Analyze.analyze(parser.parseSync(call.command), { ...pathContext(compiled), parse: parser.parseSync })
    case "read":
    case "write":
      return call.paths.map((p) => pathSegment(compiled, call.tool, p))
    case "fetch":
      return [fetchSegment(compiled, call.url)]
    case "agent": {
      const segment: Analyze.Segment = { text: call.name, canonical: call.name, checks: [], guards: [] }
      segment.checks.push({ action: "agent", resource: call.name })
      return [segment]
    }
    case "mcp": {
      const segment: Analyze.Segment = { text: call.name, canonical: call.name, checks: [], guards: [] }
      if (Analyze.hasNonPrinting(call.name)) segment.guards.push({ id: "non-printing", detail: call.name })
      segment.checks.push({ action: "mcp", resource: call.name })
      const out: Array<Analyze.Segment> = [segment]
      const input = call.input
      if (input !== null && typeof input === "object" && !Array.isArray(input)) {
        const fields = input as Record<string, unknown>
        const action = WRITE_TOOL.test(call.name) ? "write" : "read"
        for (const key of ["path", "file", "filePath", "file_path", "paths", "files"]) {
          const value = fields[key]
          const list = typeof value === "string" ? [value] : Array.isArray(value) ? value : []
          for (const p of list) if (typeof p === "string" && p.length > 0) out.push(pathSegment(compiled, action, p))
        }
        for (const key of ["url", "uri"]) {
          const value = fields[key]
          if (typeof value === "string") out.push(fetchSegment(compiled, value))
        }
        for (const key of ["command", "cmd"]) {
          const value = fields[key]
          if (typeof value === "string") out.push(...analyzeCall(compiled, parser, { tool: "shell", command: value }))
        }
      }
      // Anything anywhere in the input that names the cloud metadata address is denied; nothing
      // nested can grant.
      const strings: Array<string> = []
      collectStrings(input, strings, 0)
      for (const s of strings) {
        for (const host of Network.metadataIn(s)) {
          segment.checks.push({ action: "fetch", resource: Network.hostUrl(host) })
        }
      }
      return out
    }
  }
}
