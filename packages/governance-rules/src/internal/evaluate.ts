/**
 * Compiled rule layers and the pure matching core. Patterns are compiled once — for paths and
 * URLs with picomatch (bash semantics: `*` spans `/`), for argv text (shell, tool and agent names)
 * with the same glob syntax but where `*` matches *any* characters, including `.`/`..` path
 * segments that picomatch never matches by wildcard — shell rules are indexed by their literal
 * first token, and a check is decided per layer (last match wins, or deny-overrides for the
 * universal layer), then across layers by deny-overrides.
 *
 * @internal
 */
import picomatch from "picomatch"
import type { Action, Citation, LayerName, Rule, RuleEffect } from "../Rule.js"

/** @internal */
export interface CompiledRule {
  readonly rule: Rule
  readonly index: number
  readonly layer: LayerName
  readonly source: string | null
  readonly test: (resource: string) => boolean
}

/** @internal */
export interface CompiledLayer {
  readonly name: LayerName
  readonly strictest: boolean
  readonly rules: ReadonlyArray<CompiledRule>
  readonly candidates: (action: Action, resource: string) => ReadonlyArray<CompiledRule>
}

const OPTIONS = { bash: true, dot: true } as const

// The compiled regular expression, tested directly (picomatch's matcher wrapper costs more than
// the match itself on the hot path).
const regexTest = (pattern: string): (s: string) => boolean => {
  const re = picomatch.makeRe(pattern, OPTIONS)
  // A cheap, sound pre-filter for patterns whose only specials are `*` and `?`: the literal runs
  // between them must appear (the first as a prefix, the last as a suffix) for the glob to match.
  if (/[[\]{}()!+@\\]/.test(pattern)) return (s) => re.test(s)
  if (pattern.includes("**")) {
    // `**/` may match nothing at all, so only the literal after the last wildcard is used: the
    // resource must end with it (when it follows `**/`, the slash may collapse away).
    const lastGlob = Math.max(pattern.lastIndexOf("*"), pattern.lastIndexOf("?"))
    const suffix = pattern.slice(lastGlob + 1)
    if (suffix.length === 0) return (s) => re.test(s)
    const collapsible = suffix.startsWith("/") && pattern[lastGlob] === "*" && pattern[lastGlob - 1] === "*"
    const bare = collapsible ? suffix.slice(1) : null
    const fits = (x: string) => x.endsWith(suffix) || x === bare
    // picomatch also accepts one trailing `/`.
    return (s) => (fits(s) || (s.endsWith("/") && fits(s.slice(0, -1)))) && re.test(s)
  }
  const parts = pattern.split(/[*?]+/)
  const first = parts[0]!
  const last = parts.length > 1 ? parts[parts.length - 1]! : ""
  let middle = ""
  for (let i = 1; i < parts.length - 1; i++) if (parts[i]!.length > middle.length) middle = parts[i]!
  return (s) =>
    (first.length === 0 || s.startsWith(first)) &&
    // picomatch also accepts one trailing `/`.
    (last.length === 0 || s.endsWith(last) || (s.endsWith("/") && s.slice(0, -1).endsWith(last))) &&
    (middle.length === 0 || s.includes(middle)) &&
    re.test(s)
}

const GLOB_CHARS = /[*?[\]{}()!+@\\]/

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")

/**
 * Glob syntax over plain text: `*` any run of characters, `?` one character, `[…]`/`[!…]`
 * classes, `{a,b}` alternatives, `\x` a literal. Unbalanced brackets and braces are literal.
 */
const textSource = (pattern: string): string => {
  let out = ""
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === "\\" && i + 1 < pattern.length) {
      out += escapeRegex(pattern[++i]!)
    } else if (c === "*") {
      while (pattern[i + 1] === "*") i++
      out += "[\\s\\S]*"
    } else if (c === "?") {
      out += "[\\s\\S]"
    } else if (c === "[") {
      let j = i + 1
      if (pattern[j] === "!" || pattern[j] === "^") j++
      if (pattern[j] === "]") j++
      while (j < pattern.length && pattern[j] !== "]") j++
      if (j >= pattern.length) {
        out += "\\["
        continue
      }
      let body = pattern.slice(i + 1, j)
      const negate = body.startsWith("!") || body.startsWith("^")
      if (negate) body = body.slice(1)
      out += `[${negate ? "^" : ""}${
        body.replace(/[\\\]^]/g, (m, offset: number) => m === "^" && offset > 0 ? "^" : `\\${m}`)
      }]`
      i = j
    } else if (c === "{") {
      let depth = 0
      let j = i + 1
      const alternatives: Array<string> = []
      let current = ""
      for (; j < pattern.length; j++) {
        const d = pattern[j]!
        if (d === "\\" && j + 1 < pattern.length) {
          current += d + pattern[++j]!
          continue
        }
        if (d === "{") depth++
        else if (d === "}") {
          if (depth === 0) break
          depth--
        } else if (d === "," && depth === 0) {
          alternatives.push(current)
          current = ""
          continue
        }
        current += d
      }
      if (j >= pattern.length || alternatives.length === 0) {
        out += "\\{"
        continue
      }
      alternatives.push(current)
      out += `(?:${alternatives.map(textSource).join("|")})`
      i = j
    } else {
      out += escapeRegex(c)
    }
  }
  return out
}

