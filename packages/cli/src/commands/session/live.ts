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
 * Print a run's events as they are committed, then `after`, then exit by the run's settle.
 *
 * @since 0.1.0
 * @category printing
 */
export const print = <E, R, E2 = never>(
  options: PrintOptions,
  events: Stream.Stream<Event.SessionEvent, E, R>,
  services: Context.Context<R>,
  after: Effect.Effect<void, E2> = Effect.void
) =>
  Effect.gen(function*() {
    const last = yield* events.pipe(
      Stream.tap(Render.print(options.json, options.verbose)),
      Stream.runLast,
      Effect.provide(services)
    )
    yield* after
    if (Option.isNone(last) || last.value.type !== "run.settle") {
      return yield* cannotRun("internal", "the run's event stream ended before its settle")
    }
    const status = (last.value.data as { readonly status?: unknown }).status
    if (status !== "completed") {
      return yield* new NegativeResult({ reason: `run ${last.value.run} settled ${String(status)}` })
    }
  })
