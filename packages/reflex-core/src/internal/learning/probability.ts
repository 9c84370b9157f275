/**
 * A head's probability over pre-sorted weight names: the replay's and evaluation's hot path.
 * @internal
 */
import type { Features } from "../../Features.js"
import type { Head } from "../../Params.js"
import { sigmoid } from "../../Params.js"

/** A head's probability over pre-sorted weight names (the replay's hot path). @internal */
export const probabilityOf = (head: Head, names: ReadonlyArray<string>, features: Features): number => {
  let z = head.bias
  for (const name of names) {
    const v = features[name]
    z += head.weights[name]! * (typeof v === "number" && Number.isFinite(v) ? v : 0)
  }
  return sigmoid(z)
}
