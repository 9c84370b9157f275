/**
 * Event append throughput (issue 13 target: ≥ 20,000 events/s on SQLite, batched per step) and
 * resume of a 10,000-event session (target: ≤ 100 ms). A step commits its events in one
 * transaction, as the run loop does: `tool.call`, `approval`, `tool.result`, `heartbeat` and a
 * few more. Events/s = events per commit × commits/s (the `hz` column). The resume reads the
 * session row and its whole stream back from a file database, which is what reopening does
 * before the run loop picks up.
 */
import { SqliteClient } from "@effect/sql-sqlite-node"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, ManagedRuntime } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, bench, describe } from "vitest"
import * as Event from "../src/Event.js"
import * as EventStore from "../src/EventStore.js"

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "harness-bench-"))
const runtime = ManagedRuntime.make(
  EventStore.layerSql.pipe(
    Layer.provideMerge(SqliteClient.layer({ filename: path.join(dir, "bench.sqlite") })),
    Layer.orDie
  )
)
afterAll(() => runtime.dispose())

/** The events of one tool-call step (payloads the size a real step writes). */
const step = (i: number): ReadonlyArray<Event.EventInput> => [
  Event.make("run-1", "model.call", { usage: { input: 1_200 + i, cachedInput: 1_024, output: 40 }, model: "scripted" }),
  Event.make("run-1", "tool.call", {
    call: `c${i}`,
    tool: "shell",
    input: { command: `pnpm vitest run test/${i}.test.ts` }
  }),
  Event.make("run-1", "approval", { call: `c${i}`, by: "rule", rule: "level:execute/shell" }),
  Event.make("run-1", "tool.result", {
    call: `c${i}`,
    ok: true,
    output: "✓ 12 tests passed\n".repeat(8),
    check: { command: "pnpm vitest", exitCode: 0 }
  }),
  Event.make("run-1", "heartbeat", {
    steps: i,
    elapsedMs: i * 900,
    lastTool: "shell",
    slice: 1,
    calls: i,
    tokens: i * 1_300
  }),
  Event.make("run-1", "message", { role: "assistant", text: "Running the focused test next." }),
  Event.make("run-1", "hook", { point: "post_tool", hook: "audit_posttool", outcome: "ok" }),
  Event.make("run-1", "notice", { text: `step ${i}` })
]
const perStep = step(0).length

const commitStep = (session: string, i: number) =>
  Effect.flatMap(EventStore.EventStore, (store) => store.commit(session, { events: step(i) }))

let appended = 0
const resumeSession = "resume-10k"

beforeAll(async () => {
  await runtime.runPromise(Effect.gen(function*() {
    const store = yield* EventStore.EventStore
    yield* store.create("append", { workspace: dir })
    yield* store.create(resumeSession, { workspace: dir })
    for (let i = 0; i < 10_000 / perStep; i++) yield* commitStep(resumeSession, i)
    const row = yield* store.get(resumeSession)
    if (row.lastSeq !== 10_000) throw new Error(`resume session has ${row.lastSeq} events`)
  }))
}, 120_000)

describe(`event append (SQLite file, ${perStep} events per step commit)`, () => {
  bench("commit one step", async () => {
    await runtime.runPromise(commitStep("append", appended++))
  })
})

describe("resume a 10,000-event session (SQLite file)", () => {
  bench("get the session and read its stream", async () => {
    const events = await runtime.runPromise(Effect.gen(function*() {
      const store = yield* EventStore.EventStore
      yield* store.get(resumeSession)
      return yield* store.read(resumeSession)
    }))
    if (events.length !== 10_000) throw new Error(`read ${events.length} events`)
  }, { warmupIterations: 5, iterations: 30 })
  // The floor under the store: the same rows, fetched and JSON-parsed without row decoding.
  bench("baseline: raw SELECT of the 10,000 rows + JSON.parse", async () => {
    const rows = await runtime.runPromise(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql<{ readonly data: string }>`SELECT seq, at, run, type, data FROM harness_events
        WHERE session = ${resumeSession} ORDER BY seq`
      )
    )
    for (const row of rows) JSON.parse(row.data)
    if (rows.length !== 10_000) throw new Error(`read ${rows.length} rows`)
  }, { warmupIterations: 5, iterations: 30 })
})
