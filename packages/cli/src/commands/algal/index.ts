/**
 * `steward algal …`: check, digest, canonicalize, explain, run and verify ALGAL organisms.
 *
 * Invalid programs and unreadable files exit 2 with the ALGAL error code; a run whose outcome is
 * not `complete` and a verify with mismatches exit 1 after printing their result.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Admission from "@steward/algal-runtime/Admission"
import * as AlgalError from "@steward/algal-runtime/AlgalError"
import * as AlgalRuntime from "@steward/algal-runtime/AlgalRuntime"
import * as BlobStore from "@steward/algal-runtime/BlobStore"
import * as Canonical from "@steward/algal-runtime/Canonical"
import * as Executor from "@steward/algal-runtime/Executor"
import * as FnRegistry from "@steward/algal-runtime/FnRegistry"
import * as Manifest from "@steward/algal-runtime/Manifest"
import * as Program from "@steward/algal-runtime/Program"
import type * as Runtime from "@steward/algal-runtime/Runtime"
import * as SlotStore from "@steward/algal-runtime/SlotStore"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { cannotRun, type CommandFailure, NegativeResult, refused } from "../../CliError.js"
import * as GlobalOptions from "../../GlobalOptions.js"
import * as HostSql from "../../HostSql.js"
import * as Output from "../../Output.js"
import * as StateDir from "../../StateDir.js"
import * as Expr from "./expr.js"
import * as Signals from "./signals.js"
import * as Suite from "./suite.js"

/** Largest file the algal commands read (receipts may be large; manifests are bounded by the parser). */
const maxFileBytes = 64 * 1024 * 1024
/** How many sibling files are scanned for embedded manifests. */
const maxSiblings = 256

const fromAlgal = (file: string) => (error: AlgalError.AlgalError): CommandFailure =>
  cannotRun(
    error.code,
    `${file}: ${error.code} ${error.message}${error.path === undefined ? "" : ` (at ${error.path})`}`,
    error.path === undefined ? { file } : { file, path: error.path }
  )

/** Read a file as text: bounded size, strictly valid UTF-8. */
const readText = Effect.fn("algal.readText")(function*(file: string) {
  const fs = yield* FileSystem.FileSystem
  const info = yield* fs.stat(file).pipe(
    Effect.mapError((e) => cannotRun("IO_FAILED", `${file}: ${e.message}`, { file }))
  )
  if (info.type !== "File") return yield* cannotRun("IO_FAILED", `${file}: not a file`, { file })
  if (Number(info.size) > maxFileBytes) {
    return yield* cannotRun("BUDGET_EXHAUSTED", `${file}: larger than ${maxFileBytes} bytes`, { file })
  }
  const bytes = yield* fs.readFile(file).pipe(
    Effect.mapError((e) => cannotRun("IO_FAILED", `${file}: ${e.message}`, { file }))
  )
  const text = yield* Effect.try({
    try: () => new TextDecoder("utf-8", { fatal: true }).decode(bytes),
    catch: () => cannotRun("PARSE_FAILED", `${file}: not valid UTF-8`, { file })
  })
  return text
})

/**
 * Read a JSON file strictly: the bytes must be valid UTF-8 and the JSON must be representable
 * (no non-finite numbers, no lone surrogates, depth ≤ 64).
 *
 * @since 0.1.0
 * @category io
 */
export const readJson = Effect.fn("algal.readJson")(function*(file: string) {
  const text = yield* readText(file)
  const json = Canonical.parse(text)
  if (json._tag === "Left") return yield* cannotRun("PARSE_FAILED", `${file}: ${json.left.message}`, { file })
  return json.right
})

// Through `Manifest.parseText`, so the lexical integer-literal check of the contract runs (ADR 0394).
const parseManifest = (file: string) =>
  readText(file).pipe(Effect.flatMap((text) => Manifest.parseText(text).pipe(Effect.mapError(fromAlgal(file)))))

/**
 * Embedded manifests for organism/repeat/each cells: every `*.algal.json` and `*.bundle.json`
 * (`algal.bundle.v1`) in a directory, by digest. Unreadable or invalid files and bundle entries are
 * ignored; every manifest is read as written (integer literals checked, ADR 0394).
 *
 * @since 0.1.0
 * @category io
 */
