/**
 * A client's hook settings file, merged and unmerged. `install` adds one matcher group per event
 * Steward handles (a Steward hook command, the client's timeout unit) and changes nothing else;
 * `uninstall` removes exactly those groups, and when the rest of the file is what it was before
 * the install, writes the original bytes back (an install then an uninstall leaves a file
 * byte-identical). The original text is kept in the install record for that.
 *
 * @since 0.3.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Wire from "./Wire.js"

/**
 * The hook timeout `hooks install` writes (Claude Code and Codex count seconds, Gemini CLI
 * milliseconds): above Steward's own
 * deadline (20 s), so Steward's deny always comes first and the client never times out — on
 * which it would run the tool.
 *
 * @since 0.3.0
 * @category constants
 */
export const TIMEOUT_SECONDS = 30

/**
 * The events `install` registers, per client, in the order written.
 *
 * @since 0.3.0
 * @category models
 */
export const installedEvents = (client: Wire.Client): ReadonlyArray<string> => Object.keys(Wire.events[client])

/**
 * The matcher group of one event.
 *
 * @since 0.3.0
 * @category constructors
 */
export const group = (client: Wire.Client, event: string, command: string): Record<string, unknown> => ({
  hooks: [
    client === "gemini"
      ? { type: "command", name: `steward-${event}`, command, timeout: TIMEOUT_SECONDS * 1000 }
      : { type: "command", command, timeout: TIMEOUT_SECONDS }
  ]
})

/**
 * Whether a hook command is one of Steward's: `… hook.cjs <client> <Event> …` (the lean entry
 * `hooks install` writes) or `… hook <client> <Event> …` of the CLI (`bin.js`, `steward`).
 *
 * @since 0.3.0
 * @category guards
 */
export const isStewardCommand = (command: unknown): boolean =>
  typeof command === "string" &&
  /(?:^|[\s/])(?:(?:bin\.(?:js|ts)|steward)\s+hook|hook\.cjs)\s+(?:claude-code|codex|gemini)\s+\w+/.test(command)

const isStewardGroup = (g: unknown): boolean => {
  if (typeof g !== "object" || g === null) return false
  const hooks = (g as { hooks?: unknown }).hooks
  return Array.isArray(hooks) && hooks.length > 0 &&
    hooks.every((h) => typeof h === "object" && h !== null && isStewardCommand((h as { command?: unknown }).command))
}

type Json = Record<string, unknown>

const Root = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/**
 * Parse a settings file's text (`null`: no file). `Left` says why it cannot be merged.
 *
 * @since 0.3.0
 * @category parsing
 */
export const parse = (text: string | null, file: string): Either.Either<Json, string> => {
  if (text === null || text.trim() === "") return Either.right({})
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (e) {
    return Either.left(`${file} is not valid JSON (${(e as Error).message}); fix it or move it aside first`)
  }
  if (!Schema.is(Root)(raw) || Array.isArray(raw)) return Either.left(`${file}: the top level is not a JSON object`)
  const hooks = raw["hooks"]
  if (hooks !== undefined && (typeof hooks !== "object" || hooks === null || Array.isArray(hooks))) {
    return Either.left(`${file}: "hooks" is not an object`)
  }
  for (const [event, groups] of Object.entries((hooks ?? {}) as Json)) {
    if (!Array.isArray(groups)) return Either.left(`${file}: hooks.${event} is not an array`)
  }
  return Either.right(raw)
}

/** The file's indentation (two spaces when it cannot be told), so a rewrite keeps its look. */
const indentOf = (text: string | null): string | number => {
  const match = text === null ? null : /^\{\s*\n([ \t]+)"/.exec(text)
  return match === null ? 2 : match[1]!
}

/**
 * @since 0.3.0
 * @category rendering
 */
export const stringify = (doc: Json, like: string | null): string => `${JSON.stringify(doc, null, indentOf(like))}\n`

/**
 * The settings with Steward's groups added (any Steward group already there is replaced).
 *
 * @since 0.3.0
 * @category merging
 */
export const install = (doc: Json, client: Wire.Client, commandFor: (event: string) => string): Json => {
  const cleaned = uninstall(doc)
  const hooks = { ...((cleaned["hooks"] ?? {}) as Record<string, ReadonlyArray<unknown>>) }
  for (const event of installedEvents(client)) {
    hooks[event] = [...(hooks[event] ?? []), group(client, event, commandFor(event))]
  }
  return { ...cleaned, hooks }
}

/**
 * The settings without Steward's groups (events and a `hooks` key left empty are removed).
 *
 * @since 0.3.0
 * @category merging
 */
export const uninstall = (doc: Json): Json => {
  const hooks = doc["hooks"]
  if (typeof hooks !== "object" || hooks === null) return doc
  const kept: Record<string, unknown> = {}
  for (const [event, groups] of Object.entries(hooks as Json)) {
    const rest = Array.isArray(groups) ? groups.filter((g) => !isStewardGroup(g)) : groups
    if (!Array.isArray(rest) || rest.length > 0 || !Array.isArray(groups) || groups.length === 0) kept[event] = rest
  }
  const { hooks: _, ...others } = doc
  return Object.keys(kept).length === 0 ? others : { ...doc, hooks: kept }
}

/**
 * The Steward commands installed, by event.
 *
 * @since 0.3.0
 * @category reading
 */
export const installed = (doc: Json): Record<string, string> => {
  const out: Record<string, string> = {}
  const hooks = doc["hooks"]
  if (typeof hooks !== "object" || hooks === null) return out
  for (const [event, groups] of Object.entries(hooks as Json)) {
    if (!Array.isArray(groups)) continue
    for (const g of groups) {
      if (!isStewardGroup(g)) continue
      out[event] = String(((g as { hooks: Array<{ command: string }> }).hooks[0]!).command)
    }
  }
  return out
}

/**
 * Deep equality of two JSON values (key order ignored).
 *
 * @since 0.3.0
 * @category utils
 */
export const sameJson = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  return ka.length === kb.length &&
    ka.every((k) => Object.hasOwn(b, k) && sameJson((a as Json)[k], (b as Json)[k]))
}

/**
 * A unified-style diff of two texts by line (for `--dry-run`).
 *
 * @since 0.3.0
 * @category rendering
 */
export const diff = (before: string, after: string): string => {
  const a = before === "" ? [] : before.replace(/\n$/, "").split("\n")
  const b = after === "" ? [] : after.replace(/\n$/, "").split("\n")
  // Longest common subsequence over lines: settings files are small.
  const lcs: Array<Array<number>> = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0))
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!)
    }
  }
  const out: Array<string> = []
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push(`  ${a[i]}`)
      i++
      j++
    } else if (j < b.length && (i === a.length || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) {
      out.push(`+ ${b[j]}`)
      j++
    } else {
      out.push(`- ${a[i]}`)
      i++
    }
  }
  return out.join("\n")
}
