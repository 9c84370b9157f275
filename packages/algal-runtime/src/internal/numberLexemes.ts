/**
 * A lexical check of manifest text that `JSON.parse` cannot make: the integer fields of the
 * contract (budgets and the other `as_u64` fields) must be written as integer literals. `6.0`,
 * `6e0` and `-0` parse to integral numbers in JavaScript, but the original's parser (serde_json's
 * `as_u64`) refuses them. See ADR 0394.
 *
 * The scan is linear and never recurses into untracked values (deep or huge input is skipped with a
 * depth counter); only the few levels leading to an integer field are descended, so the recursion
 * depth is bounded by the pattern (≤ 5). Duplicate keys follow `JSON.parse`: the last one wins.
 *
 * @internal
 */

/** A position pattern: named keys, any key or index, or a leaf (an integer field). */
interface Pattern {
  readonly keys?: ReadonlyMap<string, Pattern>
  readonly any?: Pattern
  readonly leaf?: true
}

const leaf: Pattern = { leaf: true }
const leaves = (...names: ReadonlyArray<string>): Pattern => ({ keys: new Map(names.map((n) => [n, leaf])) })
const schemaVersion = leaves("schemaVersion")

/** Every position where the manifest parser reads a non-negative integer (`uint`). */
const cellPattern: Pattern = {
  keys: new Map<string, Pattern>([
    ["budget", leaves("maxContextBytes", "maxOutputBytes", "maxTurns", "maxEffectMs")],
    ["retry", leaves("attempts")],
    ["compact", leaves("maxLogBytes", "keepRecent")],
    ["rerank", leaves("take")],
    ["k", leaf],
    ["maxRounds", leaf],
    ["maxItems", leaf],
    ["inputs", { any: schemaVersion }],
    ["outputs", { any: schemaVersion }],
    ["output", schemaVersion]
  ])
}

const rootPattern: Pattern = {
  keys: new Map<string, Pattern>([
    ["budgets", leaves("maxSteps", "maxAgentCalls", "maxWork", "maxContextBytes", "maxOutputBytes", "maxDepth")],
    ["cells", { any: cellPattern }]
  ])
}

/** An `algal.bundle.v1`: manifests keyed by digest. */
const bundlePattern: Pattern = { keys: new Map<string, Pattern>([["manifests", { any: rootPattern }]]) }

/** A number found at an integer position. @internal */
export interface Found {
  readonly path: string
  readonly lexeme: string
}

/** What a tracked container holds, by key (last occurrence wins) or index. */
type Entry = Found | Shadow | undefined
type Shadow = Map<string, Entry>

