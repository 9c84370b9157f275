/**
 * Reading what `--json` session verbs print: NDJSON, one stored event per line (`EventJson.line`),
 * a run's last line its `run.settle`. Each line must parse on its own.
 */

/** Every line of `stdout` as one JSON event (throws naming the line that is not JSON). */
export const events = (stdout: string): Array<any> =>
  stdout.split("\n").filter((l) => l !== "").map((l, i) => {
    try {
      return JSON.parse(l)
    } catch {
      throw new Error(`stdout line ${i + 1} is not one JSON document: ${l.slice(0, 200)}`)
    }
  })

/**
 * A drive's outcome from its NDJSON: the last line's data with the session and run it names — a
 * `run.settle` (its `status`), or a `run.pause` (`status: "paused"`, the call it waits on).
 */
export const outcome = (stdout: string): any => {
  const last = events(stdout).at(-1)
  if (last?.type === "run.pause") return { session: last.session, run: last.run, status: "paused", ...last.data }
  if (last?.type !== "run.settle") {
    throw new Error(`the last line is not a run.settle or run.pause: ${JSON.stringify(last)}`)
  }
  return { session: last.session, run: last.run, ...last.data }
}
