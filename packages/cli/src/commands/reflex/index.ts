/**
 * `steward reflex …`: status, decide, features, reply, label, train, import, rollback, replay and
 * check for the route and settle reflexes (`@steward/reflex-core`).
 *
 * Bad input (usage, an unreadable file, an invalid import line, an invalid config entry) exits 2
 * with the reflex error code and writes nothing; a rejected program (`check`) and a replay that
 * does not match exit 1.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Features from "@steward/reflex-core/Features"
import * as ReflexConfig from "@steward/reflex-core/ReflexConfig"
import type * as ReflexError from "@steward/reflex-core/ReflexError"
import * as Reflexes from "@steward/reflex-core/Reflexes"
import * as ReflexLedger from "@steward/reflex-core/ReflexLedger"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { randomUUID } from "node:crypto"
import { cannotRun, type CommandFailure, NegativeResult, refused } from "../../CliError.js"
import * as GlobalOptions from "../../GlobalOptions.js"
import * as HostConfig from "../../HostConfig.js"
import * as HostSql from "../../HostSql.js"
import * as Output from "../../Output.js"
import * as Progress from "../../Progress.js"
import * as StateDir from "../../StateDir.js"
import * as Files from "./files.js"
import * as Html from "./html.js"
import * as Inputs from "./inputs.js"
import * as Render from "./render.js"

/** Codes that mean the command ended with a refused or failed result (exit 1). */
const exit1 = new Set<string>(["conflict", "program-failed"])

/**
 * Map a reflex error to the CLI (the domain code is the CLI error code).
 *
 * @since 0.1.0
 * @category errors
 */
export const fromReflex = (error: ReflexError.ReflexError): CommandFailure =>
  exit1.has(error.code)
    ? refused(error.code, error.message, error.details)
    : cannotRun(error.code, error.message, error.details)

/**
 * The engine for a state directory: its config entry, custom organisms and SQLite ledger.
 *
 * @since 0.1.0
 * @category layers
 */
export const engineLayer = (stateDir: Option.Option<string>) =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      const state = yield* StateDir.open(stateDir)
      const loaded = yield* HostConfig.load(state)
      const config = yield* ReflexConfig.decode(loaded.config.extensions.reflexes, state.configFile).pipe(
        Effect.mapError(fromReflex)
      )
      const custom = yield* Files.readCustomPrograms(state.path, ["route", "settle"])
      return Reflexes.layer({ config, custom }).pipe(
        Layer.provideMerge(ReflexLedger.layerSql), // merged: `status --html` reads the ledger too
        Layer.provide(HostSql.layer(state)),
        Layer.mapError((e) => (e._tag === "ReflexError" ? fromReflex(e) : e))
      )
    })
  )

const run = <A, R = never>(
  stateDir: Option.Option<string>,
  body: (
    reflexes: Reflexes.Reflexes["Type"]
  ) => Effect.Effect<A, ReflexError.ReflexError | CommandFailure | NegativeResult, R>
) =>
  Effect.flatMap(Reflexes.Reflexes, body).pipe(
    Effect.catchTag("ReflexError", (e) => Effect.fail(fromReflex(e))),
    Effect.provide(engineLayer(stateDir))
  )

const reflexArg = Args.choice([["route", "route"], ["settle", "settle"]], { name: "REFLEX" }).pipe(
  Args.withDescription("Which reflex: route or settle")
)
const names = ["route", "settle"] as const

// ---------------------------------------------------------------------------------------------
// status
// ---------------------------------------------------------------------------------------------

const statusOf = (
  stateDir: Option.Option<string>,
  json: boolean,
  which: ReadonlyArray<string>,
  html: Option.Option<string> = Option.none()
) =>
  run(stateDir, (reflexes) =>
    Effect.gen(function*() {
      const rows: Array<Reflexes.Status> = []
      for (const name of which) rows.push(yield* reflexes.status(name))
      if (Option.isSome(html)) yield* Html.write(html.value, yield* Html.collect(reflexes, which))
      yield* Output.result(
        json,
        rows,
        (r) => Option.isSome(html) ? `${Render.status(r)}\nwrote the status page ${html.value}` : Render.status(r)
      )
    }))

