import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Layer, Redacted } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { PromptCompiler, Providers, Tools } from "../src/index.js"
import * as Wire from "./support/wireServer.js"

const script: ReadonlyArray<Wire.ScriptedTurn> = [
  {
    text: "I'll read the notes first.",
    toolCalls: [{ id: "call_1", name: "read", input: { path: "notes.txt" } }],
    usage: { input: 1_200, cachedInput: 1_024, output: 30 }
  },
  { text: "The notes say: ship on Friday.", usage: { input: 1_260, cachedInput: 1_152, output: 12 } }
]

const toolkit = Tools.toAiToolkit([Tools.read])

/** Two model calls: the model asks for `read`, the toolkit runs it, the model answers. */
const conversation = (workspace: string) =>
  Effect.gen(function*() {
    const first = yield* LanguageModel.generateText({ prompt: "What do the notes say?", toolkit })
    const history = Prompt.merge(Prompt.make("What do the notes say?"), Prompt.fromResponseParts(first.content))
    const second = yield* LanguageModel.generateText({ prompt: history, toolkit })
    return { first, second }
  }).pipe(
    Effect.provide(toolkit.toLayer({
      read: (params: any) =>
        Tools.read.execute(params, { workspace, runId: "r1", callId: "c1" }).pipe(
          Effect.map((result) => result.output),
          Effect.provide(NodeContext.layer),
          Effect.orDie
        )
    }))
  )

const workspace = () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-providers-")))
  fs.writeFileSync(path.join(dir, "notes.txt"), "ship on Friday")
  return dir
}

