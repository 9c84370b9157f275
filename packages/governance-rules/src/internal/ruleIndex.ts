/**
 * The rule index: which rules of a layer can match a resource, found without testing them all.
 * A rule's pattern (each brace alternative) is filed by its literal prefix in a character trie,
 * or — when it starts with a wildcard — by a three-character gram of its longest literal run;
 * only patterns with neither are tested for every resource. A resource walks the trie along its
 * characters and looks up its own grams, so a decision costs O(resource length + matching rules),
 * not O(all rules). Candidates come back in rule order, so first/last-match and deny-overrides
 * evaluation are unchanged (held by a differential property test against the linear scan).
 *
 * @internal
 */
import * as Glob from "./glob.js"

interface Node<R> {
  readonly children: Map<string, Node<R>>
  readonly here: Array<R>
}

const node = <R>(): Node<R> => ({ children: new Map(), here: [] })

const GRAM = 3
const CACHE = 4096

/** The characters every match starts with (sound: possibly shorter than the pattern's literal). */
const literalPrefix = (pattern: string, kind: "path" | "text"): string => {
  const special = kind === "text" ? /[*?[\\]/ : /[*?[{(!+@\\]/
  const at = pattern.search(special)
  let prefix = at < 0 ? pattern : pattern.slice(0, at)
  // `X *` also matches `X`, `dir/**` also `dir`: the separator before the wildcard is optional.
  if (at >= 0 && prefix.length > 1 && (prefix.endsWith(" ") || prefix.endsWith("/"))) prefix = prefix.slice(0, -1)
  return prefix
}

/** A literal run every match contains, or null. */
const requiredRun = (pattern: string, kind: "path" | "text"): string | null => {
  if (/[\\[{(!+@]/.test(pattern)) return null
  let best = ""
  for (const run of pattern.split(/[*?]+/)) {
    // Around a globstar the slashes may collapse away.
    const r = kind === "path" ? run.replace(/^\/+|\/+$/g, "") : run
    if (r.length > best.length) best = r
  }
  return best.length >= GRAM ? best : null
}

/** Each brace alternative of a pattern (text patterns expand braces; path patterns keep them). */
const alternativesOf = (pattern: string, kind: "path" | "text"): ReadonlyArray<string> => {
  if (!pattern.includes("{")) return [pattern]
  try {
    return kind === "text" ? Glob.braceExpansion(pattern) : [pattern]
  } catch {
    return [pattern]
  }
}

/**
 * Build the candidate lookup for rules (in rule order) whose patterns are given by `patternOf`.
 * `always` marks rules that must be tested for every resource (e.g. an action-`*` rule whose
 * pattern is matched by another compiler).
 *
 * @internal
 */
export const build = <R extends { readonly index: number }>(
  rules: ReadonlyArray<R>,
  patternOf: (rule: R) => string,
  kind: "path" | "text"
): (resource: string) => ReadonlyArray<R> => {
  const root = node<R>()
  const grams = new Map<string, Array<R>>()
  const wild: Array<R> = []
  const order = new Map<R, number>()
  rules.forEach((rule, i) => order.set(rule, i))
  for (const rule of rules) {
    const pattern = patternOf(rule)
    const filed = new Set<string>()
    for (const alternative of alternativesOf(pattern, kind)) {
      const prefix = pattern === "**" ? "" : literalPrefix(alternative, kind)
      if (prefix.length > 0) {
        if (filed.has(`p:${prefix}`)) continue
        filed.add(`p:${prefix}`)
        let n = root
        for (const c of prefix) {
          let next = n.children.get(c)
          if (next === undefined) n.children.set(c, next = node<R>())
          n = next
        }
        n.here.push(rule)
        continue
      }
      const run = requiredRun(alternative, kind)
      if (run !== null) {
        // File under the run's least-used gram, so rules that share a stem spread out.
        let key = run.slice(0, GRAM)
        for (let i = 1; i + GRAM <= run.length; i++) {
          const candidate = run.slice(i, i + GRAM)
          if ((grams.get(candidate)?.length ?? 0) < (grams.get(key)?.length ?? 0)) key = candidate
        }
        if (filed.has(`g:${key}`)) continue
        filed.add(`g:${key}`)
        const list = grams.get(key) ?? []
        list.push(rule)
        grams.set(key, list)
        continue
      }
      if (!filed.has("w")) wild.push(rule)
      filed.add("w")
    }
  }
  const cache = new Map<string, ReadonlyArray<R>>()
  const lookup = (resource: string): ReadonlyArray<R> => {
    const found: Array<ReadonlyArray<R>> = wild.length > 0 ? [wild] : []
    let n: Node<R> | undefined = root
    for (let i = 0; i < resource.length && n !== undefined; i++) {
      n = n.children.get(resource[i]!)
      if (n !== undefined && n.here.length > 0) found.push(n.here)
    }
    if (grams.size > 0) {
      for (let i = 0; i + GRAM <= resource.length; i++) {
        const list = grams.get(resource.slice(i, i + GRAM))
        if (list !== undefined) found.push(list)
      }
    }
    if (found.length === 0) return []
    if (found.length === 1) return found[0]!
    // Rule order is evaluation order; a rule filed twice (two alternatives, two grams) counts once.
    const merged = [...new Set(found.flat())]
    merged.sort((a, b) => order.get(a)! - order.get(b)!)
    return merged
  }
  return (resource) => {
    const hit = cache.get(resource)
    if (hit !== undefined) return hit
    const list = lookup(resource)
    if (cache.size >= CACHE) cache.delete(cache.keys().next().value!)
    cache.set(resource, list)
    return list
  }
}
