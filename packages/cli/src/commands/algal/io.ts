/**
 * Every file the `algal` commands read — manifests, bundles, receipts, checkpoints, run args,
 * scripted responses and suite corpora — goes through the CLI's bounded reader (`BoundedFile`):
 * the kind and size are checked before a byte is read (a FIFO or `/dev/zero` is refused, never
 * opened), reading stops at the limit, the text must be valid UTF-8 and JSON is parsed strictly
 * (`StrictJson`: depth ≤ 64, duplicate keys refused, lone surrogates refused). A refusal keeps
 * ALGAL's error codes (`IO_FAILED`, `BUDGET_EXHAUSTED`, `PARSE_FAILED`) and names the file, the
 * line where there is one, and the limit (ADR 0322).
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Admission from "@steward/algal-runtime/Admission"
import type * as AlgalError from "@steward/algal-runtime/AlgalError"
import * as Canonical from "@steward/algal-runtime/Canonical"
import * as Manifest from "@steward/algal-runtime/Manifest"
import * as Program from "@steward/algal-runtime/Program"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as BoundedFile from "../../BoundedFile.js"
import { cannotRun, type CommandFailure, refused } from "../../CliError.js"
import * as StrictJson from "../../StrictJson.js"

const mib = 1024 * 1024

/**
 * A file argument. Its kind is not checked while the command line is parsed (where a FIFO would
 * be a bare usage error): the reader refuses it, naming the file and what it is.
 *
 * @since 0.1.0
 * @category options
 */
export const fileArgument = (name: string): Args.Args<string> => Args.path({ name, exists: "either" })

/**
 * A file option (`--name FILE`), checked by the reader as `fileArgument` is.
 *
 * @since 0.1.0
 * @category options
 */
export const fileOption = (name: string): Options.Options<string> =>
  Options.text(name).pipe(Options.withPseudoName("FILE"))

/**
 * The read limits per kind of file. A manifest is at most 1 MiB canonical (`Manifest.maxBytes`);
 * its file may be pretty-printed, so 4 MiB are read. Receipts and checkpoints are bounded by the
 * receipt contract (64 MiB canonical); run args (1 MiB canonical) and scripted responses by
 * 16 MiB, as standard input is; bundles of embedded manifests by 16 MiB; suite corpora by 64 MiB.
 *
 * @since 0.1.0
 * @category constants
 */
export const limits = {
  manifest: { maxBytes: 4 * mib, maxDepth: Canonical.maxDepth },
  bundle: { maxBytes: 16 * mib, maxDepth: Canonical.maxDepth },
  receipt: { maxBytes: 64 * mib, maxDepth: Canonical.maxDepth },
  args: { maxBytes: 16 * mib, maxDepth: Canonical.maxDepth },
  suite: { maxBytes: 64 * mib, maxDepth: Canonical.maxDepth }
} as const satisfies Readonly<Record<string, BoundedFile.Limits>>

/**
 * The ALGAL error code of a refused file: the kind of file or its absence is `IO_FAILED`, a size
 * or depth over its limit `BUDGET_EXHAUSTED` / `PARSE_FAILED`, content that is not strict JSON
 * `PARSE_FAILED`.
 *
 * @since 0.1.0
 * @category errors
 */
export const fromRefused = (error: BoundedFile.FileRefused): CommandFailure =>
  cannotRun(
    error.reason === "not-found" || error.reason === "not-a-file" || error.reason === "io"
      ? "IO_FAILED"
      : error.reason === "too-large"
      ? "BUDGET_EXHAUSTED"
      : "PARSE_FAILED",
    error.message,
    {
      file: error.file,
      refused: error.reason,
      ...(error.line === undefined ? {} : { line: error.line }),
      ...(error.limit === undefined ? {} : { limit: error.limit })
    }
  )

/**
 * The CLI failure for an ALGAL error about `file`.
 *
 * @since 0.1.0
 * @category errors
 */