const withEnv = (env: Record<string, string>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

describe("Providers", () => {
  it("parses PROVIDER:MODEL and names what is wrong", () => {
    assert.deepStrictEqual(
      Providers.parseSpec("openai:gpt-4.1"),
      Either.right({ provider: "openai", model: "gpt-4.1" })
    )
    assert.deepStrictEqual(
      Providers.parseSpec("anthropic:claude-sonnet-4-5"),
      Either.right({ provider: "anthropic", model: "claude-sonnet-4-5" })
    )
    for (
      const [spec, needle] of [["gemini:pro", "unknown provider \"gemini\""], ["gpt-4.1", "PROVIDER:MODEL"], [
        "openai:",
        "missing"
      ]]
    ) {
      const result = Providers.parseSpec(spec!)
      assert.isTrue(Either.isLeft(result), spec)
      if (Either.isLeft(result)) {
        assert.strictEqual(result.left.code, "INVALID_INPUT")
        assert.include(result.left.message, needle!)
      }
    }
  })

  it.effect("a missing key, an unknown provider or a bad base URL fail the layer with a typed error", () =>
    Effect.gen(function*() {
      const build = (spec: string, options?: Providers.Options) =>
        Effect.flip(Layer.build(Providers.layer(spec, options)).pipe(Effect.scoped))
      const missing = yield* build("anthropic:claude-sonnet-4-5").pipe(withEnv({ OPENAI_API_KEY: "sk-x" }))
      assert.strictEqual(missing.code, "INVALID_INPUT")
      assert.include(missing.message, "set ANTHROPIC_API_KEY")
      const blank = yield* build("openai:gpt-4.1").pipe(withEnv({ OPENAI_API_KEY: "  " }))
      assert.include(blank.message, "set OPENAI_API_KEY")
      const unknown = yield* build("mistral:large").pipe(withEnv({}))
      assert.include(unknown.message, "unknown provider")
      const url = yield* build("openai:gpt-4.1", { baseUrl: "ftp://x" }).pipe(withEnv({ OPENAI_API_KEY: "sk-x" }))
      assert.include(url.message, "baseUrl")
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.scoped("OpenAI: a tool-calling conversation against the local Responses API server", () =>
    Effect.gen(function*() {
      const server = yield* Wire.start(script, Wire.openAiResponse)
      const dir = workspace()
      const { first, second } = yield* conversation(dir).pipe(
        Effect.provide(Providers.layer("openai:gpt-4.1", { baseUrl: `${server.baseUrl}/v1` })),
        withEnv({ OPENAI_API_KEY: "sk-test-openai" })
      )
      // The model's tool call was decoded and resolved by the toolkit.
      assert.deepStrictEqual(first.toolCalls.map((c) => [c.id, c.name, c.params]), [["call_1", "read", {
        path: "notes.txt"
      }]])
      assert.deepStrictEqual(first.toolResults.map((r) => [r.id, r.result]), [["call_1", "ship on Friday"]])
      assert.strictEqual(second.text, "The notes say: ship on Friday.")
      // Usage, cached input included, on each call.
      assert.deepStrictEqual(
        [first.usage.inputTokens, first.usage.cachedInputTokens, first.usage.outputTokens],
        [1_200, 1_024, 30]
      )
      assert.deepStrictEqual(
        [second.usage.inputTokens, second.usage.cachedInputTokens, second.usage.outputTokens],
        [1_260, 1_152, 12]
      )
      // What the server received: two POSTs to /v1/responses with the key, model and tool schema.
      assert.deepStrictEqual(server.received.map((r) => [r.method, r.path]), [["POST", "/v1/responses"], [
        "POST",
        "/v1/responses"
      ]])
      const [one, two] = server.received
      assert.strictEqual(one!.headers.authorization, "Bearer sk-test-openai")
      assert.strictEqual(one!.body.model, "gpt-4.1")
      const tool = one!.body.tools.find((t: any) => t.name === "read")
      assert.strictEqual(tool.type, "function")
      assert.include(tool.description, "Read a text file")
      assert.deepStrictEqual(tool.parameters.required, ["path"])
      assert.deepStrictEqual(Object.keys(tool.parameters.properties).sort(), ["limit", "offset", "path"])
      const items = two!.body.input as ReadonlyArray<any>
      const call = items.find((i) => i.type === "function_call")
      assert.deepStrictEqual([call.call_id, call.name, JSON.parse(call.arguments)], ["call_1", "read", {
        path: "notes.txt"
      }])
      const output = items.find((i) => i.type === "function_call_output")
      assert.strictEqual(output.call_id, "call_1")
      assert.include(output.output, "ship on Friday")
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.scoped("Anthropic: a tool-calling conversation against the local Messages API server", () =>
    Effect.gen(function*() {
      const server = yield* Wire.start(script, Wire.anthropicMessage)
      const dir = workspace()
      const { first, second } = yield* conversation(dir).pipe(
        Effect.provide(Providers.layer("anthropic:claude-sonnet-4-5")),
        withEnv({ ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseUrl })
      )
      assert.deepStrictEqual(first.toolCalls.map((c) => [c.id, c.name, c.params]), [["call_1", "read", {
        path: "notes.txt"
      }]])
      assert.deepStrictEqual(first.toolResults.map((r) => [r.id, r.result]), [["call_1", "ship on Friday"]])
      assert.strictEqual(second.text, "The notes say: ship on Friday.")
      assert.deepStrictEqual(
        [first.usage.inputTokens, first.usage.cachedInputTokens, first.usage.outputTokens],
        [1_200, 1_024, 30]
      )
      assert.deepStrictEqual(
        [second.usage.inputTokens, second.usage.cachedInputTokens, second.usage.outputTokens],
        [1_260, 1_152, 12]
      )
      assert.deepStrictEqual(server.received.map((r) => [r.method, r.path.split("?")[0]]), [["POST", "/v1/messages"], [
        "POST",
        "/v1/messages"
      ]])
      const [one, two] = server.received
      assert.strictEqual(one!.headers["x-api-key"], "sk-ant-test")
      assert.strictEqual(one!.headers["anthropic-version"], "2023-06-01")
      assert.strictEqual(one!.body.model, "claude-sonnet-4-5")
      const tool = one!.body.tools.find((t: any) => t.name === "read")
      assert.deepStrictEqual(tool.input_schema.required, ["path"])
      const messages = two!.body.messages as ReadonlyArray<any>
      const use = messages.flatMap((m) => Array.isArray(m.content) ? m.content : []).find((c: any) =>
        c.type === "tool_use"
      )
      assert.deepStrictEqual([use.id, use.name, use.input], ["call_1", "read", { path: "notes.txt" }])
      const result = messages.flatMap((m) => Array.isArray(m.content) ? m.content : []).find((c: any) =>
        c.type === "tool_result"
      )
      assert.strictEqual(result.tool_use_id, "call_1")
      assert.include(JSON.stringify(result.content), "ship on Friday")
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.scoped("an explicit apiKey and baseUrl win over the environment", () =>
    Effect.gen(function*() {
      const server = yield* Wire.start([script[1]!], Wire.openAiResponse)
      const response = yield* LanguageModel.generateText({ prompt: "hi" }).pipe(
        Effect.provide(
          Providers.layer("openai:gpt-4.1-mini", {
            apiKey: Redacted.make("sk-explicit"),
            baseUrl: `${server.baseUrl}/v1/`
          })
        ),
        withEnv({ OPENAI_API_KEY: "sk-from-env", OPENAI_BASE_URL: "http://127.0.0.1:1/v1" })
      )
      assert.strictEqual(response.text, "The notes say: ship on Friday.")
      assert.strictEqual(server.received[0]!.headers.authorization, "Bearer sk-explicit")
      assert.strictEqual(server.received[0]!.body.model, "gpt-4.1-mini")
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
})

describe("Providers and the compiled prompt", () => {
  const prompt = Either.getOrThrow(
    Either.getOrThrow(PromptCompiler.makeCompiler()).compile([{ name: "date", text: "2026-12-01" }])
  )
  const messages = [...PromptCompiler.systemMessages(prompt), { role: "user" as const, content: "hi" }]

  it.scoped("Anthropic: the prefix is a cache_control breakpoint, the request part follows it", () =>
    Effect.gen(function*() {
      const server = yield* Wire.start([script[1]!], Wire.anthropicMessage)
      yield* LanguageModel.generateText({ prompt: messages }).pipe(
        Effect.provide(Providers.layer("anthropic:claude-sonnet-4-5")),
        withEnv({ ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.baseUrl })
      )
      const system = server.received[0]!.body.system as ReadonlyArray<any>
      assert.deepStrictEqual(system.map((b) => [b.text, b.cache_control ?? null]), [
        [prompt.prefix, { type: "ephemeral" }],
        [prompt.request, null]
      ])
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.scoped("OpenAI: the prefix leads the input unchanged, the request part after it", () =>
    Effect.gen(function*() {
      const server = yield* Wire.start([script[1]!], Wire.openAiResponse)
      yield* LanguageModel.generateText({ prompt: messages }).pipe(
        Effect.provide(Providers.layer("openai:gpt-4.1")),
        withEnv({ OPENAI_API_KEY: "k", OPENAI_BASE_URL: `${server.baseUrl}/v1` })
      )
      const input = server.received[0]!.body.input as ReadonlyArray<any>
      assert.deepStrictEqual(input.slice(0, 2).map((m) => [m.role, m.content]), [
        ["system", prompt.prefix],
        ["system", prompt.request]
      ])
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
})

describe("Providers tiers", () => {
  it.scoped("makeTiers builds one model per configured tier; a tier's error names the tier", () =>
    Effect.gen(function*() {
      const frontier = yield* Wire.start([script[1]!], Wire.anthropicMessage)
      const standard = yield* Wire.start([script[1]!], Wire.openAiResponse)
      const tiers = yield* Providers.makeTiers({
        frontier: "anthropic:claude-opus-4-1",
        standard: "openai:gpt-4.1-mini"
      }).pipe(
        withEnv({
          ANTHROPIC_API_KEY: "a",
          ANTHROPIC_BASE_URL: frontier.baseUrl,
          OPENAI_API_KEY: "o",
          OPENAI_BASE_URL: `${standard.baseUrl}/v1`
        })
      )
      assert.deepStrictEqual(Object.keys(tiers).sort(), ["frontier", "standard"])
      const answer = yield* tiers.standard!.generateText({ prompt: "hi" })
      assert.strictEqual(answer.text, "The notes say: ship on Friday.")
      assert.strictEqual(standard.received[0]!.body.model, "gpt-4.1-mini")
      assert.strictEqual(frontier.received.length, 0)
      const error = yield* Effect.flip(Providers.makeTiers({ standard: "openai:gpt-4.1" }).pipe(withEnv({})))
      assert.include(error.message, "tier standard: ")
      assert.include(error.message, "OPENAI_API_KEY")
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
})