/** The characters that matter when skipping a value: quotes and brackets. */
const structural = /["[\]{}]/g

/** An integer literal as the original accepts it: no sign, fraction or exponent, no leading zero. */
const integerLexeme = /^(?:0|[1-9][0-9]*)$/

/**
 * The first integer field (in document order, after duplicate keys are resolved) whose number is
 * not written as an integer literal. `text` must be valid JSON (already accepted by `JSON.parse`).
 *
 * @internal
 */
export const firstNonIntegerLexeme = (text: string): Found | undefined => firstIn(scanText(text, rootPattern, "$"))

/**
 * For each manifest of an `algal.bundle.v1` text (by its key in `manifests`) with an integer field
 * not written as an integer literal, the first such field (each fails to parse in the original).
 *
 * @internal
 */
export const bundleNonIntegerLexemes = (text: string): ReadonlyMap<string, Found> => {
  const found = new Map<string, Found>()
  const tree = scanText(text, bundlePattern, "$")
  const manifests = tree instanceof Map ? tree.get("manifests") : undefined
  if (manifests instanceof Map) {
    for (const [key, entry] of manifests) {
      const first = firstIn(entry)
      if (first !== undefined) found.set(key, first)
    }
  }
  return found
}

// The first non-integer lexeme of a shadow tree (only tracked positions), in document order.
const firstIn = (tree: Entry): Found | undefined => {
  const stack: Array<Entry> = [tree]
  while (stack.length > 0) {
    const entry = stack.pop()
    if (entry === undefined) continue
    if (entry instanceof Map) {
      const children = Array.from(entry.values())
      for (let k = children.length - 1; k >= 0; k--) stack.push(children[k])
      continue
    }
    if (!integerLexeme.test(entry.lexeme)) return entry
  }
  return undefined
}

// Scan `text` (valid JSON) along `pattern`: the shadow tree of the numbers at integer positions.
const scanText = (text: string, pattern: Pattern, at: string): Entry => {
  let i = 0
  const n = text.length

  const ws = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i)
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++
      else return
    }
  }

  /** Skip a string starting at `i` (the opening quote), leaving `i` just after its closing quote. */
  const skipString = (): void => {
    const start = i
    let j = i + 1
    for (;;) {
      const q = text.indexOf("\"", j)
      if (q < 0) {
        i = n
        return
      }
      let backslashes = 0
      for (let k = q - 1; k > start && text.charCodeAt(k) === 0x5c; k--) backslashes++
      if (backslashes % 2 === 0) {
        i = q + 1
        return
      }
      j = q + 1
    }
  }

  const readKey = (): string => {
    const start = i
    skipString()
    const raw = text.slice(start, i)
    return raw.indexOf("\\") < 0 ? raw.slice(1, -1) : (JSON.parse(raw) as string)
  }

  const skipScalar = (): string => {
    const start = i
    while (i < n) {
      const c = text.charCodeAt(i)
      if (c === 0x2c || c === 0x5d || c === 0x7d || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) break
      i++
    }
    return text.slice(start, i)
  }

  /** Skip any value iteratively (a depth counter, no recursion). */
  const skipValue = (): void => {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      skipString()
      return
    }
    if (c !== 0x7b && c !== 0x5b) {
      skipScalar()
      return
    }
    let depth = 0
    // Jump from one structural character to the next (the regex engine skips everything between).
    structural.lastIndex = i
    for (;;) {
      const m = structural.exec(text)
      if (m === null) {
        i = n
        return
      }
      i = m.index
      const d = text.charCodeAt(i)
      if (d === 0x22) {
        skipString()
        structural.lastIndex = i
        continue
      }
      if (d === 0x7b || d === 0x5b) depth++
      else {
        depth--
        if (depth === 0) {
          i++
          return
        }
      }
    }
  }

  const scan = (pattern: Pattern | undefined, path: string): Entry => {
    ws()
    if (pattern === undefined) {
      skipValue()
      return undefined
    }
    const c = text.charCodeAt(i)
    if (pattern.leaf === true) {
      if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return { path, lexeme: skipScalar() }
      skipValue()
      return undefined
    }
    if (c === 0x7b) {
      const shadow: Shadow = new Map()
      i++
      ws()
      if (text.charCodeAt(i) === 0x7d) {
        i++
        return shadow
      }
      while (i < n) {
        ws()
        const key = readKey()
        ws()
        i++ // ':'
        const child = pattern.keys?.get(key) ?? pattern.any
        // `set` on an existing key replaces its entry but keeps its first position, as JSON.parse does.
        shadow.set(key, scan(child, child === undefined ? path : `${path}.${key}`))
        ws()
        if (text.charCodeAt(i++) !== 0x2c) break
      }
      return shadow
    }
    if (c === 0x5b) {
      const shadow: Shadow = new Map()
      i++
      ws()
      if (text.charCodeAt(i) === 0x5d) {
        i++
        return shadow
      }
      let index = 0
      while (i < n) {
        const child = pattern.any
        shadow.set(String(index), scan(child, child === undefined ? path : `${path}[${index}]`))
        index++
        ws()
        if (text.charCodeAt(i++) !== 0x2c) break
      }
      return shadow
    }
    skipValue()
    return undefined
  }

  return scan(pattern, at)
}