export const fromAlgal = (file: string) => (error: AlgalError.AlgalError): CommandFailure =>
  cannotRun(
    error.code,
    `${file}: ${error.code} ${error.message}${error.path === undefined ? "" : ` (at ${error.path})`}`,
    error.path === undefined ? { file } : { file, path: error.path }
  )

/**
 * Read a file as text within `limit`: checked before it is read, strictly valid UTF-8.
 *
 * @since 0.1.0
 * @category io
 */
export const readText = (
  file: string,
  limit: BoundedFile.Limits
): Effect.Effect<string, CommandFailure, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    // a missing file keeps the platform's words: the shell says them as `not-found`, naming the
    // folder a relative path was taken against
    const missing = yield* fs.stat(file).pipe(
      Effect.as(undefined),
      Effect.catchAll((error) =>
        Effect.succeed(error._tag === "SystemError" && error.reason === "NotFound" ? error.message : undefined)
      )
    )
    if (missing !== undefined) return yield* cannotRun("IO_FAILED", `${file}: ${missing}`, { file })
    return yield* BoundedFile.readText(file, limit).pipe(Effect.mapError(fromRefused))
  })

/** Strict JSON of `text` read from `file`, and representable in ALGAL (no non-finite numbers). */
const strictJson = (text: string, file: string, maxDepth: number): Effect.Effect<Canonical.Json, CommandFailure> =>
  BoundedFile.parseJson(text, file, maxDepth).pipe(
    Effect.mapError(fromRefused),
    Effect.flatMap((value) => {
      const encoded = Canonical.encode(value)
      return encoded._tag === "Left"
        ? Effect.fail(cannotRun("PARSE_FAILED", `${file}: ${encoded.left.message}`, { file }))
        : Effect.succeed(value as Canonical.Json)
    })
  )

/**
 * Read a JSON file strictly within `limit`: valid UTF-8, depth ≤ 64, no duplicate keys, no lone
 * surrogates, no non-finite numbers.
 *
 * @since 0.1.0
 * @category io
 */
export const readJson = Effect.fn("algal.readJson")(function*(file: string, limit: BoundedFile.Limits) {
  const text = yield* readText(file, limit)
  return yield* strictJson(text, file, limit.maxDepth ?? Canonical.maxDepth)
})

/**
 * Read a JSONL suite corpus: bounded like any file, and every non-blank line strict JSON (an
 * error names the file and the line).
 *
 * @since 0.1.0
 * @category io
 */
export const readSuite = Effect.fn("algal.readSuite")(function*(file: string) {
  const text = yield* readText(file, limits.suite)
  const lines = text.split("\n")
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (line.trim() === "") continue
    const checked = StrictJson.parse(line, { maxDepth: limits.suite.maxDepth })
    if (!checked.ok && checked.error.issue !== "syntax") {
      const { error } = checked
      return yield* cannotRun("PARSE_FAILED", `${file}:${i + 1}:${error.column}: ${error.message}`, {
        file,
        refused: error.issue,
        line: i + 1,
        ...(error.issue === "too-deep" ? { limit: limits.suite.maxDepth } : {})
      })
    }
  }
  // syntax errors are the corpus reader's to report (it names the line as the original does)
  return text
})

/**
 * Read a manifest file as written: bounded, strict JSON (duplicate keys refused), then through
 * `Manifest.parseText`, so the lexical integer-literal check of the contract runs (ADR 0394).
 *
 * @since 0.1.0
 * @category io
 */
export const parseManifest = Effect.fn("algal.parseManifest")(function*(file: string) {
  const text = yield* readText(file, limits.manifest)
  yield* strictJson(text, file, Canonical.maxDepth)
  return yield* Manifest.parseText(text).pipe(Effect.mapError(fromAlgal(file)))
})

/** How many sibling files are scanned for embedded manifests. */
const maxSiblings = 256

