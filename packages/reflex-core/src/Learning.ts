/**
 * Learning: the anchored MAP fit, evaluation metrics, promotion rules (fixed hashed holdout and
 * forward trials), the prequential replay, certification with a Wilson lower bound, and the
 * one-in-ten hold-back. All pure and deterministic.
 *
 * The fit and promotion rules live in `internal/learning/fit.ts`, replay and certification in
 * `internal/learning/certification.ts`; every export keeps its own documentation there.
 *
 * @since 0.1.0
 */
export * from "./internal/learning/certification.js"
export * from "./internal/learning/fit.js"
export * from "./internal/learning/toCertify.js"
