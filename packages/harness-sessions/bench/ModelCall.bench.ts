/**
 * The model path's own cost per call (issue 38 item 1), with the eight tools a session declares
 * by default (the seven built-ins and a `noop`). `@effect/ai` 0.37 built the response Schema for
 * every declared tool on every `generateText`, so the parser was compiled again each call; the
 * repo's pnpm patch (ADR 0566) builds it once per toolkit. Both sides run in the same file, the
 * "as published" row replaying 0.37's exact decode (a fresh `Response.Part(toolkit)` schema per
 * call) beside `generateText` as patched. The last row is a whole session: 20 turns of one
 * `noop` call each (memory store), divided by 20 for the per-call figure.
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Response from "@effect/ai/Response"
import * as AiTool from "@effect/ai/Tool"
import type * as AiToolkit from "@effect/ai/Toolkit"
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { Effect, Layer, ManagedRuntime, Schema, Stream } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, bench, describe } from "vitest"
import * as EventStore from "../src/EventStore.js"
import * as Session from "../src/Session.js"
import * as Tools from "../src/Tools.js"

const TURNS = 20

const noop = Tools.make({
  name: "noop",
  description: "Does nothing (benchmark).",
  input: Schema.Struct({ n: Schema.Number }),
  governance: () => ({ tool: "mcp", name: "noop" }),
  execute: () => Effect.succeed({ ok: true, output: "ok" })
})
const declared = [...Tools.defaults, noop]

const usage = { inputTokens: 100, outputTokens: 10, totalTokens: 110, reasoningTokens: undefined, cachedInputTokens: 0 }
const oneCall: Array<Response.PartEncoded> = [
  { type: "tool-call", id: "call_0", name: "noop", params: { n: 1 } },
  { type: "finish", reason: "tool-calls", usage }
]

const toolkit: AiToolkit.WithHandler<Record<string, AiTool.Any>> = {
  tools: Object.fromEntries(
    declared.map((t) => [
      t.name,
      AiTool.make(t.name, { description: t.description, parameters: t.input.fields, success: Schema.String })
    ])
  ),
  handle: () => Effect.die("not called")
}

const model = LanguageModel.make({
  generateText: () => Effect.succeed(oneCall),
  streamText: () => Stream.die("the benchmark model does not stream")
}).pipe(Effect.runSync)

const patched = Effect.provide(
  model.generateText({ prompt: "Run the benchmark.", toolkit, disableToolCallResolution: true }),
  LanguageModel.LanguageModel.context(model)
)
// What 0.37 as published did on each call: build the union of every tool's part schemas, decode.
const asPublished = Effect.suspend(() =>
  Schema.decodeUnknown(Schema.mutable(Schema.Array(Response.Part(toolkit))))(oneCall)
)

/** A model that answers the person's message and each tool result with one `noop` call, then stops. */
const scriptedModel = Layer.succeed(
  LanguageModel.LanguageModel,
  LanguageModel.make({
    generateText: (options) =>
      Effect.sync((): Array<Response.PartEncoded> => {
        const done = options.prompt.content.filter((m) => m.role === "tool").length >= TURNS
        return done ? [{ type: "text", text: "Done." }, { type: "finish", reason: "stop", usage }] : oneCall
      }),
    streamText: () => Stream.die("the benchmark model does not stream")
  }).pipe(Effect.runSync)
)

let sessionsMade = 0
const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "harness-bench-model-")))
const runtime = ManagedRuntime.make(
  Session.layer<Tools.DefaultRequirements>({ tools: declared }).pipe(
    Layer.provideMerge(Layer.mergeAll(
      EventStore.layerMemory,
      scriptedModel,
      NodeContext.layer,
      NodeHttpClient.layerUndici,
      Tools.layerAskUserUnavailable
    )),
    Layer.orDie
  )
)
afterAll(() => runtime.dispose())

const session = () =>
  runtime.runPromise(Effect.gen(function*() {
    const sessions = yield* Session.Sessions
    const view = yield* sessions.create({
      id: `bench-model-${sessionsMade++}`,
      workspace,
      level: "execute",
      rules: [{ id: "bench-noop", action: "mcp", resource: "noop", effect: "allow" }]
    })
    const outcome = yield* sessions.run(view.id, "Run the benchmark.")
    if (outcome.status !== "completed") throw new Error(`run settled ${outcome.status} ${outcome.code}`)
  }))

describe(`model call, ${declared.length} declared tools`, () => {
  bench(
    "@effect/ai 0.37 as published: response schema built per call",
    () => Effect.runPromise(Effect.asVoid(asPublished))
  )
  bench("generateText as patched: schema built once per toolkit", () => Effect.runPromise(Effect.asVoid(patched)))
})

describe(`session: ${TURNS} turns of 1 call, ${declared.length} tools, memory store (÷${TURNS} per call)`, () => {
  bench("whole session", session, { warmupIterations: 3, iterations: 15 })
})
