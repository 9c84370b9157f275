/**
 * `steward algal run | resume`: run a manifest (or continue a suspended run) on the host's stores
 * and print its receipt; `--args -` reads the args from standard input.
 *
 * Args that match no input port are an error (exit 2) naming them and the ports there are, unless
 * `--allow-unused-args` says they are meant (ADR 0321).
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as AlgalError from "@steward/algal-runtime/AlgalError"
import * as AlgalRuntime from "@steward/algal-runtime/AlgalRuntime"
import * as BlobStore from "@steward/algal-runtime/BlobStore"
import * as Canonical from "@steward/algal-runtime/Canonical"
import * as Executor from "@steward/algal-runtime/Executor"
import * as FnRegistry from "@steward/algal-runtime/FnRegistry"
import type * as Program from "@steward/algal-runtime/Program"
import type * as Runtime from "@steward/algal-runtime/Runtime"
import * as SlotStore from "@steward/algal-runtime/SlotStore"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { cannotRun, NegativeResult } from "../../CliError.js"
import * as GlobalOptions from "../../GlobalOptions.js"
import * as HostSql from "../../HostSql.js"
import * as Output from "../../Output.js"
import * as StateDir from "../../StateDir.js"
import * as Stdin from "../../Stdin.js"
import { fileArg, manifestsOption } from "./inspect.js"
import * as Io from "./io.js"
import * as Signals from "./signals.js"

const storesFor = (stateDir: Option.Option<string>) =>
  Layer.unwrapEffect(
    Effect.map(StateDir.open(stateDir), (state) =>
      Layer.mergeAll(BlobStore.layerSql, SlotStore.layerSql).pipe(
        Layer.provide(HostSql.layer(state)),
        Layer.mapError((error) => error instanceof AlgalError.AlgalError ? cannotRun(error.code, error.message) : error)
      ))
  )

/**
 * The runtime service over the state directory's blob and slot stores.
 *
 * @since 0.1.0
 * @category layers
 */
export const runtimeFor = (stateDir: Option.Option<string>) =>
  Layer.suspend(() =>
    AlgalRuntime.layerWith().pipe(
      Layer.provide(Layer.merge(FnRegistry.layer, storesFor(stateDir)))
    )
  )

const responsesOption = Io.fileOption("responses").pipe(
  Options.withDescription("Scripted responses JSON: by request digest or cell id; arrays are per-cell queues"),
  Options.optional
)

const storeOption = Options.directory("store").pipe(
  Options.withDescription("Also write the receipt to DIR/<digest>.receipt.json (checkpoints for resume)"),
  Options.optional
)

const managedOption = (description: string) => Options.boolean("managed").pipe(Options.withDescription(description))

const executorsFor = (responses: Option.Option<string>, managed: boolean) =>
  Effect.gen(function*() {
    const scripted: Array<Executor.Executor> = []
    if (Option.isSome(responses)) {
      const json = yield* Io.readJson(responses.value, Io.limits.args)
      const decoded = yield* Executor.decodeResponses(json).pipe(Effect.mapError(Io.fromAlgal(responses.value)))
      scripted.push(Executor.scripted(decoded))
    }
    return managed ? [...scripted, Executor.managed()] : scripted
  })

const storeReceipt = (store: Option.Option<string>, receipt: Runtime.RunResult["receipt"]) =>
  Effect.gen(function*() {
    if (Option.isNone(store)) return ""
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const file = path.join(store.value, `${receipt.digest.slice("sha256:".length)}.receipt.json`)
    const io = (e: { readonly message: string }) => cannotRun("IO_FAILED", `${store.value}: ${e.message}`, { file })
    yield* fs.makeDirectory(store.value, { recursive: true }).pipe(Effect.mapError(io))
    yield* fs.writeFileString(file, Canonical.encodeUnsafe(receipt)).pipe(Effect.mapError(io))
    return `\nstored   ${file}`
  })

const outputLines = (outputs: Readonly<Record<string, Canonical.Json>>): ReadonlyArray<string> =>
  Object.keys(outputs).length === 0
    ? []
    : ["outputs:", ...Object.entries(outputs).map(([k, v]) => `  ${k} = ${Canonical.encodeUnsafe(v)}`)]

