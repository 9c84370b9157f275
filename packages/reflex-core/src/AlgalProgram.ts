/**
 * The one module wiring `@steward/algal-runtime`: admit an organism under the reflex `pure`
 * profile, compile it, and run it on the synchronous hot path, returning the decision output and
 * the receipt digest. Nothing here fakes a receipt: every decision is an ALGAL run.
 *
 * @since 0.1.0
 */
import * as Admission from "@steward/algal-runtime/Admission"
import * as Canonical from "@steward/algal-runtime/Canonical"
import type * as Manifest from "@steward/algal-runtime/Manifest"
import type * as AlgalProgramModule from "@steward/algal-runtime/Program"
import * as Runtime from "@steward/algal-runtime/Runtime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type { DecisionProgram, ProgramInput, ProgramRun, Violation } from "./DecisionProgram.js"
import * as StrictJson from "./internal/strictJson.js"
import * as ReflexError from "./ReflexError.js"

/**
 * How an organism source becomes a runnable `DecisionProgram`.
 *
 * @since 0.1.0
 * @category models
 */
export type Compile = (
  reflex: string,
  text: string,
  custom: boolean
) => Effect.Effect<DecisionProgram, ReflexError.ReflexError>

/**
 * Input bytes a decision may pass (and the manifest's `maxContextBytes`, whichever is lower).
 *
 * @since 0.1.0
 * @category constants
 */
export const maxInputBytes = 64 * 1024

/**
 * Output bytes a decision may return (and the manifest's `maxOutputBytes`, whichever is lower).
 *
 * @since 0.1.0
 * @category constants
 */
export const maxOutputBytes = 16 * 1024

const runner = (reflex: string, manifest: Manifest.Manifest, program: AlgalProgramModule.Program) => {
  const inputLimit = Math.min(manifest.budgets.maxContextBytes, maxInputBytes)
  const outputLimit = Math.min(manifest.budgets.maxOutputBytes, maxOutputBytes)
  return (input: ProgramInput): Either.Either<ProgramRun, ReflexError.ReflexError> => {
    const fail = (message: string) => Either.left(ReflexError.make("program-failed", `${reflex} program: ${message}`))
    const inputs = { features: input.features, params: input.params, evidence: input.evidence } as Record<
      string,
      Canonical.Json
    >
    const size = Canonical.byteLength(inputs)
    if (Either.isLeft(size)) return fail(`input is not canonical JSON: ${size.left.message}`)
    if (size.right > inputLimit) return fail(`input is ${size.right} bytes; at most ${inputLimit}`)
    const args = Runtime.interfaceArgs(program, inputs)
    let ran: ReturnType<typeof Runtime.runSync>
    try {
      ran = Runtime.runSync(program, args)
    } catch (error) {
      return fail(`the runtime failed: ${error instanceof Error ? error.message : String(error)}`)
    }
    if (!ran.ok) return fail(`${ran.error.code}: ${ran.error.message}`)
    const result = ran.result
    if (result.outcome !== "complete") {
      const failure = result.receipt.failure
      return fail(`run ended ${result.outcome}${failure === undefined ? "" : ` (${failure.code}: ${failure.message})`}`)
    }
    const decision = result.outputs["decision"]
    if (decision === undefined) return fail("no decision output")
    const out = Canonical.byteLength(decision)
    if (Either.isLeft(out) || out.right > outputLimit) return fail(`decision output exceeds ${outputLimit} bytes`)
    return Either.right({ decision, receipt: result.receipt, receiptDigest: result.digest })
  }
}

/**
 * Largest organism source accepted (the `pure` profile's bound, checked before parsing).
 *
 * @since 0.1.0
 * @category constants
 */
export const maxProgramBytes = Admission.pureLimits.maxBytes

const rejected = (violations: ReadonlyArray<Violation>) =>
  Effect.fail(
    ReflexError.make(
      "program-rejected",
      `reflex program rejected: ${violations.map((v) => `${v.rule}: ${v.message}`).join("; ")}`,
      { violations }
    )
  )

/**
 * Admit under the reflex `pure` profile (`Admission.pure` of `@steward/algal-runtime`: every
 * violated rule in `details.violations`), compile with no host tools, and wrap the synchronous
 * runner.
 *
 * @since 0.1.0
 * @category constructors
 */
export const compile: Compile = (reflex, text, custom) =>
  Effect.suspend(() => {
    const bytes = Buffer.byteLength(text, "utf8")
    if (bytes > maxProgramBytes) {
      return rejected([{ rule: "size", message: `program is ${bytes} bytes; at most ${maxProgramBytes}` }])
    }
    // JSON.parse would let a repeated key's last value win: a program that shows one value and
    // runs another is refused, as is nesting past the manifest's own depth bound.
    const problem = StrictJson.scan(text, 64)
    if (problem !== undefined) {
      return rejected([{
        rule: "json",
        message: problem._tag === "DuplicateKey"
          ? `duplicate key ${JSON.stringify(problem.key)}`
          : `nested deeper than ${problem.limit} levels`
      }])
    }
    const json = Canonical.parse(text)
    if (Either.isLeft(json)) {
      return rejected([{ rule: "json", message: `not valid JSON: ${json.left.message}` }])
    }
    const verdict = Admission.pureSync(json.right)
    if (!verdict.ok) return rejected(verdict.violations)
    const { manifest, program: compiled } = verdict.admitted
    const program: DecisionProgram = {
      reflex,
      digest: verdict.admitted.digest,
      key: manifest.key,
      custom,
      run: runner(reflex, manifest, compiled)
    }
    return Effect.succeed(program)
  })
