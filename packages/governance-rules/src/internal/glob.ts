/**
 * A glob matcher without backtracking. A pattern (`*` any run of characters, `?` one character,
 * `[…]`/`[!…]` classes, `{a,b}` alternatives, `\x` a literal) is compiled to a small set of
 * brace-free alternatives; each alternative is a list of star-separated pieces. A piece is a
 * fixed-length run of one-character tests, so an alternative matches when its first piece is a
 * prefix, its last a suffix, and the middle pieces occur in order between them — and taking each
 * middle piece at its leftmost position is always right. The work is at most
 * `resource length × pattern length` character tests per alternative, whatever the pattern:
 * a rule like `*a*a*a*a*a*a*a*a*a*a*a*a*c*b` costs a few hundred tests, not minutes.
 *
 * @internal
 */

/** One character test: a literal code unit, any character, or a class. @internal */
type Atom =
  | { readonly kind: "char"; readonly c: string }
  | { readonly kind: "any" }
  | { readonly kind: "class"; readonly negate: boolean; readonly test: (c: string) => boolean }

/** A brace-free alternative: pieces separated by stars. @internal */
interface Alternative {
  /** The first piece is anchored at the start, the last at the end (either may be empty). */
  readonly pieces: ReadonlyArray<ReadonlyArray<Atom>>
  /** Each piece as plain text when it holds only literal characters (searched natively). */
  readonly literals: ReadonlyArray<string | null>
}

/** The most alternatives one pattern may expand to before it is refused at load. @internal */
export const MAX_ALTERNATIVES = 256

/** Thrown for a pattern that cannot be compiled within the bounds. @internal */
export class GlobError extends Error {}

/** Expand top-level `{a,b}` groups (nested allowed; unbalanced or comma-free braces are literal). */
const expandBraces = (pattern: string, out: Array<string>): void => {
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === "\\") {
      i++
      continue
    }
    if (c === "[") {
      // Skip a class so braces inside it stay literal.
      const end = classEnd(pattern, i)
      if (end > 0) i = end
      continue
    }
    if (c !== "{") continue
    let depth = 0
    let j = i + 1
    const alternatives: Array<string> = []
    let start = j
    for (; j < pattern.length; j++) {
      const d = pattern[j]!
      if (d === "\\") {
        j++
        continue
      }
      if (d === "{") depth++
      else if (d === "}") {
        if (depth === 0) break
        depth--
      } else if (d === "," && depth === 0) {
        alternatives.push(pattern.slice(start, j))
        start = j + 1
      }
    }
    if (j >= pattern.length || alternatives.length === 0) continue
    alternatives.push(pattern.slice(start, j))
    const head = pattern.slice(0, i)
    const tail = pattern.slice(j + 1)
    for (const alternative of alternatives) {
      if (out.length > MAX_ALTERNATIVES) throw new GlobError("too many brace alternatives")
      expandBraces(head + alternative + tail, out)
    }
    return
  }
  if (out.length >= MAX_ALTERNATIVES) throw new GlobError("too many brace alternatives")
  out.push(pattern)
}

/**
 * The brace expansion of a pattern (`\\x` escapes kept), as bash expands an unquoted word:
 * `rm -rf {/,/tmp/x}` runs `rm -rf / /tmp/x`. Throws `GlobError` past `MAX_ALTERNATIVES`.
 *
 * @internal
 */
export const braceExpansion = (pattern: string): Array<string> => {
  const out: Array<string> = []
  expandBraces(pattern, out)
  return out
}

/** Index of the `]` closing a class opened at `i`, or -1 when the bracket is literal. */
const classEnd = (pattern: string, i: number): number => {
  let j = i + 1
  if (pattern[j] === "!" || pattern[j] === "^") j++
  if (pattern[j] === "]") j++
  while (j < pattern.length && pattern[j] !== "]") j++
  return j < pattern.length ? j : -1
}

const classAtom = (body: string): Atom => {
  let negate = false
  let b = body
  if (b.startsWith("!") || b.startsWith("^")) {
    negate = true
    b = b.slice(1)
  }
  const singles = new Set<string>()
  const ranges: Array<readonly [number, number]> = []
  for (let k = 0; k < b.length; k++) {
    let c = b[k]!
    if (c === "\\" && k + 1 < b.length) c = b[++k]!
    if (b[k + 1] === "-" && k + 2 < b.length) {
      let hi = b[k + 2]!
      if (hi === "\\" && k + 3 < b.length) {
        hi = b[k + 3]!
        k++
      }
      ranges.push([c.charCodeAt(0), hi.charCodeAt(0)])
      k += 2
    } else singles.add(c)
  }
  const test = (c: string): boolean => {
    if (singles.has(c)) return true
    const code = c.charCodeAt(0)
    for (const [lo, hi] of ranges) if (code >= lo && code <= hi) return true
    return false
  }
  return { kind: "class", negate, test }
}

