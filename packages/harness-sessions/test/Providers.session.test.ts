/**
 * The provider layers under the governed run loop: a session whose model is OpenAI or Anthropic
 * (pointed at the local wire-format server) reads a file through governance and answers. The
 * second request must carry the tool's real output back to the provider in its wire format, and
 * the run's `model.call` events must record the usage the provider reported.
 */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { EventStore, PromptCompiler, Providers, Session, Tools } from "../src/index.js"
import * as Wire from "./support/wireServer.js"

const script: ReadonlyArray<Wire.ScriptedTurn> = [
  {
    toolCalls: [{ id: "call_1", name: "read", input: { path: "notes.txt" } }],
    usage: { input: 900, cachedInput: 768, output: 25 }
  },
  { text: "The notes say: ship on Friday.", usage: { input: 980, cachedInput: 896, output: 11 } }
]

const cases = [
  {
    provider: "openai",
    spec: "openai:gpt-4.1",
    render: Wire.openAiResponse,
    env: (base: string) => ({ OPENAI_API_KEY: "k", OPENAI_BASE_URL: `${base}/v1` })
  },
  {
    provider: "anthropic",
    spec: "anthropic:claude-sonnet-4-5",
    render: Wire.anthropicMessage,
    env: (base: string) => ({ ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: base })
  }
] as const

/** The tool output as the second request carries it, per wire format. */
const toolOutputSent = (provider: string, body: any): string => {
  if (provider === "openai") {
    return JSON.stringify((body.input as Array<any>).find((i) => i.type === "function_call_output")?.output)
  }
  const blocks = (body.messages as Array<any>).flatMap((m) => Array.isArray(m.content) ? m.content : [])
  return JSON.stringify(blocks.find((b: any) => b.type === "tool_result")?.content)
}

describe("Providers under the run loop", () => {
  for (const c of cases) {
    it.scoped(`${c.provider}: a governed read, the output sent back, usage recorded`, () =>
      Effect.gen(function*() {
        const server = yield* Wire.start(script, c.render)
        const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-prov-session-")))
        fs.writeFileSync(path.join(workspace, "notes.txt"), "ship on Friday")
        const layer = Session.layer({ tools: [Tools.read], home: os.homedir() }).pipe(
          Layer.provideMerge(Layer.mergeAll(EventStore.layerMemory, Providers.layer(c.spec), NodeContext.layer)),
          Layer.provide(NodeHttpClient.layerUndici)
        )
        const { events, outcome } = yield* Effect.gen(function*() {
          const sessions = yield* Session.Sessions
          const { id } = yield* sessions.create({ workspace, level: "execute" })
          const outcome = yield* sessions.run(id, "What do the notes say?")
          const events = yield* Effect.flatMap(EventStore.EventStore, (store) => store.read(id))
          return { events, outcome }
        }).pipe(
          Effect.provide(layer),
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(c.env(server.baseUrl)))))
        )
        assert.strictEqual(outcome.status, "completed")
        assert.strictEqual(server.received.length, 2)
        // The compiled prompt's stable prefix reaches the provider.
        assert.include(JSON.stringify(server.received[0]!.body), PromptCompiler.defaultTexts.identity.slice(0, 60))
        assert.include(toolOutputSent(c.provider, server.received[1]!.body), "ship on Friday")
        const calls = events.filter((e) => e.type === "model.call").map((e) => (e.data as any).usage)
        assert.deepStrictEqual(calls, [
          { input: 900, cachedInput: 768, output: 25 },
          { input: 980, cachedInput: 896, output: 11 }
        ])
        assert.deepStrictEqual(events.filter((e) => e.type === "tool.call").map((e) => (e.data as any).tool), ["read"])
        const messages = events.filter((e) => e.type === "message").map((e) => (e.data as any).text)
        assert.include(messages, "The notes say: ship on Friday.")
      }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
  }
})

describe("Providers under the run loop: the compiled prompt", () => {
  const answer: ReadonlyArray<Wire.ScriptedTurn> = [{ text: "Hello.", usage: { input: 10, cachedInput: 0, output: 2 } }]
  const run = (c: typeof cases[number], server: Wire.WireServer) =>
    Effect.gen(function*() {
      const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-prov-prompt-")))
      const sessions = yield* Session.Sessions
      const { id } = yield* sessions.create({ workspace, level: "execute" })
      return yield* sessions.run(id, "Say hello")
    }).pipe(
      Effect.provide(
        Session.layer({ tools: [Tools.read], home: os.homedir() }).pipe(
          Layer.provideMerge(Layer.mergeAll(EventStore.layerMemory, Providers.layer(c.spec), NodeContext.layer)),
          Layer.provide(NodeHttpClient.layerUndici)
        )
      ),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(c.env(server.baseUrl)))))
    )
  const prefix = PromptCompiler.makeCompiler().pipe(Either.getOrThrow).prefix

  it.scoped("anthropic: the stable prefix is its own system block with a cache breakpoint, the workspace after it", () =>
    Effect.gen(function*() {
      const server = yield* Wire.start(answer, Wire.anthropicMessage)
      yield* run(cases[1], server)
      const system = server.received[0]!.body.system as ReadonlyArray<any>
      assert.deepStrictEqual(system.map((b) => b.cache_control ?? null), [{ type: "ephemeral" }, null])
      assert.strictEqual(system[0].text, prefix)
      assert.include(system[1].text, "Autonomy level: execute")
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.scoped("openai: the stable prefix leads the input unchanged, the workspace part after it", () =>
    Effect.gen(function*() {
      const server = yield* Wire.start(answer, Wire.openAiResponse)
      yield* run(cases[0], server)
      const input = server.received[0]!.body.input as ReadonlyArray<any>
      assert.deepStrictEqual(input.slice(0, 2).map((m) => m.role), ["system", "system"])
      assert.strictEqual(input[0].content, prefix)
      assert.include(input[1].content, "Autonomy level: execute")
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
})