const textTest = (pattern: string): (s: string) => boolean => {
  const re = new RegExp(`^(?:${textSource(pattern)})$`)
  if (/[[\]{}\\]/.test(pattern)) return (s) => re.test(s)
  const parts = pattern.split(/[*?]+/)
  const first = parts[0]!
  const last = parts.length > 1 ? parts[parts.length - 1]! : ""
  let middle = ""
  for (let i = 1; i < parts.length - 1; i++) if (parts[i]!.length > middle.length) middle = parts[i]!
  return (s) =>
    (first.length === 0 || s.startsWith(first)) &&
    (last.length === 0 || s.endsWith(last)) &&
    (middle.length === 0 || s.includes(middle)) &&
    re.test(s)
}

/** Whether an action's resources are argv/name text (as opposed to paths and URLs). @internal */
export const isTextAction = (action: Action): boolean => action === "shell" || action === "mcp" || action === "agent"

/**
 * Compile one pattern into a predicate, for path/URL resources (`path`) or argv/name text
 * (`text`). Throws on a pattern picomatch rejects.
 *
 * @internal
 */
export const compilePattern = (pattern: string, kind: "path" | "text" = "path"): (resource: string) => boolean => {
  if (kind === "text") {
    if (!GLOB_CHARS.test(pattern)) return (s) => s === pattern
    const main = textTest(pattern)
    // `git status *` also matches the bare `git status`.
    if (pattern.endsWith(" *") && pattern.length > 2) {
      const bare = pattern.slice(0, -2)
      const bareTest = GLOB_CHARS.test(bare) ? textTest(bare) : (s: string) => s === bare
      return (s) => main(s) || bareTest(s)
    }
    return main
  }
  // `**` matches everything, including the workspace root itself (`.`).
  if (pattern === "**") return () => true
  const main = regexTest(pattern)
  // `src/**` also matches the directory `src` itself.
  if (pattern.endsWith("/**") && pattern.length > 3) {
    const dir = pattern.slice(0, -3)
    const dirTest = GLOB_CHARS.test(dir) ? regexTest(dir) : (s: string) => s === dir
    return (s) => main(s) || dirTest(s)
  }
  // `git status *` also matches the bare `git status`.
  if (pattern.endsWith(" *") && pattern.length > 2) {
    const bare = pattern.slice(0, -2)
    const bareTest = GLOB_CHARS.test(bare) ? regexTest(bare) : (s: string) => s === bare
    return (s) => main(s) || bareTest(s)
  }
  if (!GLOB_CHARS.test(pattern)) return (s) => s === pattern
  return main
}

const compileTest = (rule: Rule, kind: "path" | "text"): (resource: string) => boolean => {
  const main = compilePattern(rule.resource, kind)
  const except = (rule.except ?? []).map((e) => compilePattern(e, kind))
  return except.length === 0 ? main : (s: string) => main(s) && !except.some((e) => e(s))
}

const compileRule = (
  rule: Rule,
  index: number,
  layer: LayerName,
  source: string | null,
  kind: "path" | "text"
): CompiledRule => ({ rule, index, layer, source, test: compileTest(rule, kind) })

const firstToken = (s: string): string => {
  const space = s.indexOf(" ")
  return space < 0 ? s : s.slice(0, space)
}