/** One sibling file's manifests, or none when it is unreadable, not strict JSON or not valid. */
const siblingManifests = (file: string, bundle: boolean) =>
  Effect.gen(function*() {
    const text = yield* readText(file, bundle ? limits.bundle : limits.manifest)
    yield* strictJson(text, file, Canonical.maxDepth)
    if (bundle) {
      const contents = yield* Manifest.parseBundleText(text).pipe(Effect.option)
      if (Option.isSome(contents)) return contents.value.manifests
    }
    // a `*.algal.json`, or a `*.bundle.json` holding one manifest rather than a bundle
    const parsed = yield* Manifest.parseText(text).pipe(Effect.option)
    return Option.isSome(parsed) ? [parsed.value] : []
  }).pipe(Effect.orElseSucceed((): ReadonlyArray<Manifest.Manifest> => []))

/**
 * Embedded manifests for organism/repeat/each cells: every `*.algal.json` and `*.bundle.json`
 * (`algal.bundle.v1`) in a directory, by digest. Unreadable, over-large, non-strict or invalid
 * files and bundle entries are ignored; every manifest is read as written (ADR 0394).
 *
 * @since 0.1.0
 * @category io
 */
export const loadManifests = Effect.fn("algal.loadManifests")(function*(dir: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const names = yield* fs.readDirectory(dir).pipe(Effect.orElseSucceed(() => [] as Array<string>))
  const found: Array<Manifest.Manifest> = []
  const candidates = names.filter((n) => n.endsWith(".algal.json") || n.endsWith(".bundle.json")).sort()
  for (const name of candidates.slice(0, maxSiblings)) {
    found.push(...(yield* siblingManifests(path.join(dir, name), name.endsWith(".bundle.json"))))
  }
  return Program.resolverOf(found)
})

const needsEmbedded = (manifest: Manifest.Manifest): boolean =>
  manifest.cells.some((c) => c.kind === "organism" || c.kind === "repeat" || c.kind === "each")

/**
 * Parse and compile a manifest file; embedded manifests come from `dir` (default: the file's
 * directory) when the organism has cells that need them.
 *
 * @since 0.1.0
 * @category io
 */
export const compileFile = (file: string, dir: Option.Option<string>) =>
  Effect.gen(function*() {
    const manifest = yield* parseManifest(file)
    const path = yield* Path.Path
    const manifests = needsEmbedded(manifest)
      ? yield* loadManifests(Option.getOrElse(dir, () => path.dirname(file)))
      : undefined
    const program = yield* Program.compile(manifest, manifests === undefined ? {} : { manifests }).pipe(
      Effect.mapError(fromAlgal(file))
    )
    return { manifest, program, manifests }
  })

/** The violations of an admission verdict, on one line. */
const violationText = (violations: ReadonlyArray<Admission.Violation>): string =>
  violations.map((v) => `${v.rule} (${v.message})`).join("; ")

/**
 * Admit a manifest file under a profile (`pure`: the reflex profile; `managed`: resumable
 * controllers) or refuse it (exit 1) listing every violated rule.
 *
 * @since 0.1.0
 * @category io
 */
export const admit = Effect.fn("algal.admit")(function*(file: string, profile: "pure" | "managed") {
  // the manifest as written first (integer literals included: ADR 0394), then the profile
  yield* parseManifest(file)
  const raw = yield* readJson(file, limits.manifest)
  const verdict = profile === "pure" ? Admission.pureSync(raw) : Admission.managedSync(raw)
  if (!verdict.ok) {
    return yield* refused(
      "MANIFEST_INVALID",
      `${file}: ${profile === "pure" ? "reflex" : "managed"} program rejected: ${violationText(verdict.violations)}`,
      { file, profile, violations: verdict.violations }
    )
  }
  return verdict.admitted
})

/**
 * The program a run, resume, verify or replay uses: the manifest admitted under the
 * managed-controller profile (budgets inserted, as the run that produced a managed receipt did),
 * or compiled as written.
 *
 * @since 0.1.0
 * @category io
 */
export const programFor = (file: string, manifests: Option.Option<string>, managed: boolean) =>
  managed
    ? Effect.map(admit(file, "managed"), (admitted) => admitted.program)
    : Effect.map(compileFile(file, manifests), (compiled) => compiled.program)
