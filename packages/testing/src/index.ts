/**
 * `@steward/testing`: test support shared by Steward's packages (private, never published).
 *
 * @since 0.1.0
 */

/**
 * The SQL backends every store suite runs against: SQLite always, PostgreSQL when a server is
 * configured (and always under CI).
 *
 * @since 0.1.0
 */
export * as SqlBackends from "./SqlBackends.js"

/**
 * Synthetic audit states of a given size, for benchmarks.
 *
 * @since 0.1.0
 */
export * as AuditStates from "./AuditStates.js"
