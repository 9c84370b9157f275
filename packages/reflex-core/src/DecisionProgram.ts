/**
 * Decision programs (renamed from `Program`, which named algal-runtime's compiled program too):
 * the ALGAL organisms a reflex runs, admitted only under the reflex `pure`
 * profile (no effectful cells, no agent calls, bounded). Every decision is
 * `decision = program(features, params, evidence)` and leaves a receipt whose digest is recorded.
 *
 * The `DecisionProgram` interface is the one seam to `@steward/algal-runtime`: `AlgalProgram`
 * builds it from a manifest (admission is `Admission.pure` of the runtime).
 *
 * @since 0.1.0
 */
import type * as Either from "effect/Either"
import type { ReflexError } from "./ReflexError.js"

/**
 * What a decision program receives.
 *
 * @since 0.1.0
 * @category models
 */
export interface ProgramInput {
  readonly features: Readonly<Record<string, number>>
  readonly params: Readonly<Record<string, unknown>>
  readonly evidence: Readonly<Record<string, unknown>>
}

/**
 * One run: the program's `decision` output and the receipt (with its digest).
 *
 * @since 0.1.0
 * @category models
 */
export interface ProgramRun {
  readonly decision: unknown
  readonly receipt: unknown
  readonly receiptDigest: string
}

/**
 * An admitted program, ready to run synchronously (the hot path).
 *
 * @since 0.1.0
 * @category models
 */
export interface DecisionProgram {
  readonly reflex: string
  /** Manifest digest (`sha256:…`): the program identity recorded with every decision. */
  readonly digest: string
  readonly key: string
  readonly custom: boolean
  readonly run: (input: ProgramInput) => Either.Either<ProgramRun, ReflexError>
}

/**
 * One violated admission rule.
 *
 * @since 0.1.0
 * @category models
 */
export interface Violation {
  readonly rule: string
  readonly message: string
}