const summary = (result: Runtime.RunResult): string => {
  const r = result.receipt
  const lines = [
    `outcome  ${r.outcome}`,
    `digest   ${r.digest}`,
    `program  ${r.manifestKey} ${r.manifestDigest}`,
    `work     steps=${r.work.steps} agentCalls=${r.work.agentCalls} units=${r.work.units}`,
    ...(r.failure === undefined ? [] : [`failure  ${r.failure.code} at ${r.failure.path}: ${r.failure.message}`]),
    "cells:",
    ...Object.entries(r.cells).map(([path, c]) =>
      `  ${path} ${c.status} work=${c.work}${c.failure === undefined ? "" : ` ${c.failure.code}: ${c.failure.message}`}`
    ),
    ...outputLines(result.outputs)
  ]
  return lines.join("\n")
}

const evaluationSummary = (evaluation: Runtime.Evaluation): string =>
  [
    `outcome  ${evaluation.outcome} (no receipt)`,
    `work     steps=${evaluation.work.steps} agentCalls=${evaluation.work.agentCalls} units=${evaluation.work.units}`,
    ...(evaluation.failure === undefined
      ? []
      : [`failure  ${evaluation.failure.code} at ${evaluation.failure.path}: ${evaluation.failure.message}`]),
    ...outputLines(evaluation.outputs)
  ].join("\n")

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * The names in run args that match no input port of the program, and the ports there are:
 * `cell.port` for `{cell: {port: value}}` args (a cell that is not an input cell counts whole),
 * interface input names with `--interface`. Malformed args are left to the runtime's validation.
 *
 * @since 0.1.0
 * @category validation
 */
export const unusedArgs = (
  program: Program.Program,
  args: unknown,
  named: boolean
): { readonly unused: ReadonlyArray<string>; readonly ports: ReadonlyArray<string> } => {
  if (!isRecord(args)) return { unused: [], ports: [] }
  if (named) {
    const ports = Object.keys(program.manifest.interface.inputs)
    return { unused: Object.keys(args).filter((name) => !ports.includes(name)), ports }
  }
  const inputs = program.cells.filter((c) => c.kind === "input")
  const ports = inputs.flatMap((c) => Object.keys(c.outputs).map((port) => `${c.id}.${port}`))
  const unused: Array<string> = []
  for (const [cell, given] of Object.entries(args)) {
    const input = inputs.find((c) => c.id === cell)
    if (input === undefined) unused.push(cell)
    else if (isRecord(given)) {
      for (const port of Object.keys(given)) if (!Object.hasOwn(input.outputs, port)) unused.push(`${cell}.${port}`)
    }
  }
  return { unused, ports }
}

const refuseUnused = (program: Program.Program, args: unknown, named: boolean, source: string) => {
  const { ports, unused } = unusedArgs(program, args, named)
  if (unused.length === 0) return Effect.void
  return Effect.fail(cannotRun(
    "invalid-input",
    `${source}: ${unused.join(", ")} ${unused.length === 1 ? "matches" : "match"} no input ${
      named ? "of the interface" : "port"
    } (${named ? "interface inputs" : "input ports"}: ${ports.length === 0 ? "none" : ports.join(", ")}); ` +
      "pass --allow-unused-args to run anyway",
    { args: source, unused, ports }
  ))
}

/** Run args: none, a file, or `-` for standard input. */
const readArgs = (args: Option.Option<string>) =>
  Option.isNone(args)
    ? Effect.succeed({} as unknown)
    : args.value === "-"
    ? Stdin.readJson("--args")
    : Io.readJson(args.value, Io.limits.args)

