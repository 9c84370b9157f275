/** The shape of an event type: a lower-case dotted name of at most 64 characters. */
export const pattern = /^[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*$/

/** The longest event type. */
export const maxLength = 64

/** Whether a value is an event type (the `Event.EventType` checks, as plain tests). */
export const is = (type: unknown): type is string =>
  typeof type === "string" && type.length <= maxLength && pattern.test(type)
