/**
 * A run printed as it goes (`session run`, `continue`, `approve`; issue 35 item 1): each event as
 * it is committed, from the library's `RunStream`: its transcript lines (`Render.event`, what
 * `events --follow` prints too), or under `--json` one NDJSON line per event (`EventJson.line`),
 * the last one the run's `run.settle`. The exit follows the settle: 0 when the run completed, 1
 * otherwise (the lines already said why).
 *
 * @since 0.1.0
 */
import type * as Event from "@steward/harness-sessions/Event"
import * as Console from "effect/Console"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { cannotRun, NegativeResult } from "../../CliError.js"
import * as Render from "./render.js"

/**
 * How a verb prints events: `--json` (NDJSON) or transcript lines, `-v` for a refusal's details.
 *
 * @since 0.1.0
 * @category models
 */
export interface PrintOptions {
  readonly json: boolean
  readonly verbose: boolean
}

/**
 * The session a new run starts in, before its first event (text output: the id `continue` needs;
 * under `--json` every event line names it).
 *
 * @since 0.1.0
 * @category printing
 */
export const header = (json: boolean, session: string): Effect.Effect<void> =>
  json ? Effect.void : Console.log(`session ${session}`)

/**
 * Print a run's events as they are committed; the last one (a `run.settle`, or a `run.pause` when
 * the run waits for a person).
 *
 * @since 0.1.0
 * @category printing
 */
export const drive = <E, R>(
  options: PrintOptions,
  events: Stream.Stream<Event.SessionEvent, E, R>,
  services: Context.Context<R>
) =>
  Effect.flatMap(
    events.pipe(Stream.tap(Render.print(options.json, options.verbose)), Stream.runLast, Effect.provide(services)),
    (last) =>
      Option.isSome(last) && (last.value.type === "run.settle" || last.value.type === "run.pause")
        ? Effect.succeed(last.value)
        : Effect.fail(cannotRun("internal", "the run's event stream ended before its settle or pause"))
  )

/**
 * The exit of a drive: a pause is a normal end (exit 0: the lines said how to answer; ADR 0016),
 * a settle exits 0 when the run completed and 1 otherwise.
 *
 * @since 0.1.0
 * @category printing
 */
export const exit = (last: Event.SessionEvent): Effect.Effect<void, NegativeResult> => {
  if (last.type === "run.pause") return Effect.void
  const status = (last.data as { readonly status?: unknown }).status
  return status === "completed"
    ? Effect.void
    : Effect.fail(new NegativeResult({ reason: `run ${last.run} settled ${String(status)}` }))
}
