/**
 * A run's steps without tracing spans when the host traces nothing (issue 38 item 3). With no
 * tracer of the host's, Effect's built-in one records spans that go nowhere, yet each costs a
 * clock read, a span object and a copy of the fiber's context — on every model call, statement
 * and decision of the loop. A host that provides a tracer (an exporter such as
 * `@effect/opentelemetry`) keeps every span. The rule is governance-rules' `spanWhenTracing`.
 */
import * as Effect from "effect/Effect"
import * as Tracer from "effect/Tracer"

// Effect's built-in tracer: what `Tracer.Tracer` holds when the host provides none.
const builtIn = Effect.runSync(Tracer.tracerWith(Effect.succeed))

/** `self` with tracing off unless the host provides its own tracer. */
export const unlessHostTraces = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Tracer.tracerWith((tracer) => tracer === builtIn ? Effect.withTracerEnabled(self, false) : self)