const compileAlternative = (pattern: string): Alternative => {
  const pieces: Array<Array<Atom>> = [[]]
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    const current = pieces[pieces.length - 1]!
    if (c === "\\" && i + 1 < pattern.length) {
      current.push({ kind: "char", c: pattern[++i]! })
    } else if (c === "*") {
      while (pattern[i + 1] === "*") i++
      pieces.push([])
    } else if (c === "?") {
      current.push({ kind: "any" })
    } else if (c === "[") {
      const end = classEnd(pattern, i)
      if (end < 0) current.push({ kind: "char", c })
      else {
        current.push(classAtom(pattern.slice(i + 1, end)))
        i = end
      }
    } else current.push({ kind: "char", c })
  }
  const literals = pieces.map((piece) =>
    piece.every((a) => a.kind === "char") ? piece.map((a) => (a as { readonly c: string }).c).join("") : null
  )
  return { pieces, literals }
}

/** A step counter: every character test adds one (for the deterministic bound in the tests). @internal */
export interface Steps {
  n: number
}

const atomTest = (atom: Atom, c: string): boolean =>
  atom.kind === "char" ? atom.c === c : atom.kind === "any" ? true : atom.test(c) !== atom.negate

/** Whether `piece` matches `s` at `at` (caller checks the length fits). */
const pieceAt = (piece: ReadonlyArray<Atom>, s: string, at: number, steps: Steps | null): boolean => {
  for (let k = 0; k < piece.length; k++) {
    if (steps !== null) steps.n++
    if (!atomTest(piece[k]!, s[at + k]!)) return false
  }
  return true
}

const matchAlternative = (alt: Alternative, s: string, steps: Steps | null): boolean => {
  const pieces = alt.pieces
  const literals = alt.literals
  if (pieces.length === 1) {
    const only = pieces[0]!
    if (only.length !== s.length) return false
    return steps === null && literals[0] !== null ? s === literals[0] : pieceAt(only, s, 0, steps)
  }
  const first = pieces[0]!
  const last = pieces[pieces.length - 1]!
  if (first.length + last.length > s.length) return false
  const end = s.length - last.length
  if (steps === null && literals[0] !== null && literals[pieces.length - 1] !== null) {
    if (!s.startsWith(literals[0]!) || !s.endsWith(literals[pieces.length - 1]!)) return false
  } else if (!pieceAt(first, s, 0, steps) || !pieceAt(last, s, end, steps)) return false
  let at = first.length
  for (let p = 1; p < pieces.length - 1; p++) {
    const piece = pieces[p]!
    const literal = literals[p]!
    let found = -1
    if (steps === null && literal !== null) {
      found = s.indexOf(literal, at)
      if (found + piece.length > end) found = -1
    } else {
      // Leftmost occurrence inside [at, end): a later choice can never help the remaining pieces.
      for (let start = at; start + piece.length <= end; start++) {
        if (pieceAt(piece, s, start, steps)) {
          found = start
          break
        }
      }
    }
    if (found < 0) return false
    at = found + piece.length
  }
  return true
}

/** A compiled glob: `test` for the hot path, `count` to measure the work (tests only). @internal */
export interface Glob {
  readonly test: (s: string) => boolean
  readonly count: (s: string, steps: Steps) => boolean
  readonly alternatives: number
}

/**
 * Compile a glob. Throws `GlobError` when it expands to more than `MAX_ALTERNATIVES`
 * alternatives (the rule is then refused at load).
 *
 * @internal
 */
export const compile = (pattern: string): Glob => {
  const sources: Array<string> = []
  expandBraces(pattern, sources)
  const alternatives = sources.map(compileAlternative)
  const count = (s: string, steps: Steps | null): boolean => {
    for (let i = 0; i < alternatives.length; i++) if (matchAlternative(alternatives[i]!, s, steps)) return true
    return false
  }
  return { test: (s) => count(s, null), count, alternatives: alternatives.length }
}
