/**
 * JSON values known to be deeply frozen: built fresh by `Event.redact` and frozen as they are
 * built, so a store may keep them as they are instead of cloning them, and their JSON text is
 * computed once however many times it is needed (the event's size bound, the SQL row, the
 * history chain's digest; issue 38 item 3).
 */
const frozen = new WeakSet<object>()
const texts = new WeakMap<object, string>()

/** Freeze a node just built from frozen children (the root is then registered with `seal`). */
export const freeze = <A extends object>(node: A): A => Object.freeze(node)

/** Freeze the root of a value built by `freeze`, and remember it as immutable. */
export const seal = <A extends object>(root: A): A => {
  Object.freeze(root)
  frozen.add(root)
  return root
}

/** Whether `value` is a JSON primitive or a value `seal` registered (no copy needed to keep it). */
export const isImmutable = (value: unknown): boolean =>
  value === null || typeof value === "string" || typeof value === "boolean" ||
  (typeof value === "number" && Number.isFinite(value)) || (typeof value === "object" && frozen.has(value))

/**
 * `JSON.stringify(value ?? null)`, kept with a sealed value so it is computed once (it cannot
 * change). Throws as `JSON.stringify` does, and is `undefined` where it is (a function).
 */
export const text = (value: unknown): string | undefined => {
  if (typeof value !== "object" || value === null || !frozen.has(value)) {
    return JSON.stringify(value ?? null) as string | undefined
  }
  let known = texts.get(value)
  if (known === undefined) {
    known = JSON.stringify(value)
    texts.set(value, known)
  }
  return known
}

const stepTexts = new WeakMap<object, string>()

/**
 * Remember `text` as the JSON of `step`'s result: the step runner stringifies a result once
 * (the caller continues from its round trip) and the store writes that same text instead of
 * stringifying the result again (issue 38 item 3).
 */
export const rememberStep = <A extends { readonly result: unknown }>(step: A, text: string): A => {
  stepTexts.set(step, text)
  return step
}

/** The JSON text of `step`'s result: remembered by `rememberStep`, else `JSON.stringify(result ?? null)`. */
export const stepText = (step: { readonly result: unknown }): string =>
  stepTexts.get(step) ?? JSON.stringify(step.result ?? null)
