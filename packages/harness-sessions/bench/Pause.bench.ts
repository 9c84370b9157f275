/**
 * The cost of a pause + answer round trip (issue 35 acceptance, ADR 0573) beside a plain allowed
 * call, per store (memory, SQLite file). Both cases are one session with one run of two model
 * turns — one tool call, then "Done." — through the sessions service; the paused case asks (a
 * named tool no rule allows, no `Responder`), returns `paused`, and `Sessions.approve` resumes the
 * same run: the approve's lease, reload, replay of the stored steps and the answer's commit are
 * the difference. The model is an in-process fake (no tokens), so the figures are the harness's.
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import { NodeContext } from "@effect/platform-node"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect, Layer, ManagedRuntime, Schema, Stream } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, bench, describe } from "vitest"
import * as EventStore from "../src/EventStore.js"
import * as Session from "../src/Session.js"
import * as Tools from "../src/Tools.js"

const named = (name: string) =>
  Tools.make({
    name,
    description: "Does nothing (benchmark).",
    input: Schema.Struct({}),
    governance: () => ({ tool: "mcp", name }),
    execute: () => Effect.succeed({ ok: true, output: "ok" })
  })

const usage = { inputTokens: 100, outputTokens: 10, totalTokens: 110, reasoningTokens: undefined, cachedInputTokens: 0 }

// Calls the tool the prompt names, then answers "Done." once the call's result is in.
const model = Layer.effect(
  LanguageModel.LanguageModel,
  Effect.suspend(() => {
    const answer = (prompt: Prompt.Prompt) =>
      Effect.sync((): Array<Response.PartEncoded> => {
        const last = prompt.content.at(-1)
        if (last?.role === "tool") return [{ type: "text", text: "Done." }, { type: "finish", reason: "stop", usage }]
        const text = JSON.stringify(last?.content ?? "")
        return [
          { type: "tool-call", id: "call_1", name: text.includes("gated") ? "gated" : "noop", params: {} },
          { type: "finish", reason: "tool-calls", usage }
        ]
      })
    return LanguageModel.make({
      generateText: (options) => answer(options.prompt),
      streamText: () => Stream.die("no streaming")
    })
  })
)

const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "harness-bench-ws-")))
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "harness-bench-pause-"))

const runtimeFor = (store: Layer.Layer<EventStore.EventStore, any>) =>
  ManagedRuntime.make(
    Session.layer({ tools: [named("noop"), named("gated")] }).pipe(
      Layer.provideMerge(Layer.mergeAll(store, model, NodeContext.layer)),
      Layer.orDie
    )
  )

const stores = {
  memory: runtimeFor(EventStore.layerMemory),
  sqlite: runtimeFor(
    EventStore.layerSql.pipe(Layer.provide(SqliteClient.layer({ filename: path.join(dir, "pause.sqlite") })))
  )
}
afterAll(() => Promise.all(Object.values(stores).map((r) => r.dispose())))

const session = Effect.flatMap(Session.Sessions, (sessions) =>
  sessions.create({
    workspace,
    level: "execute",
    rules: [{ id: "bench-noop", action: "mcp", resource: "noop", effect: "allow" }]
  }))

const plain = Effect.gen(function*() {
  const sessions = yield* Session.Sessions
  const { id } = yield* session
  const outcome = yield* sessions.run(id, "Call noop.")
  if (outcome.status !== "completed") return yield* Effect.die(`plain run ${outcome.status}`)
})

const pauseAndApprove = Effect.gen(function*() {
  const sessions = yield* Session.Sessions
  const { id } = yield* session
  const paused = yield* sessions.run(id, "Call gated.")
  if (paused.status !== "paused") return yield* Effect.die(`gated run ${paused.status}`)
  const done = yield* sessions.approve(id, paused.pending!.callId)
  if (done.status !== "completed") return yield* Effect.die(`approved run ${done.status}`)
})

for (const [name, runtime] of Object.entries(stores)) {
  describe(`one run with one tool call (${name} store)`, () => {
    bench("plain: the call allowed by a rule", () => runtime.runPromise(plain), { time: 1500, warmupTime: 300 })
    bench(
      "pause + approve: the call asks, the run pauses, approve resumes it",
      () => runtime.runPromise(pauseAndApprove),
      { time: 1500, warmupTime: 300 }
    )
  })
}
