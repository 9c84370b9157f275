/**
 * Resume of a 10,000-event session through the sessions service (issue 13 target: ≤ 100 ms):
 * `Sessions.reopen` on a SQLite file store loads the session, settles nothing (every run is
 * settled) and builds its view (runs, goal, pending calls). The session is filled with copies of
 * a real run's events (20 governed tool calls each) under fresh run ids, so the transcript has
 * realistic shapes (padded with notices to exactly 10,000); `EventStore.bench.ts` measures the store read alone.
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Response from "@effect/ai/Response"
import { NodeContext } from "@effect/platform-node"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect, Layer, ManagedRuntime, Schema, Stream } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, bench, describe } from "vitest"
import * as Event from "../src/Event.js"
import * as EventStore from "../src/EventStore.js"
import * as Session from "../src/Session.js"
import * as Tools from "../src/Tools.js"

const TARGET = 10_000

const noop = Tools.make({
  name: "noop",
  description: "Does nothing (benchmark).",
  input: Schema.Struct({ n: Schema.Number }),
  governance: () => ({ tool: "mcp", name: "noop" }),
  execute: () => Effect.succeed({ ok: true, output: "ok" })
})

const usage = { inputTokens: 100, outputTokens: 10, totalTokens: 110, reasoningTokens: undefined, cachedInputTokens: 0 }
const model = Layer.effect(
  LanguageModel.LanguageModel,
  Effect.suspend(() => {
    let served = 0
    const answer = Effect.sync((): Array<Response.PartEncoded> =>
      served++ % 2 === 0
        ? [
          ...Array.from({ length: 20 }, (_, i): Response.PartEncoded => ({
            type: "tool-call",
            id: `call_${served}_${i}`,
            name: "noop",
            params: { n: i }
          })),
          { type: "finish", reason: "tool-calls", usage }
        ]
        : [{ type: "text", text: "Done." }, { type: "finish", reason: "stop", usage }]
    )
    return LanguageModel.make({ generateText: () => answer, streamText: () => Stream.die("no streaming") })
  })
)

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "harness-bench-resume-"))
const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "harness-bench-ws-")))
const runtime = ManagedRuntime.make(
  Session.layer({ tools: [noop] }).pipe(
    Layer.provideMerge(Layer.mergeAll(
      EventStore.layerSql.pipe(Layer.provide(SqliteClient.layer({ filename: path.join(dir, "resume.sqlite") }))),
      model,
      NodeContext.layer
    )),
    Layer.orDie
  )
)
afterAll(() => runtime.dispose())

let session = ""

beforeAll(async () => {
  session = await runtime.runPromise(Effect.gen(function*() {
    const sessions = yield* Session.Sessions
    const store = yield* EventStore.EventStore
    const { id } = yield* sessions.create({
      workspace,
      level: "execute",
      rules: [{ id: "bench-noop", action: "mcp", resource: "noop", effect: "allow" }]
    })
    yield* sessions.run(id, "Run the benchmark.")
    const template = yield* store.read(id)
    const runId = template.find((e) => e.run !== null)!.run!
    const copy = (n: number) => JSON.parse(JSON.stringify(template).replaceAll(runId, `${runId}-copy${n}`))
    // Whole copies of the run while they fit, then notices up to exactly TARGET events.
    for (let n = 1; (yield* store.get(id)).lastSeq + template.length <= TARGET; n++) {
      const events = copy(n) as ReadonlyArray<Event.SessionEvent>
      yield* store.commit(id, { events: events.map((e) => ({ run: e.run, type: e.type, data: e.data })) })
    }
    const room = TARGET - (yield* store.get(id)).lastSeq
    yield* store.commit(id, {
      events: Array.from({ length: room }, (_, i) => Event.make(null, "notice", { text: `padding ${i}` }))
    })
    return id
  }))
}, 300_000)

describe("resume a 10,000-event session (Sessions.reopen, SQLite file)", () => {
  bench("reopen", async () => {
    const view = await runtime.runPromise(Effect.flatMap(Session.Sessions, (sessions) => sessions.reopen(session)))
    if (view.events !== TARGET) throw new Error(`reopened ${view.events} events`)
  }, { warmupIterations: 5, iterations: 30 })
})
