/**
 * `steward reflex import` (a JSONL history, with progress on a terminal) and `steward reflex check`
 * (whether an organism is an admissible reflex program).
 * @internal
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Reflexes from "@steward/reflex-core/Reflexes"
import * as ReflexLedger from "@steward/reflex-core/ReflexLedger"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { refused } from "../../CliError.js"
import * as GlobalOptions from "../../GlobalOptions.js"
import * as Output from "../../Output.js"
import * as Progress from "../../Progress.js"
import { fromReflex, reflexArg, run } from "./engine.js"
import * as Files from "./files.js"
import * as Render from "./render.js"

const { maxProgramBytes, readImport, readText } = Files

/** `steward reflex import REFLEX FILE [--dry-run]`. @internal */
export const importCommand = Command.make(
  "import",
  {
    ...GlobalOptions.global,
    reflex: reflexArg,
    file: Args.text({ name: "FILE" }).pipe(Args.withDescription("A JSONL history file, one labelled decision a line")),
    dryRun: Options.boolean("dry-run").pipe(
      Options.withDescription("Store nothing; report whether this history alone would certify")
    )
  },
  ({ dryRun, file, json, reflex, stateDir }) =>
    Effect.flatMap(
      Progress.around(json, `reflex import ${reflex}`, (progress) =>
        Effect.zipRight(progress.stage(`reading ${file}`), readImport(file)).pipe(
          Effect.tap((content) =>
            progress.stage(`importing ${
              content.split("\n").filter((l) => l.trim() !== "").length
            } lines, certifying`)
          ),
          Effect.flatMap((content) =>
            run(stateDir, (reflexes) => reflexes.importHistory(reflex, content, { dryRun, file }))
          )
        )),
      (r) =>
        Output.result(json, {
          inserted: r.inserted,
          examples: r.examples,
          ...(dryRun ? {} : { adopted_version: r.adoptedVersion }),
          certificates: r.certificates
        }, () =>
          Render.importReport(r))
    )
).pipe(Command.withDescription("Import JSONL history (≤ 4,096 lines) atomically"))

/** `steward reflex check FILE`. @internal */
export const checkCommand = Command.make(
  "check",
  {
    ...GlobalOptions.global,
    file: Args.text({ name: "FILE" }).pipe(Args.withDescription("An algal.organism.v1 manifest (JSON)"))
  },
  ({ file, json, stateDir: _ }) =>
    Effect.gen(function*() {
      const content = yield* readText(file, maxProgramBytes)
      const reflexes = yield* Reflexes.Reflexes
      const r = yield* reflexes.check(content).pipe(
        Effect.mapError((e) =>
          e.code === "program-rejected" ? refused(e.code, `${file}: ${e.message}`, e.details) : fromReflex(e)
        )
      )
      yield* Output.result(json, { admissible: true, digest: r.digest }, () => `admissible reflex program ${r.digest}`)
    }).pipe(Effect.provide(Reflexes.layer().pipe(Layer.provide(ReflexLedger.layerMemory), Layer.mapError(fromReflex))))
).pipe(Command.withDescription("Check that an organism is an admissible (pure) reflex program"))
