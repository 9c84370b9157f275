/**
 * The names reflex-core keys records by — reflexes, heads, features, weights: `[a-z0-9_]{1,48}`,
 * except `__proto__`. As the key of a plain object `__proto__` sets the prototype instead of
 * holding a value, so a record keyed by it would not survive being stored and read back.
 */
import * as Schema from "effect/Schema"

const NAME = /^[a-z0-9_]{1,48}$/

/** What a name must be, for messages. */
export const nameRule = "[a-z0-9_]{1,48}, not __proto__"

export const isName = (s: string): boolean => NAME.test(s) && s !== "__proto__"

export const Name = Schema.String.pipe(
  Schema.filter((s) => isName(s) || `a name of ${nameRule}`),
  Schema.annotations({ title: `a name (${nameRule})` })
)

/**
 * A record keyed by `key`. A key the key schema refuses is an error, not silently dropped (a
 * `Schema.Record` ignores such keys by default, which would turn a typo into a missing entry).
 */
export const StrictRecord = <K extends Schema.Schema<string, string, never>, V extends Schema.Schema.Any>(
  key: K,
  value: V
) => Schema.Record({ key, value }).annotations({ parseOptions: { onExcessProperty: "error" } })