export const loadManifests = Effect.fn("algal.loadManifests")(function*(dir: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const names = yield* fs.readDirectory(dir).pipe(Effect.orElseSucceed(() => [] as Array<string>))
  const found: Array<Manifest.Manifest> = []
  for (
    const name of names.filter((n) => n.endsWith(".algal.json") || n.endsWith(".bundle.json")).sort().slice(
      0,
      maxSiblings
    )
  ) {
    // every manifest is read as written, so a `"maxSteps": 6.0` is refused like the file itself (ADR 0394)
    const text = yield* readText(path.join(dir, name)).pipe(Effect.option)
    if (Option.isNone(text)) continue
    if (name.endsWith(".bundle.json")) {
      const bundle = yield* Manifest.parseBundleText(text.value).pipe(Effect.option)
      if (Option.isSome(bundle)) {
        found.push(...bundle.value.manifests)
        continue
      }
    }
    // a `*.algal.json`, or a `*.bundle.json` holding one manifest rather than a bundle
    const parsed = yield* Manifest.parseText(text.value).pipe(Effect.option)
    if (Option.isSome(parsed)) found.push(parsed.value)
  }
  return Program.resolverOf(found)
})

const manifestsOption = Options.directory("manifests").pipe(
  Options.withDescription(
    "Directory of embedded manifests (*.algal.json, *.bundle.json); default: the file's directory"
  ),
  Options.optional
)

const needsEmbedded = (manifest: Manifest.Manifest): boolean =>
  manifest.cells.some((c) => c.kind === "organism" || c.kind === "repeat" || c.kind === "each")

const resolverFor = (file: string, manifest: Manifest.Manifest, dir: Option.Option<string>) =>
  Effect.gen(function*() {
    if (!needsEmbedded(manifest)) return undefined
    const path = yield* Path.Path
    return yield* loadManifests(Option.getOrElse(dir, () => path.dirname(file)))
  })

const compileFile = (file: string, dir: Option.Option<string>) =>
  Effect.gen(function*() {
    const manifest = yield* parseManifest(file)
    const manifests = yield* resolverFor(file, manifest, dir)
    const program = yield* Program.compile(manifest, manifests === undefined ? {} : { manifests }).pipe(
      Effect.mapError(fromAlgal(file))
    )
    return { manifest, program, manifests }
  })

const fileArg = Args.file({ name: "FILE", exists: "either" }).pipe(
  Args.withDescription("An algal.organism.v1 manifest (JSON)")
)

const profileOption = Options.choice("profile", ["pure", "managed"]).pipe(
  Options.withDescription(
    "Also admit under a profile: pure = the reflex profile (input/const/expr only, no agent calls); managed = resumable controllers"
  ),
  Options.optional
)

const check = Command.make("check", {
  ...GlobalOptions.global,
  file: fileArg,
  manifests: manifestsOption,
  profile: profileOption
}, ({ file, json, manifests, profile }) =>
  Effect.gen(function*() {
    const { manifest, program } = yield* compileFile(file, manifests)
    if (Option.isSome(profile)) {
      const raw = yield* readJson(file)
      const verdict = profile.value === "pure" ? Admission.pureSync(raw) : Admission.managedSync(raw)
      if (!verdict.ok) {
        return yield* refused(
          "MANIFEST_INVALID",
          `${file}: ${profile.value === "pure" ? "reflex" : "managed"} program rejected: ${
            verdict.violations.map((v) => `${v.rule} (${v.message})`).join("; ")
          }`,
          { file, profile: profile.value, violations: verdict.violations }
        )
      }
    }
    const doc = {
      ok: true,
      digest: program.digest,
      key: manifest.key,
      cells: manifest.cells.length,
      edges: manifest.edges.length,
      ...(Option.isSome(profile) ? { profile: profile.value } : {})
    }
    yield* Output.result(json, doc, (d) => `ok ${d.digest} ${d.key} (${d.cells} cells, ${d.edges} edges)`)
  })).pipe(
    Command.withDescription("Validate and compile a manifest: ok + digest, or the error code and message (exit 2)")
  )

const digest = Command.make(
  "digest",
  { ...GlobalOptions.global, file: fileArg },
  ({ file, json }) =>
    Effect.gen(function*() {
      const manifest = yield* parseManifest(file)
      const value = Manifest.digest(manifest)
      yield* Output.result(json, { digest: value, key: manifest.key }, (d) => d.digest)
    })
).pipe(Command.withDescription("Print the manifest digest (sha256 of the canonical normalized manifest)"))

