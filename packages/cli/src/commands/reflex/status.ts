/**
 * `steward reflex status [REFLEX] [--html FILE]`.
 * @internal
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import type * as Reflexes from "@steward/reflex-core/Reflexes"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as GlobalOptions from "../../GlobalOptions.js"
import * as Output from "../../Output.js"
import { names, reflexArg, run } from "./engine.js"
import * as Html from "./html.js"
import * as Render from "./render.js"

/** The status of the named reflexes (and, with `html`, the status page). @internal */
export const statusOf = (
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

/** `steward reflex status`. @internal */
export const statusCommand = Command.make(
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
