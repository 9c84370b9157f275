/**
 * What `JSON.parse` lets through silently or cannot bound: a duplicate key in one object (the
 * last one wins there) and nesting past a depth. A linear scan of text that is already valid
 * JSON (parse first), keeping one set of keys per open object.
 *
 * @internal
 */

/** A problem and where it is. @internal */
export type Problem =
  | { readonly kind: "duplicate-key"; readonly key: string }
  | { readonly kind: "too-deep"; readonly limit: number }

/** The first duplicate key or nesting past `maxDepth` in valid JSON `text`. @internal */
export const firstProblem = (text: string, maxDepth: number): Problem | undefined => {
  const stack: Array<Set<string> | null> = []
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === "{" || c === "[") {
      if (stack.length >= maxDepth) return { kind: "too-deep", limit: maxDepth }
      stack.push(c === "{" ? new Set() : null)
    } else if (c === "}" || c === "]") stack.pop()
    else if (c === "\"") {
      let end = i + 1
      while (end < text.length && text[end] !== "\"") end += text[end] === "\\" ? 2 : 1
      const start = i
      i = end
      let next = i + 1
      while (next < text.length && /\s/.test(text[next]!)) next++
      const keys = stack[stack.length - 1]
      if (text[next] === ":" && keys !== undefined && keys !== null) {
        const key = JSON.parse(text.slice(start, end + 1)) as string
        if (keys.has(key)) return { kind: "duplicate-key", key }
        keys.add(key)
      }
    }
  }
  return undefined
}
