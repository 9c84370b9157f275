/**
 * The model path builds no Schema per call (issue 38 item 1, ADR 0566): `@effect/ai`'s
 * `generateText` builds the response schema from the toolkit's tools once and reuses it. Each
 * tool's parameter schema is read when that schema is built, so a counting getter shows whether a
 * later call built it again.
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Response from "@effect/ai/Response"
import * as AiTool from "@effect/ai/Tool"
import type * as AiToolkit from "@effect/ai/Toolkit"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema, Stream } from "effect"
import * as Event from "../src/Event.js"
import * as FrozenJson from "../src/internal/frozenJson.js"

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2, reasoningTokens: undefined, cachedInputTokens: 0 }
const reply: Array<Response.PartEncoded> = [
  { type: "tool-call", id: "call_0", name: "noop", params: { n: 1 } },
  { type: "finish", reason: "tool-calls", usage }
]

/** A toolkit of one tool whose parameter schema counts how often it is read. */
const countingToolkit = () => {
  const tool = AiTool.make("noop", { parameters: { n: Schema.Number }, success: Schema.String })
  let reads = 0
  const counted = Object.create(tool, {
    parametersSchema: { get: () => (reads++, tool.parametersSchema) }
  }) as AiTool.Any
  const toolkit: AiToolkit.WithHandler<Record<string, AiTool.Any>> = {
    tools: { noop: counted },
    handle: () => Effect.die("not called")
  }
  return { toolkit, reads: () => reads }
}

describe("model path", () => {
  it.effect("the response schema is built once per toolkit, not on every model call", () =>
    Effect.gen(function*() {
      const model = yield* LanguageModel.make({
        generateText: () => Effect.succeed(reply),
        streamText: () => Stream.die("not streamed")
      })
      const { reads, toolkit } = countingToolkit()
      const call = model.generateText({ prompt: "go", toolkit, disableToolCallResolution: true })
      const first = yield* call
      const afterFirst = reads()
      assert.isAbove(afterFirst, 0)
      for (let i = 0; i < 5; i++) {
        const again = yield* call
        assert.deepStrictEqual(again.toolCalls.map((c) => c.params), [{ n: 1 }])
      }
      assert.strictEqual(reads(), afterFirst)
      assert.deepStrictEqual(first.toolCalls.map((c) => c.name), ["noop"])
    }))

  it.effect("a bad tool call is still refused by the reused schema", () =>
    Effect.gen(function*() {
      const model = yield* LanguageModel.make({
        generateText: () =>
          Effect.succeed<Array<Response.PartEncoded>>([{
            type: "tool-call",
            id: "c",
            name: "noop",
            params: { n: "x" }
          }]),
        streamText: () => Stream.die("not streamed")
      })
      const { toolkit } = countingToolkit()
      const call = model.generateText({ prompt: "go", toolkit, disableToolCallResolution: true })
      for (let i = 0; i < 2; i++) {
        const refused = yield* Effect.either(call)
        assert.strictEqual(refused._tag, "Left")
      }
    }))
})

describe("cheap events", () => {
  it.effect("event data is redacted into a frozen value the memory store keeps without a copy", () =>
    Effect.gen(function*() {
      const input = Event.make("r1", "tool.result", { output: "ok", lines: ["a", "b"] })
      assert.isTrue(Object.isFrozen(input.data))
      assert.isTrue(Object.isFrozen((input.data as { lines: Array<string> }).lines))
      assert.isTrue(FrozenJson.isImmutable(input.data))
      assert.isFalse(FrozenJson.isImmutable({ output: "ok" }))
      const source = { output: "ok", lines: ["a"] }
      assert.deepStrictEqual(Event.redact(source), source)
      assert.isFalse(Object.isFrozen(source))
    }))
})
