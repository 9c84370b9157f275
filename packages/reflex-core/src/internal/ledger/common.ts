/**
 * What both ledger backends share: the caps and the code-point clip.
 * @internal
 */

/** @internal */
export const MAX_OBSERVATIONS = 20_000

/** @internal */
export const MAX_GENERATIONS = 256

/** Truncate to at most `n` code points. @internal */
export const clip = (text: string, n: number): string => {
  const points = Array.from(text)
  return points.length <= n ? text : points.slice(0, n).join("")
}