const run = Command.make(
  "run",
  {
    ...GlobalOptions.global,
    file: fileArg,
    args: Io.fileOption("args").pipe(
      Options.withDescription(
        "Run args JSON ({cell: {port: value}}, or interface names with --interface); - reads it from stdin"
      ),
      Options.optional
    ),
    interface: Options.boolean("interface").pipe(Options.withDescription("The args file names interface inputs")),
    allowUnusedArgs: Options.boolean("allow-unused-args").pipe(
      Options.withDescription("Run even when some args match no input port (they are kept in the receipt)")
    ),
    manifests: manifestsOption,
    responses: responsesOption,
    store: storeOption,
    managed: managedOption(
      "Admit under the managed-controller profile and suspend at each agent cell (resume with --response)"
    ),
    noReceipt: Options.boolean("no-receipt").pipe(
      Options.withDescription(
        "Decide only: print the outcome, outputs and work without building a receipt (nothing to store or verify)"
      )
    )
  },
  (
    { allowUnusedArgs, args, file, interface: named, json, managed, manifests, noReceipt, responses, stateDir, store }
  ) =>
    Effect.gen(function*() {
      if (noReceipt && Option.isSome(store)) {
        return yield* cannotRun("usage", "--store keeps receipts: it cannot be used with --no-receipt")
      }
      const program = yield* Io.programFor(file, manifests, managed)
      const source = Option.match(args, { onNone: () => "args", onSome: (a) => a === "-" ? "stdin (--args)" : a })
      const runArgs = yield* readArgs(args)
      if (!allowUnusedArgs) yield* refuseUnused(program, runArgs, named, source)
      const executors = yield* executorsFor(responses, managed)
      const runtime = yield* AlgalRuntime.AlgalRuntime
      const options = { interface: named, executors, cooperative: true }
      if (noReceipt) {
        const evaluation = yield* Signals.stoppable("algal run", runtime.evaluate(program, runArgs, options)).pipe(
          Effect.mapError(Io.fromAlgal(source))
        )
        yield* Output.result(json, evaluation, evaluationSummary)
        if (evaluation.outcome !== "complete") {
          return yield* new NegativeResult({ reason: `run ${evaluation.outcome}` })
        }
        return
      }
      // cooperative: the event loop gets a turn every few activations, so SIGINT/SIGTERM stop
      // the run between steps (exit 130/143) instead of after it
      const result = yield* Signals.stoppable("algal run", runtime.run(program, runArgs, options)).pipe(
        Effect.mapError(Io.fromAlgal(source))
      )
      const stored = yield* storeReceipt(store, result.receipt)
      yield* Output.result(json, result.receipt, () => summary(result) + stored)
      if (result.outcome !== "complete") return yield* new NegativeResult({ reason: `run ${result.outcome}` })
    }).pipe(Effect.provide(runtimeFor(stateDir)))
).pipe(Command.withDescription("Run a manifest: the receipt with --json, a summary without (exit 1 unless complete)"))

const resume = Command.make(
  "resume",
  {
    ...GlobalOptions.global,
    checkpoint: Io.fileArgument("CHECKPOINT").pipe(
      Args.withDescription("A suspended algal.run.v1 receipt")
    ),
    manifest: Io.fileOption("manifest").pipe(Options.withDescription("The manifest the checkpoint was produced by")),
    responses: responsesOption,
    response: Options.text("response").pipe(
      Options.withDescription("The text answer to the suspended request (managed-controller protocol)"),
      Options.optional
    ),
    manifests: manifestsOption,
    store: storeOption,
    managed: managedOption("The checkpoint is a managed-controller run: later agent cells suspend again")
  },
  ({ checkpoint, json, managed, manifest, manifests, response, responses, stateDir, store }) =>
    Effect.gen(function*() {
      const program = yield* Io.programFor(manifest, manifests, managed)
      const recorded = yield* Io.readJson(checkpoint, Io.limits.receipt)
      const executors = yield* executorsFor(responses, managed)
      const runtime = yield* AlgalRuntime.AlgalRuntime
      const result = yield* runtime.resume(recorded, program, {
        executors,
        ...(Option.isSome(response) ? { response: response.value } : {})
      }).pipe(Effect.mapError(Io.fromAlgal(checkpoint)))
      const stored = yield* storeReceipt(store, result.receipt)
      yield* Output.result(json, result.receipt, () => summary(result) + stored)
      if (result.outcome !== "complete") return yield* new NegativeResult({ reason: `run ${result.outcome}` })
    }).pipe(Effect.provide(runtimeFor(stateDir)))
).pipe(Command.withDescription("Continue a suspended run from its checkpoint receipt (exit 1 unless complete)"))

/**
 * The run verbs, in help order.
 *
 * @since 0.1.0
 * @category commands
 */
export const commands = [run, resume] as const
