/**
 * A lost database connection is waited out (issue 34 item 5, ADR 0562): a statement or
 * transaction that fails because the connection was lost or refused is tried again with backoff
 * (50 ms doubling, at most 2 s apart) until the configured window has passed — a PostgreSQL
 * restart shorter than the window is survived; a longer outage fails as `STORE_FAILED`.
 */
import type * as SqlError from "@effect/sql/SqlError"
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as StoreFault from "./storeFault.js"

/** The window: `STEWARD_SESSION_RECONNECT` of the host's `ConfigProvider`, default 30 seconds. */
export const window = Config.duration("STEWARD_SESSION_RECONNECT").pipe(Config.withDefault(Duration.seconds(30)))

const backoff = (within: Duration.Duration) =>
  Schedule.exponential(Duration.millis(50)).pipe(
    Schedule.union(Schedule.spaced(Duration.seconds(2))),
    Schedule.upTo(within)
  )

const isLoss = (error: unknown): boolean =>
  typeof error === "object" && error !== null && (error as { _tag?: unknown })._tag === "SqlError" &&
  StoreFault.isConnectionLoss(error)

/**
 * Retry `self` while it fails with a lost connection, within `within`. Only an `SqlError` is
 * retried: a typed store error (a refused lease, a commit whose outcome stayed unknown) never is.
 * The schedule is built on the first lost connection, not on every statement (issue 38): the
 * retries then run as `Effect.retry` would have run them from that failure.
 */
export const retrying = (within: Duration.Duration) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Duration.toMillis(within) <= 0 ? self : Effect.catchIf(self, isLoss, (first) => {
    let replayed = false
    const again = Effect.suspend(() => replayed ? self : (replayed = true, Effect.fail(first)))
    return Effect.retry(again, { schedule: backoff(within), while: isLoss })
  })

/** Whether `error` is a lost connection (an `SqlError` whose chain says so). */
export const isConnectionLoss = (error: SqlError.SqlError | unknown): boolean => isLoss(error)
