/**
 * @since 0.1.0
 */

/**
 * The ALGAL seam: admit, compile and run organisms through `@steward/algal-runtime`.
 *
 * @since 0.1.0
 */
export * as AlgalProgram from "./AlgalProgram.js"

/**
 * Decision programs: what a reflex runs and what a run returns (was `Program`).
 *
 * @since 0.2.0
 */
export * as DecisionProgram from "./DecisionProgram.js"

/**
 * Every cue and keyword list, verbatim.
 *
 * @since 0.1.0
 */
export * as Cues from "./Cues.js"

/**
 * Route and settle features.
 *
 * @since 0.1.0
 */
export * as Features from "./Features.js"

/**
 * Gates outside the program: confirm veto, continuation preconditions, route floor, eligible tiers.
 *
 * @since 0.1.0
 */
export * as Gates from "./Gates.js"

/**
 * Worker threads for an import's fits (`@effect/platform` workers over the fit worker entry).
 *
 * @since 0.2.0
 */
export * as FitWorkers from "./FitWorkers.js"

/**
 * JSONL history import.
 *
 * @since 0.1.0
 */
export * as Import from "./Import.js"

/**
 * Reply categories and labels.
 *
 * @since 0.1.0
 */
export * as Labels from "./Labels.js"

/**
 * Fit, metrics, promotion, replay, certification, hold-back.
 *
 * @since 0.1.0
 */
export * as Learning from "./Learning.js"

/**
 * Logistic heads, parameter generations and the shipped priors.
 *
 * @since 0.1.0
 */
export * as Params from "./Params.js"

/**
 * Reflex definitions (route, settle, user-defined).
 *
 * @since 0.1.0
 */
export * as Reflex from "./Reflex.js"

/**
 * The `extensions.reflexes` config entry and modes.
 *
 * @since 0.1.0
 */
export * as ReflexConfig from "./ReflexConfig.js"

/**
 * The package's error type.
 *
 * @since 0.1.0
 */
export * as ReflexError from "./ReflexError.js"

/**
 * The ledger service (SQL and memory).
 *
 * @since 0.1.0
 */
export * as ReflexLedger from "./ReflexLedger.js"

/**
 * The reflex engine service.
 *
 * @since 0.1.0
 */
export * as Reflexes from "./Reflexes.js"

/**
 * What a training pass reports as it runs (a host's progress line).
 *
 * @since 0.1.0
 */
export * as TrainProgress from "./TrainProgress.js"