/** @internal */
export const compileLayer = (
  name: LayerName,
  rules: ReadonlyArray<Rule>,
  strictest: boolean,
  sources?: ReadonlyArray<string | null>
): CompiledLayer => {
  const compiled: Array<CompiledRule> = []
  const byAction = new Map<Action, Array<CompiledRule>>()
  rules.forEach((rule, index) => {
    const source = sources?.[index] ?? null
    const actions: ReadonlyArray<Action> = rule.action === "*"
      ? ["shell", "read", "write", "fetch", "mcp", "agent"]
      : [rule.action]
    let path: CompiledRule | undefined
    let text: CompiledRule | undefined
    for (const action of actions) {
      const c = isTextAction(action)
        ? (text ??= compileRule(rule, index, name, source, "text"))
        : (path ??= compileRule(rule, index, name, source, "path"))
      const list = byAction.get(action) ?? []
      list.push(c)
      byAction.set(action, list)
    }
    compiled.push((path ?? text)!)
  })
  // Shell rules indexed by the literal first token of their pattern; wildcards go everywhere.
  const shell = byAction.get("shell") ?? []
  const wild: Array<CompiledRule> = []
  const byFirst = new Map<string, Array<CompiledRule>>()
  for (const c of shell) {
    const token = c.rule.action === "*" ? "*" : firstToken(c.rule.resource)
    if (GLOB_CHARS.test(token)) wild.push(c)
    else {
      const list = byFirst.get(token) ?? []
      list.push(c)
      byFirst.set(token, list)
    }
  }
  const merged = new Map<string, ReadonlyArray<CompiledRule>>()
  const empty: ReadonlyArray<CompiledRule> = []
  const candidates = (action: Action, resource: string): ReadonlyArray<CompiledRule> => {
    if (action !== "shell") return byAction.get(action) ?? empty
    const token = firstToken(resource)
    const hit = merged.get(token)
    if (hit !== undefined) return hit
    const exact = byFirst.get(token) ?? empty
    const list = exact.length === 0 ? wild : [...exact, ...wild].sort((a, b) => a.index - b.index)
    if (merged.size < 4096) merged.set(token, list)
    return list
  }
  return { name, strictest, rules: compiled, candidates }
}

const RANK: Record<RuleEffect, number> = { allow: 0, ask: 1, deny: 2 }

/** The rule of a layer that decides a check, or null. @internal */
export const matchLayer = (layer: CompiledLayer, action: Action, resource: string): CompiledRule | null => {
  const list = layer.candidates(action, resource)
  if (layer.strictest) {
    let best: CompiledRule | null = null
    for (let i = 0; i < list.length; i++) {
      const c = list[i]!
      if ((best === null || RANK[c.rule.effect] > RANK[best.rule.effect]) && c.test(resource)) {
        best = c
        if (c.rule.effect === "deny") break
      }
    }
    return best
  }
  for (let i = list.length - 1; i >= 0; i--) {
    const c = list[i]!
    if (c.test(resource)) return c
  }
  return null
}

/** @internal */
export const describe = (c: CompiledRule, action: Action, resource: string): string =>
  `${c.rule.effect}: ${c.layer} rule "${c.rule.id}" (${c.rule.action} ${
    JSON.stringify(c.rule.resource)
  }) matched ${action} ${JSON.stringify(resource)}${c.rule.note === undefined ? "" : ` — ${c.rule.note}`}`

/** @internal */
export const citationOf = (c: CompiledRule, action: Action, resource: string, segment: string): Citation => {
  let reason: string | undefined
  // The reason is rendered on first read: most citations on the hot path are never shown.
  return {
    layer: c.layer,
    ruleId: c.rule.id,
    ruleIndex: c.index,
    pattern: c.rule.resource,
    action,
    effect: c.rule.effect,
    resource,
    segment,
    note: c.rule.note ?? null,
    source: c.source,
    get reason() {
      return reason ??= describe(c, action, resource)
    }
  }
}

/** @internal */
export const defaultCitation = (action: Action, resource: string, segment: string): Citation => ({
  layer: "default",
  ruleId: null,
  ruleIndex: null,
  pattern: null,
  action,
  effect: "ask",
  resource,
  segment,
  note: null,
  source: null,
  reason: `ask: no rule matched ${action} ${JSON.stringify(resource)} — authority is never granted by silence`
})

/**
 * Decide one check across layers (given in precedence order): the strictest matching layer wins;
 * ties go to the earlier (higher-precedence) layer; no match asks.
 *
 * @internal
 */
export const decideCheck = (
  layers: ReadonlyArray<CompiledLayer>,
  action: Action,
  resource: string,
  segment: string
): Citation => {
  let best: CompiledRule | null = null
  for (let i = 0; i < layers.length; i++) {
    const hit = matchLayer(layers[i]!, action, resource)
    if (hit !== null && (best === null || RANK[hit.rule.effect] > RANK[best.rule.effect])) {
      best = hit
      if (hit.rule.effect === "deny") break
    }
  }
  return best === null ? defaultCitation(action, resource, segment) : citationOf(best, action, resource, segment)
}

/** @internal */
export const rank = (effect: RuleEffect): number => RANK[effect]
