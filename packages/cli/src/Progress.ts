/**
 * A progress line for long work (imports, certification replays, large exports): one line on
 * stderr, rewritten in place, only when stderr is a terminal and the output is not `--json`; when
 * the work ends the line is erased, so the result printed after it stands alone. Nothing at all
 * is written when stderr is a pipe or a file.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

/**
 * Reports on one piece of work.
 *
 * @since 0.1.0
 * @category models
 */
export interface Progress {
  /** Show what is happening now (`reading history.jsonl`). */
  readonly stage: (message: string) => Effect.Effect<void>
  /** Show a count (`1,200 / 4,096 lines`); updates closer than 100 ms apart are skipped. */
  readonly count: (done: number, total: number, unit: string) => Effect.Effect<void>
}

/**
 * Whether progress is shown: stderr is a terminal (not `dumb`) and the output is not JSON.
 *
 * @since 0.1.0
 * @category utils
 */
export const enabled = (json: boolean): boolean =>
  !json && process.stderr.isTTY === true && process.env["TERM"] !== "dumb"

const minIntervalMs = 100
const clearLine = "\r\u001b[2K"

const fit = (line: string): string => {
  // a pseudo-terminal without a size reports 0 columns
  const columns = (process.stderr.columns ?? 0) > 0 ? process.stderr.columns : 80
  return line.length < columns ? line : `${line.slice(0, Math.max(0, columns - 2))}…`
}

/**
 * Run `work` with a progress line labelled `label`. The line is erased when the work ends,
 * however it ends.
 *
 * @since 0.1.0
 * @category constructors
 */
export const around = <A, E, R>(
  json: boolean,
  label: string,
  work: (progress: Progress) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => {
  if (!enabled(json)) return work({ stage: () => Effect.void, count: () => Effect.void })
  let shown = false
  let last = Number.NEGATIVE_INFINITY
  const write = (message: string) =>
    Effect.sync(() => {
      process.stderr.write(`${clearLine}${fit(`${label}: ${message}`)}`)
      shown = true
    })
  const progress: Progress = {
    stage: (message) =>
      Effect.zipRight(Effect.tap(Clock.currentTimeMillis, (now) => void (last = now)), write(message)),
    count: (done, total, unit) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        if (done < total && now - last < minIntervalMs) return Effect.void
        last = now
        return write(`${done.toLocaleString("en-US")} / ${total.toLocaleString("en-US")} ${unit}`)
      })
  }
  return work(progress).pipe(
    Effect.ensuring(Effect.sync(() => {
      if (shown) process.stderr.write(clearLine)
    }))
  )
}
