/**
 * Cue-matching helpers shared by features, reply categories and vetoes.
 * @internal
 */

const alnum = /[\p{Alphabetic}\p{N}]/u

/** @internal */
export const isAlnum = (ch: string | undefined): boolean => ch !== undefined && ch.length > 0 && alnum.test(ch)

/** Replace typographic apostrophes, then lowercase. @internal */
export const normalize = (text: string): string => text.replace(/[\u2018\u2019]/g, "'").toLowerCase()

/** The code point ending just before UTF-16 index `i`. @internal */
export const charBefore = (text: string, i: number): string | undefined => {
  if (i <= 0) return undefined
  const low = text.charCodeAt(i - 1)
  if (low >= 0xdc00 && low <= 0xdfff && i >= 2) {
    const high = text.charCodeAt(i - 2)
    if (high >= 0xd800 && high <= 0xdbff) return text.slice(i - 2, i)
  }
  return text[i - 1]
}

/** The code point starting at UTF-16 index `i`. @internal */
export const charAt = (text: string, i: number): string | undefined => {
  if (i >= text.length) return undefined
  const cp = text.codePointAt(i)!
  return String.fromCodePoint(cp)
}

/** The last `n` code points of the raw text, normalized. @internal */
export const tail = (text: string, n: number): string => {
  let i = text.length
  let count = 0
  while (i > 0 && count < n) {
    const low = text.charCodeAt(i - 1)
    if (low >= 0xdc00 && low <= 0xdfff && i >= 2) {
      const high = text.charCodeAt(i - 2)
      i -= high >= 0xd800 && high <= 0xdbff ? 2 : 1
    } else {
      i -= 1
    }
    count++
  }
  return normalize(text.slice(i))
}

/**
 * Whether `cue` occurs in `text` with no alphanumeric character directly before or after, over
 * non-overlapping occurrences (so "done" does not match "abandoned").
 * @internal
 */
export const containsWord = (text: string, cue: string): boolean => {
  if (cue.length === 0) return false
  let from = 0
  for (;;) {
    const i = text.indexOf(cue, from)
    if (i < 0) return false
    const end = i + cue.length
    if (!isAlnum(charBefore(text, i)) && !isAlnum(charAt(text, end))) return true
    from = end
  }
}

/** Any cue matches word-bounded. @internal */
export const any = (text: string, cues: ReadonlyArray<string>): boolean => {
  for (const cue of cues) if (containsWord(text, cue)) return true
  return false
}

/** The first cue that matches word-bounded, if any. @internal */
export const firstCue = (text: string, cues: ReadonlyArray<string>): string | undefined => {
  for (const cue of cues) if (containsWord(text, cue)) return cue
  return undefined
}

/**
 * Paragraphs: runs of lines; a line whose trim is empty ends a paragraph.
 * @internal
 */
export const paragraphs = (text: string): Array<string> => {
  const out: Array<string> = []
  let current = ""
  let start = 0
  while (start < text.length) {
    const nl = text.indexOf("\n", start)
    const end = nl < 0 ? text.length : nl + 1
    const line = text.slice(start, end)
    if (line.trim().length === 0) {
      if (current.length > 0) out.push(current)
      current = ""
    } else {
      current += line
    }
    start = end
  }
  if (current.length > 0) out.push(current)
  return out
}

/** The last paragraph, or "". @internal */
export const lastParagraph = (text: string): string => {
  const all = paragraphs(text)
  return all.length === 0 ? "" : all[all.length - 1]!
}

/** Whitespace-separated token count, stopping at `cap`. @internal */
export const countWords = (text: string, cap: number): number => {
  let count = 0
  let inWord = false
  for (let i = 0; i < text.length; i++) {
    const ws = /\s/.test(text[i]!)
    if (!ws && !inWord) {
      count++
      if (count >= cap) return cap
    }
    inWord = !ws
  }
  return count
}

/** The last code point of `text.trimEnd()`, or undefined. @internal */
export const lastChar = (text: string): string | undefined => {
  const trimmed = text.trimEnd()
  return trimmed.length === 0 ? undefined : charBefore(trimmed, trimmed.length)
}

/** 1 / 0. @internal */
export const flag = (b: boolean): number => (b ? 1 : 0)
