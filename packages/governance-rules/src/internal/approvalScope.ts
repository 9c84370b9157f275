/**
 * The work behind `ApprovalScope`: the engine's reading of an approved call, the prefixes a shell
 * part may be scoped by, and the checks that keep a scope honoured (ADR 0218).
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as Autonomy from "../Autonomy.js"
import * as Files from "../Files.js"
import type { Action } from "../Rule.js"
import type { ShellParser } from "../ShellParser.js"
import * as Analyze from "./analyze/index.js"
import { isKnown } from "./analyze/readings.js"
import * as Evaluate from "./evaluate.js"
import * as Network from "./network.js"

/** @internal */
export const REFUSAL_CODES = [
  "unknown-action",
  "empty",
  "parser-unavailable",
  "unresolved",
  "universal",
  "several-programs",
  "invalid-pattern",
  "not-covering",
  "wildcard-program",
  "too-wide"
] as const

/** @internal */
export interface Refusal {
  readonly code: typeof REFUSAL_CODES[number]
  readonly reason: string
}

/** @internal */
export interface Scope {
  readonly pattern: string
  readonly alternatives: ReadonlyArray<string>
}

/** @internal */
export type Result = Either.Either<Scope, Refusal>

/** @internal */
export const refuse = (code: Refusal["code"], reason: string): Either.Either<never, Refusal> =>
  Either.left({ code, reason })

const GLOB_CHARS = /[*?[\]{}()!+@\\,]/g

/** A literal as a text glob (every glob character escaped). @internal */
export const escapeGlob = (text: string): string => text.replace(GLOB_CHARS, (c) => `\\${c}`)

const hasGlob = (word: string): boolean => /(?<!\\)[*?[\]{}]/.test(word)

// ---------------------------------------------------------------------------------------------
// The engine's reading of a shell command
// ---------------------------------------------------------------------------------------------

// A neutral place to read a command: canonical argv does not depend on where the workspace is,
// and an empty in-memory tree keeps the reading pure (no disk).
const READING_CONTEXT = {
  workspace: "/workspace",
  home: "/home/user",
  cwd: "/workspace",
  files: Files.memory({ "/workspace": "directory", "/home/user": "directory" })
}

let universal: Evaluate.CompiledLayer | undefined
let readOnly: Evaluate.CompiledLayer | undefined

const universalLayer = (): Evaluate.CompiledLayer =>
  universal ??= Evaluate.compileLayer("universal", Autonomy.universalRules, true)

// Commands every level allows (the read-only list): a part of a command that needs no approval.
const readOnlyLayer = (): Evaluate.CompiledLayer =>
  readOnly ??= Evaluate.compileLayer(
    "level",
    Autonomy.baselineRules("read_only").filter((r) => r.action === "shell" && r.effect === "allow"),
    false
  )

const universalHit = (action: Action, resource: string) => Evaluate.matchLayer(universalLayer(), action, resource)

/** @internal */
export interface Reading {
  /** The canonical argv of each part that needs an approval. */
  readonly parts: ReadonlyArray<string>
}

