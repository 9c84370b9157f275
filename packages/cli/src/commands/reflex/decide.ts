/**
 * `steward reflex decide route|settle` and `steward reflex features route|settle`.
 * @internal
 */
import * as Command from "@effect/cli/Command"
import * as Features from "@steward/reflex-core/Features"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { randomUUID } from "node:crypto"
import * as GlobalOptions from "../../GlobalOptions.js"
import * as Output from "../../Output.js"
import { run } from "./engine.js"
import * as Inputs from "./inputs.js"
import * as Render from "./render.js"

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

/** `steward reflex decide route|settle`. @internal */
export const decideCommand = Command.make("decide").pipe(
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

/** `steward reflex features route|settle`. @internal */
export const featuresCommand = Command.make("features").pipe(
  Command.withDescription("Print a reflex's features without deciding"),
  Command.withSubcommands([featuresRoute, featuresSettle])
)