const canonical = Command.make(
  "canonical",
  {
    ...GlobalOptions.global,
    file: Args.file({ name: "FILE", exists: "either" }).pipe(Args.withDescription("Any JSON file")),
    normalized: Options.boolean("normalized").pipe(
      Options.withDescription("Print the normalized manifest instead of the file as-is")
    )
  },
  ({ file, normalized }) =>
    Effect.gen(function*() {
      if (normalized) {
        const manifest = yield* parseManifest(file)
        return yield* Console.log(Manifest.canonical(manifest))
      }
      const json = yield* readJson(file)
      yield* Console.log(Canonical.encodeUnsafe(json)) // readJson already proved the value canonicalizable
    })
).pipe(Command.withDescription("Print canonical JSON (ALGAL §3.1): sorted keys, compact, JS number formatting"))

const portText = (decl: Manifest.PortDecl): string =>
  [
    decl.type,
    decl.labels === undefined ? "" : `[${decl.labels.join("|")}]`,
    decl.many === true ? " many" : "",
    decl.optional === true ? " optional" : "",
    decl.schema === undefined ? "" : " schema",
    decl.capability === undefined ? "" : ` cap:${decl.capability}`
  ].join("")

const ports = (map: Readonly<Record<string, Manifest.PortDecl>>): string =>
  Object.entries(map).map(([name, decl]) => `${name}: ${portText(decl)}`).join(", ")

/**
 * The `explain` document: resolved cells, ports and edges.
 *
 * @since 0.1.0
 * @category models
 */
export const explainDoc = (program: Program.Program) => ({
  digest: program.digest,
  key: program.manifest.key,
  name: program.manifest.name,
  budgets: program.manifest.budgets,
  interface: { inputs: program.interfaceInputs, outputs: program.interfaceOutputs },
  cells: program.cells.map((c) => ({
    id: c.id,
    kind: c.kind,
    ...(c.kind === "fn" ? { fn: (c.cell as Manifest.FnCell).fn, cost: c.fn?.cost } : {}),
    inputs: c.inputs,
    outputs: c.outputs,
    handlesFailure: c.handlesFailure
  })),
  edges: program.manifest.edges.map((e) => ({
    from: `${e.from.cell}.${e.from.port}`,
    to: `${e.to.cell}.${e.to.port}`,
    ...(e.on === undefined ? {} : { on: e.on }),
    ...(e.guard === undefined ? {} : { guard: e.guard })
  }))
})

const explain = Command.make(
  "explain",
  { ...GlobalOptions.global, file: fileArg, manifests: manifestsOption },
  ({ file, json, manifests }) =>
    Effect.gen(function*() {
      const { program } = yield* compileFile(file, manifests)
      yield* Output.result(json, explainDoc(program), (d) =>
        [
          `${d.key} "${d.name}" ${d.digest}`,
          `budgets ${Object.entries(d.budgets).map(([k, v]) => `${k}=${v}`).join(" ")}`,
          `interface in(${ports(d.interface.inputs)}) out(${ports(d.interface.outputs)})`,
          "cells:",
          ...d.cells.map((c) =>
            `  ${c.id} [${c.kind}${"fn" in c ? ` ${c.fn}` : ""}] in(${ports(c.inputs)}) out(${ports(c.outputs)})`
          ),
          "edges:",
          ...d.edges.map((e) =>
            `  ${e.from} -> ${e.to}${"on" in e ? " on fail" : ""}${
              "guard" in e ? ` guard ${Canonical.encodeUnsafe(e.guard as any)}` : ""
            }`
          )
        ].join("\n"))
    })
).pipe(Command.withDescription("Show the resolved cells, ports and edges of a manifest"))

const storesFor = (stateDir: Option.Option<string>) =>
  Layer.unwrapEffect(
    Effect.map(StateDir.open(stateDir), (state) =>
      Layer.mergeAll(BlobStore.layerSql, SlotStore.layerSql).pipe(
        Layer.provide(HostSql.layer(state)),
        Layer.mapError((error) => error instanceof AlgalError.AlgalError ? cannotRun(error.code, error.message) : error)
      ))
  )

const runtimeFor = (stateDir: Option.Option<string>) =>
  AlgalRuntime.layerWith().pipe(
    Layer.provide(Layer.merge(FnRegistry.layer, storesFor(stateDir)))
  )

const responsesOption = Options.file("responses").pipe(
  Options.withDescription("Scripted responses JSON: by request digest or cell id; arrays are per-cell queues"),
  Options.optional
)

const storeOption = Options.directory("store").pipe(
  Options.withDescription("Also write the receipt to DIR/<digest>.receipt.json (checkpoints for resume)"),
  Options.optional
)

const executorsFor = (responses: Option.Option<string>) =>
  Effect.gen(function*() {
    if (Option.isNone(responses)) return [] as ReadonlyArray<Executor.Executor>
    const json = yield* readJson(responses.value)
    const decoded = yield* Executor.decodeResponses(json).pipe(Effect.mapError(fromAlgal(responses.value)))
    return [Executor.scripted(decoded)]
  })

