// A counter that never goes down (docs/invariants.md).
export const next = (n) => n - 1
