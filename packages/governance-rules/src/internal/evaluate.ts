/**
 * Compiled rule layers and the pure matching core. Patterns are compiled once — for paths and
 * URLs with picomatch (bash semantics: `*` spans `/`), for argv text (shell, tool and agent names)
 * with the same glob syntax but where `*` matches *any* characters, including `.`/`..` path
 * segments that picomatch never matches by wildcard — rules are indexed (`ruleIndex.ts`), and a check is decided per layer (last match wins, or deny-overrides for the
 * universal layer), then across layers by deny-overrides.
 *
 * @internal
 */
import picomatch from "picomatch"
import type { Action, Citation, LayerName, Rule, RuleEffect } from "../Rule.js"
import * as Glob from "./glob.js"
import * as RuleIndex from "./ruleIndex.js"

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
  /** The rules that can match a resource, in rule order (the index). */
  readonly candidates: (action: Action, resource: string) => ReadonlyArray<CompiledRule>
  /** Every rule of an action, in rule order (the linear reference). */
  readonly all: (action: Action) => ReadonlyArray<CompiledRule>
}

const OPTIONS = { bash: true, dot: true } as const

const GLOB_CHARS = /[*?[\]{}()!+@\\]/

// Forms picomatch gives regular-expression power (extglobs, groups, a leading `!` negation): no
// linear pre-filter can vouch for them, so with more than two stars they are refused at load.
const REGEX_POWER = /[+*?@!]\(|[()|]|^!|\{[^}]*\.\.[^}]*\}|\[:/

const starRuns = (pattern: string): number => (pattern.match(/\*+/g) ?? []).length

/**
 * The text-glob form of a path pattern, a superset of what picomatch matches: a globstar and
 * the slashes around it become one star (picomatch lets a globstar segment collapse, slashes
 * included); every star spans anything.
 */
const pathAsText = (pattern: string): string => pattern.replace(/\/?\*\*\/?/g, "*")

/**
 * A path or URL pattern: a linear-time glob pre-filter (sound: it never rejects what picomatch
 * accepts), then picomatch's regular expression only on a string the pre-filter already matched.
 * Throws `Glob.GlobError` for a pattern no linear bound can be given for.
 */
const regexTest = (pattern: string): (s: string) => boolean => {
  const re = picomatch.makeRe(pattern, OPTIONS)
  if (REGEX_POWER.test(pattern.replace(/\\./g, ""))) {
    if (starRuns(pattern) > 2) {
      throw new Glob.GlobError("extglob, group or negation with more than two stars has no linear-time bound")
    }
    return (s) => re.test(s)
  }
  const pre = Glob.compile(pathAsText(pattern))
  // picomatch also accepts one trailing `/`.
  return (s) => (pre.test(s) || (s.endsWith("/") && pre.test(s.slice(0, -1)))) && re.test(s)
}

const textTest = (pattern: string): (s: string) => boolean => Glob.compile(pattern).test

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
  // Each action's rules are indexed by literal prefix (a trie) or a required gram (ADR 0206).
  const indexes = new Map<Action, (resource: string) => ReadonlyArray<CompiledRule>>()
  for (const [action, list] of byAction) {
    indexes.set(action, RuleIndex.build(list, (c) => c.rule.resource, isTextAction(action) ? "text" : "path"))
  }
  const empty: ReadonlyArray<CompiledRule> = []
  const candidates = (action: Action, resource: string): ReadonlyArray<CompiledRule> => {
    const index = indexes.get(action)
    return index === undefined ? empty : index(resource)
  }
  const all = (action: Action): ReadonlyArray<CompiledRule> => byAction.get(action) ?? empty
  return { name, strictest, rules: compiled, candidates, all }
}

const RANK: Record<RuleEffect, number> = { allow: 0, ask: 1, deny: 2 }

/** The rule of a layer that decides a check, or null. @internal */
export const matchLayer = (layer: CompiledLayer, action: Action, resource: string): CompiledRule | null =>
  matchIn(layer, layer.candidates(action, resource), resource)

/** The same by testing every rule of the action in order (the reference for the index). @internal */
export const matchLayerLinear = (layer: CompiledLayer, action: Action, resource: string): CompiledRule | null =>
  matchIn(layer, layer.all(action), resource)

const matchIn = (layer: CompiledLayer, list: ReadonlyArray<CompiledRule>, resource: string): CompiledRule | null => {
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