/** @internal */
export const readShell = (command: string, parser: ShellParser["Type"]): Either.Either<Reading, Refusal> => {
  let segments: ReadonlyArray<Analyze.Segment>
  try {
    segments = Analyze.analyze(parser.parseSync(command), { ...READING_CONTEXT, parse: parser.parseSync })
  } catch (error) {
    return Either.left(
      {
        code: "parser-unavailable",
        reason: `the shell grammar is not loaded: ${error instanceof Error ? error.message : String(error)}`
      }
    )
  }
  const parts: Array<string> = []
  for (const segment of segments) {
    for (const check of segment.checks) {
      const hit = universalHit(check.action, check.resource)
      // a deny anywhere (a possible reading included) stays; a file or host the universal layer
      // asks about is its own check, which a shell rule does not loosen
      const held = hit !== null &&
        (hit.rule.effect === "deny" || (check.action !== "shell" && segment.speculative !== true))
      if (held) {
        return Either.left(
          {
            code: "universal",
            reason: `${JSON.stringify(check.resource)} is ${
              hit.rule.effect === "deny" ? "denied" : "held"
            } by ${hit.rule.id} (${hit.rule.note ?? "universal"}), which no rule loosens`
          }
        )
      }
    }
    if (segment.speculative === true) continue
    const shells = segment.checks.filter((c) => c.action === "shell").map((c) => c.resource)
    for (const guard of segment.guards) {
      if (guard.id === "unknown-program" && shells.some((r) => r.split(" ")[0] === guard.detail)) continue
      return Either.left(
        {
          code: "unresolved",
          reason: `${Analyze.guardReasons[guard.id]} (${
            JSON.stringify(guard.detail.slice(0, 80))
          }): a rule cannot make it resolvable, so every such call asks — approve it once instead`
        }
      )
    }
    for (const resource of shells) {
      if (resource === "" || parts.includes(resource)) continue
      if (Evaluate.matchLayer(readOnlyLayer(), "shell", resource)?.rule.effect === "allow") continue
      parts.push(resource)
    }
  }
  if (parts.length === 0) {
    return Either.left({ code: "empty", reason: "the command needs no approval to remember" })
  }
  return Either.right({ parts })
}

// ---------------------------------------------------------------------------------------------
// Shell scopes
// ---------------------------------------------------------------------------------------------

const isFlagWord = (word: string): boolean => word.length > 1 && word.startsWith("-")

/**
 * The word counts of the prefixes a part may be scoped by, narrowest first: the program, its
 * options up to the first operand, and that operand when no option precedes it (for a program
 * with subcommands, the subcommand and then the same again); never fewer words than `least`.
 */
const prefixLengths = (words: ReadonlyArray<string>): ReadonlyArray<number> => {
  const known = isKnown(words[0]!)
  let end = 1
  let optioned = false
  let operands = 0
  // a known program's first word after it is its subcommand or mode: it always stays
  const subcommand = known && SUBCOMMANDS.has(words[0]!) && words[1] !== undefined && !isFlagWord(words[1])
  if (subcommand) end = 2
  while (end < words.length) {
    const w = words[end]!
    if (isFlagWord(w)) {
      optioned = true
      end++
      continue
    }
    // an operand right after the program (or its subcommand) says what it acts on; after an
    // option it may be that option's value
    if (!optioned && operands === 0) {
      operands++
      end++
    }
    break
  }
  const least = known ? Math.min(2, words.length) : 1
  const out: Array<number> = []
  for (let n = end; n >= least; n--) out.push(n)
  return out
}

// Programs whose first operand is a subcommand of its own risk (`git push`, `npm publish`).
const SUBCOMMANDS: ReadonlySet<string> = new Set(
  (
    "git npm pnpm yarn bun deno cargo go docker podman kubectl helm gh aws gcloud az terraform pip pip3 uv poetry " +
    "dotnet mvn gradle brew apt apt-get dnf yum systemctl conda nix rustup"
  ).split(" ")
)

const patternOf = (words: ReadonlyArray<string>, n: number): string =>
  `${words.slice(0, n).map(escapeGlob).join(" ")} *`

/** @internal */
export const covers = (pattern: string, resource: string, kind: "path" | "text"): boolean => {
  try {
    return Evaluate.compilePattern(pattern, kind)(resource)
  } catch {
    return false
  }
}

/** @internal */
export const shellScope = (reading: Reading): Result => {
  const first = reading.parts[0]!.split(" ")
  // a known program without arguments: the exact call (`make`), never every use of it (`make *`)
  const exact = isKnown(first[0]!) && first.length === 1
  const candidates = exact ? [escapeGlob(first[0]!)] : prefixLengths(first).map((n) => patternOf(first, n))
  const honoured = candidates.filter((p) => reading.parts.every((part) => covers(p, part, "text")))
  if (honoured.length === 0) {
    const programs = [...new Set(reading.parts.map((p) => p.split(" ")[0]!))]
    return refuse(
      "several-programs",
      `the command runs ${reading.parts.map((p) => JSON.stringify(p)).join(", ")} and one rule covers one ${
        programs.length > 1 ? "program" : "kind of call"
      }: approve it once, or remember each part on its own`
    )
  }
  return Either.right({ pattern: honoured[0]!, alternatives: honoured.slice(1) })
}