/** Admit a manifest under the managed-controller profile (budgets inserted) and return its program. */
const managedProgram = (file: string) =>
  Effect.gen(function*() {
    // the manifest as written first (integer literals included: ADR 0394), then the profile
    yield* parseManifest(file)
    const raw = yield* readJson(file)
    const verdict = Admission.managedSync(raw)
    if (!verdict.ok) {
      return yield* refused(
        "MANIFEST_INVALID",
        `${file}: managed program rejected: ${verdict.violations.map((v) => `${v.rule} (${v.message})`).join("; ")}`,
        { file, violations: verdict.violations }
      )
    }
    return verdict.admitted.program
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
    ...(Object.keys(result.outputs).length === 0
      ? []
      : ["outputs:", ...Object.entries(result.outputs).map(([k, v]) => `  ${k} = ${Canonical.encodeUnsafe(v)}`)])
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
    ...(Object.keys(evaluation.outputs).length === 0
      ? []
      : ["outputs:", ...Object.entries(evaluation.outputs).map(([k, v]) => `  ${k} = ${Canonical.encodeUnsafe(v)}`)])
  ].join("\n")

const run = Command.make(
  "run",
  {
    ...GlobalOptions.global,
    file: fileArg,
    args: Options.file("args").pipe(
      Options.withDescription("Run args JSON ({cell: {port: value}}, or interface names with --interface)"),
      Options.optional
    ),
    interface: Options.boolean("interface").pipe(Options.withDescription("The args file names interface inputs")),
    manifests: manifestsOption,
    responses: responsesOption,
    store: storeOption,
    managed: Options.boolean("managed").pipe(
      Options.withDescription(
        "Admit under the managed-controller profile and suspend at each agent cell (resume with --response)"
      )
    ),
    noReceipt: Options.boolean("no-receipt").pipe(
      Options.withDescription(
        "Decide only: print the outcome, outputs and work without building a receipt (nothing to store or verify)"
      )
    )
  },
  ({ args, file, interface: named, json, managed, manifests, noReceipt, responses, stateDir, store }) =>
    Effect.gen(function*() {
      if (noReceipt && Option.isSome(store)) {
        return yield* cannotRun("usage", "--store keeps receipts: it cannot be used with --no-receipt")
      }
      const program = managed ? yield* managedProgram(file) : (yield* compileFile(file, manifests)).program
      const argsFile = Option.getOrUndefined(args)
      const runArgs = argsFile === undefined ? {} : yield* readJson(argsFile)
      const executors = managed
        ? [...(yield* executorsFor(responses)), Executor.managed()]
        : yield* executorsFor(responses)
      const runtime = yield* AlgalRuntime.AlgalRuntime
      if (noReceipt) {
        const evaluation = yield* Signals.stoppable(
          "algal run",
          runtime.evaluate(program, runArgs, { interface: named, executors, cooperative: true })
        ).pipe(Effect.mapError(fromAlgal(argsFile ?? "args")))
        yield* Output.result(json, evaluation, evaluationSummary)
        if (evaluation.outcome !== "complete") {
          return yield* new NegativeResult({ reason: `run ${evaluation.outcome}` })
        }
        return
      }
      // cooperative: the event loop gets a turn every few activations, so SIGINT/SIGTERM stop
      // the run between steps (exit 130/143) instead of after it
      const result = yield* Signals.stoppable(
        "algal run",
        runtime.run(program, runArgs, { interface: named, executors, cooperative: true })
      ).pipe(Effect.mapError(fromAlgal(argsFile ?? "args")))
      const stored = yield* storeReceipt(store, result.receipt)
      yield* Output.result(json, result.receipt, () => summary(result) + stored)
      if (result.outcome !== "complete") return yield* new NegativeResult({ reason: `run ${result.outcome}` })
    }).pipe(Effect.provide(Layer.suspend(() => runtimeFor(stateDir))))
).pipe(Command.withDescription("Run a manifest: the receipt with --json, a summary without (exit 1 unless complete)"))

const resume = Command.make(
  "resume",
  {
    ...GlobalOptions.global,
    checkpoint: Args.file({ name: "CHECKPOINT", exists: "either" }).pipe(
      Args.withDescription("A suspended algal.run.v1 receipt")
    ),
    manifest: Options.file("manifest").pipe(Options.withDescription("The manifest the checkpoint was produced by")),
    responses: responsesOption,
    response: Options.text("response").pipe(
      Options.withDescription("The text answer to the suspended request (managed-controller protocol)"),
      Options.optional
    ),
    manifests: manifestsOption,
    store: storeOption,
    managed: Options.boolean("managed").pipe(
      Options.withDescription("The checkpoint is a managed-controller run: later agent cells suspend again")
    )
  },
  ({ checkpoint, json, managed, manifest, manifests, response, responses, stateDir, store }) =>
    Effect.gen(function*() {
      const program = managed ? yield* managedProgram(manifest) : (yield* compileFile(manifest, manifests)).program
      const recorded = yield* readJson(checkpoint)
      const executors = managed
        ? [...(yield* executorsFor(responses)), Executor.managed()]
        : yield* executorsFor(responses)
      const runtime = yield* AlgalRuntime.AlgalRuntime
      const result = yield* runtime.resume(recorded, program, {
        executors,
        ...(Option.isSome(response) ? { response: response.value } : {})
      }).pipe(Effect.mapError(fromAlgal(checkpoint)))
      const stored = yield* storeReceipt(store, result.receipt)
      yield* Output.result(json, result.receipt, () => summary(result) + stored)
      if (result.outcome !== "complete") return yield* new NegativeResult({ reason: `run ${result.outcome}` })
    }).pipe(Effect.provide(Layer.suspend(() => runtimeFor(stateDir))))
).pipe(Command.withDescription("Continue a suspended run from its checkpoint receipt (exit 1 unless complete)"))

const replay = Command.make(
  "replay",
  {
    ...GlobalOptions.global,
    receipt: Args.file({ name: "RECEIPT", exists: "either" }).pipe(
      Args.withDescription("An algal.run.v1 receipt (JSON)")
    ),
    manifest: Options.file("manifest").pipe(Options.withDescription("The manifest to replay it against")),
    manifests: manifestsOption
  },
  ({ json, manifest, manifests, receipt, stateDir }) =>
    Effect.gen(function*() {
      const { program } = yield* compileFile(manifest, manifests)
      const recorded = yield* readJson(receipt)
      const runtime = yield* AlgalRuntime.AlgalRuntime
      const comparison = yield* runtime.replay(recorded, program).pipe(Effect.mapError(fromAlgal(receipt)))
      yield* Output.result(json, comparison, (c) =>
        [
          `${c.verdict}${c.replayed === undefined ? "" : ` ${c.replayed}`}${
            c.reason === undefined ? "" : `: ${c.reason}`
          }`,
          ...c.mismatches.map((m) => `  ${m}`)
        ].join("\n"))
      if (comparison.verdict !== "identical") {
        return yield* new NegativeResult({ reason: `replay ${comparison.verdict}` })
      }
    }).pipe(Effect.provide(Layer.suspend(() => runtimeFor(stateDir))))
).pipe(
  Command.withDescription(
    "Replay a receipt against a manifest: identical | diverged | could-not-replay (exit 1 unless identical)"
  )
)

const verify = Command.make(
  "verify",
  {
    ...GlobalOptions.global,
    receipt: Args.file({ name: "RECEIPT", exists: "either" }).pipe(
      Args.withDescription("An algal.run.v1 receipt (JSON)")
    ),
    manifest: Options.file("manifest").pipe(Options.withDescription("The manifest the receipt was produced by")),
    manifests: manifestsOption
  },
  ({ json, manifest, manifests, receipt, stateDir }) =>
    Effect.gen(function*() {
      const { program } = yield* compileFile(manifest, manifests)
      const recorded = yield* readJson(receipt)
      const runtime = yield* AlgalRuntime.AlgalRuntime
      const result = yield* runtime.verify(recorded, program).pipe(Effect.mapError(fromAlgal(receipt)))
      yield* Output.result(json, result, (r) =>
        [
          `${r.ok ? "verified" : "MISMATCH"} ${r.digest} (${r.outcome})`,
          ...r.mismatches.map((m) => `  ${m}`)
        ].join("\n"))
      if (!result.ok) return yield* new NegativeResult({ reason: "verify mismatch" })
    }).pipe(Effect.provide(Layer.suspend(() => runtimeFor(stateDir))))
).pipe(Command.withDescription("Re-run a receipt against its manifest and diff field by field (exit 1 on mismatch)"))

/**
 * The `algal` command group.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("algal").pipe(
  Command.withDescription(
    "ALGAL organisms: check, digest, canonical, explain, run, resume, verify, replay, expr, suite"
  ),
  Command.withSubcommands([
    check,
    digest,
    canonical,
    explain,
    run,
    resume,
    verify,
    replay,
    Expr.command,
    Suite.make({ readText, readJson, loadManifests })
  ])
)
