/**
 * The learning verbs: `reply`, `label`, `train`, `rollback` and `replay`.
 * @internal
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { NegativeResult } from "../../CliError.js"
import * as GlobalOptions from "../../GlobalOptions.js"
import * as Output from "../../Output.js"
import * as Progress from "../../Progress.js"
import { names, reflexArg, run } from "./engine.js"
import * as Inputs from "./inputs.js"
import * as Render from "./render.js"

const { subject } = Inputs

/** `steward reflex reply TEXT`. @internal */
export const replyCommand = Command.make(
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

/** `steward reflex label REFLEX ID VALUE`. @internal */
export const labelCommand = Command.make(
  "label",
  {
    ...GlobalOptions.global,
    reflex: reflexArg,
    id: Args.text({ name: "ID" }).pipe(Args.withDescription("An observation id or a task (subject)")),
    value: Args.text({ name: "VALUE" }).pipe(
      Args.withDescription(
        "The label: route frontier|standard; settle stopped_short|confirm|done"
      )
    )
  },
  ({ id, json, reflex, stateDir, value }) =>
    run(
      stateDir,
      (reflexes) => Effect.flatMap(reflexes.label(reflex, id, value), (r) => Output.result(json, r, Render.reply))
    )
).pipe(Command.withDescription(
  "Label a decision (observation id or task): route frontier|standard; settle stopped_short|confirm|done"
))

/** `steward reflex train [REFLEX]`. @internal */
export const trainCommand = Command.make(
  "train",
  { ...GlobalOptions.global, reflex: reflexArg.pipe(Args.optional) },
  ({ json, reflex, stateDir }) =>
    run(stateDir, (reflexes) =>
      Effect.gen(function*() {
        // a progress line on a terminal: each fit and certification as it starts (erased after)
        const reports = yield* Progress.around(json, "reflex train", (progress) =>
          Effect.forEach(Option.isSome(reflex) ? [reflex.value] : names, (name) =>
            reflexes.train(name, {
              onProgress: (p) =>
                progress.stage(
                  `${p.reflex}: ${p.stage === "fit" ? "fitting" : "certifying"} ${p.head} from ${
                    p.labels.toLocaleString("en-US")
                  } label(s) (step ${p.step} of ${p.steps})`
                )
            })))
        yield* Output.result(
          json,
          Option.isSome(reflex) ? reports[0] : reports,
          (r) => (Array.isArray(r) ? r : [r]).map(Render.train).join("\n\n")
        )
      }))
).pipe(Command.withDescription("Fit a challenger from the prior, decide promotion and certify now"))

/** `steward reflex rollback REFLEX VERSION`. @internal */
export const rollbackCommand = Command.make(
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

/** `steward reflex replay OBSERVATION_ID`. @internal */
export const replayCommand = Command.make(
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
