/**
 * `steward algal check | digest | canonical | explain`: validate, fingerprint and show a manifest
 * without running it.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Canonical from "@steward/algal-runtime/Canonical"
import * as Manifest from "@steward/algal-runtime/Manifest"
import type * as Program from "@steward/algal-runtime/Program"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as GlobalOptions from "../../GlobalOptions.js"
import * as Output from "../../Output.js"
import * as Io from "./io.js"

/**
 * The `--manifests DIR` option: where embedded manifests are looked up.
 *
 * @since 0.1.0
 * @category options
 */
export const manifestsOption = Options.directory("manifests").pipe(
  Options.withDescription(
    "Directory of embedded manifests (*.algal.json, *.bundle.json); default: the file's directory"
  ),
  Options.optional
)

/**
 * The `FILE` argument: a manifest.
 *
 * @since 0.1.0
 * @category options
 */
export const fileArg = Io.fileArgument("FILE").pipe(
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
    const { manifest, program } = yield* Io.compileFile(file, manifests)
    if (Option.isSome(profile)) yield* Io.admit(file, profile.value)
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
      const manifest = yield* Io.parseManifest(file)
      const value = Manifest.digest(manifest)
      yield* Output.result(json, { digest: value, key: manifest.key }, (d) => d.digest)
    })
).pipe(Command.withDescription("Print the manifest digest (sha256 of the canonical normalized manifest)"))

const canonical = Command.make(
  "canonical",
  {
    ...GlobalOptions.global,
    file: Io.fileArgument("FILE").pipe(Args.withDescription("Any JSON file")),
    normalized: Options.boolean("normalized").pipe(
      Options.withDescription("Print the normalized manifest instead of the file as-is")
    )
  },
  ({ file, normalized }) =>
    Effect.gen(function*() {
      if (normalized) {
        const manifest = yield* Io.parseManifest(file)
        return yield* Console.log(Manifest.canonical(manifest))
      }
      const json = yield* Io.readJson(file, Io.limits.receipt)
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

const explainText = (d: ReturnType<typeof explainDoc>): string =>
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
  ].join("\n")

const explain = Command.make(
  "explain",
  { ...GlobalOptions.global, file: fileArg, manifests: manifestsOption },
  ({ file, json, manifests }) =>
    Effect.gen(function*() {
      const { program } = yield* Io.compileFile(file, manifests)
      yield* Output.result(json, explainDoc(program), explainText)
    })
).pipe(Command.withDescription("Show the resolved cells, ports and edges of a manifest"))

/**
 * The inspection verbs, in help order.
 *
 * @since 0.1.0
 * @category commands
 */
export const commands = [check, digest, canonical, explain] as const
