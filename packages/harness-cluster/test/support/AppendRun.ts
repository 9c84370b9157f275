/**
 * A test-only workflow that proves the engine stacks: two activities that append a line (with the
 * executing process's pid) to a file. The second first records that it began (in `<file>.attempts`)
 * and then pauses, so a test can kill the process holding the run in that window.
 */
import * as Activity from "@effect/workflow/Activity"
import * as Workflow from "@effect/workflow/Workflow"
import { Effect, Schema } from "effect"
import * as fs from "node:fs"

export const AppendRun = Workflow.make({
  name: "test/append-run",
  payload: { id: Schema.String, file: Schema.String, pauseMillis: Schema.Number },
  success: Schema.String,
  idempotencyKey: (payload) => payload.id
})

/** The test activities' work: append one line to a file. */
export const append = (file: string, line: string) => Effect.sync(() => fs.appendFileSync(file, `${line}\n`))

export const AppendRunLive = AppendRun.toLayer(Effect.fn(function*(payload) {
  yield* Activity.make({ name: "first", execute: append(payload.file, `first ${process.pid}`) })
  yield* Activity.make({
    name: "second",
    execute: Effect.gen(function*() {
      yield* append(`${payload.file}.attempts`, `second-begin ${process.pid}`)
      yield* Effect.sleep(payload.pauseMillis)
      yield* append(payload.file, `second ${process.pid}`)
    })
  })
  return "done"
}))

/** Poll the run until it completes; its exit as text (`Success:done`). */
export const awaitDone = (id: string, file: string, pauseMillis: number) =>
  Effect.gen(function*() {
    const executionId = yield* AppendRun.executionId({ id, file, pauseMillis })
    while (true) {
      const result = yield* AppendRun.poll(executionId)
      if (result?._tag === "Complete") {
        return result.exit._tag === "Success" ? `Success:${result.exit.value}` : `Failure:${String(result.exit.cause)}`
      }
      yield* Effect.sleep("200 millis")
    }
  })