const statusCommand = Command.make(
  "status",
  {
    ...GlobalOptions.global,
    reflex: reflexArg.pipe(Args.optional),
    html: Options.file("html").pipe(
      Options.withDescription("Also write a self-contained HTML page (charts, certificates, history) to FILE"),
      Options.optional
    )
  },
  ({ html, json, reflex, stateDir }) => statusOf(stateDir, json, Option.isSome(reflex) ? [reflex.value] : names, html)
).pipe(Command.withDescription("Generation, program digest, labels, holdout/trial metrics, certificates, calibration"))

// ---------------------------------------------------------------------------------------------
// decide / features
// ---------------------------------------------------------------------------------------------

const {
  effects,
  eligibleTiers,
  judge,
  limit,
  noRecord,
  parseJudge,
  revision,
  settleInput,
  subject,
  task,
  text,
  toolCalls,
  turnState
} = Inputs

const decideWith = (
  stateDir: Option.Option<string>,
  json: boolean,
  reflex: string,
  input: unknown,
  opts: {
    readonly subject: Option.Option<string>
    readonly noRecord: boolean
    readonly task: Option.Option<string>
    readonly revision: Option.Option<number>
    readonly eligible?: Option.Option<string>
  }
) =>
  run(stateDir, (reflexes) =>
    Effect.gen(function*() {
      const subjectId = Option.getOrElse(opts.subject, () => `cli-${randomUUID()}`)
      const result = yield* reflexes.decide(reflex, input, {
        subject: subjectId,
        record: !opts.noRecord,
        ...(Option.isSome(opts.task) ? { task: opts.task.value } : {}),
        ...(Option.isSome(opts.revision) ? { revision: opts.revision.value } : {}),
        ...(opts.eligible !== undefined && Option.isSome(opts.eligible)
          ? { eligible: opts.eligible.value.split(",").map((x) => x.trim()).filter((x) => x.length > 0) }
          : {})
      })
      const doc = result.skipped
        ? { skipped: true, reason: result.reason }
        : {
          decision: result.decision,
          features: result.features,
          vetoed: result.vetoed,
          receipt: result.receipt,
          program: result.program,
          paramsVersion: result.paramsVersion,
          observation: result.recorded ? result.observation : null,
          subject: subjectId,
          mode: result.mode,
          certified: result.certified,
          held: result.held,
          acts: result.acts,
          why: result.why,
          custom: result.custom
        }
      yield* Output.result(json, doc, Render.decision)
    }))

const decideRoute = Command.make(
  "route",
  { ...GlobalOptions.global, text, judge, subject, noRecord, task, revision, eligible: eligibleTiers },
  (o) =>
    Effect.flatMap(
      parseJudge(o.judge),
      (j) => decideWith(o.stateDir, o.json, "route", j === undefined ? { task: o.text } : { task: o.text, judge: j }, o)
    )
).pipe(Command.withDescription("Decide the model tier for a task (records an observation unless --no-record)"))

const decideSettle = Command.make(
  "settle",
  { ...GlobalOptions.global, text, toolCalls, state: turnState, limit, effects, subject, noRecord, task, revision },
  (o) => Effect.flatMap(settleInput(o), (input) => decideWith(o.stateDir, o.json, "settle", input, o))
).pipe(Command.withDescription("Categorize a finished turn (records an observation unless --no-record)"))

const decideCommand = Command.make("decide").pipe(
  Command.withDescription("Run a reflex decision"),
  Command.withSubcommands([decideRoute, decideSettle])
)

const featuresRoute = Command.make(
  "route",
  { ...GlobalOptions.global, text, judge },
  (o) =>
    Effect.flatMap(parseJudge(o.judge), (j) =>
      run(o.stateDir, (reflexes) =>
        Effect.flatMap(
          reflexes.features("route", j === undefined ? { task: o.text } : { task: o.text, judge: j }),
          (f) =>
            Output.result(o.json, {
              features: f,
              substantial: Features.substantial(o.text),
              class: Features.classifyTask(o.text)
            }, Render.features)
        )))
).pipe(Command.withDescription("Print the route features of a task"))

const featuresSettle = Command.make(
  "settle",
  { ...GlobalOptions.global, text, toolCalls, state: turnState, limit, effects },
  (o) =>
    Effect.flatMap(
      settleInput(o),
      (input) =>
        run(o.stateDir, (reflexes) =>
          Effect.flatMap(reflexes.features("settle", input), (f) =>
            Output.result(o.json, f === null ? { features: null, skipped: true } : { features: f }, Render.features)))
    )
).pipe(Command.withDescription("Print the settle features of a turn"))