/** @internal */
export const checkShell = (reading: Reading, pattern: string): Result => {
  const words = pattern.trim().split(/\s+/)
  const program = words[0] ?? ""
  if (pattern.trim() === "*" || hasGlob(program)) {
    return refuse(
      "wildcard-program",
      `${JSON.stringify(pattern)} does not name a program: a rule must name the program it allows`
    )
  }
  for (const part of reading.parts) {
    if (!covers(pattern, part, "text")) {
      return refuse("not-covering", `${JSON.stringify(pattern)} does not cover ${JSON.stringify(part)}`)
    }
  }
  const name = program.replace(/\\(.)/g, "$1")
  if (isKnown(name) && words.length >= 2 && hasGlob(words[1]!)) {
    return refuse(
      "too-wide",
      `${
        JSON.stringify(pattern)
      } would allow every use of ${name}, whose uses differ in risk: name its subcommand or option (${
        shellScope(reading).pipe(
          Either.match({ onLeft: () => "", onRight: (s) => `e.g. ${JSON.stringify(s.pattern)}` })
        )
      })`
    )
  }
  return Either.right({ pattern, alternatives: [] })
}

// ---------------------------------------------------------------------------------------------
// Paths, URLs, names
// ---------------------------------------------------------------------------------------------

/** @internal */
export const outside = (path: string): boolean => path.startsWith("/") || path === "~" || path.startsWith("~/")

/** @internal */
export const checkPath = (action: "read" | "write", resource: string): Refusal | null => {
  if (outside(resource) || resource === ".." || resource.startsWith("../")) {
    return ({
      code: "universal",
      reason: `${JSON.stringify(resource)} is outside the workspace: every ${action} there asks, and no rule loosens it`
    })
  }
  const hit = universalHit(action, resource)
  if (hit !== null) {
    return ({
      code: "universal",
      reason: `${JSON.stringify(resource)} is held by ${hit.rule.id} (${
        hit.rule.note ?? hit.rule.effect
      }): every ${action} of it ${hit.rule.effect === "deny" ? "is denied" : "asks"}, and no rule loosens it`
    })
  }
  return null
}

/** @internal */
export const pathScope = (action: "read" | "write", resource: string): Result => {
  const path = resource.replace(/\/+$/, "")
  const refusal = checkPath(action, path)
  if (refusal !== null) return Either.left(refusal)
  const dirs: Array<string> = []
  for (let at = path.lastIndexOf("/"); at > 0; at = path.lastIndexOf("/", at - 1)) {
    dirs.push(`${escapeGlob(path.slice(0, at))}/**`)
  }
  // a file at the top of the workspace: its directory is everything, so the file itself
  if (dirs.length === 0) return Either.right({ pattern: escapeGlob(path), alternatives: [] })
  return Either.right({ pattern: dirs[0]!, alternatives: dirs.slice(1) })
}

const originOf = (url: string): string | null => {
  const normalized = Network.normalizeUrl(url)
  if (normalized === null) return null
  try {
    const parsed = new URL(normalized)
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? `${parsed.protocol}//${parsed.host}` : null
  } catch {
    return null
  }
}

/** @internal */
export const fetchScope = (resource: string): Result => {
  const origin = originOf(resource)
  if (origin === null) return refuse("unresolved", `${JSON.stringify(resource)} is not an http(s) URL with a host`)
  const hit = universalHit("fetch", Network.normalizeUrl(resource)!)
  if (hit !== null && hit.rule.effect === "deny") {
    return refuse("universal", `${JSON.stringify(resource)} is denied by ${hit.rule.id}, which no rule loosens`)
  }
  return Either.right({ pattern: `${escapeGlob(origin)}/**`, alternatives: [] })
}
