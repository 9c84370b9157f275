/**
 * Conformance against published outputs of an ALGAL implementation (the original runtime's
 * corpus): each JSONL line is one case and what that implementation produced for it. `runCase`
 * runs one case through this runtime and lists every field where the two differ; `runSuite` runs
 * a whole corpus and tallies the agreement per category, so a regression names its case.
 *
 * Categories (by the case's shape, or given): `expr` (value or error code, and fuel), `malformed`
 * (stage and code, or the digest), `organisms` (manifest digest, and the receipt as canonical text
 * or the rejection code), `fixtures` and `effects` (an example file, optionally with scripted
 * responses: manifest digest and receipt text).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Conformance } from "@steward/algal-runtime"
 *
 * const line = JSON.stringify({ id: "a", program: ["add", 1, 2], env: {}, expect: { ok: true, value: 3, fuel: 4 } })
 * Effect.runPromise(Conformance.runSuite(line)).then((report) => report.agree) // true
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as AlgalError from "./AlgalError.js"
import type * as Canonical from "./Canonical.js"
import { caseLines, decodeCase, runDecoded } from "./internal/conformance.js"
import type * as Manifest from "./Manifest.js"
import type * as Program from "./Program.js"

/**
 * The corpus categories, in report order.
 *
 * @since 0.1.0
 * @category models
 */
export const categories = ["expr", "malformed", "organisms", "fixtures", "effects"] as const

/**
 * @since 0.1.0
 * @category models
 */
export type Category = typeof categories[number]

/**
 * One field where this runtime and the published output differ (`expected` is the published one).
 *
 * @since 0.1.0
 * @category models
 */
export interface Difference {
  readonly field: string
  readonly expected: string
  readonly actual: string
}

/**
 * The outcome of one case: agreement is an empty `differences`.
 *
 * @since 0.1.0
 * @category models
 */
export interface CaseResult {
  readonly id: string
  readonly category: Category
  readonly differences: ReadonlyArray<Difference>
}

/**
 * Cases run and cases in agreement, for one category.
 *
 * @since 0.1.0
 * @category models
 */
export interface Tally {
  readonly cases: number
  readonly agree: number
}

/**
 * A corpus run: the tally per category (only categories that occur), every disagreeing case in
 * corpus order, and whether every case agreed.
 *
 * @since 0.1.0
 * @category models
 */
export interface Report {
  readonly tallies: Readonly<Partial<Record<Category, Tally>>>
  readonly failures: ReadonlyArray<CaseResult>
  readonly agree: boolean
}

/**
 * An example file a `fixtures`/`effects` case names, loaded by the host: the manifest document
 * and a resolver for the manifests it embeds by digest.
 *
 * @since 0.1.0
 * @category models
 */
export interface Loaded {
  readonly manifest: Canonical.Json
  readonly manifests?: (digest: string) => Manifest.Manifest | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The category of every case (e.g. from the corpus file's name); default: from each case's shape. */
  readonly category?: Category
  /** Load the example file a `fixtures`/`effects` case names (required for those cases). */
  readonly load?: (file: string) => Effect.Effect<Loaded, AlgalError.AlgalError>
  /** Host tools for compiling file cases. */
  readonly tools?: Readonly<Record<string, Program.ToolSignature>>
}

/**
 * Run one decoded-from-JSON case. Fails only when the case itself is not in the corpus format
 * (`PARSE_FAILED`, naming the field) or its file cannot be loaded.
 *
 * @since 0.1.0
 * @category running
 */
export const runCase: (
  json: unknown,
  options?: Options
) => Effect.Effect<CaseResult, AlgalError.AlgalError> = Effect.fn("Conformance.runCase")(
  function*(json: unknown, options?: Options) {
    const decoded = yield* decodeCase(json, options?.category)
    return yield* runDecoded(decoded, options ?? {})
  }
)

/**
 * Run a corpus (JSONL text, one case a line; blank lines ignored) and tally the agreement per
 * category. A line that is not a case fails the whole run with its line number.
 *
 * @since 0.1.0
 * @category running
 */
export const runSuite: (
  text: string,
  options?: Options
) => Effect.Effect<Report, AlgalError.AlgalError> = Effect.fn("Conformance.runSuite")(
  function*(text: string, options?: Options) {
    const tallies: Partial<Record<Category, { cases: number; agree: number }>> = {}
    const failures: Array<CaseResult> = []
    for (const { line, json } of yield* caseLines(text)) {
      const result = yield* runCase(json, options).pipe(
        Effect.mapError((error) => AlgalError.make(error.code, `line ${line}: ${error.message}`))
      )
      const tally = (tallies[result.category] ??= { cases: 0, agree: 0 })
      tally.cases += 1
      if (result.differences.length === 0) tally.agree += 1
      else failures.push(result)
    }
    return { tallies, failures, agree: failures.length === 0 }
  }
)
