import * as LanguageModel from "@effect/ai/LanguageModel"
import * as AiTool from "@effect/ai/Tool"
import * as AiToolkit from "@effect/ai/Toolkit"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as Goal from "../src/Goal.js"
import * as ScriptedModel from "../src/ScriptedModel.js"

const Shell = AiTool.make("shell", { parameters: { command: Schema.String }, success: Schema.String })
const toolkit = { tools: AiToolkit.make(Shell).tools, handle: () => Effect.die("unused") }

describe("ScriptedModel", () => {
  it.effect("serves agent turns in order with tool calls and usage; checker lines go to the checker", () =>
    Effect.gen(function*() {
      const model = yield* LanguageModel.LanguageModel
      const checker = yield* Goal.Checker
      const first = yield* model.generateText({ prompt: "hi", toolkit, disableToolCallResolution: true })
      assert.deepStrictEqual(first.toolCalls.map((c) => [c.id, c.name, c.params]), [[
        "call_1_1",
        "shell",
        { command: "ls" }
      ]])
      assert.strictEqual(first.finishReason, "tool-calls")
      assert.deepStrictEqual([first.usage.inputTokens, first.usage.cachedInputTokens, first.usage.outputTokens], [
        100,
        40,
        5
      ])
      const verdict = yield* checker.model.generateText({ prompt: "check" })
      assert.strictEqual(verdict.text, `{"achieved":false}`)
      const second = yield* model.generateText({ prompt: "again" })
      assert.strictEqual(second.text, "Done.")
      assert.strictEqual(second.finishReason, "stop")
      const exhausted = yield* Effect.flip(model.generateText({ prompt: "more" }))
      assert.include(exhausted.message, "the script has 2 turns; call 3 has none")
    }).pipe(Effect.provide(ScriptedModel.layerFromText([
      `{"toolCalls":[{"name":"shell","input":{"command":"ls"}}],"usage":{"input":100,"cachedInput":40,"output":5}}`,
      `// a comment`,
      ``,
      `{"for":"checker","text":"{\\"achieved\\":false}"}`,
      `{"text":"Done."}`
    ].join("\n")))))

  it.effect("an offset skips the turns a stored session already used", () =>
    Effect.gen(function*() {
      const model = yield* LanguageModel.LanguageModel
      const r = yield* model.generateText({ prompt: "x" })
      assert.strictEqual(r.text, "two")
    }).pipe(Effect.provide(ScriptedModel.layerFromText(`{"text":"one"}\n{"text":"two"}`, { agent: 1 }))))

  it.effect("bad scripts are typed errors naming the line and the field", () =>
    Effect.gen(function*() {
      const notJson = yield* Effect.flip(ScriptedModel.parse(`{"text":"a"}\n{oops`, "s.jsonl"))
      assert.strictEqual(notJson.code, "INVALID_INPUT")
      assert.include(notJson.message, "s.jsonl:2: not JSON")
      const field = yield* Effect.flip(ScriptedModel.parse(`{"text":"a","toolcalls":[]}`, "s.jsonl"))
      assert.include(field.message, "s.jsonl:1")
      assert.include(field.message, "toolcalls")
      const empty = yield* Effect.flip(ScriptedModel.parse(`{"usage":{"input":1}}`, "s.jsonl"))
      assert.include(empty.message, "needs text or toolCalls")
      const none = yield* Effect.flip(ScriptedModel.parse("\n\n", "s.jsonl"))
      assert.include(none.message, "no turns")
    }))
})
