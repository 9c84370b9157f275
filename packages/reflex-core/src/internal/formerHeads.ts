/**
 * Head names the built-in reflexes used before, and the one step that moves a stored document's
 * head keys to the current names. Read for one minor version (ADR 0414); written never.
 * @internal
 */

/** Old name → current name, per reflex. @internal */
export const formerHeads: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  settle: { unfinished: "stopped_short" }
}

/** A record's keys under their current names (a key already present under both keeps both). @internal */
export const renameKeys = (record: unknown, names: Readonly<Record<string, string>>): unknown =>
  typeof record !== "object" || record === null || Array.isArray(record)
    ? record
    : Object.fromEntries(
      Object.entries(record).map(([k, v]) => [names[k] !== undefined && !(names[k]! in record) ? names[k]! : k, v])
    )

/** A stored generation document with its `heads` and `evidence` keys under the current names. @internal */
export const upgradeParams = (u: unknown): unknown => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return u
  const doc = u as Record<string, unknown>
  const names = typeof doc["reflex"] === "string" ? formerHeads[doc["reflex"]] : undefined
  if (names === undefined) return u
  return { ...doc, heads: renameKeys(doc["heads"], names), evidence: renameKeys(doc["evidence"], names) }
}

/**
 * The name a head is hashed under: its first name. The one-in-ten hold-back and import ids hash
 * the head's name; hashing the first name keeps the same turns held back and a re-import of the
 * same file idempotent across the rename. @internal
 */
export const hashName = (head: string, reflex?: string): string => {
  for (const [name, names] of Object.entries(formerHeads)) {
    if (reflex !== undefined && name !== reflex) continue
    for (const [former, current] of Object.entries(names)) if (current === head) return former
  }
  return head
}

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** A stored generation's JSON text with current head names (unchanged when nothing was renamed). @internal */
export const upgradeParamsText = (text: string): string => {
  const doc = parse(text)
  if (doc === undefined) return text
  const upgraded = upgradeParams(doc)
  return upgraded === doc ? text : JSON.stringify(upgraded)
}

/** A stored JSON document whose `field` holds a head name, with the current name. @internal */
export const renameField = (text: string, field: string, names: Readonly<Record<string, string>>): string => {
  const doc = parse(text)
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return text
  const value = (doc as Record<string, unknown>)[field]
  if (typeof value !== "string" || names[value] === undefined) return text
  return JSON.stringify({ ...doc, [field]: names[value] })
}
