/**
 * What `JSON.parse` lets through silently, found in linear time: a duplicate key in one object
 * (last one wins there) and a string — key or value — holding a lone UTF-16 surrogate. The text
 * is valid JSON already (parse first); the scan keeps one set of keys per open object.
 *
 * @internal
 */

/** A problem, with the JSON path of the member where it is and its line. @internal */
export interface Problem {
  readonly kind: "duplicate-key" | "lone-surrogate" | "too-deep"
  readonly path: string
  readonly key: string
  readonly line: number
}

const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

const segment = (key: string | number): string =>
  typeof key === "number" ? `[${key}]` : /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`

interface Frame {
  readonly keys: Set<string> | null
  index: number
  key: string | number | undefined
}

/**
 * The first duplicate key, lone surrogate or nesting past `maxDepth` in valid JSON `text`, or
 * `undefined`. @internal
 */
export const firstProblem = (text: string, maxDepth = Number.POSITIVE_INFINITY): Problem | undefined => {
  const stack: Array<Frame> = []
  let line = 1
  const path = () => stack.map((f) => f.key === undefined ? "" : segment(f.key)).join("").replace(/^\./, "") || "(root)"
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === "\n") line++
    else if (c === "{" || c === "[") {
      if (stack.length >= maxDepth) return { kind: "too-deep", path: path(), key: "", line }
      stack.push({ keys: c === "{" ? new Set() : null, index: 0, key: c === "[" ? 0 : undefined })
    } else if (c === "}" || c === "]") stack.pop()
    else if (c === ",") {
      const top = stack[stack.length - 1]
      if (top !== undefined && top.keys === null) top.key = ++top.index
    } else if (c === "\"") {
      let end = i + 1
      while (text[end] !== "\"") end += text[end] === "\\" ? 2 : 1
      const value = JSON.parse(text.slice(i, end + 1)) as string
      i = end
      let next = i + 1
      while (next < text.length && /\s/.test(text[next]!)) next++
      const top = stack[stack.length - 1]
      const isKey = text[next] === ":" && top !== undefined && top.keys !== null
      if (isKey) {
        top.key = value
        if (top.keys!.has(value)) return { kind: "duplicate-key", path: path(), key: value, line }
        top.keys!.add(value)
      }
      if (LONE.test(value)) {
        return { kind: "lone-surrogate", path: path(), key: isKey ? value : String(top?.key ?? ""), line }
      }
    }
  }
  return undefined
}

/** The path of the first string (key or value) in `value` holding a lone surrogate. @internal */
export const loneSurrogateIn = (value: unknown, at = "", depth = 0): string | undefined => {
  if (depth > 256) return undefined
  if (typeof value === "string") return LONE.test(value) ? (at || "(root)") : undefined
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = loneSurrogateIn(value[i], `${at}[${i}]`, depth + 1)
      if (found !== undefined) return found
    }
    return undefined
  }
  if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      const where = `${at}${segment(key)}`.replace(/^\./, "")
      if (LONE.test(key)) return where
      const found = loneSurrogateIn(item, where, depth + 1)
      if (found !== undefined) return found
    }
  }
  return undefined
}
