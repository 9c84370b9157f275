/**
 * A pre-parse scan of one JSON text: nesting deeper than a bound, or an object that repeats a key,
 * is refused before `JSON.parse` sees it (`JSON.parse` would let the last duplicate win, and deep
 * nesting would exhaust the stack in whatever walks the value). Linear in the text; keys are
 * compared after unescaping, so `"a"` and `"\u0061"` are the same key. Syntax errors are left to
 * `JSON.parse`, which reports them.
 * @internal
 */

/** What the scan found wrong. @internal */
export type Problem =
  | { readonly _tag: "Depth"; readonly limit: number }
  | { readonly _tag: "DuplicateKey"; readonly key: string }

interface Frame {
  readonly object: boolean
  readonly keys: Set<string>
  expectKey: boolean
}

/** Scan `text`; undefined when it is neither too deep nor repeats a key. @internal */
export const scan = (text: string, maxDepth: number): Problem | undefined => {
  const stack: Array<Frame> = []
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) { // '"'
      let j = i + 1
      while (j < text.length) {
        const d = text.charCodeAt(j)
        if (d === 0x5c) j += 2
        else if (d === 0x22) break
        else j++
      }
      const top = stack[stack.length - 1]
      if (top !== undefined && top.object && top.expectKey) {
        let key: string
        try {
          key = JSON.parse(text.slice(i, j + 1)) as string
        } catch {
          return undefined // a malformed string: JSON.parse reports it
        }
        if (top.keys.has(key)) return { _tag: "DuplicateKey", key }
        top.keys.add(key)
        top.expectKey = false
      }
      i = j
    } else if (c === 0x7b || c === 0x5b) { // '{' '['
      if (stack.length >= maxDepth) return { _tag: "Depth", limit: maxDepth }
      stack.push({ object: c === 0x7b, keys: new Set(), expectKey: c === 0x7b })
    } else if (c === 0x7d || c === 0x5d) { // '}' ']'
      stack.pop()
    } else if (c === 0x2c) { // ','
      const top = stack[stack.length - 1]
      if (top !== undefined && top.object) top.expectKey = true
    }
  }
  return undefined
}
