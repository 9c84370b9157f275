/**
 * The Vercel AI SDK (`ai` 6.0) side of the peer bench: `generateText` with a scripted provider
 * model (no network, answers from the conversation it is given) and a multi-step tool loop.
 */
import { generateText, type LanguageModel, stepCountIs, tool, type ToolSet } from "ai"
import type { z } from "zod"
import { builtInInputs, nextCalls, noopInput, noopOutput, type Shape } from "./shapes.js"

const usage = {
  inputTokens: { total: 100, noCache: 100, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 10, text: 10, reasoning: 0 }
}

const scriptedModel = (shape: Shape): LanguageModel => ({
  specificationVersion: "v3",
  provider: "bench",
  modelId: "scripted",
  supportedUrls: {},
  doGenerate: ({ prompt }) => {
    let results = 0
    for (const message of prompt) if (message.role === "tool") results += message.content.length
    const n = nextCalls(shape, results)
    return Promise.resolve(
      n === 0
        ? {
          content: [{ type: "text", text: "Done." }],
          finishReason: { unified: "stop", raw: "stop" },
          usage,
          warnings: []
        }
        : {
          content: Array.from({ length: n }, (_, i) => ({
            type: "tool-call" as const,
            toolCallId: `call_${results + i}`,
            toolName: "noop",
            input: JSON.stringify({ n: i })
          })),
          finishReason: { unified: "tool-calls", raw: "tool_calls" },
          usage,
          warnings: []
        }
    )
  },
  doStream: () => Promise.reject(new Error("the benchmark model does not stream"))
})

const toolsOf = (shape: Shape): ToolSet => {
  const noop = tool({ description: "Does nothing (benchmark).", inputSchema: noopInput, execute: () => noopOutput })
  if (!shape.eightTools) return { noop }
  const idle = Object.fromEntries(
    Object.entries(builtInInputs).map(([name, inputSchema]) => [
      name,
      tool({
        description: `${name} (benchmark: never called).`,
        inputSchema: inputSchema as z.ZodType<Record<string, unknown>>,
        execute: () => noopOutput
      })
    ])
  )
  return { ...idle, noop }
}

/** A function that runs the shape once through `generateText`. */
export const runner = (shape: Shape): () => Promise<void> => {
  const model = scriptedModel(shape)
  const tools = toolsOf(shape)
  const stopWhen = stepCountIs(shape.turns + 2)
  return async () => {
    const result = await generateText({ model, tools, stopWhen, prompt: "Run the benchmark." })
    if (result.text !== "Done.") throw new Error(`AI SDK run ended without the final text: ${result.finishReason}`)
  }
}