const featuresCommand = Command.make("features").pipe(
  Command.withDescription("Print a reflex's features without deciding"),
  Command.withSubcommands([featuresRoute, featuresSettle])
)

// ---------------------------------------------------------------------------------------------
// reply / label / train / rollback / replay
// ---------------------------------------------------------------------------------------------

const replyCommand = Command.make(
  "reply",
  { ...GlobalOptions.global, text: Args.text({ name: "TEXT" }).pipe(Args.withDescription("The reply text")), subject },
  ({ json, stateDir, subject, text }) =>
    run(
      stateDir,
      (reflexes) =>
        Effect.flatMap(
          reflexes.reply(text, Option.getOrUndefined(subject)),
          (r) => Output.result(json, r, Render.reply)
        )
    )
).pipe(Command.withDescription("Categorize a reply; with --subject, label that task's latest decisions"))

const labelCommand = Command.make(
  "label",
  {
    ...GlobalOptions.global,
    reflex: reflexArg,
    id: Args.text({ name: "ID" }).pipe(Args.withDescription("An observation id or a task (subject)")),
    value: Args.text({ name: "VALUE" }).pipe(
      Args.withDescription("The label: route frontier|standard, settle done|unfinished")
    )
  },
  ({ id, json, reflex, stateDir, value }) =>
    run(
      stateDir,
      (reflexes) => Effect.flatMap(reflexes.label(reflex, id, value), (r) => Output.result(json, r, Render.reply))
    )
).pipe(Command.withDescription(
  "Label a decision (observation id or task): route frontier|standard; settle unfinished|stopped_short|confirm|done"
))

const trainCommand = Command.make(
  "train",
  { ...GlobalOptions.global, reflex: reflexArg.pipe(Args.optional) },
  ({ json, reflex, stateDir }) =>
    run(stateDir, (reflexes) =>
      Effect.gen(function*() {
        const reports: Array<Reflexes.TrainReport> = []
        for (const name of Option.isSome(reflex) ? [reflex.value] : names) reports.push(yield* reflexes.train(name))
        yield* Output.result(
          json,
          Option.isSome(reflex) ? reports[0] : reports,
          (r) => (Array.isArray(r) ? r : [r]).map(Render.train).join("\n\n")
        )
      }))
).pipe(Command.withDescription("Fit a challenger from the prior, decide promotion and certify now"))

const rollbackCommand = Command.make(
  "rollback",
  {
    ...GlobalOptions.global,
    reflex: reflexArg,
    version: Args.integer({ name: "VERSION" }).pipe(
      Args.withDescription("The generation to activate (0 = shipped prior)")
    )
  },
  ({ json, reflex, stateDir, version }) =>
    run(
      stateDir,
      (reflexes) =>
        Effect.flatMap(reflexes.rollback(reflex, version), (v) =>
          Output.result(json, { reflex, version: v }, () =>
            v === 0
              ? `${reflex}: restored the shipped prior (generation 0)`
              : `${reflex}: generation ${v} is active`))
    )
).pipe(Command.withDescription("Make a generation active (0 restores the shipped prior)"))

const replayCommand = Command.make(
  "replay",
  {
    ...GlobalOptions.global,
    id: Args.text({ name: "OBSERVATION_ID" }).pipe(Args.withDescription("The recorded observation's id"))
  },
  ({ id, json, stateDir }) =>
    run(stateDir, (reflexes) =>
      Effect.gen(function*() {
        const r = yield* reflexes.replay(id)
        yield* Output.result(json, r, Render.replay)
        if (!r.matches) return yield* new NegativeResult({ reason: "replay mismatch" })
      }))
).pipe(Command.withDescription("Re-run a recorded decision; exit 1 unless the decision and receipt digest match"))

// ---------------------------------------------------------------------------------------------
// import / check
// ---------------------------------------------------------------------------------------------

const { maxProgramBytes, readImport, readText } = Files

const importCommand = Command.make(
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

const checkCommand = Command.make(
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

/**
 * `steward reflex` (bare: status of all reflexes).
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make(
  "reflex",
  { ...GlobalOptions.global },
  ({ json, stateDir }) => statusOf(stateDir, json, names)
).pipe(
  Command.withDescription("Route and settle reflexes that prove themselves before they act"),
  Command.withSubcommands([
    statusCommand,
    decideCommand,
    featuresCommand,
    replyCommand,
    labelCommand,
    trainCommand,
    importCommand,
    rollbackCommand,
    replayCommand,
    checkCommand
  ])
)
