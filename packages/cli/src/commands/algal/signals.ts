/**
 * SIGINT and SIGTERM during `algal run` and `algal expr`: the work is synchronous, so a signal is
 * seen between steps (a cooperative run gives the event loop a turn every few activations; an
 * expression is bounded by its fuel and work meter). When one arrives the command stops there
 * and the process exits 130 (SIGINT) or 143 (SIGTERM), as a shell expects of a stopped program.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"

const exitCodes = { SIGINT: 130, SIGTERM: 143 } as const

/**
 * Run `effect` with SIGINT/SIGTERM handlers that stop the process with 130/143 between steps.
 *
 * @since 0.1.0
 * @category signals
 */
export const stoppable = <A, E, R>(what: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const handlers = (Object.keys(exitCodes) as Array<keyof typeof exitCodes>).map((signal) => {
        const handler = () => {
          process.stderr.write(`steward: ${what} stopped by ${signal}\n`)
          process.exit(exitCodes[signal])
        }
        process.on(signal, handler)
        return [signal, handler] as const
      })
      return handlers
    }),
    () => effect,
    (handlers) => Effect.sync(() => handlers.forEach(([signal, handler]) => process.removeListener(signal, handler)))
  )

/**
 * One turn of the event loop, so a signal that arrived during synchronous work is handled now.
 *
 * @since 0.1.0
 * @category signals
 */
export const checkpoint: Effect.Effect<void> = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})
