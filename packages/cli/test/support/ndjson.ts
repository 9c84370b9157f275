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

/** A run's outcome from its NDJSON: the settle's data with the session and run it names. */
export const outcome = (stdout: string): any => {
  const settle = events(stdout).at(-1)
  if (settle?.type !== "run.settle") throw new Error(`the last line is not a run.settle: ${JSON.stringify(settle)}`)
  return { session: settle.session, run: settle.run, ...settle.data }
}
