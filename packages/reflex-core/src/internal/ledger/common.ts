/**
 * What both ledger backends share: the caps, the code-point clip and the import conflict rule.
 * @internal
 */
import type { HeadLabel } from "../../Labels.js"
import * as ReflexError from "../../ReflexError.js"
import type { Observation } from "../../ReflexLedger.js"

/** @internal */
export const MAX_OBSERVATIONS = 20_000

/** @internal */
export const MAX_GENERATIONS = 256

/** Truncate to at most `n` code points. @internal */
export const clip = (text: string, n: number): string => {
  const points = Array.from(text)
  return points.length <= n ? text : points.slice(0, n).join("")
}

/** A stored imported observation and its label, as the conflict check reads it. @internal */
export interface StoredImport {
  readonly id: string
  readonly features: string
  readonly label: number | null
  readonly weight: number | null
  readonly source: string | null
}

/**
 * @internal
 * Why an imported row is not the stored example with its id (other features, so another text or
 * tool-call count; or another label or weight while the stored label is still the import's own).
 */
export const importConflict = (
  row: { readonly observation: Observation; readonly labels: ReadonlyArray<HeadLabel> },
  stored: StoredImport
): ReflexError.ReflexError | undefined => {
  const label = row.labels[0]
  const sameFeatures = stored.features === JSON.stringify(row.observation.features)
  const sameLabel = stored.source !== "import" || label === undefined ||
    (Number(stored.label) === (label.label ? 1 : 0) && Number(stored.weight) === label.weight)
  if (sameFeatures && sameLabel) return undefined
  return ReflexError.make(
    "invalid-import",
    `${row.observation.subject}: already stored with a different ${sameFeatures ? "label" : "text"}`,
    { observation: row.observation.id, conflict: sameFeatures ? "label" : "text" }
  )
}
