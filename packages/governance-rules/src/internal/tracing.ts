/**
 * Spans on the per-decision hot path only when tracing is on (issue 38 item 3): an `Effect.fn`
 * span costs more than the decision it wraps, and with no tracer provided by the host the spans
 * go nowhere. Tracing is on when the host provides a tracer other than Effect's built-in one
 * (an exporter such as `@effect/opentelemetry`).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Tracer from "effect/Tracer"

// Effect's built-in tracer: what `Tracer.Tracer` holds when the host provides none.
const builtIn = Effect.runSync(Tracer.tracerWith(Effect.succeed))

/** `body`, inside a span named `name` when the host traces. @internal */
export const spanWhenTracing = <Args extends ReadonlyArray<unknown>, A, E, R>(
  name: string,
  body: (...args: Args) => Effect.Effect<A, E, R>
): (...args: Args) => Effect.Effect<A, E, R> =>
(...args) => Tracer.tracerWith((tracer) => tracer === builtIn ? body(...args) : Effect.withSpan(body(...args), name))
