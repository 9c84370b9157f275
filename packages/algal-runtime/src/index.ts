/**
 * @since 0.1.0
 */

/**
 * Canonical JSON and `sha256:` digests (ALGAL v1 §3.1).
 *
 * @since 0.1.0
 */
export * as Canonical from "./Canonical.js"

/**
 * The typed error with ALGAL's 28 codes.
 *
 * @since 0.1.0
 */
export * as AlgalError from "./AlgalError.js"
