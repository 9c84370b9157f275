/**
 * The key of a record a session stores as JSON (the host's data, a budget's prices).
 * `__proto__` is refused: as the key of a plain object it sets the prototype instead of holding
 * a value, so the record would not survive being decoded again.
 */
import * as Schema from "effect/Schema"

export const DataKey = Schema.String.pipe(
  Schema.filter((key) => key !== "__proto__" || "the key '__proto__' is reserved (it cannot be stored as data)")
)
