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

/**
 * `algal.expr.v1`: the bounded expression language — evaluator, static check, fuel, bounds, typed builder.
 *
 * @since 0.1.0
 */
export * as Expr from "./Expr.js"

/**
 * The `algal.organism.v1` manifest contract: parse, normalize, digest.
 *
 * @since 0.1.0
 */
export * as Manifest from "./Manifest.js"

/**
 * Graph compilation: resolve ports and check the wiring once, run many times.
 *
 * @since 0.1.0
 */
export * as Program from "./Program.js"

/**
 * The synchronous pure interpreter (the hot path).
 *
 * @since 0.1.0
 */
export * as Runtime from "./Runtime.js"

/**
 * `algal.run.v1` receipts: shape, fingerprint, validation and diff.
 *
 * @since 0.1.0
 */
export * as Receipt from "./Receipt.js"

/**
 * The host fn registry and the built-in fns.
 *
 * @since 0.1.0
 */
export * as FnRegistry from "./FnRegistry.js"

/**
 * The content-addressed blob store (memory and SQL).
 *
 * @since 0.1.0
 */
export * as BlobStore from "./BlobStore.js"

/**
 * Named slots (memory and SQL).
 *
 * @since 0.1.0
 */
export * as SlotStore from "./SlotStore.js"

/**
 * The `AlgalRuntime` service: check, digest, run, verify.
 *
 * @since 0.1.0
 */
export * as AlgalRuntime from "./AlgalRuntime.js"

/**
 * Admission profiles (`pure`: xcb's reflex profile).
 *
 * @since 0.1.0
 */
export * as Admission from "./Admission.js"

/**
 * The typed authoring API: build organisms with type-checked cell ids, ports and edges.
 *
 * @since 0.1.0
 */
export * as Organism from "./Organism.js"

/**
 * Effect requests (`algal.effect.v1`, `algal.tool-effect.v1`), their digests, and effect receipts.
 *
 * @since 0.1.0
 */
export * as EffectRequest from "./EffectRequest.js"

/**
 * Host authority over model calls: the `Executor` interface, route binding, the `Executors`
 * service, and the scripted and managed executors.
 *
 * @since 0.1.0
 */
export * as Executor from "./Executor.js"

/**
 * The host tool registry (tool cells, agent tool calls) and capability handles.
 *
 * @since 0.1.0
 */
export * as ToolRegistry from "./ToolRegistry.js"

/**
 * Resumable controllers: run a managed program in slices that suspend at each agent cell.
 *
 * @since 0.1.0
 */
export * as Controller from "./Controller.js"

// The @effect/ai executor is not re-exported here: `@effect/ai` is an optional peer, so it is
// reached only through its own entry point, `@steward/algal-runtime/LanguageModelExecutor`.

/**
 * Conformance against published outputs of an ALGAL implementation: run a JSONL corpus of cases
 * and tally the agreement per category (expr, malformed, organisms, fixtures, effects).
 *
 * @since 0.1.0
 */
export * as Conformance from "./Conformance.js"
