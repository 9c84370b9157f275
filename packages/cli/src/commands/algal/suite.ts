/**
 * `steward algal suite FILE.jsonl`: run a corpus of published ALGAL outputs (one case a line: an
 * expression, a malformed manifest, a random organism, or an example file with optional scripted
 * responses) through this runtime and print the agreement per category and the first differences.
 *
 * Exit 0 when every case agrees, 1 when any differs (the report is printed first), 2 when the
 * corpus cannot be read or a line is not a case. A case's `file` is relative to the corpus
 * directory's parent (as in the original's corpus layout); a bare name not found there is looked
 * up by name below it.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as AlgalError from "@steward/algal-runtime/AlgalError"
import type * as Canonical from "@steward/algal-runtime/Canonical"
import * as Conformance from "@steward/algal-runtime/Conformance"
import type * as Manifest from "@steward/algal-runtime/Manifest"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { cannotRun, type CommandFailure, NegativeResult } from "../../CliError.js"
import * as GlobalOptions from "../../GlobalOptions.js"
import * as Output from "../../Output.js"
import * as Io from "./io.js"

/** How many directories the bare-name lookup visits below the corpus root. */
const maxVisited = 512

/** Find `name` below `root` (breadth first, bounded), for corpus cases that name a bare file. */
const findByName = (root: string, name: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const queue = [root]
    for (let visited = 0; queue.length > 0 && visited < maxVisited; visited++) {
      const dir = queue.shift()!
      const entries = yield* fs.readDirectory(dir).pipe(Effect.orElseSucceed(() => [] as Array<string>))
      for (const entry of entries.sort()) {
        const full = path.join(dir, entry)
        const info = yield* fs.stat(full).pipe(Effect.option)
        if (Option.isNone(info)) continue
        if (info.value.type === "Directory") queue.push(full)
        else if (entry === name && info.value.type === "File") return Option.some(full)
      }
    }
    return Option.none<string>()
  })

/** What the `algal` group lends the suite: its bounded, strict file readers. */
interface Io {
  readonly readText: (file: string) => Effect.Effect<string, CommandFailure, FileSystem.FileSystem>
  readonly readJson: (file: string) => Effect.Effect<Canonical.Json, CommandFailure, FileSystem.FileSystem>
  readonly loadManifests: (
    dir: string
  ) => Effect.Effect<(digest: string) => Manifest.Manifest | undefined, never, FileSystem.FileSystem | Path.Path>
}

/** The loader a corpus at `corpus` uses for its file cases: the manifest and its sibling manifests. */
const loaderFor =
  (corpus: string, io: Io, services: Context.Context<FileSystem.FileSystem | Path.Path>) =>
  (file: string): Effect.Effect<Conformance.Loaded, AlgalError.AlgalError> =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const root = path.dirname(path.dirname(path.resolve(corpus)))
      const direct = path.join(root, file)
      const found = (yield* fs.exists(direct).pipe(Effect.orElseSucceed(() => false)))
        ? direct
        : Option.getOrUndefined(yield* findByName(root, path.basename(file)))
      if (found === undefined) return yield* AlgalError.make("INPUT_MISSING", `no file ${file} under ${root}`)
      const manifest = yield* io.readJson(found).pipe(
        Effect.mapError((e) => AlgalError.make("IO_FAILED", e.message))
      )
      const manifests = yield* io.loadManifests(path.dirname(found))
      return { manifest, manifests }
    }).pipe(Effect.provide(services))

/** The category of a corpus named `<category>.jsonl`, if it is one. */
const categoryOf = (file: string): Conformance.Category | undefined => {
  const base = file.split(/[\\/]/).pop() ?? ""
  const name = base.endsWith(".jsonl") ? base.slice(0, -".jsonl".length) : base
  return (Conformance.categories as ReadonlyArray<string>).includes(name) ? name as Conformance.Category : undefined
}

const render = (report: Conformance.Report, shown: number): string => {
  const lines: Array<string> = []
  for (const category of Conformance.categories) {
    const tally = report.tallies[category]
    if (tally !== undefined) lines.push(`${category}: ${tally.agree}/${tally.cases} agree`)
  }
  for (const failure of report.failures.slice(0, shown)) {
    lines.push(`DIFF ${failure.id} (${failure.category})`)
    for (const d of failure.differences) lines.push(`  ${d.field}: expected ${d.expected}, got ${d.actual}`)
  }
  if (report.failures.length > shown) lines.push(`… and ${report.failures.length - shown} more differing cases`)
  lines.push(report.agree ? "full agreement" : `${report.failures.length} case(s) differ`)
  return lines.join("\n")
}

/**
 * The `algal suite` command (the file readers come from the `algal` group, which owns them).
 *
 * @since 0.1.0
 * @category commands
 */
export const make = (io: Io) =>
  Command.make(
    "suite",
    {
      ...GlobalOptions.global,
      file: Io.fileArgument("FILE").pipe(
        Args.withDescription("A corpus of cases (JSONL): expr, malformed, organisms, fixtures or effects")
      ),
      show: Options.integer("show").pipe(
        Options.withDescription("How many differing cases to print (default 10)"),
        Options.withDefault(10)
      )
    },
    ({ file, json, show }) =>
      Effect.gen(function*() {
        if (show < 0) return yield* cannotRun("PARSE_FAILED", "--show must be a non-negative integer", {})
        const services = yield* Effect.context<FileSystem.FileSystem | Path.Path>()
        const text = yield* io.readText(file)
        const category = categoryOf(file)
        const report = yield* Conformance.runSuite(text, {
          ...(category === undefined ? {} : { category }),
          load: loaderFor(file, io, services)
        }).pipe(
          Effect.mapError((e) => cannotRun(e.code, `${file}: ${e.code} ${e.message}`, { file }))
        )
        yield* Output.result(json, report, (r) => render(r, show))
        if (!report.agree) return yield* new NegativeResult({ reason: "conformance differences" })
      })
  ).pipe(
    Command.withDescription(
      "Run a corpus of published ALGAL outputs and report agreement per category (exit 1 on any difference)"
    )
  )
