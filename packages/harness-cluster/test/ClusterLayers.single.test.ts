import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { kill9, lines, start, waitFor } from "./support/processes.js"

const pid = (line: string) => Number(line.split(" ")[1])

describe("single runner on SQLite, in child processes", () => {
  it.scopedLive(
    "a client-only process submits; kill -9 after the first activity, restart: the run finishes and the first activity did not run again",
    () =>
      Effect.gen(function*() {
        const dir = yield* Effect.acquireRelease(
          Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "cluster-single-"))),
          (d) => Effect.sync(() => fs.rmSync(d, { recursive: true, force: true }))
        )
        const stateDirectory = path.join(dir, "state")
        const file = path.join(dir, "lines.log")
        const result = path.join(dir, "result")
        const run = { stateDirectory, id: "run-1", file, pauseMillis: 3000, submit: false }
        const runner = () =>
          Effect.gen(function*() {
            const child = yield* start({ ...run, role: "single" })
            yield* waitFor("the runner to start", 90, () =>
              fs.existsSync(path.join(stateDirectory, "ready")) || undefined)
            return child
          })

        const first = yield* runner()
        // a client-only process on the runner's SQLite file submits the run and follows it across the restart
        const client = yield* start({ ...run, role: "client", submit: true, result, stateDirectory })
        const began = yield* waitFor("the second activity to begin", 90, () =>
          lines(`${file}.attempts`)[0])
        assert.strictEqual(pid(began), first.pid)
        yield* kill9(first)
        fs.rmSync(path.join(stateDirectory, "ready"))

        const second = yield* runner()
        const exit = yield* waitFor(
          "the client to see the run finish",
          90,
          () =>
            fs.existsSync(result) ? fs.readFileSync(result, "utf8") : undefined,
          () => `${second.stderrText()}\n${client.stderrText()}`
        )
        assert.strictEqual(exit, "Success:done")
        const written = lines(file)
        assert.deepStrictEqual(written.map((l) => l.split(" ")[0]), ["first", "second"])
        assert.strictEqual(pid(written[0]!), first.pid)
        assert.strictEqual(pid(written[1]!), second.pid)
        assert.deepStrictEqual(lines(`${file}.attempts`).map(pid), [first.pid, second.pid])
        assert.isTrue(fs.existsSync(path.join(stateDirectory, "cluster.sqlite")))
      }),
    { timeout: 240_000 }
  )
})
