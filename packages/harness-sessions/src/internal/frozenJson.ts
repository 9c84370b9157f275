/**
 * JSON values known to be deeply frozen: built fresh by `Event.redact` and frozen as they are
 * built, so a store may keep them as they are instead of cloning them (issue 38 item 3).
 */
const frozen = new WeakSet<object>()

/** Freeze a node just built from frozen children, and remember the root as immutable. */
export const freeze = <A extends object>(node: A): A => {
  Object.freeze(node)
  frozen.add(node)
  return node
}

/** Whether `value` is a JSON primitive or a value `freeze` built (no copy needed to keep it). */
export const isImmutable = (value: unknown): boolean =>
  value === null || typeof value === "string" || typeof value === "boolean" ||
  (typeof value === "number" && Number.isFinite(value)) || (typeof value === "object" && frozen.has(value))
