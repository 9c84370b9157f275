/**
 * `steward algal verify | replay`: re-run a receipt against its manifest and diff it field by
 * field. `--managed` reads the manifest as a managed-controller run did (admitted under the
 * profile, budgets inserted: spec §4.3), so a receipt of `algal run --managed` or
 * `algal resume --managed` verifies against the manifest it came from.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as AlgalRuntime from "@steward/algal-runtime/AlgalRuntime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { NegativeResult } from "../../CliError.js"
import * as GlobalOptions from "../../GlobalOptions.js"
import * as Output from "../../Output.js"
import { manifestsOption } from "./inspect.js"
import * as Io from "./io.js"
import { runtimeFor } from "./run.js"

const receiptArg = Io.fileArgument("RECEIPT").pipe(
  Args.withDescription("An algal.run.v1 receipt (JSON)")
)

/**
 * A receipt that names another program than the manifest read as written may be of a managed run
 * of it (budgets inserted): say so on stderr (text mode), so `--managed` is one step away.
 */
const managedHint = (manifest: string, recorded: unknown) =>
  Effect.gen(function*() {
    const named = typeof recorded === "object" && recorded !== null
      ? (recorded as { readonly manifestDigest?: unknown }).manifestDigest
      : undefined
    const admitted = yield* Io.admit(manifest, "managed").pipe(Effect.option)
    if (Option.isSome(admitted) && admitted.value.program.digest === named) {
      yield* Console.error(
        `steward: hint: the receipt is of a managed-controller run of ${manifest}; pass --managed`
      )
    }
  })

const managedOption = Options.boolean("managed").pipe(
  Options.withDescription("The receipt is of a managed-controller run (algal run/resume --managed)")
)

const verify = Command.make(
  "verify",
  {
    ...GlobalOptions.global,
    receipt: receiptArg,
    manifest: Io.fileOption("manifest").pipe(Options.withDescription("The manifest the receipt was produced by")),
    manifests: manifestsOption,
    managed: managedOption
  },
  ({ json, managed, manifest, manifests, receipt, stateDir }) =>
    Effect.gen(function*() {
      const program = yield* Io.programFor(manifest, manifests, managed)
      const recorded = yield* Io.readJson(receipt, Io.limits.receipt)
      const runtime = yield* AlgalRuntime.AlgalRuntime
      const result = yield* runtime.verify(recorded, program).pipe(Effect.mapError(Io.fromAlgal(receipt)))
      yield* Output.result(json, result, (r) =>
        [
          `${r.ok ? "verified" : "MISMATCH"} ${r.digest} (${r.outcome})`,
          ...r.mismatches.map((m) => `  ${m}`)
        ].join("\n"))
      if (!result.ok) {
        if (!managed && !json) yield* managedHint(manifest, recorded)
        return yield* new NegativeResult({ reason: "verify mismatch" })
      }
    }).pipe(Effect.provide(runtimeFor(stateDir)))
).pipe(Command.withDescription("Re-run a receipt against its manifest and diff field by field (exit 1 on mismatch)"))

const replay = Command.make(
  "replay",
  {
    ...GlobalOptions.global,
    receipt: receiptArg,
    manifest: Io.fileOption("manifest").pipe(Options.withDescription("The manifest to replay it against")),
    manifests: manifestsOption,
    managed: managedOption
  },
  ({ json, managed, manifest, manifests, receipt, stateDir }) =>
    Effect.gen(function*() {
      const program = yield* Io.programFor(manifest, manifests, managed)
      const recorded = yield* Io.readJson(receipt, Io.limits.receipt)
      const runtime = yield* AlgalRuntime.AlgalRuntime
      const comparison = yield* runtime.replay(recorded, program).pipe(Effect.mapError(Io.fromAlgal(receipt)))
      yield* Output.result(json, comparison, (c) =>
        [
          `${c.verdict}${c.replayed === undefined ? "" : ` ${c.replayed}`}${
            c.reason === undefined ? "" : `: ${c.reason}`
          }`,
          ...c.mismatches.map((m) => `  ${m}`)
        ].join("\n"))
      if (comparison.verdict !== "identical") {
        if (!managed && !json) yield* managedHint(manifest, recorded)
        return yield* new NegativeResult({ reason: `replay ${comparison.verdict}` })
      }
    }).pipe(Effect.provide(runtimeFor(stateDir)))
).pipe(
  Command.withDescription(
    "Replay a receipt against a manifest: identical | diverged | could-not-replay (exit 1 unless identical)"
  )
)

/**
 * The verification verbs, in help order.
 *
 * @since 0.1.0
 * @category commands
 */
export const commands = [verify, replay] as const
